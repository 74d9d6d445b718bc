package session

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
	"strata/terraindata"
)

// sculptState is what a sculpted session shows once settled: the height's bytes, the live
// weights and each population's instance matrices.
type sculptState struct {
	height, lo, hi []byte
	inst           [][]float32
}

// settledState waits for the settled frame of the newest version and reads the session's state
// with the worker idle (Go evaluator).
func settledState(t *testing.T, h *harness) sculptState {
	t.Helper()
	h.waitFrame(h.s.Version())
	p := h.s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	w := p.full.(*cpuEval).w
	st := sculptState{height: bytes.Clone(f32bytes(h.s.land.Field.Height.Data)), lo: bytes.Clone(w.Lo), hi: bytes.Clone(w.Hi)}
	for _, ps := range p.pops {
		var m []float32
		if ps.pool != nil {
			m = append(m, ps.pool.Matrices()...)
		}
		st.inst = append(st.inst, m)
	}
	return st
}

func (a sculptState) equal(b sculptState) (what string, ok bool) {
	switch {
	case !bytes.Equal(a.height, b.height):
		return "heights", false
	case !bytes.Equal(a.lo, b.lo) || !bytes.Equal(a.hi, b.hi):
		return "weights", false
	case len(a.inst) != len(b.inst):
		return "populations", false
	}
	for i := range a.inst {
		if !bytes.Equal(f32bytes(a.inst[i]), f32bytes(b.inst[i])) {
			return "instances", false
		}
	}
	return "", true
}

