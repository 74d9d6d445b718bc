package session

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"strata/bake"
	"strata/field"
	"strata/stack"
)

// sculptAt is one stroke of b through the points (world X, Z), closed.
func sculptAt(t *testing.T, h *harness, b Brush, pts ...[2]float64) {
	t.Helper()
	if err := h.s.BeginStroke(b); err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		h.s.Stroke(p[0], p[1])
	}
	h.s.EndStroke()
}

// texelCentre is the world X, Z of height texel (i, j).
func texelCentre(f *field.Field, i, j int) (float64, float64) {
	mn, ts := f.Placement.Min(), f.TexelSize()
	return mn[0] + (float64(i)+0.5)*ts[0], mn[1] + (float64(j)+0.5)*ts[1]
}

// insideOnly checks that only texels within radius of a dab centre changed between a and b and
// returns how many inside did.
func insideOnly(t *testing.T, f *field.Field, a, b []float32, radius float64, centres ...[2]float64) int {
	t.Helper()
	moved := 0
	for k := range a {
		x, z := texelCentre(f, k%f.Height.W, k/f.Height.W)
		near := false
		for _, c := range centres {
			near = near || math.Hypot(x-c[0], z-c[1]) < radius
		}
		if a[k] != b[k] {
			if !near {
				t.Fatalf("texel (%d, %d) outside the brush changed: %v → %v", k%f.Height.W, k/f.Height.W, a[k], b[k])
			}
			moved++
		}
	}
	return moved
}

// Raise raises and lower lowers the ground only inside the brush's radius; each stroke is one
// undo step named for its tool.
func TestSculptRaiseLowerInsideRadius(t *testing.T) {
	onEvaluators(t, testSculptRaiseLowerInsideRadius)
}

func testSculptRaiseLowerInsideRadius(t *testing.T, ev Evaluator) {
	h, _ := openSample(t, Options{Evaluator: ev}, 128, nil, true)
	landIfGPU(t, h, ev)
	f0 := fieldNow(t, h)
	ts := f0.TexelSize()[0]
	r := 6 * ts
	cx, cz := texelCentre(f0, 40, 50)
	orig := f0.Height.Clone()

	sculptAt(t, h, Brush{Sculpt: SculptRaise, Radius: r, Strength: 1, Falloff: 0.5}, [2]float64{cx, cz})
	if got := h.s.UndoLabel(); got != "Raise ground" {
		t.Errorf("undo label %q, want Raise ground", got)
	}
	f1 := fieldNow(t, h)
	if n := insideOnly(t, f1, orig.Data, f1.Height.Data, r, [2]float64{cx, cz}); n == 0 {
		t.Fatal("a raise dab moved nothing")
	}
	for k := range orig.Data {
		if f1.Height.Data[k] < orig.Data[k] {
			t.Fatalf("raise lowered texel %d", k)
		}
	}
	if d := float64(f1.Height.At(40, 50) - orig.At(40, 50)); math.Abs(d-RaiseRate*r) > 1e-3*r {
		t.Errorf("the centre rose %v m, want RaiseRate·radius = %v", d, RaiseRate*r)
	}

	raised := f1.Height.Clone()
	sculptAt(t, h, Brush{Sculpt: SculptRaise, Erase: true, Radius: r, Strength: 1, Falloff: 0.5}, [2]float64{cx, cz}, [2]float64{cx + r, cz})
	if got := h.s.UndoLabel(); got != "Lower ground" {
		t.Errorf("undo label %q, want Lower ground", got)
	}
	f2 := fieldNow(t, h)
	if n := insideOnly(t, f2, raised.Data, f2.Height.Data, r, [2]float64{cx, cz}, [2]float64{cx + r/4, cz}, [2]float64{cx + r/2, cz}, [2]float64{cx + 3*r/4, cz}, [2]float64{cx + r, cz}); n == 0 {
		t.Fatal("a lower stroke moved nothing")
	}
	for k := range raised.Data {
		if f2.Height.Data[k] > raised.Data[k] {
			t.Fatalf("lower raised texel %d", k)
		}
	}
	if f2.Height.At(40, 50) >= raised.At(40, 50) {
		t.Error("lower left the centre where it was")
	}
}

