package gpu

import (
	"context"
	"errors"
	"image"
	"math"
	"slices"
	"strings"
	"testing"

	"strata/field"
	"strata/internal/fixture"
	"strata/scatter"
	"strata/shaders"
	"strata/stack"
)

// scatterSetup is one population on the test field, evaluated on the GPU: weights, density (and
// its maximum), and the same inputs for the Go reference.
type scatterSetup struct {
	*weightsSetup
	geo     scatter.Geometry
	k       *ScatterKernel
	lo, hi  []byte // the GPU's final weights
	density []float32
	max     float32
}

func newScatterSetup(t testing.TB, n int, s *stack.Stack) *scatterSetup {
	t.Helper()
	return newScatterSetupField(t, testField(t, n, 2), s)
}

// newScatterSetupField is newScatterSetup on field f.
func newScatterSetupField(t testing.TB, f *field.Field, s *stack.Stack) *scatterSetup {
	t.Helper()
	w := newWeightsSetup(t, f, s)
	d := testDevice(t)
	k, err := d.NewScatterKernel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Release)
	target, err := d.NewWeightsTarget(uint32(w.fg.WeightsW), uint32(w.fg.WeightsH))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(target.Release)
	wk := testWeightsKernel(t)
	tiles := w.wtiles(t, 128)
	for _, wt := range tiles {
		if err := wk.Run(context.Background(), target, w.params, wt); err != nil {
			t.Fatal(err)
		}
	}
	ss := &scatterSetup{weightsSetup: w, geo: scatter.Geometry{Field: w.fg, Stack: w.sg}, k: k}
	if ss.lo, ss.hi, err = target.ReadWeights(); err != nil {
		t.Fatal(err)
	}
	pp, err := stack.PackPopulation(s, 0, w.sg)
	if err != nil {
		t.Fatal(err)
	}
	if ss.max, err = k.Density(context.Background(), pp, target.W, target.H, target, tiles); err != nil {
		t.Fatal(err)
	}
	if ss.density, err = k.ReadDensity(); err != nil {
		t.Fatal(err)
	}
	return ss
}

// wtiles cuts the field into FieldTile dispatches of size texels (0: one tile).
func (w *weightsSetup) wtiles(t testing.TB, size int) []WeightsTile {
	t.Helper()
	var out []WeightsTile
	for _, tile := range w.tiles(size) {
		wt, err := FieldTile(w.f, w.s.Channels(), tile)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, wt)
	}
	return out
}

func (w *weightsSetup) tiles(size int) []field.Tile {
	if size == 0 {
		size = max(w.fg.WeightsW, w.fg.WeightsH)
	}
	return field.Tiles(&w.fg, size, w.sg.GradientStep)
}

func (ss *scatterSetup) densityGrid() *field.Grid {
	return &field.Grid{W: ss.fg.WeightsW, H: ss.fg.WeightsH, Data: ss.density}
}

func (ss *scatterSetup) params() scatter.Params {
	return scatter.ParamsFor(&ss.s.Populations[0], ss.max)
}

// gpuPlace places with tiles of size on the GPU and returns the sorted set.
func (ss *scatterSetup) gpuPlace(t testing.TB, p scatter.Params, size, reserve int) []float32 {
	t.Helper()
	n, err := ss.k.Place(context.Background(), PlaceJob{Params: p, Geometry: &ss.fg, Height: ss.f.Height, Tiles: ss.tiles(size), Reserve: reserve})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ss.k.ReadMatrices()
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != n*16 {
		t.Fatalf("Place reported %d instances, read %d floats", n, len(m))
	}
	return scatter.SortMatrices(m)
}

