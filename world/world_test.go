package world_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/bake"
	"strata/field"
	"strata/internal/worldtest"
	"strata/landscape"
	"strata/world"
)

// The real elevation data (testdata/maps/README.md says where it is from): 120×91 float32
// metres, −1437 … 2205, bathymetry included.
const dem = "../testdata/maps/topobathy_120x91_f32le.raw"

// demStack has five layers (so control1 is written), rules on every input kind a DEM has — jittered
// height, slope, curvature, noise — and a population reading a layer's weight, whose 2.2 km
// spacing puts sites within a texel of every seam.
const demStack = `version: 1
noise: {featureSize: 20000, octaves: 3, seed: 5}
layers:
  - {name: seabed, tint: "#203040"}
  - name: beach
    rules: [{input: height, min: -60, max: 40, softness: 20, jitter: 15}]
  - name: forest
    rules:
      - {input: height, min: 40, max: 1200, softness: 60}
      - {input: slope, max: 6, softness: 1}
  - name: rock
    rules: [{input: slope, min: 4, softness: 1, jitter: 0.5}]
  - name: snow
    rules:
      - {input: height, min: 1400, softness: 100}
      - {input: noise, min: 0.3, softness: 0.1, featureSize: 9000}
      - {input: curvature, max: 0.00002, softness: 0.00002}
populations:
  - name: trees
    density: 2e-7
    seed: 3
    scale: [1, 2]
    mesh: tree
    rules: [{input: layer, layer: forest, min: 0.3, softness: 0.1}]
`

// demSources are the DEM's bake sources: 2.4 km texels, off the world origin.
func demSources(t testing.TB, dir string) landscape.Sources {
	t.Helper()
	st := filepath.Join(dir, "stack.yaml")
	if err := os.WriteFile(st, []byte(demStack), 0o644); err != nil {
		t.Fatal(err)
	}
	return landscape.Sources{StackPath: st, Height: dem, Import: field.ImportOptions{Size: [2]int{120, 91}},
		Size: &[2]float64{288000, 218400}, Origin: &[2]float64{1000, -3000}}
}

func planDEM(t testing.TB, dir string, cells [2]int, cpu bool) *world.World {
	t.Helper()
	return planDEMRes(t, dir, cells, cpu, 0)
}

func planDEMRes(t testing.TB, dir string, cells [2]int, cpu bool, resolution float64) *world.World {
	t.Helper()
	w, err := world.Plan(context.Background(), world.PlanOptions{Sources: demSources(t, dir), Cells: cells, Out: filepath.Join(dir, "dem.world"),
		Resolution: resolution, Options: world.Options{CPU: cpu}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The heart of the issue, in process: a 3×2 world's cells equal the windows of one whole bake —
// weights, heights (with their gradients), channels, densities — and their instances together
// are the whole bake's.
func TestCellsEqualWholeBake(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cells      [2]int
		resolution float64
	}{
		{"3x2", [2]int{3, 2}, 0},
		{"4x3 finer weights", [2]int{4, 3}, 1200}, // weights grid 240×182 over the 120×91 heights
		{"1x1", [2]int{1, 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w := planDEMRes(t, dir, tc.cells, true, tc.resolution)
			src := demSources(t, dir)
			l, _, err := landscape.Load(src)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bake.Evaluate(context.Background(), l, bake.EvalOptions{CPU: true, Options: bake.Options{Resolution: tc.resolution}}); err != nil {
				t.Fatal(err)
			}
			wholePath := filepath.Join(dir, "whole.terrainData")
			if err := landscape.Write(wholePath, l); err != nil {
				t.Fatal(err)
			}
			if got, want := w.Populations[0].Spacing, float64(l.Scatter[0].Spacing); got != want {
				t.Fatalf("plan spacing %v, whole bake %v", got, want)
			}
			for i := range w.CellList {
				if _, err := w.BakeCell(context.Background(), i, world.Options{CPU: true}); err != nil {
					t.Fatalf("cell %d: %v", i, err)
				}
			}
			compareWithWhole(t, w, wholePath)
			if probs, err := w.Validate(context.Background()); err != nil || len(probs) > 0 {
				t.Fatalf("validate: %v %v", err, probs)
			}
		})
	}
}

// compareWithWhole checks every cell of w against the whole bake at wholePath.
func compareWithWhole(t *testing.T, w *world.World, wholePath string) {
	t.Helper()
	n, err := worldtest.SameAsWhole(w, wholePath)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cells, %d instances, equal to the whole bake", len(w.CellList), n)
}

// Validation accepts the baked world, and finds a seam whose neighbours disagree.
func TestValidateFindsSeams(t *testing.T) {
	dir := t.TempDir()
	w := planDEM(t, dir, [2]int{3, 2}, true)
	probs, err := w.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 6 {
		t.Fatalf("an unbaked world: %d problems, want 6 (one per cell):\n%v", len(probs), probs)
	}
	for i := range w.CellList {
		if _, err := w.BakeCell(context.Background(), i, world.Options{CPU: true}); err != nil {
			t.Fatal(err)
		}
	}
	if probs, err := w.Validate(context.Background()); err != nil || len(probs) > 0 {
		t.Fatalf("baked world: %v\n%v", err, probs)
	}
	// Bake cell 1 from other ground: its container is valid on its own, its seams are not.
	other := filepath.Join(dir, "other.f32")
	b, err := os.ReadFile(dem)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k+4 <= len(b); k += 4 {
		b[k] ^= 0x40 // lowest mantissa byte: a few centimetres on every texel
	}
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	w2 := *w
	w2.Height = &world.HeightSource{File: "../other.f32", Size: w.Height.Size}
	if _, err := w2.BakeCell(context.Background(), 1, world.Options{CPU: true}); err != nil {
		t.Fatal(err)
	}
	probs, err = w.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) == 0 || !strings.Contains(probs.Error(), "the cells hold different ground") {
		t.Fatalf("a cell baked from other ground: %v", probs)
	}
	for _, p := range probs {
		t.Log(p)
	}
	// The same ground, another stack (the beach a little higher): only the weights at the seams
	// can tell, evaluated again from the stored ground.
	if _, err := w.BakeCell(context.Background(), 1, world.Options{CPU: true}); err != nil {
		t.Fatal(err)
	}
	otherStack := filepath.Join(dir, "other.yaml")
	os.WriteFile(otherStack, []byte(strings.Replace(demStack, "max: 40, softness: 20", "max: 90, softness: 20", 1)), 0o644)
	w3 := *w
	w3.Stack = "../other.yaml"
	if _, err := w3.BakeCell(context.Background(), 4, world.Options{CPU: true}); err != nil {
		t.Fatal(err)
	}
	probs, err = w.Validate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) == 0 || !strings.Contains(probs.Error(), "evaluated from the cells' ground") || strings.Contains(probs.Error(), "different ground") {
		t.Fatalf("a cell baked with another stack: %v", probs)
	}
	t.Log(probs[0])
}

