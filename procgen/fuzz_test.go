package procgen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"strata/terraindata"
)

// fuzzOptions keep a fuzzed run small and short: rasters of at most 64×64, populations of at most
// a million candidate sites, 50 ms of Lua and 256 MiB of it, the Go reference.
func fuzzOptions(out string) Options {
	return Options{Out: out, CPU: true, Timeout: 50 * time.Millisecond, maxTexels: 64 * 64, maxSites: 1e6, maxMemory: 256 << 20}
}

// checkFuzzRun holds a run to its contract: it fails with a message (never a panic, never an empty
// error), or every container it wrote validates.
func checkFuzzRun(t *testing.T, res Result, err error) {
	if err != nil {
		if strings.TrimSpace(err.Error()) == "" {
			t.Fatalf("empty error %#v", err)
		}
		var pe *Error
		if !errors.As(err, &pe) && !errors.Is(err, context.Canceled) {
			t.Fatalf("%T is no *procgen.Error: %v", err, err)
		}
	}
	for _, p := range res.Written {
		if probs := terraindata.Validate(p); len(probs) > 0 {
			t.Fatalf("%s does not validate: %v", p, terraindata.Problems(probs))
		}
	}
}

// FuzzGraph runs arbitrary scripts through the graph API: whatever Lua a script is, the run ends
// with an Error or valid containers, within its timeout.
func FuzzGraph(f *testing.F) {
	for _, s := range []string{
		"",
		src + "local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", s):param(\"input\", \"slope\"):param(\"max\", 1)\n" +
			"g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"x\"):param(\"layers\", {\"m\"})\n",
		"local g = proc.graph()\nlocal s = g:node(\"s\", \"terrain.source\"):param(\"size\", {32, 16}):param(\"resolution\", 0.5)\n" +
			"local f = g:node(\"f\", \"terrain.fbm\"):input(\"raster\", s):param(\"amplitude\", 4):param(\"featureSize\", 8)\n" +
			"local a = g:node(\"a\", \"terrain.mask\"):input(\"raster\", f):param(\"input\", \"noise\"):param(\"min\", 0.5):param(\"jitter\", 0.1)\n" +
			"local b = g:node(\"b\", \"terrain.mask\"):input(\"raster\", a):param(\"input\", \"mask\"):param(\"channel\", \"a\"):param(\"invert\", true)\n" +
			"local c = g:node(\"c\", \"terrain.scatter\"):input(\"raster\", b):param(\"density\", 0.5):param(\"rules\", {{input = \"layer\", layer = \"a\"}})\n" +
			"g:node(\"w\", \"terrain.write\"):input(\"raster\", c):param(\"name\", \"d/e\"):param(\"layers\", {\"b\", {name = \"a\", tint = \"#ff0000\"}}):param(\"holes\", \"a\")\n",
		"for i = 1, 3 do local g = proc.graph() g:node(\"n\" .. i, \"terrain.source\") end",
		"local g = proc.graph() local a = g:node(\"a\", \"terrain.fbm\") a:input(\"raster\", a)",
		"while true do end",
		"local t = {} t[t] = t print(t)",
		"os.exit(1)",
		"error({})",
		"error(nil)",
		"return proc.graph():node(\"a\", \"terrain.write\"):param(\"layers\", {1, 2, 3})",
		"local g = proc.graph() g:node(\"a\", \"terrain.mask\"):param(\"combine\", \"multiply\"):param(\"seed\", -1)",
		"setmetatable(_G, nil) print(os)",
		"coroutine.wrap(function() proc.graph():node(1, 2) end)()",
		"string.rep('x', -1) math.random(0)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		dir := t.TempDir()
		p := filepath.Join(dir, "s.lua")
		if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := RunFile(context.Background(), p, fuzzOptions(filepath.Join(dir, "out")))
		checkFuzzRun(t, res, err)
	})
}

// FuzzParam sets one param of one node type to an arbitrary Lua value, in a graph that then
// evaluates and writes it: every value is either refused with an Error naming the param, or
// evaluates to a valid container.
func FuzzParam(f *testing.F) {
	for _, c := range []struct{ typ, key, value string }{
		{"terrain.source", "size", "{16, 8}"},
		{"terrain.source", "resolution", "0.25"},
		{"terrain.source", "origin", "{1e30, -1e30}"},
		{"terrain.fbm", "amplitude", "1e38"},
		{"terrain.fbm", "octaves", "16"},
		{"terrain.fbm", "featureSize", "1e-30"},
		{"terrain.mask", "input", `"curvature"`},
		{"terrain.mask", "min", "0/0"},
		{"terrain.mask", "feather", "1e30"},
		{"terrain.mask", "jitter", "3"},
		{"terrain.mask", "combine", `"add"`},
		{"terrain.mask", "gradientStep", "1e-9"},
		{"terrain.scatter", "density", "100"},
		{"terrain.scatter", "rules", `{{input = "noise", min = 0.2, featureSize = 1e-3}}`},
		{"terrain.scatter", "scale", "{2, 1}"},
		{"terrain.stack", "stack", `"x.yaml"`},
		{"terrain.import", "file", `"../../etc/passwd"`},
		{"terrain.write", "layers", `{"m", "m"}`},
		{"terrain.write", "atlasSize", "{8, 2}"},
	} {
		f.Add(c.typ, c.key, c.value)
	}
	f.Fuzz(func(t *testing.T, typ, key, value string) {
		var b strings.Builder
		b.WriteString("local g = proc.graph()\nlocal s = g:node(\"s\", \"terrain.source\"):param(\"size\", {16, 12})\n")
		b.WriteString("local m0 = g:node(\"m0\", \"terrain.mask\"):input(\"raster\", s):param(\"input\", \"slope\"):param(\"max\", 1)\n")
		fmt.Fprintf(&b, "local n = g:node(\"n\", %q)\n", typ)
		b.WriteString("pcall(function() n:input(\"raster\", m0) end)\n")
		b.WriteString("pcall(function() n:param(\"name\", \"o\"):param(\"layers\", {\"m0\"}) end)\n")
		fmt.Fprintf(&b, "n:param(%q, (function() return %s\nend)())\n", key, value)
		b.WriteString("local ok, m = pcall(function() return g:node(\"m\", \"terrain.mask\"):input(\"raster\", n) end)\n")
		b.WriteString("if ok then g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"w\"):param(\"layers\", {\"m\", \"m0\"}) end\n")
		dir := t.TempDir()
		p := filepath.Join(dir, "s.lua")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := RunFile(context.Background(), p, fuzzOptions(filepath.Join(dir, "out")))
		checkFuzzRun(t, res, err)
	})
}
