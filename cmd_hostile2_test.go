package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"strata/field"
	"strata/internal/safeio"
	"strata/landscape"
	"strata/stack"
	"strata/terraindata"
	"strata/world"
)

// Issue 18, "Hostile input, second round": the procgen, world and export paths.

// tinyWorldSources writes a 16² heightmap and a one-layer stack in dir and returns bake's source
// flags for them (the cheapest world there is).
func tinyWorldSources(t *testing.T, dir string) []string {
	t.Helper()
	stack := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(stack, []byte("version: 1\nlayers: [{name: a}, {name: b, rules: [{input: slope, min: 20}]}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--stack", stack, "--height", writeHeightPNG(t, dir, 16), "--size", "160x160", "--spacing", "declared"}
}

// TestHostileJobFiles is the class "injection into emitted job files": a control character in any
// value written into bake-job.yaml or bake.sbatch is refused before the plan runs, exit 1 naming
// the value, and nothing is emitted; values with spaces and quotes are quoted where they are
// written, so the files parse as one document / one script and the printed commands run as
// printed.
func TestHostileJobFiles(t *testing.T) {
	dir := t.TempDir()
	src := tinyWorldSources(t, dir)
	exe := filepath.Join(dir, "bin\nrm -rf ~", "strata")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc string
		out  string
		args []string
		want string
	}{
		{"a YAML document in --mount", "w.world", []string{"--emit", "k8s", "--mount", "/data\n---\napiVersion: v1\nkind: Pod"}, "--mount"},
		{"a key in --image", "w.world", []string{"--emit", "k8s", "--image", "strata:latest\n          securityContext: {privileged: true}"}, "--image"},
		{"a carriage return in --claim", "w.world", []string{"--emit", "k8s", "--claim", "strata\rworld"}, "--claim"},
		{"a NUL in --volume-root", "w.world", []string{"--emit", "k8s", "--volume-root", dir + "\x00/etc"}, "--volume-root"},
		{"DEL in --mount", "w.world", []string{"--emit", "k8s", "--mount", "/data\x7f"}, "--mount"},
		{"white space in --image", "w.world", []string{"--emit", "k8s", "--image", "strata latest"}, "--image"},
		{"a claim that is no name", "w.world", []string{"--emit", "k8s", "--claim", "x: y"}, "--claim"},
		{"a relative --mount", "w.world", []string{"--emit", "k8s", "--mount", "data"}, "--mount"},
		{"a newline in the world's folder (k8s)", "w\necho owned.world", []string{"--emit", "k8s"}, "the world folder"},
		{"a newline in the world's folder (slurm)", "w\necho owned.world", []string{"--emit", "slurm", "--strata", os.Args[0]}, "the world folder"},
		{"an escape in the world's folder", "w\x1b[2J.world", []string{"--emit", "slurm", "--strata", os.Args[0]}, "the world folder"},
		{"a newline in the strata binary's path", "w.world", []string{"--emit", "slurm", "--strata", exe}, "--strata"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			wd := filepath.Join(dir, tc.out)
			code, _, errs := runCmd(append(append([]string{"world", "plan", "--cells", "1x1", "--out", wd}, src...), tc.args...)...)
			if code != exitFail || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want 1 naming %s:\n%s", code, tc.want, errs)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") > 1 {
				t.Errorf("the message spans lines (a control character printed raw?):\n%s", errs)
			}
			for _, f := range []string{world.K8sFile, world.SlurmFile, world.FileName} {
				if _, err := os.Stat(filepath.Join(wd, f)); err == nil {
					t.Errorf("%s written", f)
				}
			}
		})
	}

	// Spaces and quotes are data: the Job file is one document whose values are the paths, the
	// script is one bash script, and the printed commands name the files quoted.
	wd := filepath.Join(dir, "it's a \"world\" $(id).world")
	code, out, errs := runCmd(append(append([]string{"world", "plan", "--cells", "1x1", "--out", wd}, src...),
		"--emit", "k8s,slurm", "--strata", os.Args[0], "--mount", "/mnt/my data", "--image", "reg.example/strata:1")...)
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	b, _ := os.ReadFile(filepath.Join(wd, world.K8sFile))
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	var job struct {
		Kind string
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Image        string
						Command      []string
						VolumeMounts []struct {
							MountPath string `yaml:"mountPath"`
						} `yaml:"volumeMounts"`
					}
				}
			}
		}
	}
	if err := dec.Decode(&job); err != nil {
		t.Fatal(err)
	}
	var extra any
	if err := dec.Decode(&extra); err == nil {
		t.Error("bake-job.yaml holds more than one document")
	}
	c := job.Spec.Template.Spec.Containers
	if job.Kind != "Job" || len(c) != 1 || c[0].Image != "reg.example/strata:1" || c[0].VolumeMounts[0].MountPath != "/mnt/my data" ||
		c[0].Command[3] != "/mnt/my data/"+filepath.Base(wd) {
		t.Errorf("bake-job.yaml read back as %+v", job)
	}
	script := filepath.Join(wd, world.SlurmFile)
	if b, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, b)
	}
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "`"); i >= 0 {
			cmd := line[i+1:]
			cmd = cmd[:strings.Index(cmd, "`")]
			// The printed command, as a shell splits it, names the file whole.
			b, err := exec.Command("bash", "-c", `printf '%s\n' `+cmd).Output()
			if err != nil || !strings.Contains(string(b), "\n"+wd+"/") {
				t.Errorf("%q does not name the file as one word: %v\n%s", cmd, err, b)
			}
		}
	}

	// A world named -x: the plan's advice runs as printed.
	t.Chdir(dir)
	code, out, errs = runCmd(append([]string{"world", "plan", "--cells", "1x1", "--out", "-x"}, src...)...)
	if code != exitOK {
		t.Fatalf("plan -x: exit %d\n%s", code, errs)
	}
	i := strings.Index(out, "one task per cell: `")
	if i < 0 {
		t.Fatalf("no advice in:\n%s", out)
	}
	advice := out[i+len("one task per cell: `"):]
	advice = strings.Replace(advice[:strings.Index(advice, "`")], "I", "0", 1)
	words := strings.Fields(advice)
	if words[0] != "strata" {
		t.Fatalf("advice %q", advice)
	}
	if code, _, errs := runCmd(append(words[1:], "--cpu")...); code != exitOK {
		t.Errorf("%s: exit %d\n%s", advice, code, errs)
	}
}