// A flatten stroke levels the pressed area to the height under the press, within 1 cm after
// enough dabs, and a smooth stroke reduces the variance inside its radius; neither changes a
// texel outside it.
func TestSculptFlattenSmooth(t *testing.T) { onEvaluators(t, testSculptFlattenSmooth) }

func testSculptFlattenSmooth(t *testing.T, ev Evaluator) {
	h, _ := openSample(t, Options{Evaluator: ev}, 128, nil, true)
	landIfGPU(t, h, ev)
	f0 := fieldNow(t, h)
	ts := f0.TexelSize()[0]
	r := 8 * ts
	ci, cj := 70, 60
	cx, cz := texelCentre(f0, ci, cj)
	orig := f0.Height.Clone()
	target := orig.At(ci, cj)

	// Back and forth a quarter radius: every Stroke call lays one dab.
	pts := [][2]float64{{cx, cz}}
	centres := [][2]float64{{cx, cz}, {cx + r/4, cz}}
	for n := 0; n < 40; n++ {
		pts = append(pts, [2]float64{cx + r/4*float64((n+1)%2), cz})
	}
	sculptAt(t, h, Brush{Sculpt: SculptFlatten, Radius: r, Strength: 0.5, Falloff: 0.25}, pts...)
	f1 := fieldNow(t, h)
	insideOnly(t, f1, orig.Data, f1.Height.Data, r, centres...)
	pressed, spread := 0, 0.0
	for j := 0; j < f1.Height.H; j++ {
		for i := 0; i < f1.Height.W; i++ {
			x, z := texelCentre(f1, i, j)
			// Inside the hard core (3/4 of the radius) of both dab centres.
			if math.Hypot(x-cx, z-cz) < 0.5*r && math.Hypot(x-cx-r/4, z-cz) < 0.5*r {
				pressed++
				spread = math.Max(spread, math.Abs(float64(orig.At(i, j)-target)))
				if d := math.Abs(float64(f1.Height.At(i, j) - target)); d > 0.01 {
					t.Fatalf("texel (%d, %d) is %v m from the flatten target %v", i, j, d, target)
				}
			}
		}
	}
	if pressed < 10 || spread < 1 {
		t.Fatalf("%d pressed texels spreading %v m: the test shows nothing", pressed, spread)
	}
	if got := h.s.UndoLabel(); got != "Flatten ground" {
		t.Errorf("undo label %q", got)
	}

	// Smooth on a fresh spot.
	si, sj := 30, 90
	sx, sz := texelCentre(f0, si, sj)
	before := f1.Height.Clone()
	variance := func(g *field.Grid) float64 {
		var s, s2 float64
		n := 0
		for j := 0; j < g.H; j++ {
			for i := 0; i < g.W; i++ {
				x, z := texelCentre(f0, i, j)
				if math.Hypot(x-sx, z-sz) < 0.5*r {
					v := float64(g.At(i, j))
					s, s2, n = s+v, s2+v*v, n+1
				}
			}
		}
		m := s / float64(n)
		return s2/float64(n) - m*m
	}
	sculptAt(t, h, Brush{Sculpt: SculptSmooth, Radius: r, Strength: 1, Falloff: 0.25}, [2]float64{sx, sz}, [2]float64{sx + r/4, sz}, [2]float64{sx, sz})
	f2 := fieldNow(t, h)
	if n := insideOnly(t, f2, before.Data, f2.Height.Data, r, [2]float64{sx, sz}, [2]float64{sx + r/4, sz}); n == 0 {
		t.Fatal("smooth moved nothing")
	}
	if v0, v1 := variance(before), variance(f2.Height); !(v1 < 0.9*v0) {
		t.Errorf("smooth: the variance inside went %v → %v", v0, v1)
	}
	if got := h.s.UndoLabel(); got != "Smooth ground" {
		t.Errorf("undo label %q", got)
	}
}

// After a sequence of strokes the live weights are a fresh evaluation of the final height (slope
// and curvature taps across the strokes' edges, and flow, which a stroke routes again); undo and
// redo of every stroke restore the height's bytes exactly.
func TestSculptWeightsAndUndo(t *testing.T) {
	t.Run("sample", func(t *testing.T) { sculptWeightsAndUndo(t, stack.SampleDunes()) })
	t.Run("flow", func(t *testing.T) {
		st := stack.SampleDunes()
		wet := stack.NewLayer("wet")
		wet.Rules = []stack.Rule{{Input: stack.InputFlow, Min: stack.F(4), Softness: 1.5}}
		st.Layers = append(st.Layers, wet)
		sculptWeightsAndUndo(t, st)
	})
}

