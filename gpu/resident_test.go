package gpu

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"testing"

	"strata/field"
	"strata/stack"
)

// The resident path writes the bytes the tile-by-tile path writes: the whole field in one
// dispatch, a partial rect, after an edit uploaded by rows; and its density is the tiled density.
func TestResidentMatchesTiles(t *testing.T) {
	ctx := context.Background()
	d := testDevice(t)
	s := stack.StressStack()
	w := newWeightsSetup(t, testField(t, 150, 2), s)
	W, H := uint32(w.fg.WeightsW), uint32(w.fg.WeightsH)
	k := testWeightsKernel(t)
	defer k.Release()
	tiled, err := d.NewWeightsTarget(W, H)
	if err != nil {
		t.Fatal(err)
	}
	defer tiled.Release()
	resident, err := d.NewWeightsTarget(W, H)
	if err != nil {
		t.Fatal(err)
	}
	defer resident.Release()
	runTiled := func() (lo, hi []byte) {
		for _, wt := range w.wtiles(t, 64) {
			if err := k.Run(ctx, tiled, w.params, wt); err != nil {
				t.Fatal(err)
			}
		}
		lo, hi, err := tiled.ReadWeights()
		if err != nil {
			t.Fatal(err)
		}
		return lo, hi
	}
	fb := d.NewFieldBuffers(0)
	defer fb.Release()
	fb.Cut(&w.fg, w.sg.GradientStep)
	if _, err := fb.Upload(w.f, s.Channels(), image.Rectangle{}); err != nil {
		t.Fatal(err)
	}
	all := image.Rect(0, 0, int(W), int(H))
	if err := k.RunResident(ctx, resident, w.params, fb, 1, all); err != nil {
		t.Fatal(err)
	}
	wantLo, wantHi := runTiled()
	lo, hi, err := resident.ReadWeights()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lo, wantLo) || !bytes.Equal(hi, wantHi) {
		t.Fatal("the resident whole-field dispatch differs from the tiled evaluation")
	}

	// Edit a channel in one corner, upload only its rows, re-run only that corner.
	snow := w.f.Channels["mask.snow"]
	edit := image.Rect(10, 12, 40, 33)
	for j := edit.Min.Y; j < edit.Max.Y; j++ {
		for i := edit.Min.X; i < edit.Max.X; i++ {
			snow.Set(i, j, 1-snow.At(i, j))
		}
	}
	if _, err := fb.Upload(w.f, s.Channels(), edit); err != nil {
		t.Fatal(err)
	}
	// The weights texels the edit reaches: the grids match here, plus the slope taps' reach.
	reach := edit.Inset(-4).Intersect(all)
	if err := k.RunResident(ctx, resident, w.params, fb, 1, reach); err != nil {
		t.Fatal(err)
	}
	wantLo, wantHi = runTiled()
	if lo, hi, err = resident.ReadWeights(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lo, wantLo) || !bytes.Equal(hi, wantHi) {
		t.Fatal("after an edit uploaded by rows, the resident weights differ from a fresh tiled evaluation")
	}

	// Density: resident over the whole grid equals the tiled density, maximum included.
	sk, err := d.NewScatterKernel()
	if err != nil {
		t.Fatal(err)
	}
	defer sk.Release()
	pp, err := stack.PackPopulation(s, 0, w.sg)
	if err != nil {
		t.Fatal(err)
	}
	wantMax, err := sk.Density(ctx, pp, W, H, tiled, w.wtiles(t, 64))
	if err != nil {
		t.Fatal(err)
	}
	want, err := sk.ReadDensity()
	if err != nil {
		t.Fatal(err)
	}
	gotMax, err := sk.DensityResident(ctx, pp, W, H, resident, fb, all)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sk.ReadDensity()
	if err != nil {
		t.Fatal(err)
	}
	if gotMax != wantMax || wantMax == 0 {
		t.Errorf("resident density maximum %v, tiled %v", gotMax, wantMax)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("density texel %d: resident %v, tiled %v", i, got[i], want[i])
		}
	}

	// A sculpt dab: the height edited in a rectangle, its rows written to the height plane
	// alone (UploadPlanes), gives the weights a fresh tiled evaluation gives.
	dab := image.Rect(60, 70, 95, 100)
	for j := dab.Min.Y; j < dab.Max.Y; j++ {
		for i := dab.Min.X; i < dab.Max.X; i++ {
			w.f.Height.Set(i, j, w.f.Height.At(i, j)+float32(3+(i*j)%5))
		}
	}
	if _, err := fb.UploadPlanes(w.f, s.Channels(), dab, true); err != nil {
		t.Fatal(err)
	}
	if err := k.RunResident(ctx, resident, w.params, fb, 1, dab.Inset(-4).Intersect(all)); err != nil {
		t.Fatal(err)
	}
	wantLo, wantHi = runTiled()
	if lo, hi, err = resident.ReadWeights(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lo, wantLo) || !bytes.Equal(hi, wantHi) {
		t.Fatal("after a height edit written to the height plane alone, the resident weights differ from a fresh tiled evaluation")
	}
	// Height only means height only: a channel edit uploaded so is not on the device (the
	// caller's promise is what makes it sound), and uploaded in full it is.
	edit2 := image.Rect(100, 10, 130, 40)
	for j := edit2.Min.Y; j < edit2.Max.Y; j++ {
		for i := edit2.Min.X; i < edit2.Max.X; i++ {
			snow.Set(i, j, 1-snow.At(i, j))
		}
	}
	reach2 := edit2.Inset(-4).Intersect(all)
	for _, heightOnly := range []bool{true, false} {
		if _, err := fb.UploadPlanes(w.f, s.Channels(), edit2, heightOnly); err != nil {
			t.Fatal(err)
		}
		if err := k.RunResident(ctx, resident, w.params, fb, 1, reach2); err != nil {
			t.Fatal(err)
		}
		wantLo, wantHi = runTiled()
		if lo, hi, err = resident.ReadWeights(); err != nil {
			t.Fatal(err)
		}
		if same := bytes.Equal(lo, wantLo) && bytes.Equal(hi, wantHi); same == heightOnly {
			t.Errorf("a snow edit uploaded with heightOnly %v: the resident weights equal a fresh evaluation: %v", heightOnly, same)
		}
	}
}

