package procgen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const src = "local g = proc.graph()\nlocal s = g:node(\"s\", \"terrain.source\"):param(\"size\", {64, 64})\n"

// A script's mistakes are errors naming the node, the param or input, and the script's
// file:line; the sandbox's refusals say what is not available. Nothing is written.
func TestScriptErrors(t *testing.T) {
	write := "g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"x\"):param(\"layers\", {\"m\"})\n"
	mask := "local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", s)\n"
	for _, tc := range []struct {
		name   string
		script string
		want   []string
	}{
		{"param of the wrong type", src + "local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", s)\n  :param(\"max\", \"18\")\n",
			[]string{"s.lua:4: ", `node "m" (terrain.mask)`, `param "max"`, `want a number, got the string "18"`}},
		{"unknown node type", src + "g:node(\"b\", \"terrain.blur\")\n",
			[]string{"s.lua:3: ", `node "b" (terrain.blur)`, `unknown node type "terrain.blur"`, "terrain.mask"}},
		{"cycle", src + "local a = g:node(\"a\", \"terrain.mask\")\nlocal b = g:node(\"b\", \"terrain.mask\"):input(\"raster\", a)\na:input(\"raster\", b)\n" +
			"g:node(\"w\", \"terrain.write\"):input(\"raster\", b):param(\"name\", \"x\"):param(\"layers\", {\"a\"})\n",
			[]string{"s.lua:5: ", `node "a" (terrain.mask)`, `input "raster"`, `cycle: "b" → "a" → "b"`}},
		{"self loop", src + "local a = g:node(\"a\", \"terrain.fbm\")\na:input(\"raster\", a)\n" +
			"g:node(\"w\", \"terrain.write\"):input(\"raster\", a):param(\"name\", \"x\"):param(\"layers\", {\"a\"})\n",
			[]string{"s.lua:4: ", `node "a" (terrain.fbm)`, `cycle: "a" → "a"`}},
		{"os.execute", src + "os.execute(\"touch /tmp/owned\")\n",
			[]string{"s.lua:3: ", "os is not available in a procgen script", "sandbox"}},
		{"io.open", "local f = io.open(\"/etc/passwd\")\n", []string{"s.lua:1: ", "io is not available"}},
		{"require", "require(\"socket\")\n", []string{"s.lua:1: ", "require is not available"}},
		{"dofile", "dofile(\"/etc/passwd\")\n", []string{"s.lua:1: ", "dofile is not available"}},
		{"loadstring", "loadstring(\"return 1\")()\n", []string{"s.lua:1: ", "loadstring is not available"}},
		{"load", "load(function() return nil end)\n", []string{"s.lua:1: ", "load is not available"}},
		{"debug", "debug.sethook()\n", []string{"s.lua:1: ", "debug is not available"}},
		{"writing ../x", src + mask + "g:node(\"w\", \"terrain.write\"):input(\"raster\", m)\n  :param(\"name\", \"../x\"):param(\"layers\", {\"m\"})\n",
			[]string{"s.lua:5: ", `node "w" (terrain.write)`, `param "name"`, `"../x" would write outside --out`}},
		{"writing /tmp/x", src + mask + "g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"/tmp/x\"):param(\"layers\", {\"m\"})\n",
			[]string{"s.lua:4: ", `param "name"`, "relative slash path below --out"}},
		{"reading ../", src + "local h = g:node(\"h\", \"terrain.import\"):param(\"file\", \"../etc/h.png\")\n" +
			"local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", h)\n" + write,
			[]string{"s.lua:3: ", `node "h" (terrain.import)`, `param "file"`, "climbs out", "outside the script's folder and --assets"}},
		{"reading an absolute path", src + "local st = g:node(\"st\", \"terrain.stack\"):input(\"raster\", s):param(\"stack\", \"/etc/stack.yaml\")\n" +
			"local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", st)\n" + write,
			[]string{"s.lua:3: ", `param "stack"`, "outside the script's folder"}},
		{"unknown param", src + "local m = g:node(\"m\", \"terrain.mask\"):param(\"maxx\", 3)\n",
			[]string{"s.lua:3: ", `param "maxx"`, "unknown param", "feather"}},
		{"unknown input", src + "local m = g:node(\"m\", \"terrain.mask\"):input(\"height\", s)\n",
			[]string{"s.lua:3: ", `input "height"`, `terrain.mask takes "raster"`}},
		{"input not connected", src + "local m = g:node(\"m\", \"terrain.mask\")\n" + write,
			[]string{"s.lua:3: ", `node "m" (terrain.mask)`, `input "raster": is not connected`}},
		{"input is a write", src + mask + "local w = g:node(\"w\", \"terrain.write\"):input(\"raster\", m)\ng:node(\"m2\", \"terrain.mask\"):input(\"raster\", w)\n",
			[]string{"s.lua:5: ", `input "raster"`, "produces no raster"}},
		{"input from another graph", src + "local g2 = proc.graph()\ng2:node(\"m\", \"terrain.mask\"):input(\"raster\", s)\n",
			[]string{"s.lua:4: ", `belongs to another graph`}},
		{"required param", src + mask + "g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"x\")\n",
			[]string{"s.lua:4: ", `node "w" (terrain.write)`, `param "layers": is required`}},
		{"min above max", src + "local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", s):param(\"min\", 5)\n  :param(\"max\", 3)\n" + write,
			[]string{"s.lua:4: ", `param "max": min 5 > max 3`}},
		{"mask of a missing mask", src + "local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", s):param(\"input\", \"mask\"):param(\"channel\", \"snow\")\n" + write,
			[]string{"s.lua:3: ", `param "channel"`, `no mask layer "snow"`, "its masks: none"}},
		{"layer without a mask", src + mask + "g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"x\")\n  :param(\"layers\", {\"m\", \"rock\"})\n",
			[]string{"s.lua:5: ", `param "layers"`, `layers[2] "rock": the raster has no mask layer`, "its masks: m"}},
		{"bad layer table", src + mask + "g:node(\"w\", \"terrain.write\"):param(\"layers\", {{name = \"m\", albdo = \"x\"}})\n",
			[]string{"s.lua:4: ", `layers[1]: unknown key "albdo"`}},
		{"two writes of one name", src + mask + write + "g:node(\"w2\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"x\"):param(\"layers\", {\"m\"})\n",
			[]string{"s.lua:5: ", `node "w2"`, `writes "x" too`}},
		{"duplicate node", src + "g:node(\"s\", \"terrain.fbm\")\n", []string{"s.lua:3: ", "already has a node of that name (made at", "s.lua:2"}},
		{"dot call", src + "g.node(\"x\", \"terrain.fbm\")\n", []string{"s.lua:3: ", "call it with a colon"}},
		{"scatter rule", src + "local m = g:node(\"t\", \"terrain.scatter\"):input(\"raster\", s):param(\"rules\", {{input = \"slope\", softness = -1}})\n" + write,
			[]string{"s.lua:3: ", `node "t" (terrain.scatter)`, `param "rules"`, "softness"}},
		{"scatter reading an unwritten layer", src + mask + "local t = g:node(\"t\", \"terrain.scatter\"):input(\"raster\", m):param(\"rules\", {{input = \"layer\", layer = \"snow\"}})\n" +
			"g:node(\"w\", \"terrain.write\"):input(\"raster\", t):param(\"name\", \"x\"):param(\"layers\", {\"m\"})\n",
			[]string{"s.lua:4: ", `node "t" (terrain.scatter)`, `"snow"`, `written by node "w"`}},
		{"scatter too dense", src + "local t = g:node(\"t\", \"terrain.scatter\"):input(\"raster\", s):param(\"name\", \"grass\")\n  :param(\"density\", 1e6)\n" +
			"local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", t)\n" + write,
			[]string{"s.lua:4: ", `node "t" (terrain.scatter)`, `param "density"`, "0 … 100 instances/m²"}},
		{"catastrophic pattern", "print(string.find(string.rep(\"a\", 40), \".-.-.-.-.-.-.-b\"))\n",
			[]string{"s.lua:1: ", "string.find", "may backtrack", "40 bytes"}},
		{"lua runtime error", "local x = nil\nx.y = 1\n", []string{"s.lua:2: ", "attempt to index"}},
		{"syntax error", "local g = proc.graph(\nlocal x = \n", []string{"s.lua:2: ", "syntax error"}},
		{"shebang and BOM keep line numbers", "\xef\xbb\xbf#!/usr/bin/env strata run\nlocal g = proc.graph()\ng:node(\"x\", 3)\n",
			[]string{"s.lua:3: ", "type must be a string"}},
		{"huge raster", "local g = proc.graph()\nlocal s = g:node(\"s\", \"terrain.source\"):param(\"size\", {1e7, 1e7})\n" + mask + write,
			[]string{"s.lua:2: ", `param "resolution"`, "more than"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runScript(t, tc.script, nil, nil)
			if r.err == nil {
				t.Fatal("no error")
			}
			containsAll(t, "error", r.err.Error(), tc.want...)
			var pe *Error
			if !errors.As(r.err, &pe) {
				t.Errorf("%T is no *procgen.Error", r.err)
			}
			if entries, _ := os.ReadDir(filepath.Join(r.dir, "out")); len(entries) > 0 {
				t.Errorf("wrote %d entries", len(entries))
			}
		})
	}
	if _, err := os.Stat("/tmp/owned"); err == nil {
		t.Error("os.execute ran")
	}
}

