package main

import (
	"bytes"
	"context"
	"errors"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"strata/erode"
	"strata/field"
	"strata/landscape"
	"strata/terraindata"
)

// erodeSource bakes the container the erode tests start from: a 96×80 ground of ridges and
// valleys (2 m texels, about 60 m of relief) with a stack of sand, rock on slopes and scree whose
// rule reads nothing yet (slope ≥ 89°).
func erodeSource(t *testing.T, dir string) string {
	t.Helper()
	const w, h = 96, 80
	g := field.NewGrid(w, h)
	for j := range h {
		for i := range w {
			x, z := float64(i), float64(j)
			g.Set(i, j, float32(70-0.4*x+8*math.Sin(x*0.21)*math.Cos(z*0.17)+5*math.Sin(z*0.33+x*0.05)))
		}
	}
	hp := filepath.Join(dir, "h.f32")
	f, err := os.Create(hp)
	if err != nil {
		t.Fatal(err)
	}
	if err := field.EncodeF32(f, g); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st := filepath.Join(dir, "s.yaml")
	os.WriteFile(st, []byte(`version: 1
layers:
  - {name: sand, tint: "#c8a872"}
  - name: rock
    rules: [{input: slope, min: 30, softness: 4}]
  - name: scree
    rules: [{input: slope, min: 89}]
`), 0o644)
	src := filepath.Join(dir, "src.terrainData")
	code, stdout, stderr := runCmd("bake", "--cpu", "--stack", st, "--height", hp, "--height-size", "96x80", "--size", "192x160", "--out", src)
	if code != exitOK {
		t.Fatalf("bake: exit %d\n%s%s", code, stdout, stderr)
	}
	return src
}