// Under a budget of a few bricks, the field streams through the LRU: a whole-grid dispatch and a
// level's pages each write the bytes the tiled path writes, an edit rewrites only its rows in
// the bricks it touches, and the bricks never hold more than the budget (past the one brick
// always held).
func TestBricksStreamUnderBudget(t *testing.T) {
	ctx := context.Background()
	d := testDevice(t)
	s := stack.StressStack()
	w := newWeightsSetup(t, testField(t, 150, 2), s)
	W, H := uint32(w.fg.WeightsW), uint32(w.fg.WeightsH)
	k := testWeightsKernel(t)
	defer k.Release()

	fb := d.NewFieldBuffers(0)
	fb.BrickSize = 40 // 4×4 bricks
	defer fb.Release()
	fb.Cut(&w.fg, w.sg.GradientStep)
	if _, err := fb.Upload(w.f, s.Channels(), image.Rectangle{}); err != nil {
		t.Fatal(err)
	}
	fb.budget = 3 * fb.brickBytes(5) // an interior brick, the largest
	peak := int64(0)
	check := func(what string) {
		t.Helper()
		h := fb.Held()
		peak = max(peak, h)
		if h > fb.budget {
			t.Fatalf("%s: the bricks hold %d bytes, over the %d-byte budget", what, h, fb.budget)
		}
	}

	// Level 0 and two coarser levels, each against the tiled path at that level.
	for _, level := range []int{0, 1, 2} {
		fg := w.fg.Level(level)
		sg := w.sg
		sg.Stride = uint32(fg.StrideOrOne())
		params, err := stack.Pack(s, sg)
		if err != nil {
			t.Fatal(err)
		}
		lw, lh := uint32(fg.WeightsW), uint32(fg.WeightsH)
		tiled, err := d.NewWeightsTarget(lw, lh)
		if err != nil {
			t.Fatal(err)
		}
		for _, tile := range field.Tiles(&fg, 32, w.sg.GradientStep) {
			wt, err := FieldTile(w.f, s.Channels(), tile)
			if err != nil {
				t.Fatal(err)
			}
			if err := k.Run(ctx, tiled, params, wt); err != nil {
				t.Fatal(err)
			}
		}
		wantLo, wantHi, err := tiled.ReadWeights()
		tiled.Release()
		if err != nil {
			t.Fatal(err)
		}
		bricked, err := d.NewWeightsTarget(lw, lh)
		if err != nil {
			t.Fatal(err)
		}
		// In pages of 24 level texels, as the view asks for them.
		for j := 0; j < int(lh); j += 24 {
			for i := 0; i < int(lw); i += 24 {
				page := image.Rect(i, j, min(i+24, int(lw)), min(j+24, int(lh)))
				if err := k.RunResident(ctx, bricked, params, fb, fg.StrideOrOne(), page); err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("level %d page %v", level, page))
			}
		}
		lo, hi, err := bricked.ReadWeights()
		bricked.Release()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(lo, wantLo) || !bytes.Equal(hi, wantHi) {
			t.Fatalf("level %d: the bricks' pages differ from the tiled evaluation", level)
		}
	}
	if peak < 2*fb.brickBytes(5) {
		t.Errorf("the bricks held at most %d bytes: the budget of %d was never used, nothing streamed", peak, fb.budget)
	}

	// An edit rewrites only its rows in the bricks on the device: far fewer bytes than a brick.
	snow := w.f.Channels["mask.snow"]
	edit := image.Rect(100, 100, 104, 103)
	for j := edit.Min.Y; j < edit.Max.Y; j++ {
		for i := edit.Min.X; i < edit.Max.X; i++ {
			snow.Set(i, j, 1-snow.At(i, j))
		}
	}
	before := fb.Uploaded
	if _, err := fb.Upload(w.f, s.Channels(), edit); err != nil {
		t.Fatal(err)
	}
	if got := fb.Uploaded - before; got > 4*int64(edit.Dx()*edit.Dy())*4 {
		t.Errorf("an edit of %d texels wrote %d bytes into the bricks", edit.Dx()*edit.Dy(), got)
	}
	full, err := d.NewWeightsTarget(W, H)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Release()
	if err := k.RunResident(ctx, full, w.params, fb, 1, image.Rect(0, 0, int(W), int(H))); err != nil {
		t.Fatal(err)
	}
	check("whole grid after the edit")
	lo, hi, err := full.ReadWeights()
	if err != nil {
		t.Fatal(err)
	}
	wantLo, wantHi := tiledWeights(t, k, w)
	if !bytes.Equal(lo, wantLo) || !bytes.Equal(hi, wantHi) {
		t.Fatal("after an edit, the bricks' whole-grid weights differ from a fresh tiled evaluation")
	}
}