// A link below the script's folder that leads out of it is refused like "..".
func TestSandboxLinks(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "h.png"), heightPNG(t, 8, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	script := src + "local h = g:node(\"h\", \"terrain.import\"):param(\"file\", \"maps/h.png\")\n" +
		"local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", h)\n" +
		"g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"x\"):param(\"layers\", {\"m\"})\n"
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "maps")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "s.lua")
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := RunFile(t.Context(), p, Options{Out: filepath.Join(dir, "out"), CPU: true})
	if err == nil || !strings.Contains(err.Error(), "outside the script's folder") {
		t.Fatalf("import through a link leading out: %v", err)
	}
	// --assets is a root of its own: the same file read from there is fine.
	_, err = RunFile(t.Context(), p, Options{Out: filepath.Join(dir, "out"), CPU: true, Assets: []string{t.TempDir(), outside}})
	if err == nil {
		t.Fatal("the script folder's link still resolves first and must still be refused")
	}
	script = strings.Replace(script, "maps/h.png", "h.png", 1)
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = RunFile(t.Context(), p, Options{Out: filepath.Join(dir, "out"), CPU: true, Assets: []string{outside}}); err != nil {
		t.Fatalf("an asset below --assets: %v", err)
	}
}

// A script may catch an API error with pcall and carry on; print goes to Options.Print.
func TestPcallAndPrint(t *testing.T) {
	r := mustRun(t, src+`
local ok, err = pcall(function() g:node("x", "terrain.nope") end)
print(ok, err)
print(tostring(s))
local words = {}
for w in ("one two"):gmatch("%a+") do words[#words + 1] = w end
print(table.concat(words, "+"), (("  x  "):gsub("^%s*(.-)%s*$", "%1")))
`, nil, nil)
	if len(r.printed) != 3 || r.printed[2] != "one+two\tx" || !strings.HasPrefix(r.printed[0], "false\t") || !strings.Contains(r.printed[0], "unknown node type") ||
		r.printed[1] != `node "s" (terrain.source)` {
		t.Errorf("printed %q", r.printed)
	}
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0], "no terrain.write") {
		t.Errorf("warnings %q, want one saying nothing was written", r.warnings)
	}
}