func sculptWeightsAndUndo(t *testing.T, st *stack.Stack) {
	h, _ := openSample(t, Options{Evaluator: CPU, TileSize: 32}, 128, st, true)
	ctx := context.Background()
	f0 := fieldNow(t, h)
	orig := f0.Height.Clone()
	ts := f0.TexelSize()[0]
	r := 10 * ts
	at := func(i, j int) [2]float64 { x, z := texelCentre(f0, i, j); return [2]float64{x, z} }

	strokes := []struct {
		b   Brush
		pts [][2]float64
	}{
		{Brush{Sculpt: SculptRaise, Radius: r, Strength: 1, Falloff: 0.6}, [][2]float64{at(40, 40), at(48, 40), at(56, 44)}},
		{Brush{Sculpt: SculptRaise, Erase: true, Radius: r, Strength: 0.7, Falloff: 0.3}, [][2]float64{at(90, 80), at(90, 90)}},
		{Brush{Sculpt: SculptSmooth, Radius: r, Strength: 0.8, Falloff: 0.5}, [][2]float64{at(44, 40), at(52, 42)}},
		{Brush{Sculpt: SculptFlatten, Radius: r, Strength: 0.6, Falloff: 0.4}, [][2]float64{at(100, 30), at(106, 30), at(100, 30)}},
		{Brush{Sculpt: SculptSet, Height: 20, Radius: r, Strength: 0.5, Falloff: 0.5}, [][2]float64{at(20, 100), at(26, 104)}},
		{Brush{Sculpt: SculptTerrace, Step: 3, Sharpness: 0.8, Radius: r, Strength: 1, Falloff: 0.3}, [][2]float64{at(70, 70), at(76, 72)}},
		{Brush{Sculpt: SculptNoise, Amplitude: 2, FeatureSize: 8 * ts, Seed: 3, Radius: r, Strength: 1, Falloff: 0.5}, [][2]float64{at(60, 100)}},
		{Brush{Sculpt: SculptStamp, Stamp: testStamp(), Angle: 30, StampHeight: 5, Radius: r, Strength: 1, Falloff: 0.2}, [][2]float64{at(30, 60), at(40, 60)}},
	}
	var after [][]byte
	for _, s := range strokes {
		sculptAt(t, h, s.b, s.pts...)
		after = append(after, bytes.Clone(f32bytes(fieldNow(t, h).Height.Data)))
	}
	h.waitFrame(h.s.Version())
	p := h.s.pipe
	p.passMu.Lock()
	want, err := bake.Reference(ctx, h.s.Stack(), &field.Field{Placement: h.s.land.Field.Placement, Height: h.s.land.Field.Height.Clone(), Channels: map[string]*field.Grid{}}, bake.Options{})
	if err != nil {
		p.passMu.Unlock()
		t.Fatal(err)
	}
	got := p.full.(*cpuEval).w
	if !bytes.Equal(got.Lo, want.Lo) || !bytes.Equal(got.Hi, want.Hi) {
		eq, worst := bake.CompareWeights(want, got)
		t.Errorf("after the strokes the weights are not a fresh evaluation of the ground: %.4f%% equal, worst %d", 100*eq, worst)
	}
	p.passMu.Unlock()
	if bytes.Equal(f32bytes(orig.Data), after[len(after)-1]) {
		t.Fatal("the strokes moved nothing")
	}

	for k := len(strokes) - 1; k >= 0; k-- {
		if !h.s.Undo() {
			t.Fatalf("nothing to undo at stroke %d", k)
		}
		wantH := f32bytes(orig.Data)
		if k > 0 {
			wantH = after[k-1]
		}
		if !bytes.Equal(f32bytes(fieldNow(t, h).Height.Data), wantH) {
			t.Fatalf("undo of stroke %d: the height's bytes are not those before it", k)
		}
	}
	if h.s.Modified() {
		t.Error("undoing every stroke left the document modified")
	}
	for k := range strokes {
		if !h.s.Redo() {
			t.Fatalf("nothing to redo at stroke %d", k)
		}
		if !bytes.Equal(f32bytes(fieldNow(t, h).Height.Data), after[k]) {
			t.Fatalf("redo of stroke %d: the height's bytes are not those after it", k)
		}
	}
	// The live weights follow undo and redo too.
	h.waitFrame(h.s.Version())
	p.passMu.Lock()
	defer p.passMu.Unlock()
	if got := p.full.(*cpuEval).w; !bytes.Equal(got.Lo, want.Lo) || !bytes.Equal(got.Hi, want.Hi) {
		eq, worst := bake.CompareWeights(want, got)
		t.Errorf("after undo and redo the weights are not the final ground's: %.4f%% equal, worst %d", 100*eq, worst)
	}
}