// The bricks keep their bind groups from call to call: a second whole-grid pass into the same
// planes (through another target value, as the atlas hands out per page) makes none, another
// target's planes one more per brick; Fill puts every brick up in packed staging pieces, and the
// bytes stay the tiled path's throughout.
func TestBrickBindGroupsKept(t *testing.T) {
	ctx := context.Background()
	d := testDevice(t)
	s := stack.StressStack()
	w := newWeightsSetup(t, testField(t, 150, 2), s)
	W, H := uint32(w.fg.WeightsW), uint32(w.fg.WeightsH)
	k := testWeightsKernel(t)
	defer k.Release()
	fb := d.NewFieldBuffers(0)
	fb.BrickSize = 40
	defer fb.Release()
	fb.Cut(&w.fg, w.sg.GradientStep)
	if _, err := fb.Upload(w.f, s.Channels(), image.Rectangle{}); err != nil {
		t.Fatal(err)
	}
	if err := fb.Fill(ctx, image.Point{X: 70, Y: 70}); err != nil {
		t.Fatal(err)
	}
	if n := len(fb.bricks); n != 16 || fb.Uploaded < int64(n)*int64(4*40*40) {
		t.Fatalf("Fill: %d bricks, %d bytes uploaded", n, fb.Uploaded)
	}
	up := fb.Uploaded
	binds := func() (n int) {
		for i := range fb.bricks {
			n += len(fb.bricks[i].binds)
		}
		return n
	}
	wantLo, wantHi := tiledWeights(t, k, w)
	all := image.Rect(0, 0, int(W), int(H))
	a, err := d.NewWeightsTarget(W, H)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, err := d.NewWeightsTarget(W, H)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	a2 := *a // the same planes, another value
	for _, c := range []struct {
		target *WeightsTarget
		binds  int
	}{{a, 16}, {&a2, 16}, {b, 32}, {a, 32}} {
		if err := k.RunResident(ctx, c.target, w.params, fb, 1, all); err != nil {
			t.Fatal(err)
		}
		if got := binds(); got != c.binds {
			t.Errorf("after a pass into %p: %d bind groups on the bricks, want %d", c.target, got, c.binds)
		}
		lo, hi, err := c.target.ReadWeights()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(lo, wantLo) || !bytes.Equal(hi, wantHi) {
			t.Fatal("the bricks' pass differs from the tiled evaluation")
		}
	}
	if fb.Uploaded != up {
		t.Errorf("the passes after Fill uploaded %d bytes: the bricks were all there", fb.Uploaded-up)
	}
}

// tiledWeights is w's whole weights grid evaluated tile by tile (64² tiles, each uploaded): the
// bytes every resident path must write.
func tiledWeights(t *testing.T, k *WeightsKernel, w *weightsSetup) (lo, hi []byte) {
	t.Helper()
	tiled, err := k.dev.NewWeightsTarget(uint32(w.fg.WeightsW), uint32(w.fg.WeightsH))
	if err != nil {
		t.Fatal(err)
	}
	defer tiled.Release()
	for _, wt := range w.wtiles(t, 64) {
		if err := k.Run(context.Background(), tiled, w.params, wt); err != nil {
			t.Fatal(err)
		}
	}
	lo, hi, err = tiled.ReadWeights()
	if err != nil {
		t.Fatal(err)
	}
	return lo, hi
}