// payloads reads the bytes of the container's height and channel payloads and its controls.
func payloads(t *testing.T, p string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "data.") {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(p, path)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// strata erode end to end: the eroded container validates and stores the three channels, the
// ground changed, two runs write the same payloads; then a rule reading erosion.deposit is
// added to the eroded container's stack and a second erode evaluates it: the scree layer covers
// exactly the texels whose stored deposit reaches its min.
func TestErodeCommand(t *testing.T) {
	dir := t.TempDir()
	src := erodeSource(t, dir)
	e1 := filepath.Join(dir, "e1.terrainData")
	code, stdout, stderr := runCmd("erode", src, "--out", e1, "--preset", "old mountains", "--iterations", "40", "--seed", "3", "--cpu")
	if code != exitOK || !strings.Contains(stdout, `eroded `+src+`: preset "old mountains", 40 iterations`) || !strings.Contains(stdout, "wrote "+e1) {
		t.Fatalf("erode: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "erode: 100%") || !strings.Contains(stderr, "evaluate: 100%") {
		t.Errorf("no erosion or evaluation progress on stderr:\n%s", stderr)
	}
	if code, _, stderr := runCmd("validate", e1); code != exitOK {
		t.Fatalf("validate: %s", stderr)
	}
	c, err := terraindata.Open(e1)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{erode.ChannelFlow, erode.ChannelDeposit, erode.ChannelWear} {
		if _, ok := c.Manifest().Channels[name]; !ok {
			t.Errorf("the eroded container stores no channel %s (channels %v)", name, c.Manifest().Channels)
		}
	}
	before, err := landscape.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	after, err := landscape.Open(e1)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for k, v := range after.Field.Height.Data {
		if v != before.Field.Height.Data[k] {
			changed++
		}
		dep, wear := after.Field.Channels[erode.ChannelDeposit].Data[k], after.Field.Channels[erode.ChannelWear].Data[k]
		if d := v - before.Field.Height.Data[k]; d != dep-wear {
			t.Fatalf("texel %d: height changed by %v, deposit − wear = %v", k, d, dep-wear)
		}
	}
	if changed < len(after.Field.Height.Data)/2 {
		t.Errorf("erosion changed %d of %d heights", changed, len(after.Field.Height.Data))
	}
	again := filepath.Join(dir, "again.terrainData")
	if code, _, stderr := runCmd("erode", "--out", again, "--preset", "old mountains", "--iterations", "40", "--seed", "3", "--cpu", src); code != exitOK {
		t.Fatalf("second run: %s", stderr)
	}
	a, b := payloads(t, e1), payloads(t, again)
	if len(a) != len(b) || len(a) < 5 {
		t.Fatalf("payloads: %d and %d", len(a), len(b))
	}
	for k := range a {
		if !bytes.Equal(a[k], b[k]) {
			t.Errorf("%s differs between two runs", k)
		}
	}

	// The scree rule reads erosion.deposit now that the container stores it.
	sp := filepath.Join(e1, "stack.yaml")
	sy, _ := os.ReadFile(sp)
	sy2 := strings.Replace(string(sy), "{input: slope, min: 89}", "{input: channel, channel: erosion.deposit, min: 0.05}", 1)
	if sy2 == string(sy) {
		t.Fatalf("stack.yaml has no scree rule to replace:\n%s", sy)
	}
	os.WriteFile(sp, []byte(sy2), 0o644)
	e2 := filepath.Join(dir, "e2.terrainData")
	if code, stdout, stderr := runCmd("erode", e1, "--out", e2, "--preset", "light rain", "--iterations", "10", "--cpu"); code != exitOK {
		t.Fatalf("erode with a deposit rule: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := runCmd("validate", e2); code != exitOK {
		t.Fatalf("validate: %s", stderr)
	}
	l2, err := landscape.Open(e2)
	if err != nil {
		t.Fatal(err)
	}
	dep := l2.Field.Channels[erode.ChannelDeposit]
	ctl, err := os.Open(filepath.Join(e2, "control0.texture", "data.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(ctl)
	ctl.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != dep.W || b.Dy() != dep.H {
		t.Fatalf("controls %v, height grid %d×%d", b, dep.W, dep.H)
	}
	scree, wrong := 0, 0
	for j := range dep.H {
		for i := range dep.W {
			// Row 0 is the field's minimum Z in the grid and the controls alike.
			w := color.NRGBAModel.Convert(img.At(i, j)).(color.NRGBA).B
			want := dep.At(i, j) >= 0.05
			if want {
				scree++
			}
			if (w == 255) != want || (w != 0 && w != 255) {
				wrong++
			}
		}
	}
	if scree == 0 || scree == dep.W*dep.H || wrong > 0 {
		t.Errorf("scree where deposit ≥ 0.05 m: %d texels want it, %d texels disagree", scree, wrong)
	}
}

// An interrupted erode (here while it erodes, as Ctrl+C would) writes nothing at --out; bad
// flags are usage errors naming the flag; a world's cell and a container with no stack are
// refused by name.
func TestErodeCancelAndRefusals(t *testing.T) {
	dir := t.TempDir()
	src := erodeSource(t, dir)
	out := filepath.Join(dir, "out.terrainData")
	for _, stage := range []string{"erode: ", "evaluate: "} {
		ctx, cancel := context.WithCancel(context.Background())
		w := &cancelOn{prefix: stage, cancel: cancel}
		o := &erodeOptions{out: out, preset: "default", iterations: 30, seed: 1, cpu: true}
		err := erodeCommand(ctx, src, o, io.Discard, w)
		cancel()
		if !w.seen {
			t.Fatalf("never reported %q:\n%s", stage, w.buf.String())
		}
		if err == nil || !strings.Contains(err.Error(), "interrupted") || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at %q: err %v", stage, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("cancelled at %q: %s exists (%v)", stage, out, err)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") && !strings.HasSuffix(e.Name(), ".lock") { // the saves' locks stay (safeio.Lock)
				t.Errorf("cancelled at %q: left behind %s", stage, e.Name())
			}
		}
	}
	// A world's cell (a container beside a world.yaml) and a container with no stack (a procgen
	// script's) are refused by name.
	wdir := filepath.Join(dir, "w")
	os.MkdirAll(wdir, 0o755)
	os.WriteFile(filepath.Join(wdir, "world.yaml"), []byte("version: 1\n"), 0o644)
	cell := filepath.Join(wdir, "x0_z0.terrainData")
	if err := os.Rename(erodeSource(t, t.TempDir()), cell); err != nil {
		t.Fatal(err)
	}
	lua := filepath.Join(dir, "g.lua")
	os.WriteFile(lua, []byte(`local g = proc.graph()
local r = g:node("ground", "terrain.source"):param("size", {64, 64}):param("resolution", 2)
r = g:node("m", "terrain.mask"):input("raster", r):param("input", "height")
g:node("out", "terrain.write"):input("raster", r):param("name", "gen"):param("layers", {"m"})
return g
`), 0o644)
	if code, stdout, stderr := runCmd("run", lua, "--out", filepath.Join(dir, "gen"), "--cpu"); code != exitOK {
		t.Fatalf("strata run: exit %d\n%s%s", code, stdout, stderr)
	}
	gen := filepath.Join(dir, "gen", "gen.terrainData")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"erode", cell, "--out", out, "--cpu"}, exitFail, "is a cell of the world " + wdir + ": erosion is global"},
		{[]string{"erode", gen, "--out", out, "--cpu"}, exitFail, "stack: none: the landscape was generated by the procgen script"},
		{[]string{"erode", src, "--out", out, "--preset", "heavy snow"}, exitUsage, `preset "heavy snow": no such preset`},
		{[]string{"erode", src}, exitUsage, "missing --out"},
		{[]string{"erode", "--out", out}, exitUsage, "missing IN.terrainData"},
		{[]string{"erode", src, "--out", out, "--iterations", "-3"}, exitUsage, "--iterations -3"},
		{[]string{"erode", src, "--out", out, "--seed", "4294967296"}, exitUsage, "--seed 4294967296"},
		{[]string{"erode", filepath.Join(dir, "none.terrainData"), "--out", out, "--cpu"}, exitFail, "none.terrainData"},
	} {
		code, _, stderr := runCmd(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, stderr)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused erode wrote %s", out)
	}
}

