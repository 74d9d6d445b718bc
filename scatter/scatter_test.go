package scatter_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"strata/bake"
	"strata/field"
	testfix "strata/internal/fixture"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
)

// fixture is a small dunes-like field (n×n texels of texel metres, off the world origin) with the
// stress stack's channels, the stress stack, its weights and population 0's density.
type fixture struct {
	f       *field.Field
	s       *stack.Stack
	geo     scatter.Geometry
	lo, hi  []byte
	density *field.Grid
	max     float32
}

func newFixture(t testing.TB, n int, texel float64, s *stack.Stack) *fixture {
	t.Helper()
	f := testfix.StressField(n, texel)
	bg, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := bake.Reference(context.Background(), s, f, bake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{f: f, s: s, geo: scatter.Geometry(bg), lo: w.Lo, hi: w.Hi}
	fx.density, fx.max, err = scatter.Density(context.Background(), s, 0, f, fx.geo, w.Lo, w.Hi)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

func (fx *fixture) params() scatter.Params {
	return scatter.ParamsFor(&fx.s.Populations[0], fx.max)
}

func (fx *fixture) tiles(size int) []field.Tile {
	if size == 0 {
		size = max(fx.geo.Field.WeightsW, fx.geo.Field.WeightsH)
	}
	return field.Tiles(&fx.geo.Field, size, fx.geo.Stack.GradientStep)
}

func (fx *fixture) place(t testing.TB, p scatter.Params, tileSize int) []float32 {
	t.Helper()
	m, total, err := scatter.Place(context.Background(), p, &fx.geo.Field, fx.density, fx.f.Height, fx.tiles(tileSize), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != total*scatter.MatrixFloats {
		t.Fatalf("uncapped pool holds %d floats for %d instances", len(m), total)
	}
	return m
}

// TestSitesPartition: every site of the grid belongs to exactly one tile, for several tilings.
func TestSitesPartition(t *testing.T) {
	fx := newFixture(t, 200, 2, stack.StressStack())
	for _, sp := range []float32{fx.params().Spacing, 1, 3.3, 401} {
		nx, _ := scatter.SiteCount(&fx.geo.Field, 0, sp)
		nz, _ := scatter.SiteCount(&fx.geo.Field, 1, sp)
		for _, ts := range []int{64, 128, 0} {
			seen := make([]int, nx*nz)
			for _, tile := range fx.tiles(ts) {
				r, err := scatter.Sites(&fx.geo.Field, sp, tile)
				if err != nil {
					t.Fatal(err)
				}
				for j := r.J0; j < r.J1; j++ {
					for i := r.I0; i < r.I1; i++ {
						seen[int(j)*nx+int(i)]++
					}
				}
			}
			for k, c := range seen {
				if c != 1 {
					t.Fatalf("spacing %g tiles %d: site %d,%d owned %d times", sp, ts, k%nx, k/nx, c)
				}
			}
		}
		// ceil(size/s): the last cell starts before the far edge, the next would not.
		want := int(math.Ceil(400 / float64(sp)))
		if nx != want || nz != want {
			t.Errorf("spacing %g: %d×%d sites, want %d", sp, nx, nz, want)
		}
	}
}

// TestPlaceTilingsIdentical: the instance set (sorted, bit-exact) is the same for tilings 64, 128
// and the whole field, and between runs.
func TestPlaceTilingsIdentical(t *testing.T) {
	fx := newFixture(t, 200, 2, stack.StressStack())
	p := fx.params()
	want := scatter.SortMatrices(fx.place(t, p, 0))
	if len(want) == 0 {
		t.Fatal("no instance placed")
	}
	t.Logf("%d instances, spacing %g m, max density %g", len(want)/16, p.Spacing, fx.max)
	for _, ts := range []int{64, 128, 0} {
		got := scatter.SortMatrices(fx.place(t, p, ts))
		if i := scatter.FirstDifference(got, want); i >= 0 {
			t.Errorf("tiles %d: instance sets differ at float %d (%d vs %d instances)", ts, i, len(got)/16, len(want)/16)
		}
	}
}

// TestPlaceTilesKeepsOthers: after the density of one tile changes, re-placing that tile alone
// leaves every other instance exactly as it was, and equals placing everything again.
func TestPlaceTilesKeepsOthers(t *testing.T) {
	fx := newFixture(t, 200, 2, stack.StressStack())
	tiles := fx.tiles(64)
	pool := scatter.NewPool(fx.params(), fx.geo.Field, fx.density, fx.f.Height, 16)
	ctx := context.Background()
	if err := pool.Run(ctx, tiles); err != nil {
		t.Fatal(err)
	}
	before := scatter.SortMatrices(pool.Matrices())
	edit := tiles[5]
	// Raise the density inside the tile, away from its edges by more than a spacing plus a
	// texel: a site of a neighbouring tile jitters up to a spacing into it, and its bilinear tap
	// reaches one texel further (docs/scatter.md, "Re-placing part of a field").
	m := int(math.Ceil(float64(pool.Params.Spacing/fx.geo.Field.WTexel[0]))) + 2
	for j := edit.J0 + m; j < edit.J0+edit.H-m; j++ {
		for i := edit.I0 + m; i < edit.I0+edit.W-m; i++ {
			fx.density.Set(i, j, fx.max) // full density over the tile
		}
	}
	if err := pool.PlaceTiles(ctx, []field.Tile{edit}); err != nil {
		t.Fatal(err)
	}
	after := scatter.SortMatrices(pool.Matrices())
	r, _ := scatter.Sites(&fx.geo.Field, pool.Params.Spacing, edit)
	lo := [2]float32{fx.geo.Field.FieldMin[0] + float32(r.I0)*pool.Params.Spacing, fx.geo.Field.FieldMin[1] + float32(r.J0)*pool.Params.Spacing}
	hi := [2]float32{fx.geo.Field.FieldMin[0] + float32(r.I1)*pool.Params.Spacing, fx.geo.Field.FieldMin[1] + float32(r.J1)*pool.Params.Spacing}
	outside := func(m []float32) []float32 { // instances whose site cell is not in the edited tile
		var o []float32
		for k := 0; k < len(m); k += 16 {
			x, z := m[k+12], m[k+14]
			if !(x >= lo[0] && x < hi[0] && z >= lo[1] && z < hi[1]) {
				o = append(o, m[k:k+16]...)
			}
		}
		return o
	}
	if i := scatter.FirstDifference(outside(after), outside(before)); i >= 0 {
		t.Errorf("instances outside the edited tile changed (float %d)", i)
	}
	if len(after) <= len(before) {
		t.Errorf("full density over a tile added nothing: %d → %d instances", len(before)/16, len(after)/16)
	}
	whole := scatter.SortMatrices(fx.place(t, pool.Params, 64))
	if i := scatter.FirstDifference(after, whole); i >= 0 {
		t.Errorf("re-placed pool differs from a whole placement at float %d", i)
	}
}

// TestCountWithinThreeSigma: the number of instances is within 3σ of its expectation, Σ p over
// sites (Poisson-binomial; p estimated per site on 4×4 jitter positions).
func TestCountWithinThreeSigma(t *testing.T) {
	fx := newFixture(t, 200, 2, stack.StressStack())
	for _, seed := range []uint32{7, 8, 9} {
		p := fx.params()
		p.Seed = seed
		n := len(fx.place(t, p, 64)) / 16
		mean, variance := scatter.Expected(p, &fx.geo.Field, fx.density, fx.f.Height, 4)
		sigma := math.Sqrt(variance)
		t.Logf("seed %d: %d instances, expected %.1f ± %.1f", seed, n, mean, sigma)
		if math.Abs(float64(n)-mean) > 3*sigma {
			t.Errorf("seed %d: %d instances, expected %.1f ± 3·%.1f", seed, n, mean, sigma)
		}
	}
}

// TestOverflowGrows: a pool of 10 with ~1000 accepted reports the total, grows and ends with the
// same set as an uncapped run.
func TestOverflowGrows(t *testing.T) {
	fx := newFixture(t, 200, 2, overflowStack())
	p := fx.params()
	uncapped := scatter.SortMatrices(fx.place(t, p, 64))
	n := len(uncapped) / 16
	if n < 700 || n > 1400 {
		t.Fatalf("fixture places %d instances, want about 1000", n)
	}
	m, total, err := scatter.Place(context.Background(), p, &fx.geo.Field, fx.density, fx.f.Height, fx.tiles(64), 10)
	if err != nil {
		t.Fatal(err)
	}
	if total != n || len(m) != 10*16 {
		t.Errorf("capacity 10: total %d (want %d), %d floats written (want 160)", total, n, len(m))
	}
	pool := scatter.NewPool(p, fx.geo.Field, fx.density, fx.f.Height, 10)
	if err := pool.Run(context.Background(), fx.tiles(64)); err != nil {
		t.Fatal(err)
	}
	if pool.Grows != 1 || pool.Capacity != n {
		t.Errorf("pool grew %d times to %d, want once to %d", pool.Grows, pool.Capacity, n)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(pool.Matrices()), uncapped); i >= 0 {
		t.Errorf("grown pool differs from the uncapped run at float %d", i)
	}
}

// overflowStack is fixture.OverflowStack: about 1000 instances on the 200×2 m fixture.
func overflowStack() *stack.Stack { return testfix.OverflowStack() }

// TestSinCos: the polynomial yaw is within 2e-7 of math's sine and cosine over every quadrant.
func TestSinCos(t *testing.T) {
	var worst float64
	for k := uint32(0); k < 1<<24; k += 997 {
		s, c := scatter.SinCos(k)
		yaw := float64(k) / (1 << 24) * 2 * math.Pi
		worst = max(worst, math.Abs(float64(s)-math.Sin(yaw)), math.Abs(float64(c)-math.Cos(yaw)))
	}
	if worst > 2e-7 {
		t.Errorf("worst error %g", worst)
	}
	t.Logf("worst error %g", worst)
}

// TestDensityMatchesSlowLoop: Density equals a plain whole-grid loop over stack.Compiled fed by
// field.Sampler, texel for texel.
func TestDensityMatchesSlowLoop(t *testing.T) {
	fx := newFixture(t, 200, 2, stack.StressStack())
	c, err := stack.CompilePopulation(fx.s, 0, fx.geo.Stack)
	if err != nil {
		t.Fatal(err)
	}
	fg := &fx.geo.Field
	hs := fg.Sampler(fx.f.Height)
	var mx float32
	nonzero := 0
	for j := 0; j < fg.WeightsH; j++ {
		for i := 0; i < fg.WeightsW; i++ {
			var in stack.TexelInputs
			in.X, in.Z = fx.geo.Stack.TexelPos(uint32(i), uint32(j))
			in.Slope = hs.Slope(in.X, in.Z, fx.geo.Stack.GradientStep)
			o := (j*fg.WeightsW + i) * 4
			for l := 0; l < 4; l++ {
				in.Layers[l] = float32(fx.lo[o+l]) / 255
				in.Layers[4+l] = float32(fx.hi[o+l]) / 255
			}
			d := c.DensityAt(&in)
			mx = max(mx, d)
			if d > 0 {
				nonzero++
			}
			if got := fx.density.At(i, j); got != d {
				t.Fatalf("texel %d,%d: %g, want %g", i, j, got, d)
			}
		}
	}
	if mx != fx.max || nonzero < fg.WeightsW*fg.WeightsH/20 {
		t.Errorf("max %g (want %g), %d non-zero texels", fx.max, mx, nonzero)
	}
}

// TestCancelled: a cancelled context stops Density and Place with an error wrapping it.
func TestCancelled(t *testing.T) {
	fx := newFixture(t, 64, 2, stack.StressStack())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := scatter.Density(ctx, fx.s, 0, fx.f, fx.geo, fx.lo, fx.hi); !errors.Is(err, context.Canceled) {
		t.Errorf("Density: %v", err)
	}
	if _, _, err := scatter.Place(ctx, fx.params(), &fx.geo.Field, fx.density, fx.f.Height, fx.tiles(32), 10); !errors.Is(err, context.Canceled) {
		t.Errorf("Place: %v", err)
	}
	if _, _, err := scatter.Place(context.Background(), fx.params(), &fx.geo.Field, fx.density, nil, fx.tiles(32), 10); err == nil {
		t.Error("Place without a height grid: no error")
	}
}
