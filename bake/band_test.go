package bake

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
)

// planFor plans a w×h grid of tiles of ts with the given limits (the apron does not matter here:
// tiles read a 1-texel block unless said otherwise).
func planFor(t *testing.T, w, h, ts int, lim bandLimits, density bool) ([]band, error) {
	t.Helper()
	nx, ny := field.TileGrid(w, h, ts)
	tiles := make([]field.Tile, 0, nx*ny)
	for ty := 0; ty < ny; ty++ {
		for tx := 0; tx < nx; tx++ {
			tiles = append(tiles, field.Tile{Index: ty*nx + tx, I0: tx * ts, J0: ty * ts,
				W: min(ts, w-tx*ts), H: min(ts, h-ty*ts), BufW: ts / 8, BufH: ts / 8})
		}
	}
	return planBands(w, h, ts, tiles, lim, density)
}

var lavapipe = bandLimits{maxTexture: 16384, maxBuffer: 1<<31 - 1, maxBinding: 128 << 20, budget: DefaultBandBytes}

// TestPlanBands: every band respects the device's limits and the budget, the bands cover the grid
// exactly once with whole tiles, and wide grids are cut into columns too — on lavapipe's limits at
// 16384² and past its largest texture, and on an H200-like device.
func TestPlanBands(t *testing.T) {
	h200 := bandLimits{maxTexture: 32768, maxBuffer: math.MaxUint64 - 1, maxBinding: math.MaxUint32, budget: DefaultBandBytes}
	for _, c := range []struct {
		name    string
		w, h    int
		lim     bandLimits
		minBand int
	}{
		{"lavapipe 16384²", 16384, 16384, lavapipe, 32},
		{"lavapipe 20000², wider than a texture", 20000, 20000, lavapipe, 2 * 40},
		{"lavapipe, budget lowered to one tile", 1000, 600, bandLimits{16384, 1 << 31, 128 << 20, 1}, 4 * 3},
		{"H200 16384²", 16384, 16384, h200, 32},
		{"H200 40000×700", 40000, 700, h200, 2},
		{"small", 300, 200, lavapipe, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			bands, err := planFor(t, c.w, c.h, 256, c.lim, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(bands) < c.minBand {
				t.Errorf("%d bands, want at least %d", len(bands), c.minBand)
			}
			covered := make(map[[2]int]int)
			for _, b := range bands {
				rb, dn := bandBytes(b.W, b.H, true)
				budget := max(c.lim.budget, 256*256*4)
				if uint64(b.W) > c.lim.maxTexture || uint64(b.H) > c.lim.maxTexture ||
					rb > min(c.lim.maxBuffer, budget) || dn > min(c.lim.maxBinding, c.lim.maxBuffer, budget+16) {
					t.Fatalf("band %+v passes a limit: readback %d, density %d", b, rb, dn)
				}
				area := 0
				for _, tl := range b.Tiles {
					if tl.I0 < b.I0 || tl.J0 < b.J0 || tl.I0+tl.W > b.I0+b.W || tl.J0+tl.H > b.J0+b.H {
						t.Fatalf("tile %d outside its band %+v", tl.Index, b)
					}
					covered[[2]int{tl.I0, tl.J0}]++
					area += tl.W * tl.H
				}
				if area != b.W*b.H {
					t.Fatalf("band %d,%d %dx%d: its tiles cover %d texels", b.I0, b.J0, b.W, b.H, area)
				}
			}
			nx, ny := field.TileGrid(c.w, c.h, 256)
			if len(covered) != nx*ny {
				t.Fatalf("%d tiles covered of %d", len(covered), nx*ny)
			}
			for k, n := range covered {
				if n != 1 {
					t.Fatalf("tile at %v in %d bands", k, n)
				}
			}
		})
	}
}

// TestPlanBandsRefuses: what no banding can hold is refused before any work, saying what and why.
func TestPlanBandsRefuses(t *testing.T) {
	if _, err := planFor(t, 40000, 100, 20000, lavapipe, false); err == nil || !strings.Contains(err.Error(), "tile side 20000") {
		t.Errorf("tile past the largest texture: %v", err)
	}
	if _, err := planFor(t, 4096, 4096, 1024, bandLimits{16384, 1 << 31, 1 << 12, DefaultBandBytes}, false); err == nil || !strings.Contains(err.Error(), "height block") {
		t.Errorf("a tile's height block past the binding: %v", err)
	}
}