// freshPlacement evaluates st over a copy of the height (and channels) from scratch with the Go
// reference, weights then every population placed, as bake.ReferenceEvaluator does for a bake.
func freshPlacement(t *testing.T, st *stack.Stack, f *field.Field, tileSize int) *landscape.Landscape {
	t.Helper()
	ctx := context.Background()
	nf := &field.Field{Placement: f.Placement, Height: f.Height.Clone(), Channels: map[string]*field.Grid{}}
	for k, g := range f.Channels {
		nf.Channels[k] = g.Clone()
	}
	geo, err := landscape.NewGeometry(st, nf, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := &landscape.Landscape{Stack: st, Field: nf, Geometry: geo}
	if l.Weights, err = bake.Reference(ctx, st, nf, bake.Options{TileSize: tileSize}); err != nil {
		t.Fatal(err)
	}
	if err := bake.ScatterReference(ctx, l, bake.Options{TileSize: tileSize}); err != nil {
		t.Fatal(err)
	}
	return l
}

// sculptStrokes are a raise (rising above the ground's range), a lower, a smooth over the raise
// and a flatten, on a 128² dunes field.
func sculptStrokes(f *field.Field) []struct {
	b   Brush
	pts [][2]float64
} {
	ts := f.TexelSize()[0]
	r := 12 * ts
	at := func(i, j int) [2]float64 { x, z := texelCentre(f, i, j); return [2]float64{x, z} }
	return []struct {
		b   Brush
		pts [][2]float64
	}{
		{Brush{Sculpt: SculptRaise, Radius: r, Strength: 1, Falloff: 0.6}, [][2]float64{at(40, 40), at(46, 40), at(40, 40), at(46, 40), at(40, 40), at(46, 40), at(40, 40)}},
		{Brush{Sculpt: SculptRaise, Erase: true, Radius: r, Strength: 0.7, Falloff: 0.3}, [][2]float64{at(90, 80), at(90, 90)}},
		{Brush{Sculpt: SculptSmooth, Radius: r, Strength: 0.8, Falloff: 0.5}, [][2]float64{at(44, 40), at(52, 42)}},
		{Brush{Sculpt: SculptFlatten, Radius: r, Strength: 0.6, Falloff: 0.4}, [][2]float64{at(100, 30), at(106, 30), at(100, 30)}},
	}
}

// After strokes of every sculpt mode the instances the session holds are a fresh placement of
// the final ground — bake.Reference's weights and bake.ScatterReference's populations of a copy
// of the sculpted field — matrix for matrix; then undo of every stroke, one at a time, restores
// the heights, weights and instances before it exactly, and redo those after it.
func TestSculptInstancesFreshAndUndoRedo(t *testing.T) {
	const tile = 32
	h, _ := openSample(t, Options{Evaluator: CPU, TileSize: tile}, 128, nil, true)
	f0 := fieldNow(t, h)
	states := []sculptState{settledState(t, h)}
	for _, s := range sculptStrokes(f0) {
		sculptAt(t, h, s.b, s.pts...)
		states = append(states, settledState(t, h))
	}
	last := states[len(states)-1]
	if bytes.Equal(states[0].height, last.height) {
		t.Fatal("the strokes moved nothing")
	}
	placed := 0
	for _, m := range last.inst {
		placed += len(m)
	}
	if placed == 0 {
		t.Fatal("no instances placed: the test shows nothing")
	}
	fresh := freshPlacement(t, h.s.Stack(), fieldNow(t, h), tile)
	if !bytes.Equal(fresh.Weights.Lo, last.lo) || !bytes.Equal(fresh.Weights.Hi, last.hi) {
		eq, worst := bake.CompareWeights(fresh.Weights, &landscape.Weights{Lo: last.lo, Hi: last.hi})
		t.Errorf("the live weights are not a fresh evaluation: %.4f%% equal, worst %d", 100*eq, worst)
	}
	if len(fresh.Scatter) != len(last.inst) {
		t.Fatalf("%d populations placed afresh, the session holds %d", len(fresh.Scatter), len(last.inst))
	}
	for i, pop := range fresh.Scatter {
		if !bytes.Equal(f32bytes(pop.Matrices), f32bytes(last.inst[i])) {
			t.Errorf("population %q: the session holds %d instances, a fresh placement makes %d, not the same matrices",
				pop.Name, len(last.inst[i])/scatter.MatrixFloats, len(pop.Matrices)/scatter.MatrixFloats)
		}
	}

	for k := len(states) - 1; k > 0; k-- {
		if !h.s.Undo() {
			t.Fatalf("nothing to undo at stroke %d", k)
		}
		if what, ok := settledState(t, h).equal(states[k-1]); !ok {
			t.Fatalf("undo of stroke %d: the %s are not those before it", k, what)
		}
	}
	for k := 1; k < len(states); k++ {
		if !h.s.Redo() {
			t.Fatalf("nothing to redo at stroke %d", k)
		}
		if what, ok := settledState(t, h).equal(states[k]); !ok {
			t.Fatalf("redo of stroke %d: the %s are not those after it", k, what)
		}
	}
}

// The saved height payload of a sculpted landscape: R the sculpted heights, G and B their central
// differences (one-sided at the edges, docs/terraindata.md), and a heightRange grown to the raise
// that went above the ground's range.
func TestSculptSavedHeightPayload(t *testing.T) { onEvaluators(t, testSculptSavedHeightPayload) }

func testSculptSavedHeightPayload(t *testing.T, ev Evaluator) {
	h, _ := openSample(t, Options{Evaluator: ev}, 128, nil, true)
	landIfGPU(t, h, ev)
	f0 := fieldNow(t, h)
	before := h.s.Field().HeightRange
	for _, s := range sculptStrokes(f0) {
		sculptAt(t, h, s.b, s.pts...)
	}
	path := filepath.Join(t.TempDir(), "sculpted.terrainData")
	if err := h.s.SaveAs(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	f := fieldNow(t, h)
	hs, w, hh := f.Height.Data, f.Height.W, f.Height.H
	lo, hi := hs[0], hs[0]
	for _, v := range hs {
		lo, hi = min(lo, v), max(hi, v)
	}
	if !(float64(hi) > before[1]+1) {
		t.Fatalf("the raise reached %v m, not above the range %v it started in: the test shows nothing", hi, before)
	}
	if got := h.s.Field().HeightRange; got[1] != float64(hi) {
		t.Errorf("the session's height range is %v after the raise, want a top of %v", got, hi)
	}
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Placement().HeightRange; float32(r[0]) != lo || float32(r[1]) != hi {
		t.Errorf("the container's heightRange is %v, want the sculpted ground's [%v, %v]", r, lo, hi)
	}
	tex, err := terraindata.ReadTexture(filepath.Join(path, "height.texture"))
	if err != nil {
		t.Fatal(err)
	}
	if tex.Width != w || tex.Height != hh || len(tex.Float) != 4*w*hh {
		t.Fatalf("height payload %d×%d (%d values), want %d×%d rgba", tex.Width, tex.Height, len(tex.Float), w, hh)
	}
	ts := f.TexelSize()
	diff := func(c, m, p float32, hasM, hasP bool, texel float64) float32 {
		switch {
		case hasM && hasP:
			return (p - m) / float32(2*texel)
		case hasP:
			return (p - c) / float32(texel)
		}
		return (c - m) / float32(texel)
	}
	at := func(i, j int) float32 {
		if i < 0 || j < 0 || i >= w || j >= hh {
			return 0
		}
		return hs[j*w+i]
	}
	for j := range hh {
		for i := range w {
			px := tex.Float[4*(j*w+i):]
			gx := diff(at(i, j), at(i-1, j), at(i+1, j), i > 0, i < w-1, ts[0])
			gz := diff(at(i, j), at(i, j-1), at(i, j+1), j > 0, j < hh-1, ts[1])
			if px[0] != at(i, j) || px[1] != gx || px[2] != gz {
				t.Fatalf("texel (%d, %d) saved (R, G, B) = (%v, %v, %v), want the height %v and its differences (%v, %v)",
					i, j, px[0], px[1], px[2], at(i, j), gx, gz)
			}
		}
	}
}

// On the GPU evaluator too, after strokes of every sculpt mode the instances the session's
// kernels hold are those a fresh GPU bake of the final ground places (bake.GPU.Bake: weights,
// density and placement from scratch), matrix for matrix (sorted: the pool's slot order varies).
func TestSculptInstancesFreshGPU(t *testing.T) {
	const tile = 32
	h, _ := openSample(t, Options{Evaluator: GPU, TileSize: tile}, 128, nil, true)
	landed(t, h) // the dabs run the sculpt kernel on the resident field
	for _, s := range sculptStrokes(fieldNow(t, h)) {
		sculptAt(t, h, s.b, s.pts...)
	}
	h.waitFrame(h.s.Version())
	ctx := context.Background()
	p := h.s.pipe
	p.passMu.Lock()
	var held [][]float32
	for _, ps := range p.pops {
		if ps.kernel == nil {
			p.passMu.Unlock()
			t.Fatalf("population %q has no GPU kernel: the session does not place on the GPU", ps.name)
		}
		// The release's placement read its count: the status bar's is the pool's own.
		if !ps.kernel.Exact() || ps.count != ps.kernel.Count() {
			t.Errorf("population %q after the strokes: exact %v, the session counts %d, the kernel %d", ps.name, ps.kernel.Exact(), ps.count, ps.kernel.Count())
		}
		m, err := ps.kernel.ReadMatrices()
		if err != nil {
			p.passMu.Unlock()
			t.Fatal(err)
		}
		held = append(held, m)
		// The dabs' rows went into the windows the place kernel holds, not whole uploads.
		if ps.kernel.HeightEdits() == 0 {
			t.Errorf("population %q: no dab's rows were written into the held height windows (%d whole uploads)", ps.name, ps.kernel.HeightUploads())
		}
		t.Logf("population %q: %d height uploads, %d edits written", ps.name, ps.kernel.HeightUploads(), ps.kernel.HeightEdits())
	}
	p.passMu.Unlock()
	f := fieldNow(t, h)
	st := h.s.Stack()
	geo, err := landscape.NewGeometry(st, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := bake.OpenGPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	fresh := &landscape.Landscape{Stack: st, Field: f, Geometry: geo}
	if err := g.Bake(ctx, fresh, bake.Options{TileSize: tile}); err != nil {
		t.Fatal(err)
	}
	if len(fresh.Scatter) != len(held) {
		t.Fatalf("%d populations baked afresh, the session holds %d", len(fresh.Scatter), len(held))
	}
	placed := 0
	for i, pop := range fresh.Scatter {
		want := scatter.SortMatrices(pop.Matrices[:pop.Count*scatter.MatrixFloats])
		got := scatter.SortMatrices(held[i])
		if !bytes.Equal(f32bytes(want), f32bytes(got)) {
			t.Errorf("population %q: the session's kernel holds %d instances, a fresh GPU bake places %d, not the same matrices",
				pop.Name, len(got)/scatter.MatrixFloats, pop.Count)
		}
		placed += pop.Count
	}
	if placed == 0 {
		t.Fatal("no instances placed: the test shows nothing")
	}
}