// A sculpt stroke keeps only the 64² blocks it touched, before and after.
func TestSculptStepHoldsTouchedBlocks(t *testing.T) {
	onEvaluators(t, testSculptStepHoldsTouchedBlocks)
}

func testSculptStepHoldsTouchedBlocks(t *testing.T, ev Evaluator) {
	h, _ := openSample(t, Options{Evaluator: ev}, 256, nil, true)
	landIfGPU(t, h, ev)
	f0 := fieldNow(t, h)
	ts := f0.TexelSize()[0]
	x, z := texelCentre(f0, 100, 100) // a 10-texel brush inside block (1, 1)
	sculptAt(t, h, Brush{Sculpt: SculptRaise, Radius: 10 * ts, Strength: 1, Falloff: 0.5}, [2]float64{x, z})
	fieldNow(t, h) // the worker has reached the end of the stroke
	h.s.mu.Lock()
	op, ok := h.s.hist.done[len(h.s.hist.done)-1].(*strokeOp)
	h.s.mu.Unlock()
	if !ok {
		t.Fatal("the stroke's step is not a stroke")
	}
	if n := len(op.rec.blocks); n != 1 {
		t.Errorf("a dab inside one block kept %d blocks", n)
	}
	if got, want := op.size(), 256+2*4*undoBlock*undoBlock; got != want {
		t.Errorf("the step holds %d bytes, want %d (one block before and after)", got, want)
	}
}

func f32bytes(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b := math.Float32bits(x)
		out = append(out, byte(b), byte(b>>8), byte(b>>16), byte(b>>24))
	}
	return out
}

// testStamp is a 17×17 crater: a rim ring at 1 around a bowl at -1.
func testStamp() *field.Grid {
	g := field.NewGrid(17, 17)
	for j := 0; j < 17; j++ {
		for i := 0; i < 17; i++ {
			d := math.Hypot(float64(i)-8, float64(j)-8) / 8
			g.Set(i, j, float32(math.Max(0, 1-math.Abs(d-0.75)*4)-math.Max(0, 1-d*1.6)))
		}
	}
	return g
}

// Set, terrace, noise and stamp strokes change the ground only inside their radius, as one undo
// step each named for its tool; set at full strength reaches the typed height, terrace at
// sharpness 1 leaves the step heights, a stamp is laid once however far the stroke drags.
func TestSculptNewModesInsideRadius(t *testing.T) { onEvaluators(t, testSculptNewModesInsideRadius) }