// TestGPUBakeBands: a bake cut into one-tile bands (the budget lowered, as a 16384² bake is cut on
// lavapipe) gives the very weights, densities and instances of the same bake in one band — the
// many-band run places with the Go reference from the GPU's density, the one-band run on the GPU.
func TestGPUBakeBands(t *testing.T) {
	ctx := context.Background()
	g, err := OpenGPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	s := stack.StressStack()
	f := StressField(150)
	run := func(budget int64, bands string) *landscape.Landscape {
		geo, err := landscape.NewGeometry(s, f, 0)
		if err != nil {
			t.Fatal(err)
		}
		l := &landscape.Landscape{Stack: s, Field: f, Geometry: geo}
		tm := &Timings{}
		if err := g.bake(ctx, l, Options{TileSize: 64, BandBytes: budget}, true, tm); err != nil {
			t.Fatal(err)
		}
		if n := tm.Notes(); len(n) == 0 || !strings.HasPrefix(n[0], bands) {
			t.Errorf("budget %d: the bake ran %q, want %s", budget, n, bands)
		}
		return l
	}
	one, many := run(0, "1 band(s)"), run(1, "9 band(s)")
	if b, _ := planFor(t, 150, 150, 64, limitsOf(g.Dev.Limits, 1), true); len(b) != 9 {
		t.Fatalf("the lowered budget gives %d bands, want 9 (one per tile)", len(b))
	}
	if !bytes.Equal(one.Weights.Lo, many.Weights.Lo) || !bytes.Equal(one.Weights.Hi, many.Weights.Hi) {
		eq, worst := CompareWeights(one.Weights, many.Weights)
		t.Fatalf("banded weights differ: %.4f%% equal, worst %d", 100*eq, worst)
	}
	if len(one.Scatter) != 1 || len(many.Scatter) != 1 {
		t.Fatalf("populations %d and %d", len(one.Scatter), len(many.Scatter))
	}
	a, b := one.Scatter[0], many.Scatter[0]
	for i := range a.Density.Data {
		if math.Float32bits(a.Density.Data[i]) != math.Float32bits(b.Density.Data[i]) {
			t.Fatalf("density texel %d: one band %v, bands %v", i, a.Density.Data[i], b.Density.Data[i])
		}
	}
	if a.Count < 50 || a.Count != b.Count || a.Spacing != b.Spacing {
		t.Fatalf("one band %d instances (spacing %v), bands %d (%v)", a.Count, a.Spacing, b.Count, b.Spacing)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(a.Matrices), scatter.SortMatrices(b.Matrices)); i >= 0 {
		t.Fatalf("instances differ at float %d", i)
	}
}

// TestGPUBakeSkipsHi: a stack of at most four layers never reads layers 4–7 back (the read-back
// progress counts layers 0–3 alone); they stay zero.
func TestGPUBakeSkipsHi(t *testing.T) {
	ctx := context.Background()
	g, err := OpenGPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	f := field.SampleDunesSized(600)
	read, total := -1, -1
	w, err := g.Weights(ctx, stack.SampleDunes(), f, Options{BandBytes: 1, Progress: func(stage string, k, n int) {
		if stage == StageReadBack {
			read, total = k, n
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := mib(4 * int64(w.W) * int64(w.H)); read != want || total != want {
		t.Errorf("read back %d of %d MiB, want %d (layers 0–3 only)", read, total, want)
	}
	ref := mustRef(t, stack.SampleDunes(), f, Options{})
	if eq, worst := CompareWeights(w, ref); eq < 0.99 || worst > 1 {
		t.Errorf("%.4f%% equal, worst %d", 100*eq, worst)
	}
	checkSum255(t, w)
}

// TestEvaluateBorrowedGPUFillsTarget: the editor's Evaluate on its own GPU leaves the weights in
// GPU.Target when the field fits the device (its viewport samples them there), and keeps the GPU.
func TestEvaluateBorrowedGPUFillsTarget(t *testing.T) {
	ctx := context.Background()
	g, err := OpenGPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	l := &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunesSized(300)}
	if _, err := Evaluate(ctx, l, EvalOptions{Evaluator: &GPUEvaluator{g: g}}); err != nil {
		t.Fatal(err)
	}
	if tg := g.Target(); tg == nil || tg.W != 300 || tg.Origin != [2]uint32{} {
		t.Fatalf("Target after Evaluate: %+v", tg)
	}
	w, err := g.Read()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Lo, l.Weights.Lo) {
		t.Error("GPU.Target holds other weights than Evaluate returned")
	}
	if len(l.Scatter) != 1 || l.Scatter[0].Count == 0 {
		t.Errorf("scatter: %+v", l.Scatter)
	}
}