// runBounded runs the command in process and fails the test when it takes more than a minute or
// panics.
func runBounded(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{-1, "", fmt.Sprint("panic: ", r)}
			}
		}()
		code, out, errs := runCmd(args...)
		done <- result{code, out, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errs
	case <-time.After(60 * time.Second):
		t.Fatalf("strata %s hung", strings.Join(args, " "))
	}
	return 0, "", ""
}

// TestHostileReadsOutside is the class "reading outside what was asked": a world.yaml edited to
// name a file it should not read — a private key as its stack, an absolute path, a path with
// inner steps, one outside --root — is refused naming world.yaml's field, and no error quotes
// more than a short excerpt of a file that does not parse; a container whose script/ copy is a
// FIFO or links out of it is refused by bake --from (the editor's open) in bounded time.
func TestHostileReadsOutside(t *testing.T) {
	dir := t.TempDir()
	src := tinyWorldSources(t, dir)
	wd := filepath.Join(dir, "w.world")
	if code, _, errs := runCmd(append([]string{"world", "plan", "--cells", "1x1", "--out", wd}, src...)...); code != exitOK {
		t.Fatalf("plan: %s", errs)
	}
	plan, _ := os.ReadFile(filepath.Join(wd, world.FileName))
	secretDir := t.TempDir()
	key := filepath.Join(secretDir, "id_ed25519")
	body := strings.Repeat("c2VjcmV0LWtleS1tYXRlcmlhbA", 40)
	os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"+body+"\n-----END OPENSSH PRIVATE KEY-----\n"), 0o600)
	relKey, _ := filepath.Rel(wd, key)
	withStack := func(stack string) string {
		return strings.Replace(string(plan), "stack: ../s.yaml", "stack: "+stack, 1)
	}
	if withStack("X") == string(plan) {
		t.Fatalf("the plan names no stack ../s.yaml:\n%s", plan)
	}
	for _, tc := range []struct {
		desc string
		plan string
		args []string
		want string
	}{
		{"stack: a private key (its content was printed whole)", withStack(relKey), nil, "want a mapping"},
		{"stack: a private key outside --root", withStack(relKey), []string{"--root", dir}, "outside " + dir},
		{"stack: an absolute path", withStack(key), nil, "stack"},
		{"stack: inner steps", withStack("../x/../s.yaml"), nil, "not a clean path"},
		{"stack: a control character", withStack(`"../s\u0007.yaml"`), nil, "control character"},
		{"a key of 100 000 bytes", "? " + strings.Repeat("k", 100000) + "\n: 1\n" + string(plan), nil, "more bytes left out"},
		{"a value of 100 000 bytes", strings.Replace(string(plan), "spacing: declared", "spacing: "+strings.Repeat("v", 100000), 1), nil, "spacing"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			os.WriteFile(filepath.Join(wd, world.FileName), []byte(tc.plan), 0o644)
			code, _, errs := runBounded(t, append([]string{"world", "bake", wd, "--cell", "0", "--cpu"}, tc.args...)...)
			if code != exitFail || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want 1 with %q:\n%.2000s", code, tc.want, errs)
			}
			if strings.Contains(errs, body[:60]) {
				t.Errorf("the error quotes the key:\n%s", errs)
			}
			for _, line := range strings.Split(errs, "\n") {
				if len(line) > 600 {
					t.Errorf("a line of %d bytes: %.300s…", len(line), line)
				}
			}
		})
	}
	os.WriteFile(filepath.Join(wd, world.FileName), plan, 0o644)
	if code, _, errs := runCmd("world", "bake", wd, "--cell", "0", "--cpu", "--root", dir); code != exitOK {
		t.Errorf("the plan as written, inside --root: exit %d\n%s", code, errs)
	}

	// The editor's open (bake --from) of a container whose script copy is not a regular file
	// inside it.
	for _, tc := range []struct {
		desc    string
		breakIt func(script string)
		want    string
	}{
		{"script a FIFO (was a hang)", func(p string) { os.Remove(p); syscall.Mkfifo(p, 0o644) }, "FIFO"},
		{"script a link to a key outside", func(p string) { os.Remove(p); os.Symlink(key, p) }, "outside the container"},
		{"script a link to /dev/zero", func(p string) { os.Remove(p); os.Symlink("/dev/zero", p) }, "outside the container"},
		{"script a folder", func(p string) { os.Remove(p); os.Mkdir(p, 0o755) }, "folder"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			c := scriptContainer(t)
			tc.breakIt(filepath.Join(c, landscape.ScriptDir, "x.lua"))
			code, _, errs := runBounded(t, "bake", "--from", c, "--cpu", "--out", filepath.Join(t.TempDir(), "o.terrainData"))
			if code != exitFail || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "script") {
				t.Errorf("exit %d, want 1 naming the script and %q:\n%s", code, tc.want, errs)
			}
			if code, _, _ := runBounded(t, "validate", c); code != exitFail {
				t.Errorf("validate: exit %d", code)
			}
		})
	}
}