// A link below --out that leads out of it is not written through.
func TestOutputLink(t *testing.T) {
	outside := t.TempDir()
	r := runScript(t, src+"local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", s)\n"+
		"g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"cells/x\"):param(\"layers\", {\"m\"})\n", nil,
		func(o *Options) {
			os.MkdirAll(o.Out, 0o755)
			if err := os.Symlink(outside, filepath.Join(o.Out, "cells")); err != nil {
				t.Fatal(err)
			}
		})
	if r.err == nil || !strings.Contains(r.err.Error(), "leads outside") {
		t.Fatalf("write through a link leading out: %v", r.err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote %d entries outside --out", len(entries))
	}
}

// outputPath follows links the way the sandbox means: the part of a write's folder that exists
// must really be below --out (a link inside --out, or --out itself a link, is fine); folders
// still to be made are below it by construction.
func TestOutputPathLinks(t *testing.T) {
	out, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(out, "real", "deep"), 0o755)
	os.Symlink(filepath.Join(out, "real"), filepath.Join(out, "in"))
	os.Symlink(outside, filepath.Join(out, "away"))
	linkedOut := filepath.Join(t.TempDir(), "linked")
	os.Symlink(out, linkedOut)
	for _, tc := range []struct {
		out, name string
		ok        bool
	}{
		{out, "x", true},
		{out, "new/folders/x", true},
		{out, "in/x", true},
		{out, "in/deep/new/x", true},
		{linkedOut, "in/x", true},
		{out, "away/x", false},
		{out, "away/new/folders/x", false},
		{linkedOut, "away/x", false},
	} {
		p, err := outputPath(tc.out, tc.name)
		switch {
		case tc.ok && (err != nil || p != filepath.Join(tc.out, filepath.FromSlash(tc.name))+".terrainData"):
			t.Errorf("%s below %s: %q, %v", tc.name, tc.out, p, err)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), "leads outside")):
			t.Errorf("%s below %s: %q, %v; want a link leading outside refused", tc.name, tc.out, p, err)
		}
	}
	// An asset through a link that stays below the root is read; one leading out is refused,
	// naming where it leads.
	os.WriteFile(filepath.Join(out, "real", "h.png"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "h.png"), []byte("x"), 0o644)
	if err := inside(out, filepath.Join(out, "in", "h.png")); err != nil {
		t.Errorf("a link within the root: %v", err)
	}
	err := inside(out, filepath.Join(out, "away", "h.png"))
	if real, _ := filepath.EvalSymlinks(filepath.Join(outside, "h.png")); !errors.Is(err, errOutside) || !strings.Contains(err.Error(), "it leads to "+real) {
		t.Errorf("a link leading out: %v", err)
	}
}