// GPU cells (lavapipe here) equal a GPU whole bake byte for byte — weights, heights, densities,
// instances — and each agrees with its Go-reference cell as the twins agree (bake.CompareControls,
// bake's GPU tests' measure: ≥ 99% of control bytes equal, none off by more than 2).
func TestGPUCellsEqualGPUWholeBake(t *testing.T) {
	dir := t.TempDir()
	w := planDEM(t, dir, [2]int{3, 2}, false)
	src := demSources(t, dir)
	l, _, err := landscape.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	backend, err := bake.Evaluate(context.Background(), l, bake.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wholePath := filepath.Join(dir, "whole.terrainData")
	if err := landscape.Write(wholePath, l); err != nil {
		t.Fatal(err)
	}
	if got, want := float32(w.Populations[0].Spacing), l.Scatter[0].Spacing; got != want {
		t.Fatalf("plan spacing (GPU pass) %v, GPU whole bake %v", got, want)
	}
	for i := range w.CellList {
		res, err := w.BakeCell(context.Background(), i, world.Options{Warn: func(m string) { t.Error(m) }})
		if err != nil {
			t.Fatal(err)
		}
		if res.Backend[:3] != "GPU" || backend[:3] != "GPU" {
			t.Fatalf("cell %d baked with %s, the whole bake with %s", i, res.Backend, backend)
		}
	}
	compareWithWhole(t, w, wholePath)

	// The same cells on the Go reference: the twins' agreement.
	cpu := *w
	cpu.Dir = filepath.Join(dir, "cpu.world")
	if err := os.MkdirAll(cpu.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The same sources by absolute path, wherever the clone and TMPDIR are (a "../" prepended to
	// dem.world's relative paths held only while they climbed to /), in cpu's own HeightSource.
	height := *w.Height
	height.File = w.Abs(w.Height.File)
	cpu.Stack, cpu.Height = w.Abs(w.Stack), &height
	for i := range w.CellList {
		if _, err := cpu.BakeCell(context.Background(), i, world.Options{CPU: true}); err != nil {
			t.Fatal(err)
		}
		gp, _ := w.Cell(i)
		cp, _ := cpu.Cell(i)
		share, worst, err := bake.CompareControls(gp, cp)
		if err != nil {
			t.Fatal(err)
		}
		if share < 0.99 || worst > 2 {
			t.Errorf("cell %d, GPU vs Go reference: %.4f%% of bytes equal, worst %d; want ≥ 99%%, ≤ 2", i, 100*share, worst)
		} else {
			t.Logf("cell %d, GPU vs Go reference: %.4f%% of bytes equal, worst %d", i, 100*share, worst)
		}
	}
}