// scriptContainer writes a small container that carries a script copy (script/x.lua), as a
// procgen run leaves one.
func scriptContainer(t *testing.T) string {
	t.Helper()
	s := stack.New()
	s.Layers = []stack.Layer{stack.NewLayer("a")}
	w := landscape.NewWeights(8, 8)
	for i := 0; i < len(w.Lo); i += 4 {
		w.Lo[i] = 255
	}
	p := filepath.Join(t.TempDir(), "c.terrainData")
	l := &landscape.Landscape{Stack: s, Field: field.SampleDunesSized(8), Weights: w,
		Script: &landscape.Script{Name: "x.lua", Source: []byte("-- x"), Write: "c"}}
	if err := landscape.Write(p, l); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeScript writes a procgen script with one terrain.write per name, each of a 64 m square.
func writeScript(t *testing.T, dir string, names ...string) string {
	t.Helper()
	s := `local g = proc.graph()
local ground = g:node("ground", "terrain.source"):param("size", {64, 64}):param("resolution", 8)
local m = g:node("m", "terrain.mask"):input("raster", ground):param("name", "a"):param("input", "slope"):param("max", 90)
`
	for i, n := range names {
		s += fmt.Sprintf("g:node(%q, \"terrain.write\"):input(\"raster\", m):param(\"name\", %q):param(\"layers\", {{name = \"a\"}})\n", fmt.Sprint("w", i), n)
	}
	p := filepath.Join(dir, "s.lua")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileSilentLoss is the class "silent loss": two outputs of one command that resolve to
// one file are refused before anything is written (terrain.write names, export outputs, through a
// link too); a killed export's temporary files are cleaned by the next export of the same output;
// two bakes of one --out take turns on its lock instead of failing.
func TestHostileSilentLoss(t *testing.T) {
	t.Run("terrain.write names", func(t *testing.T) {
		for _, tc := range []struct {
			desc  string
			names []string
			want  string
		}{
			{"x and x.terrainData", []string{"x", "x.terrainData"}, `both write x.terrainData`},
			{"twice the same", []string{"a/x", "a/x"}, `writes "a/x" too`},
			{"through a link below --out", []string{"l/x", "d/x"}, "both write"},
		} {
			t.Run(tc.desc, func(t *testing.T) {
				dir := t.TempDir()
				out := filepath.Join(dir, "out")
				os.MkdirAll(filepath.Join(out, "d"), 0o755)
				os.Symlink("d", filepath.Join(out, "l"))
				code, _, errs := runBounded(t, "run", writeScript(t, dir, tc.names...), "--out", out, "--cpu")
				if code != exitFail || !strings.Contains(errs, tc.want) || !strings.Contains(errs, `param "name"`) {
					t.Errorf("exit %d, want 1 with %q:\n%s", code, tc.want, errs)
				}
				for _, n := range tc.names {
					if _, err := os.Stat(filepath.Join(out, n+".terrainData")); err == nil {
						t.Errorf("%s written", n)
					}
				}
			})
		}
		dir := t.TempDir()
		if code, _, errs := runBounded(t, "run", writeScript(t, dir, "x", "y"), "--out", filepath.Join(dir, "out"), "--cpu"); code != exitOK {
			t.Fatalf("two names, two containers: exit %d\n%s", code, errs)
		}
	})

	t.Run("export outputs", func(t *testing.T) {
		p := hostileContainer(t)
		dir := t.TempDir()
		ctl := filepath.Join(dir, "ctl")
		os.Symlink(ctl, filepath.Join(dir, "alias"))
		for _, tc := range []struct {
			desc string
			args []string
		}{
			{"heightmap is a control file", []string{"--controls", ctl, "--heightmap", filepath.Join(ctl, "control0.png")}},
			{"heightmap is a control file through a link", []string{"--controls", ctl, "--heightmap", filepath.Join(dir, "alias", "control0.png")}},
			{"heightmap is the instances folder", []string{"--controls", ctl, "--heightmap", ctl + ".png", "--instances", ctl + ".png"}},
			{"heightmap is the controls folder", []string{"--controls", ctl + ".exr", "--heightmap", ctl + ".exr"}},
		} {
			t.Run(tc.desc, func(t *testing.T) {
				code, _, errs := runBounded(t, append([]string{"export", p}, tc.args...)...)
				if code != exitFail || !strings.Contains(errs, "are one file") {
					t.Errorf("exit %d, want 1 with \"are one file\":\n%s", code, errs)
				}
				if _, err := os.Stat(filepath.Join(ctl, "control0.png")); err == nil {
					t.Error("controls written before the refusal")
				}
			})
		}
		// One folder for controls and instances is fine (their files differ).
		if code, _, errs := runBounded(t, "export", p, "--controls", ctl, "--instances", ctl); code != exitOK {
			t.Errorf("controls and instances in one folder: exit %d\n%s", code, errs)
		}
	})

	t.Run("temporary files of a killed export", func(t *testing.T) {
		p := hostileContainer(t)
		out := t.TempDir()
		// What an export killed mid-write leaves (safeio.Create's names), and one of another output.
		for _, n := range []string{".h.r16.tmp-2719", ".h.r16.tmp-3318876", ".f.png.tmp-12"} {
			os.WriteFile(filepath.Join(out, n), []byte("partial"), 0o600)
		}
		if code, _, errs := runBounded(t, "export", p, "--heightmap", filepath.Join(out, "h.r16")); code != exitOK {
			t.Fatalf("export: exit %d\n%s", code, errs)
		}
		var names []string
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if strings.Join(names, " ") != ".f.png.tmp-12 h.r16" {
			t.Errorf("left %v, want the other output's temporary file and h.r16", names)
		}
	})

	t.Run("two bakes of one --out", func(t *testing.T) {
		dir := t.TempDir()
		src := tinyWorldSources(t, dir)[:6] // --stack, --height, --size
		out := filepath.Join(dir, "o", "x.terrainData")
		os.MkdirAll(filepath.Dir(out), 0o755)
		waiting := make(chan string, 2)
		defer safeio.SetWaitHook(func(p string) { waiting <- p })()
		// Hold the lock as a third writer would, start both bakes, hear each wait for it, let go.
		lk, err := safeio.LockExclusive(terraindata.LockPath(out))
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			code int
			errs string
		}
		done := make(chan result, 2)
		for range 2 {
			go func() {
				code, _, errs := runCmd(append([]string{"bake", "--cpu", "--out", out}, src...)...)
				done <- result{code, errs}
			}()
			select {
			case w := <-waiting:
				if w != terraindata.LockPath(out) {
					t.Errorf("waited for %s", w)
				}
			case r := <-done:
				t.Fatalf("a bake ended without waiting for the lock: exit %d\n%s", r.code, r.errs)
			case <-time.After(60 * time.Second):
				t.Fatal("no bake waited for the lock")
			}
		}
		lk.Unlock()
		for range 2 {
			r := <-done
			if r.code != exitOK {
				t.Errorf("exit %d\n%s", r.code, r.errs)
			}
		}
		if code, _, errs := runCmd("validate", out); code != exitOK {
			t.Errorf("validate: %s", errs)
		}
	})
}

// TestHostileMessages: a grid whose cell count overflows, a cycle through 100 000 nodes, and a
// feature size that is 0 in float32 are refused naming the flag or param, in one short line.
func TestHostileMessages(t *testing.T) {
	dir := t.TempDir()
	for _, cells := range []string{"4294967296x4294967296", "65537x1", "1x65537", "9223372036854775807x2", "3037000500x3037000500"} {
		code, _, errs := runBounded(t, "world", "plan", "--sample", "dunes", "--cells", cells, "--out", filepath.Join(dir, "w.world"))
		if code != exitUsage || !strings.Contains(errs, `--cells "`+cells+`"`) || !strings.Contains(errs, "at most") {
			t.Errorf("--cells %s: exit %d, want 2 naming --cells:\n%s", cells, code, errs)
		}
	}
	script := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	const ground = `local g = proc.graph()
local ground = g:node("ground", "terrain.source"):param("size", {64, 64}):param("resolution", 8)
`
	const tail = `local m = g:node("m", "terrain.mask"):input("raster", f):param("name", "a"):param("input", "slope"):param("max", 90)
g:node("w", "terrain.write"):input("raster", m):param("name", "x"):param("layers", {{name = "a"}})
`
	for _, tc := range []struct {
		desc, text, want string
	}{
		{"a cycle through 99 990 nodes", `local g = proc.graph()
local first = g:node("n1", "terrain.mask"):param("name", "a"):param("input", "slope")
local prev = first
for i = 2, 99990 do
  prev = g:node("n" .. i, "terrain.mask"):input("raster", prev):param("name", "a"):param("input", "slope")
end
first:input("raster", prev)
g:node("w", "terrain.write"):input("raster", prev):param("name", "x"):param("layers", {{name = "a"}})
`, "(99983 more nodes)"},
		{"a node named with 100 000 bytes", `local g = proc.graph()
local a = g:node(string.rep("a", 100000), "terrain.mask")
`, "a node's name is at most 256"},
		{"a cycle through nodes with long names (at most 256 bytes each)", `local g = proc.graph()
local a = g:node(string.rep("a", 256), "terrain.mask")
local b = g:node(string.rep("b", 256), "terrain.mask"):input("raster", a)
a:input("raster", b)
g:node("w", "terrain.write"):input("raster", b):param("name", "x"):param("layers", {{name = "a"}})
`, "the graph has a cycle"},
		{"featureSize 1e-300 (was blamed on amplitude)", ground + `local f = g:node("f", "terrain.fbm"):input("raster", ground):param("featureSize", 1e-300)
` + tail, `param "featureSize"`},
		{"featureSize 1e-40 (a float32 whose inverse is not finite)", ground + `local f = g:node("f", "terrain.fbm"):input("raster", ground):param("featureSize", 1e-40)
` + tail, `param "featureSize"`},
		{"size 1e-300", `local g = proc.graph()
local f = g:node("ground", "terrain.source"):param("size", {1e-300, 64}):param("resolution", 8)
` + tail, `param "size"`},
		{"a mask rule's featureSize 1e-300", ground + `local f = ground
local m = g:node("m", "terrain.mask"):input("raster", f):param("name", "a"):param("input", "noise"):param("featureSize", 1e-300)
g:node("w", "terrain.write"):input("raster", m):param("name", "x"):param("layers", {{name = "a"}})
`, "featureSize"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			code, _, errs := runBounded(t, "run", script("s.lua", tc.text), "--out", filepath.Join(dir, "out"), "--cpu")
			if code != exitFail || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want 1 with %q:\n%.1000s", code, tc.want, errs)
			}
			if strings.Contains(errs, "amplitude") {
				t.Errorf("blames amplitude:\n%s", errs)
			}
			for _, line := range strings.Split(errs, "\n") {
				if len(line) > 600 {
					t.Errorf("a line of %d bytes: %.300s…", len(line), line)
				}
			}
		})
	}
}