func testSculptNewModesInsideRadius(t *testing.T, ev Evaluator) {
	h, _ := openSample(t, Options{Evaluator: ev}, 128, nil, true)
	landIfGPU(t, h, ev)
	f0 := fieldNow(t, h)
	ts := f0.TexelSize()[0]
	r := 7 * ts
	cases := []struct {
		b     Brush
		label string
		check func(before, after float32) bool
	}{
		{Brush{Sculpt: SculptSet, Height: 12.25, Strength: 1}, "Set ground height", func(_, a float32) bool { return a == 12.25 }},
		{Brush{Sculpt: SculptTerrace, Step: 2.5, Sharpness: 1, Strength: 1}, "Terrace ground", func(b, a float32) bool {
			return float64(a) == 2.5*math.Floor(float64(b)/2.5)
		}},
		{Brush{Sculpt: SculptNoise, Amplitude: 3, FeatureSize: 5 * ts, Seed: 9, Strength: 1}, "Add noise to ground", nil},
		{Brush{Sculpt: SculptStamp, Stamp: testStamp(), StampHeight: 4, Strength: 1}, "Stamp ground", nil},
		{Brush{Sculpt: SculptStamp, Stamp: testStamp(), StampHeight: 4, Strength: 1, Erase: true}, "Stamp into ground", nil},
	}
	for n, c := range cases {
		ci, cj := 25+20*(n%4), 30+50*(n/4)
		cx, cz := texelCentre(f0, ci, cj)
		before := fieldNow(t, h).Height.Clone()
		c.b.Radius, c.b.Falloff = r, 0
		pts := [][2]float64{{cx, cz}}
		if c.b.Sculpt == SculptStamp {
			pts = append(pts, [2]float64{cx + 3*r, cz}, [2]float64{cx + 6*r, cz + r}) // the drag lays nothing more
		}
		sculptAt(t, h, c.b, pts...)
		if got := h.s.UndoLabel(); got != c.label {
			t.Errorf("%s: undo label %q", c.label, got)
		}
		after := fieldNow(t, h)
		if m := insideOnly(t, after, before.Data, after.Height.Data, r, [2]float64{cx, cz}); m < 20 {
			t.Fatalf("%s moved %d texels", c.label, m)
		}
		if c.check == nil {
			continue
		}
		for j := 0; j < after.Height.H; j++ {
			for i := 0; i < after.Height.W; i++ {
				x, z := texelCentre(after, i, j)
				if math.Hypot(x-cx, z-cz) < r && !c.check(before.At(i, j), after.Height.At(i, j)) {
					t.Fatalf("%s: texel (%d, %d) went %v → %v", c.label, i, j, before.At(i, j), after.Height.At(i, j))
				}
			}
		}
	}
}

// A flatten stroke with a picked height (Shift+click in the editor) levels the pressed area to
// it, within 1 cm, wherever the stroke began.
func TestSculptFlattenToPickedHeight(t *testing.T) { onEvaluators(t, testSculptFlattenToPickedHeight) }

func testSculptFlattenToPickedHeight(t *testing.T, ev Evaluator) {
	h, _ := openSample(t, Options{Evaluator: ev}, 128, nil, true)
	landIfGPU(t, h, ev)
	f0 := fieldNow(t, h)
	ts := f0.TexelSize()[0]
	r := 8 * ts
	cx, cz := texelCentre(f0, 64, 64)
	lo, hi := f0.Height.MinMax()
	level := float64(lo+hi) / 2
	pts := [][2]float64{{cx, cz}}
	for n := 0; n < 30; n++ {
		pts = append(pts, [2]float64{cx + r/4*float64((n+1)%2), cz})
	}
	sculptAt(t, h, Brush{Sculpt: SculptFlatten, Height: level, HasHeight: true, Radius: r, Strength: 0.5, Falloff: 0.25}, pts...)
	f1 := fieldNow(t, h)
	n := 0
	for j := 0; j < f1.Height.H; j++ {
		for i := 0; i < f1.Height.W; i++ {
			x, z := texelCentre(f1, i, j)
			if math.Hypot(x-cx, z-cz) < 0.5*r && math.Hypot(x-cx-r/4, z-cz) < 0.5*r {
				n++
				if d := math.Abs(float64(f1.Height.At(i, j)) - level); d > 0.01 {
					t.Fatalf("texel (%d, %d) is %v m from the picked level %v", i, j, d, level)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("%d pressed texels", n)
	}
	// A bad parameter is refused at the stroke's start, naming it.
	for _, b := range []Brush{
		{Sculpt: SculptTerrace, Radius: r, Strength: 1},
		{Sculpt: SculptNoise, Radius: r, Strength: 1, Amplitude: 1},
		{Sculpt: SculptStamp, Radius: r, Strength: 1},
	} {
		err := h.s.BeginStroke(b)
		if err == nil {
			h.s.EndStroke()
		}
		want := map[SculptMode]string{SculptTerrace: "step", SculptNoise: "feature size", SculptStamp: "image"}[b.Sculpt]
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v brush: %v, want an error naming %q", b.Sculpt, err, want)
		}
	}
}