// strata bench erode times an erosion: per iteration, total, cells/s; bad flags are usage errors.
func TestBenchErode(t *testing.T) {
	code, stdout, stderr := runCmd("bench", "erode", "--size", "32", "--iterations", "3", "--preset", "desert wash", "--cpu")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	containsAll := func(s string, want ...string) {
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("output does not say %q:\n%s", w, s)
			}
		}
	}
	containsAll(stdout, `erode 32×32 (4×4 m texels), preset "desert wash"`, "Go reference (--cpu)", "hydraulic: 3 iterations in", "per iteration (median", "M cells/s", "thermal settle:", "total:", "flow 32×32 (the ground before erosion), Go reference (--cpu):")
	for _, c := range [][]string{{"--size", "8"}, {"--preset", "drizzle"}, {"--iterations", "-2"}, {"extra"}} {
		if code, _, stderr := runCmd(append([]string{"bench", "erode"}, c...)...); code != exitUsage {
			t.Errorf("bench erode %q: exit %d, want 2\n%s", c, code, stderr)
		}
	}
}

// Without --cpu, strata erode erodes on the evaluator the automatic choice makes and says which:
// the GPU's kernels, or on a software adapter (lavapipe, this machine) the Go reference, whose
// height is then the --cpu run's, byte for byte.
func TestErodeCommandEvaluator(t *testing.T) {
	dir := t.TempDir()
	src := erodeSource(t, dir)
	cpu, auto := filepath.Join(dir, "cpu.terrainData"), filepath.Join(dir, "auto.terrainData")
	if code, _, stderr := runCmd("erode", src, "--out", cpu, "--iterations", "20", "--cpu"); code != exitOK {
		t.Fatalf("--cpu: %s", stderr)
	}
	code, stdout, stderr := runCmd("erode", src, "--out", auto, "--iterations", "20")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	software := strings.Contains(stdout, "; Go reference (faster than the software adapter ")
	if !software && !strings.Contains(stdout, "; GPU ") {
		t.Fatalf("the output does not say which evaluator eroded:\n%s", stdout)
	}
	a, err := landscape.Open(cpu)
	if err != nil {
		t.Fatal(err)
	}
	b, err := landscape.Open(auto)
	if err != nil {
		t.Fatal(err)
	}
	same := slices.Equal(a.Field.Height.Data, b.Field.Height.Data)
	if software != same {
		t.Errorf("software adapter %v, height equal to the --cpu run's %v", software, same)
	}
}

// With --gpu, strata bench erode times the GPU kernels on any adapter (lavapipe here), its flow
// line and the flow's phases; without a flag it erodes on the evaluator strata erode chooses — on
// a software adapter (this machine) the Go reference, the faster there — and says so; --cpu and
// --gpu together are a usage error.
func TestBenchErodeGPU(t *testing.T) {
	code, stdout, stderr := runCmd("bench", "erode", "--size", "32", "--iterations", "2", "--gpu")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, w := range []string{`erode 32×32 (4×4 m texels), preset "default", GPU `, "hydraulic: 2 iterations in", "flow 32×32 (the ground before erosion), GPU ",
		"flow again, its phases: ", "flats ", " passes), accumulate ", "sub-waves on the critical path), plane read back "} {
		if !strings.Contains(stdout, w) {
			t.Errorf("--gpu: output does not say %q:\n%s", w, stdout)
		}
	}
	software := strings.Contains(stdout, " (cpu, ") // the adapter's type, as the device names it
	code, stdout, stderr = runCmd("bench", "erode", "--size", "32", "--iterations", "2")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	want := `preset "default", GPU `
	if software {
		want = `preset "default", Go reference (faster than the software adapter `
	}
	if !strings.Contains(stdout, want) {
		t.Errorf("default evaluator (software adapter %v): output does not say %q:\n%s", software, want, stdout)
	}
	if code, _, stderr := runCmd("bench", "erode", "--cpu", "--gpu"); code != exitUsage || !strings.Contains(stderr, "choose one") {
		t.Errorf("--cpu --gpu: exit %d, want 2\n%s", code, stderr)
	}
}