func (ss *scatterSetup) goPlace(t testing.TB, p scatter.Params, size int) []float32 {
	t.Helper()
	m, _, err := scatter.Place(context.Background(), p, &ss.fg, ss.densityGrid(), ss.f.Height, ss.tiles(size), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return scatter.SortMatrices(m)
}

// TestScatterDensityMatchesReference: the GPU density equals scatter.Density (fed the GPU's own
// weights) within 1e-5 relative at ≥ 99 % of texels, and the maxima agree as closely: the stress
// stack's population. The aspect stack's population (a jittered, feathered aspect rule, on dunes
// with plateaus) is held to 1e-5 of its density at full coverage, absolute, at ≥ 99 % of texels
// and 1e-4 at every one: an aspect near 360° has a float32 step of 3e-5°, the twins' atan2 differ
// by a few of those (TestAspectKernelMatchesGo), and a feather's tail turns that into relative
// differences far above 1e-5 where the density is nearly 0 (seen on lavapipe: 95 % within 1e-5
// relative, the worst 5e-6 of the density absolute).
func TestScatterDensityMatchesReference(t *testing.T) {
	t.Run("stress", func(t *testing.T) { checkDensityMatches(t, newScatterSetup(t, 200, stack.StressStack()), false) })
	t.Run("aspect", func(t *testing.T) {
		checkDensityMatches(t, newScatterSetupField(t, fixture.AspectField(160, 2), stack.AspectStack()), true)
	})
	t.Run("flow", func(t *testing.T) {
		checkDensityMatches(t, newScatterSetupField(t, fixture.AspectField(160, 2), stack.FlowStack()), false)
	})
}

// checkDensityMatches compares the GPU density with scatter.Density: within 1e-5 relative at
// ≥ 99 % of texels, or with absolute, within 1e-5 of the population's density at ≥ 99 % and 1e-4
// at all.
func checkDensityMatches(t *testing.T, ss *scatterSetup, absolute bool) {
	want, wmax, err := scatter.Density(context.Background(), ss.s, 0, ss.f, ss.geo, ss.lo, ss.hi)
	if err != nil {
		t.Fatal(err)
	}
	full := float64(ss.s.Populations[0].Density)
	equal, exact, nonzero := 0, 0, 0
	var worst float64
	for i, g := range ss.density {
		w := want.Data[i]
		if w > 0 {
			nonzero++
		}
		if g == w {
			exact++
		}
		d := math.Abs(float64(g - w))
		rel := d / math.Max(math.Abs(float64(w)), 1e-30)
		if g == w || !absolute && rel <= 1e-5 || absolute && d <= 1e-5*full {
			equal++
		}
		if absolute && d > 1e-4*full {
			t.Errorf("texel %d: GPU %g, Go %g: more than 1e-4 of the density %g apart", i, g, w, full)
		}
		worst = max(worst, d)
	}
	n := len(ss.density)
	t.Logf("%d texels: %d within 1e-5 (%.3f%%), %d bit-equal, %d non-zero; worst |Δ| %g; max GPU %g Go %g",
		n, equal, 100*float64(equal)/float64(n), exact, nonzero, worst, ss.max, wmax)
	if float64(equal) < 0.99*float64(n) || nonzero < n/20 {
		t.Errorf("only %d of %d texels within 1e-5 (%d non-zero)", equal, n, nonzero)
	}
	if math.Abs(float64(ss.max-wmax)) > 1e-5*float64(wmax) {
		t.Errorf("max density GPU %g, Go %g", ss.max, wmax)
	}
}

// TestScatterPlaceMatchesReference: the instance set (sorted, bit-exact) is the same for GPU
// tilings 64, 128 and whole, for two runs, and equals the Go reference on the same density.
func TestScatterPlaceMatchesReference(t *testing.T) {
	ss := newScatterSetup(t, 200, stack.StressStack())
	p := ss.params()
	want := ss.goPlace(t, p, 64)
	if len(want) < 100*16 {
		t.Fatalf("only %d instances: the fixture tests nothing", len(want)/16)
	}
	t.Logf("%d instances, spacing %g m", len(want)/16, p.Spacing)
	for _, size := range []int{64, 128, 0, 64} {
		got := ss.gpuPlace(t, p, size, 0)
		if i := scatter.FirstDifference(got, want); i >= 0 {
			k := i / 16 * 16
			t.Errorf("tiles %d: GPU set differs from Go at float %d (%d vs %d instances)", size, i, len(got)/16, len(want)/16)
			if k+16 <= len(got) && k+16 <= len(want) {
				t.Logf("GPU %v\nGo  %v", got[k:k+16], want[k:k+16])
			}
		}
	}
}

// raiseTile sets the density of tile edit to the maximum, but for a margin that no other tile's
// site reaches (a spacing and a weights texel), and uploads it.
func (ss *scatterSetup) raiseTile(t *testing.T, p scatter.Params, edit field.Tile) {
	t.Helper()
	m := int(math.Ceil(float64(p.Spacing/ss.fg.WTexel[0]))) + 2
	for j := edit.J0 + m; j < edit.J0+edit.H-m; j++ {
		for i := edit.I0 + m; i < edit.I0+edit.W-m; i++ {
			ss.density[j*ss.fg.WeightsW+i] = ss.max
		}
	}
	if err := ss.k.UploadDensity(uint32(ss.fg.WeightsW), uint32(ss.fg.WeightsH), ss.density); err != nil {
		t.Fatal(err)
	}
}

// TestScatterPlaceTilesKeepsOthers: after one tile's density changes, PlaceTiles on it keeps every
// other instance in the GPU pool, and the result equals the Go reference's whole placement.
func TestScatterPlaceTilesKeepsOthers(t *testing.T) {
	ss := newScatterSetup(t, 200, stack.StressStack())
	p := ss.params()
	tiles := ss.tiles(64)
	job := PlaceJob{Params: p, Geometry: &ss.fg, Height: ss.f.Height, Tiles: tiles}
	if _, err := ss.k.Place(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	before, err := ss.k.ReadMatrices()
	if err != nil {
		t.Fatal(err)
	}
	edit := tiles[5]
	ss.raiseTile(t, p, edit)
	job.Tiles = []field.Tile{edit}
	if _, err := ss.k.PlaceTiles(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	after, err := ss.k.ReadMatrices()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := scatter.Sites(&ss.fg, p.Spacing, edit)
	lo := [2]float32{ss.fg.FieldMin[0] + float32(r.I0)*p.Spacing, ss.fg.FieldMin[1] + float32(r.J0)*p.Spacing}
	hi := [2]float32{ss.fg.FieldMin[0] + float32(r.I1)*p.Spacing, ss.fg.FieldMin[1] + float32(r.J1)*p.Spacing}
	outside := func(m []float32) []float32 {
		var o []float32
		for k := 0; k < len(m); k += 16 {
			if x, z := m[k+12], m[k+14]; !(x >= lo[0] && x < hi[0] && z >= lo[1] && z < hi[1]) {
				o = append(o, m[k:k+16]...)
			}
		}
		return scatter.SortMatrices(o)
	}
	if i := scatter.FirstDifference(outside(after), outside(before)); i >= 0 {
		t.Errorf("instances outside the re-placed tile changed (float %d)", i)
	}
	if len(after) <= len(before) {
		t.Errorf("full density over the tile added nothing: %d → %d", len(before)/16, len(after)/16)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(after), ss.goPlace(t, p, 128)); i >= 0 {
		t.Errorf("GPU pool after PlaceTiles differs from the Go reference's whole placement at float %d", i)
	}
}

// TestScatterPlaceBands: with a height window far smaller than the field (so a place is cut into
// bands, each uploading only the rows and columns its sites read), Place and a PlaceTiles of
// tiles far apart give exactly the Go reference's instances, the windows stay within the budget,
// and a PlaceTiles whose window the kernel holds uploads nothing.
func TestScatterPlaceBands(t *testing.T) {
	ss := newScatterSetup(t, 200, stack.StressStack())
	p := ss.params()
	want := ss.goPlace(t, p, 64)
	budget := int64(ss.f.Height.W) * 24 * 4 // 24 rows of the whole width
	ss.k.place.window = budget
	tiles := ss.tiles(32)
	ranges := make([]scatter.SiteRange, len(tiles))
	for i, tl := range tiles {
		r, err := scatter.Sites(&ss.fg, p.Spacing, tl)
		if err != nil {
			t.Fatal(err)
		}
		ranges[i] = r
	}
	bands := placeBands(&ss.fg, p.Spacing, ranges, budget)
	if len(bands) < 4 {
		t.Fatalf("%d bands for a %d-byte window over %dx%d heights: the test needs several", len(bands), budget, ss.f.Height.W, ss.f.Height.H)
	}
	for _, b := range bands {
		if n := int64(b.win.Dx()) * int64(b.win.Dy()) * 4; n > budget && len(b.tiles) > 1 {
			t.Errorf("band of %d tiles holds %d bytes of height, budget %d", len(b.tiles), n, budget)
		}
	}
	u0 := ss.k.HeightUploads()
	job := PlaceJob{Params: p, Geometry: &ss.fg, Height: ss.f.Height, Tiles: tiles}
	if _, err := ss.k.Place(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if n := ss.k.HeightUploads() - u0; n < len(bands) {
		t.Errorf("%d height uploads for %d bands", n, len(bands))
	}
	got, err := ss.k.ReadMatrices()
	if err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(got), want); i >= 0 {
		t.Fatalf("banded place differs from the Go reference at float %d", i)
	}
	// Placed again, the height unchanged: every band's window is held, nothing is uploaded.
	job.HeightUnchanged = true
	u1 := ss.k.HeightUploads()
	if _, err := ss.k.Place(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if n := ss.k.HeightUploads() - u1; n != 0 {
		t.Errorf("a re-place with every window held uploaded %d times", n)
	}
	if got, err = ss.k.ReadMatrices(); err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(got), want); i >= 0 {
		t.Fatalf("re-place from held windows differs from the Go reference at float %d", i)
	}
	job.HeightUnchanged = false
	// Two tiles at opposite corners: two bands, the others kept.
	job.Tiles = []field.Tile{tiles[0], tiles[len(tiles)-1]}
	if _, err := ss.k.PlaceTiles(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if got, err = ss.k.ReadMatrices(); err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(got), want); i >= 0 {
		t.Errorf("banded PlaceTiles differs from the Go reference at float %d", i)
	}
	// The last tile again, its window held: no upload.
	job.Tiles, job.HeightUnchanged = []field.Tile{tiles[len(tiles)-1]}, true
	u1 = ss.k.HeightUploads()
	if _, err := ss.k.PlaceTiles(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if n := ss.k.HeightUploads() - u1; n != 0 {
		t.Errorf("a PlaceTiles inside the held window uploaded %d times", n)
	}
	if got, err = ss.k.ReadMatrices(); err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(got), want); i >= 0 {
		t.Errorf("PlaceTiles from the held window differs from the Go reference at float %d", i)
	}
	// A resident budget of two bands: after a whole place the kernel keeps at most that, and
	// the instances are still exact.
	ss.k.place.resident = 2 * budget
	job.Tiles, job.HeightUnchanged = tiles, false
	if _, err := ss.k.Place(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	var held int64
	for _, w := range ss.k.place.wins {
		held += w.bytes()
	}
	if held > 2*budget {
		t.Errorf("%d windows, %d bytes held after a place, budget %d", len(ss.k.place.wins), held, 2*budget)
	}
	if got, err = ss.k.ReadMatrices(); err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(got), want); i >= 0 {
		t.Errorf("place under a small resident budget differs from the Go reference at float %d", i)
	}
}

// TestScatterCountWithinThreeSigma: the GPU count is within 3σ of Σ p over the sites.
func TestScatterCountWithinThreeSigma(t *testing.T) {
	ss := newScatterSetup(t, 200, stack.StressStack())
	p := ss.params()
	n := len(ss.gpuPlace(t, p, 64, 0)) / 16
	mean, variance := scatter.Expected(p, &ss.fg, ss.densityGrid(), ss.f.Height, 4)
	t.Logf("%d instances, expected %.1f ± %.1f", n, mean, math.Sqrt(variance))
	if math.Abs(float64(n)-mean) > 3*math.Sqrt(variance) {
		t.Errorf("%d instances, expected %.1f ± 3·%.1f", n, mean, math.Sqrt(variance))
	}
}

// TestScatterOverflowGrows: a pool of 10 with ~1000 accepted reports the total, grows once and ends
// with the same set as an uncapped run (and as the Go reference).
func TestScatterOverflowGrows(t *testing.T) {
	ss := newScatterSetup(t, 200, overflowStack())
	p := ss.params()
	got := ss.gpuPlace(t, p, 64, 10)
	n := len(got) / 16
	if n < 700 || n > 1400 {
		t.Fatalf("%d instances, want about 1000", n)
	}
	if ss.k.Grows() != 1 || ss.k.Capacity() != n || ss.k.Count() != n {
		t.Errorf("grew %d times to capacity %d with %d instances; want once to %d", ss.k.Grows(), ss.k.Capacity(), ss.k.Count(), n)
	}
	fresh, err := testDevice(t).NewScatterKernel()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Release()
	if err := fresh.UploadDensity(uint32(ss.fg.WeightsW), uint32(ss.fg.WeightsH), ss.density); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Place(context.Background(), PlaceJob{Params: p, Geometry: &ss.fg, Height: ss.f.Height, Tiles: ss.tiles(128), Reserve: 1 << 14}); err != nil {
		t.Fatal(err)
	}
	uncapped, err := fresh.ReadMatrices()
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Grows() != 0 {
		t.Errorf("a pool of %d grew", 1<<14)
	}
	if i := scatter.FirstDifference(got, scatter.SortMatrices(uncapped)); i >= 0 {
		t.Errorf("grown pool differs from the uncapped run at float %d", i)
	}
	if i := scatter.FirstDifference(got, ss.goPlace(t, p, 0)); i >= 0 {
		t.Errorf("grown pool differs from the Go reference at float %d", i)
	}
}

// overflowStack is fixture.OverflowStack: about 1000 instances on the 200×2 m test field.
func overflowStack() *stack.Stack { return fixture.OverflowStack() }

// TestScatterParamsLayoutMatchesWGSL: the weights and density kernels take their Params structs
// (and the band) from the one stack_rules.wgsl that TestParamsLayoutMatchesWGSL checks, declaring
// none of their own; PlaceParams matches PlaceLayout member for member.
func TestScatterParamsLayoutMatchesWGSL(t *testing.T) {
	for _, k := range []string{"terrain_layer_weights", "terrain_scatter_density"} {
		src, err := shaders.Raw(k)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(src, "//!include stack_rules.wgsl") {
			t.Errorf("%s does not include stack_rules.wgsl", k)
		}
		own, err := parseWGSLStructs(strings.ReplaceAll(src, "atomic<u32>", "u32"))
		if err != nil {
			t.Fatal(err)
		}
		for _, sn := range []string{"Params", "Head", "LayerLane", "RuleLane"} {
			if own[sn] != nil {
				t.Errorf("%s declares its own %s; it must come from stack_rules.wgsl", k, sn)
			}
		}
	}
	place, err := shaders.Raw("terrain_scatter_place")
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseWGSLStructs(strings.ReplaceAll(place, "atomic<u32>", "u32"))
	if err != nil {
		t.Fatal(err)
	}
	pp := c["PlaceParams"]
	if pp == nil || len(pp.members) != len(PlaceLayout) || pp.size != placeParamsWords*4 {
		t.Fatalf("PlaceParams: %+v, Go layout %d members, %d bytes", pp, len(PlaceLayout), placeParamsWords*4)
	}
	for i, f := range PlaceLayout {
		m := pp.members[i]
		if m.name != f.Name || m.offset != f.Offset || m.size != f.Size || m.typ != f.Type {
			t.Errorf("PlaceParams.%s @%d size %d %s; Go %s @%d size %d %s", m.name, m.offset, m.size, m.typ, f.Name, f.Offset, f.Size, f.Type)
		}
	}
}

// TestScatterKernelRelease: Release is safe on nil and twice, and a released kernel answers with
// errors, not panics.
func TestScatterKernelRelease(t *testing.T) {
	var nilK *ScatterKernel
	nilK.Release()
	if _, err := nilK.Place(context.Background(), PlaceJob{}); err == nil {
		t.Error("Place on a nil kernel: no error")
	}
	k, err := testDevice(t).NewScatterKernel()
	if err != nil {
		t.Fatal(err)
	}
	k.Release()
	k.Release()
	if _, err := k.Density(context.Background(), nil, 1, 1, nil, nil); err == nil {
		t.Error("Density on a released kernel: no error")
	}
	if _, err := k.Place(context.Background(), PlaceJob{}); err == nil {
		t.Error("Place on a released kernel: no error")
	}
	if _, err := k.ReadMatrices(); err == nil {
		t.Error("ReadMatrices on a released kernel: no error")
	}
}

// TestScatterPlaceHeightResident: a Place with HeightUnchanged (the height left on the GPU by the
// previous run) gives the same instance set as one that uploads it, and uploads nothing; a
// HeightUnchanged job naming another grid is not trusted: that grid is uploaded and used.
func TestScatterPlaceHeightResident(t *testing.T) {
	ss := newScatterSetup(t, 200, stack.StressStack())
	p := ss.params()
	want := ss.goPlace(t, p, 64)
	job := PlaceJob{Params: p, Geometry: &ss.fg, Height: ss.f.Height, Tiles: ss.tiles(64)}
	place := func(job PlaceJob) []float32 {
		t.Helper()
		if _, err := ss.k.Place(context.Background(), job); err != nil {
			t.Fatal(err)
		}
		m, err := ss.k.ReadMatrices()
		if err != nil {
			t.Fatal(err)
		}
		return scatter.SortMatrices(m)
	}
	u0 := ss.k.HeightUploads()
	if i := scatter.FirstDifference(place(job), want); i >= 0 {
		t.Fatalf("uploading place differs from Go at float %d", i)
	}
	job.HeightUnchanged = true
	for _, size := range []int{64, 0} {
		job.Tiles = ss.tiles(size)
		if i := scatter.FirstDifference(place(job), want); i >= 0 {
			t.Errorf("tiles %d, height resident: differs from Go at float %d", size, i)
		}
	}
	if n := ss.k.HeightUploads() - u0; n != 1 {
		t.Errorf("%d height uploads for one uploading and two resident places, want 1", n)
	}
	// Another grid (raised 10 m) under the same promise: uploaded, and its heights are used.
	raised := &field.Grid{W: ss.f.Height.W, H: ss.f.Height.H, Data: make([]float32, len(ss.f.Height.Data))}
	for i, v := range ss.f.Height.Data {
		raised.Data[i] = v + 10
	}
	job.Height = raised
	got := place(job)
	ref, _, err := scatter.Place(context.Background(), p, &ss.fg, ss.densityGrid(), raised, ss.tiles(64), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(got, scatter.SortMatrices(ref)); i >= 0 {
		t.Errorf("another grid under HeightUnchanged: differs from Go on that grid at float %d", i)
	}
	if n := ss.k.HeightUploads() - u0; n != 2 {
		t.Errorf("another grid under HeightUnchanged: %d uploads in all, want 2", n)
	}
}

// TestScatterPlaceHeightEdited: a height changed in place inside a rectangle, placed again with
// PlaceJob.HeightEdited, is read with its new values — every instance equal to the Go reference's
// on the edited grid — while the held windows only take the rectangle's rows: no window is
// uploaded again. Both with the whole height in one window (one contiguous write of its rows)
// and with narrow windows of a few tiles each (a write per row of the rectangle's part).
func TestScatterPlaceHeightEdited(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window int64 // 0: the default (the whole 200² height in one window)
	}{{"whole", 0}, {"narrow", 48 * 48 * 4}} {
		t.Run(tc.name, func(t *testing.T) {
			ss := newScatterSetup(t, 200, stack.StressStack())
			if tc.window > 0 {
				ss.k.place.window = tc.window
			}
			p := ss.params()
			h := &field.Grid{W: ss.f.Height.W, H: ss.f.Height.H, Data: slices.Clone(ss.f.Height.Data)}
			job := PlaceJob{Params: p, Geometry: &ss.fg, Height: h, Tiles: ss.tiles(32)}
			if _, err := ss.k.Place(context.Background(), job); err != nil {
				t.Fatal(err)
			}
			held := len(ss.k.place.wins)
			if tc.window > 0 && held < 4 {
				t.Fatalf("%d windows held: the narrow case needs several", held)
			}
			edited := image.Rect(50, 60, 130, 150)
			for j := edited.Min.Y; j < edited.Max.Y; j++ {
				for i := edited.Min.X; i < edited.Max.X; i++ {
					h.Data[j*h.W+i] += 7 + float32(i%5)
				}
			}
			u0, e0 := ss.k.HeightUploads(), ss.k.HeightEdits()
			job.HeightEdited = edited
			if _, err := ss.k.Place(context.Background(), job); err != nil {
				t.Fatal(err)
			}
			got, err := ss.k.ReadMatrices()
			if err != nil {
				t.Fatal(err)
			}
			ref, _, err := scatter.Place(context.Background(), p, &ss.fg, ss.densityGrid(), h, ss.tiles(32), 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			if i := scatter.FirstDifference(scatter.SortMatrices(got), scatter.SortMatrices(ref)); i >= 0 {
				t.Fatalf("placed after an edit of %v: differs from Go on the edited grid at float %d", edited, i)
			}
			if n := ss.k.HeightUploads() - u0; n != 0 {
				t.Errorf("%d windows uploaded again after an edit the held windows took", n)
			}
			if n := ss.k.HeightEdits() - e0; n == 0 || n > held {
				t.Errorf("%d windows took the edit's rows, want 1 … %d", n, held)
			}
		})
	}
}

// TestScatterTooLargeIsErrTooLarge: a density grid past the device's storage binding is refused
// with an error wrapping ErrTooLarge (the bake then scatters with the Go reference), before any
// buffer is made.
func TestScatterTooLargeIsErrTooLarge(t *testing.T) {
	d := testDevice(t)
	k, err := d.NewScatterKernel()
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	s := fixture.OverflowStack()
	params, err := stack.PackPopulation(s, 0, stack.Geometry{InvHTexel: [2]float32{1, 1}, WTexel: [2]float32{1, 1}, GradientStep: 1})
	if err != nil {
		t.Fatal(err)
	}
	lim := d.Limits.MaxStorageBufferBindingSize
	w := uint32(65535)
	h := uint32(lim/(4*uint64(w))) + 1
	_, err = k.Density(context.Background(), params, w, h, nil, nil)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a %dx%d grid on a device binding %d bytes: err = %v, want ErrTooLarge", w, h, lim, err)
	}
}
