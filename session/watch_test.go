package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
)

func writeF32(t *testing.T, path string, g *field.Grid) {
	t.Helper()
	var b bytes.Buffer
	if err := field.EncodeF32(&b, g); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // as editors save: a new file renamed over
		t.Fatal(err)
	}
}

// A heightmap rewritten by another program is reloaded as one undoable step, and only the pages
// the view samples whose texels changed are evaluated again (one a level: the mound lies inside
// one page of every level); a corrupt rewrite is an error that keeps the data.
func TestWatchReloadsChangedTiles(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU, Width: 480, Height: 300})
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "h.f32")
	g := field.SampleDunesSized(600).Height
	writeF32(t, src, g)
	size := [2]float64{600, 600}
	if err := h.s.OpenHeightmap(ctx, src, HeightmapOptions{Import: field.ImportOptions{Size: [2]int{600, 600}}, Size: &size}); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Watch(); err != nil {
		t.Fatal(err)
	}
	before := h.waitFrame(h.s.Version())
	need := h.s.view.WeightsNeed(480, 300)
	levels := map[int]bool{}
	for _, k := range need {
		levels[k.Level] = true
	}
	if len(need) < 3 || len(levels) < 2 {
		t.Fatalf("the view samples %d pages of %d levels: the test shows nothing", len(need), len(levels))
	}
	raiseMound(t, h, src, g)
	after := h.waitFrame(h.s.Version())
	if pages := h.s.Status().Last.Pages; pages < 1 || pages > len(levels) {
		t.Errorf("the reload re-evaluated %d pages of the view's %d; the mound lies in one page of each of its %d levels", pages, len(need), len(levels))
	}
	if d := diffPixels(before.Image, after.Image); d == 0 {
		t.Error("the reloaded heightmap changed nothing on screen")
	}
	if got := h.s.Field().HeightRange[1]; got < float64(g.Data[45*600+45])+39 {
		t.Errorf("height range top %v: the mound did not arrive", got)
	}
	if h.s.UndoLabel() != "Reload h.f32" {
		t.Fatalf("undo label %q", h.s.UndoLabel())
	}
	h.s.Undo()
	back := h.waitFrame(h.s.Version())
	if d := diffPixels(before.Image, back.Image); d != 0 {
		t.Errorf("undo of the reload: %d pixels differ from before", d)
	}
	// A truncated file is refused; the landscape keeps its data.
	errsBefore := h.count(EventError)
	if err := os.WriteFile(src, []byte("not a heightmap"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for h.count(EventError) == errsBefore {
		if time.Now().After(deadline) {
			t.Fatal("a corrupt rewrite gave no error")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if h.s.Field().HeightW != 600 {
		t.Error("the corrupt file replaced the field")
	}
}

// Our own saves are not reloads; another program's edit of the container's stack.yaml is, as
// one undoable step.
func TestWatchContainer(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 64, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "w.terrainData")
	if err := h.s.SaveAs(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Watch(); err != nil {
		t.Fatal(err)
	}
	verdicts := make(chan string, 64)
	h.s.watch.mu.Lock()
	h.s.watch.judged = func(v string) { verdicts <- v }
	h.s.watch.mu.Unlock()
	for k := 0; k < 2; k++ {
		if err := h.s.Save(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The saves' events end in a burst the watcher judges once the last save is over (while a
	// save runs it only looks again later): that verdict is our own save, not a reload.
	for v := ""; v == "" || v == "saving"; {
		select {
		case v = <-verdicts:
		case <-time.After(20 * time.Second):
			t.Fatal("the watcher never judged the saves' events")
		}
		if v == "done" {
			t.Fatal("the watcher compared the sources after our own save instead of recognising it")
		}
	}
	if n := h.count(EventReloaded); n != 0 {
		t.Fatalf("our own saves caused %d reloads", n)
	}
	st, err := stackLoad(filepath.Join(path, "stack.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	st.Layers[1].Rules[0].Min = floatPtr(25)
	if err := stackSave(st, filepath.Join(path, "stack.yaml")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for h.count(EventReloaded) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no reload after stack.yaml changed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := *h.s.Stack().Layers[1].Rules[0].Min; got != 25 {
		t.Errorf("rock min after reload %v, want 25", got)
	}
	if !h.s.Undo() || *h.s.Stack().Layers[1].Rules[0].Min != 18 {
		t.Error("undo did not take the reload back")
	}
}

// File → Run script and Run script again: a script's container opens with its weights shown as
// written (it carries the script, not a stack), and running it again regenerates it in place
// with the same guid.
func TestRunScript(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU})
	ctx := context.Background()
	dir := t.TempDir()
	script := filepath.Join(dir, "small.lua")
	src := `local g = proc.graph()
local ground = g:node("ground", "terrain.source"):param("size", { 256, 256 }):param("resolution", 2)
local hills = g:node("hills", "terrain.fbm"):input("raster", ground):param("amplitude", 18):param("featureSize", 60)
local low = g:node("low", "terrain.mask"):input("raster", hills):param("name", "low"):param("input", "height"):param("max", 0):param("feather", 2)
local high = g:node("high", "terrain.mask"):input("raster", low):param("name", "high"):param("input", "height"):param("min", 0):param("feather", 2)
g:node("bake", "terrain.write"):input("raster", high):param("name", "small"):param("layers", { "low", "high" })
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.s.RunScript(ctx, script, nil, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "small.terrainData")
	if h.s.Path() != path || !h.s.Baked() || !h.s.HasScript() {
		t.Fatalf("after Run script: path %q baked %v script %v", h.s.Path(), h.s.Baked(), h.s.HasScript())
	}
	h.waitFrame(h.s.Version())
	c1, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.s.RerunScript(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	c2, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if c1.GUID == "" || c2.GUID != c1.GUID {
		t.Errorf("guid %q then %q", c1.GUID, c2.GUID)
	}
	if eq, _ := bake.CompareWeights(c1.Weights, c2.Weights); eq != 1 {
		t.Errorf("running the script again changed %.4f%% of the weights", 100*(1-eq))
	}
}

// A broken container refused at open leaves the landscape open until then untouched.
func TestOpenBrokenKeepsLastGood(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: CPU}, 64, nil, false)
	ctx := context.Background()
	before := marshal(t, h.s.Stack())
	dir := filepath.Join(t.TempDir(), "broken.terrainData")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "terrain.yaml"), []byte("version: 1\nsize: [100, 100]\nheight: ../../etc/passwd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := h.s.OpenContainer(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), "terrain.yaml") {
		t.Fatalf("opening a broken container: %v (want an error naming the manifest)", err)
	}
	if h.s.Name() != "dunes" || !bytes.Equal(marshal(t, h.s.Stack()), before) {
		t.Errorf("the failed open replaced the landscape: %q", h.s.Name())
	}
}

// A reloaded height re-evaluates the ground with its new slopes: the Go evaluator of the
// full-resolution weights (which a population reads) keeps slopes between passes and must drop
// them when the height changes (pipeline.resetSlopes).
func TestReloadedGroundDropsKeptSlopes(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU, TileSize: 32})
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "h.f32")
	g := field.SampleDunesSized(128).Height
	writeF32(t, src, g)
	size := [2]float64{512, 512}
	if err := h.s.OpenHeightmap(ctx, src, HeightmapOptions{Import: field.ImportOptions{Size: [2]int{128, 128}}, Size: &size}); err != nil {
		t.Fatal(err)
	}
	st := h.s.Stack().Clone()
	rock := stack.NewLayer("steep")
	rock.Rules = []stack.Rule{{Input: stack.InputSlope, Min: stack.F(20), Softness: 4}}
	st.Layers = append(st.Layers, rock)
	shrubs := stack.NewPopulation("shrubs")
	shrubs.Density = 0.001
	shrubs.Rules = []stack.Rule{{Input: stack.InputLayer, Layer: "steep", Max: stack.F(0.5)}}
	st.Populations = append(st.Populations, shrubs)
	if err := h.s.Apply("rock on slopes", st); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Watch(); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	raiseMound(t, h, src, g)
	h.waitFrame(h.s.Version())
	p := h.s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	want, err := bake.Reference(ctx, h.s.Stack(), h.s.land.Field, bake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.full.(*cpuEval).w; !bytes.Equal(got.Lo, want.Lo) {
		eq, worst := bake.CompareWeights(want, got)
		t.Errorf("after the reload the weights are not the new ground's: %.4f%% equal, worst %d", 100*eq, worst)
	}
}

// raiseMound rewrites the heightmap at src as g with a 10×10 block well inside tile (1, 1) of a
// 32-texel tiling (texels 32..63) raised 40 m into a steep mound, and waits for the session to
// reload it.
func raiseMound(t *testing.T, h *harness, src string, g *field.Grid) {
	t.Helper()
	reloads := h.count(EventReloaded)
	mod := g.Clone()
	for j := 40; j < 50; j++ {
		for i := 40; i < 50; i++ {
			mod.Set(i, j, mod.At(i, j)+40)
		}
	}
	writeF32(t, src, mod)
	deadline := time.Now().Add(20 * time.Second)
	for h.count(EventReloaded) == reloads {
		if time.Now().After(deadline) {
			t.Fatal("no reload within 20 s of the heightmap changing")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
