package bake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

func mustRef(t testing.TB, s *stack.Stack, f *field.Field, opt Options) *landscape.Weights {
	t.Helper()
	w, err := Reference(context.Background(), s, f, opt)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func checkSum255(t *testing.T, w *landscape.Weights) {
	t.Helper()
	for j := 0; j < w.H; j++ {
		for i := 0; i < w.W; i++ {
			sum := 0
			for _, b := range w.Texel(i, j) {
				sum += int(b)
			}
			if sum != 255 {
				t.Fatalf("texel (%d,%d) bytes sum to %d, want 255: %v", i, j, sum, w.Texel(i, j))
			}
		}
	}
}

// Tilings 32, 256 and one tile for the whole field must give byte-identical weights (SPEC "Tiles
// and seams"): every read is placed from the field minimum, never from a tile's origin.
func TestTilingsByteIdentical(t *testing.T) {
	tests := []struct {
		name string
		s    *stack.Stack
		f    *field.Field
		res  float64
	}{
		{"dunes sample stack", stack.SampleDunes(), field.SampleDunesSized(300), 0},
		{"stress stack", stack.StressStack(), StressField(300), 0},
		{"stress stack, finer weights grid", stack.StressStack(), StressField(200), 13.0},
		{"aspect stack", stack.AspectStack(), plateauField(250), 0},
		{"aspect stack, coarser weights grid", stack.AspectStack(), plateauField(200), 27},
		// flow is routed once for the whole field (not per tile from an apron): tiles agree exactly
		{"flow stack", stack.FlowStack(), plateauField(250), 0},
		{"flow stack, coarser weights grid", stack.FlowStack(), plateauField(200), 27},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			whole := mustRef(t, tc.s, tc.f, Options{TileSize: 1 << 20, Resolution: tc.res})
			checkSum255(t, whole)
			for _, ts := range []int{32, 256, 77} {
				got := mustRef(t, tc.s, tc.f, Options{TileSize: ts, Resolution: tc.res})
				if !bytes.Equal(got.Lo, whole.Lo) || !bytes.Equal(got.Hi, whole.Hi) {
					t.Errorf("tile size %d differs from the whole-field evaluation", ts)
				}
			}
		})
	}
}

// The stress stack must actually exercise its layers on the stress field: a benchmark over a
// stack whose rules are all 0 or all 1 would measure nothing.
func TestStressStackCoversEveryLayer(t *testing.T) {
	w := mustRef(t, stack.StressStack(), StressField(256), Options{})
	for k := 0; k < 8; k++ {
		n := 0
		for _, b := range w.Layer(k) {
			if b > 0 {
				n++
			}
		}
		if n == 0 {
			t.Errorf("layer %d (%s) never shows on the stress field", k, stack.StressStack().Layers[k].Name)
		}
	}
}

// Re-evaluating one tile in place leaves the others untouched and reproduces the whole-field bytes.
func TestReferenceTilesInPlace(t *testing.T) {
	s, f := stack.StressStack(), StressField(128)
	g, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := mustRef(t, s, f, Options{})
	tiles := g.Tiles(32)
	w := landscape.NewWeights(want.W, want.H)
	copy(w.Lo, want.Lo)
	copy(w.Hi, want.Hi)
	tile := tiles[5]
	for j := tile.J0; j < tile.J0+tile.H; j++ {
		for i := tile.I0; i < tile.I0+tile.W; i++ {
			o := (j*w.W + i) * 4
			copy(w.Lo[o:o+4], []byte{1, 2, 3, 4})
		}
	}
	if err := ReferenceTiles(context.Background(), s, f, &g, w, tiles[5:6], Options{TileSize: 32}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Lo, want.Lo) || !bytes.Equal(w.Hi, want.Hi) {
		t.Error("re-evaluating tile 5 did not reproduce the whole-field weights")
	}
}

// Random stacks over random heights: the bytes always sum to 255.
func TestRandomStacksSum255(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	f := StressField(64)
	inputs := []stack.Input{stack.InputHeight, stack.InputSlope, stack.InputCurvature, stack.InputNoise, stack.InputAspect}
	for trial := 0; trial < 30; trial++ {
		s := stack.New()
		nl := 1 + rng.Intn(8)
		for l := 0; l < nl; l++ {
			ly := stack.NewLayer(string(rune('a' + l)))
			ly.Strength = rng.Float64()
			if l > 0 {
				for r := rng.Intn(3); r > 0; r-- {
					ru := stack.Rule{Input: inputs[rng.Intn(len(inputs))], Softness: rng.Float64() * 3, Jitter: rng.Float64(), Invert: rng.Intn(2) == 0}
					lo := rng.Float64()*20 - 5
					ru.Min = stack.F(lo)
					if rng.Intn(2) == 0 {
						ru.Max = stack.F(lo + rng.Float64()*10)
					}
					if ru.Input == stack.InputAspect { // an arc of the compass: both edges
						ru.Min, ru.Max = stack.F(rng.Float64()*360), stack.F(rng.Float64()*360)
					}
					ly.Rules = append(ly.Rules, ru)
				}
			}
			s.Layers = append(s.Layers, ly)
		}
		checkSum255(t, mustRef(t, s, f, Options{TileSize: 16 + rng.Intn(50)}))
	}
}

func TestReferenceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Reference(ctx, stack.StressStack(), StressField(64), Options{TileSize: 16})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestReferenceMissingChannel(t *testing.T) {
	_, err := Reference(context.Background(), stack.StressStack(), field.SampleDunesSized(32), Options{})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("mask.snow")) {
		t.Fatalf("err = %v, want one naming the missing channel", err)
	}
}

func TestReferenceProgress(t *testing.T) {
	var mu sync.Mutex // progress.Func is called from the workers
	var last, total int
	_, err := Reference(context.Background(), stack.SampleDunes(), field.SampleDunesSized(100), Options{
		TileSize: 32, Progress: func(stage string, done, tot int) {
			mu.Lock()
			defer mu.Unlock()
			if stage == StageEvaluate {
				last, total = max(last, done), tot
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if total != 16 || last != 16 {
		t.Errorf("progress reached %d/%d, want 16/16", last, total)
	}
}

// slowReference is the Go reference as docs/design.md defines it, texel by texel with nothing
// shared or skipped: the texel's position, every input through field.Sampler over the whole grids
// (Bilinear, Slope, Curvature), whether the stack reads it or not, and stack.Compiled.Weights.
// The evaluator's fast paths (stack's taps_fast.go, weights_fast.go, slope_fast.go, the inputs
// it leaves out, and evalTileInto) must give its bytes exactly.
func slowReference(t testing.TB, s *stack.Stack, f *field.Field, g *landscape.Geometry) *landscape.Weights {
	t.Helper()
	c, err := stack.Compile(s, g.Stack)
	if err != nil {
		t.Fatal(err)
	}
	grids, err := channelGrids(s, f)
	if err != nil {
		t.Fatal(err)
	}
	hs := g.Field.Sampler(f.Height)
	var cs [4]field.Sampler
	for k := range cs {
		cs[k] = g.Field.Sampler(grids[k])
	}
	step := g.Stack.GradientStep
	w := landscape.NewWeights(g.Field.WeightsW, g.Field.WeightsH)
	for j := range w.H {
		for i := range w.W {
			var in stack.TexelInputs
			in.X, in.Z = g.Stack.TexelPos(uint32(i), uint32(j))
			in.Height = hs.Bilinear(in.X, in.Z)
			in.Slope = hs.Slope(in.X, in.Z, step)
			in.Curvature = hs.Curvature(in.X, in.Z, step)
			in.Aspect = hs.Aspect(in.X, in.Z, step)
			for k := range cs {
				in.Chan[k] = cs[k].Bilinear(in.X, in.Z)
			}
			q := c.Weights(&in)
			o := (j*w.W + i) * 4
			copy(w.Lo[o:o+4], q[:4])
			copy(w.Hi[o:o+4], q[4:])
		}
	}
	return w
}

// firstDiff names the first texel where two weights differ ("" when they are equal).
func firstDiff(got, want *landscape.Weights) string {
	if got.W != want.W || got.H != want.H {
		return fmt.Sprintf("size %d×%d, want %d×%d", got.W, got.H, want.W, want.H)
	}
	for o := 0; o < len(want.Lo); o += 4 {
		if !bytes.Equal(got.Lo[o:o+4], want.Lo[o:o+4]) || !bytes.Equal(got.Hi[o:o+4], want.Hi[o:o+4]) {
			i, j := o/4%want.W, o/4/want.W
			return fmt.Sprintf("texel (%d, %d): %v, want %v", i, j, got.Texel(i, j), want.Texel(i, j))
		}
	}
	return ""
}

// randomReferenceField is a w×h ground of random placement and texel sizes with the stress
// stack's channels; wild puts a few non-finite and -0 values into the height.
func randomReferenceField(t testing.TB, rng *rand.Rand, wild bool) *field.Field {
	t.Helper()
	for {
		w, h := 5+rng.Intn(90), 5+rng.Intn(90)
		tx, tz := 0.1+rng.Float64()*30, 0.1+rng.Float64()*30
		org := [2]float64{rng.NormFloat64() * 1e4, rng.NormFloat64() * 1e3}
		if rng.Intn(2) == 0 {
			tx = []float64{0.5, 1, 2, 10}[rng.Intn(4)]
			tz, org = tx, [2]float64{float64(rng.Intn(200) - 100), 0}
		}
		p := field.Placement{Size: [2]float64{float64(w) * tx, float64(h) * tz}, Origin: org}
		hg, snow, sed := field.NewGrid(w, h), field.NewGrid(w, h), field.NewGrid(w, h)
		a, fx, fz := rng.Float64()*200, rng.Float64()*0.5, rng.Float64()*0.5
		for k := range hg.Data {
			i, j := float64(k%w), float64(k/w)
			hg.Data[k] = float32(a * math.Sin(fx*i+math.Sin(fz*j)))
			snow.Data[k] = float32(0.5 + 0.5*math.Sin(0.3*i-0.2*j))
			sed.Data[k] = float32(0.6 + 0.6*math.Cos(0.1*i*j))
		}
		f, err := field.New(p, hg)
		if err != nil {
			continue
		}
		if wild { // as a brush or procgen may leave a grid: New would refuse it
			for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1)), -3e38} {
				hg.Data[rng.Intn(len(hg.Data))] = v
			}
		}
		if f.AddChannel("mask.snow", snow) != nil || f.AddChannel("sediment", sed) != nil {
			t.Fatal("channels")
		}
		return f
	}
}

// The Go reference with its fast paths gives the slow reference's bytes: whole fields
// (Reference), tiles re-evaluated in place over other bytes (ReferenceTiles), blocks read through
// windows (ReferenceWindow), levels of the pyramid (ReferenceRect), single texels (ProbeWeights),
// and the slope grid (Slopes.Fill) — on the topobathy DEM, the stress and dunes fields and random
// ones, with the weights grid the height grid, finer and coarser, default and other gradient
// steps, under the stress, dunes, slope and random stacks.
func TestReferenceMatchesSlowReference(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	dem, err := topobathyDEM(203, 117, 10)
	if err != nil {
		t.Fatal(err)
	}
	type fieldCase struct {
		name string
		f    *field.Field
	}
	fields := []fieldCase{{"topobathy 203×117", dem}, {"stress 77", StressField(77)}, {"dunes 50", field.SampleDunesSized(50)}}
	for k := range 6 {
		fields = append(fields, fieldCase{fmt.Sprintf("random %d", k), randomReferenceField(t, rng, k%3 == 2)})
	}
	curv := stack.New()
	gully := stack.NewLayer("gully")
	gully.Rules = []stack.Rule{{Input: stack.InputCurvature, Min: stack.F(0), Softness: 0.01}, {Input: stack.InputHeight, Max: stack.F(50)}}
	off := stack.NewLayer("off") // strength 0: its inputs are never read
	off.Strength = 0
	off.Rules = []stack.Rule{{Input: stack.InputCurvature, Max: stack.F(0)}, {Input: stack.InputSlope, Min: stack.F(5), Jitter: 2}}
	curv.Layers = []stack.Layer{stack.NewLayer("ground"), gully, off}
	stacks := []struct {
		name string
		s    *stack.Stack
	}{{"slope ≥ 30", slopeRock()}, {"dunes", stack.SampleDunes()}, {"curvature", curv}, {"aspect", stack.AspectStack()}}
	for _, fc := range fields {
		stressable := fc.f.Channels["mask.snow"] != nil
		cases := stacks
		if stressable {
			cases = append(cases, struct {
				name string
				s    *stack.Stack
			}{"stress", stack.StressStack()})
		}
		for _, sc := range cases {
			for _, v := range []struct {
				res, step float64
				level     int
			}{{0, 0, 0}, {0, 0, 2}, {0.7, 0, 0}, {1.9, 0, 1}, {0, 2.5, 0}} {
				s := sc.s
				texel := fc.f.TexelSize()
				if v.step != 0 {
					s = s.Clone()
					s.GradientStep = stack.F(v.step * max(texel[0], texel[1]))
				}
				desc := fmt.Sprintf("%s, %s, resolution ×%v, step ×%v, level %d", fc.name, sc.name, v.res, v.step, v.level)
				g0, err := landscape.NewGeometry(s, fc.f, v.res*texel[0])
				if err != nil {
					t.Fatalf("%s: %v", desc, err)
				}
				g := g0.Level(v.level)
				want := slowReference(t, s, fc.f, &g)
				ts := []int{16, 33, 256}[rng.Intn(3)]
				if v.level == 0 {
					got, err := Reference(context.Background(), s, fc.f, Options{TileSize: ts, Resolution: v.res * texel[0]})
					if err != nil {
						t.Fatal(err)
					}
					if d := firstDiff(got, want); d != "" {
						t.Fatalf("%s: Reference: %s", desc, d)
					}
				}
				got, err := ReferenceRect(context.Background(), s, fc.f, &g, 0, 0, g.Field.WeightsW, g.Field.WeightsH, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if d := firstDiff(got, want); d != "" {
					t.Fatalf("%s: ReferenceRect: %s", desc, d)
				}
				// In place over other bytes, a few tiles: the Hi bytes are read, not assumed 0.
				inPlace := landscape.NewWeights(want.W, want.H)
				rng.Read(inPlace.Lo)
				rng.Read(inPlace.Hi)
				tiles := g.Tiles(ts)
				if err := ReferenceTiles(context.Background(), s, fc.f, &g, inPlace, tiles, Options{}); err != nil {
					t.Fatal(err)
				}
				if d := firstDiff(inPlace, want); d != "" {
					t.Fatalf("%s: ReferenceTiles in place: %s", desc, d)
				}
				for range 5 {
					i, j := rng.Intn(want.W), rng.Intn(want.H)
					if q, err := ProbeWeights(s, fc.f, &g, i, j); err != nil || q != want.Texel(i, j) {
						t.Fatalf("%s: ProbeWeights(%d, %d) = %v, %v; want %v", desc, i, j, q, err, want.Texel(i, j))
					}
				}
				if v.level == 0 && (stressable || sc.name != "stress") {
					checkWindow(t, desc, s, fc.f, &g, want, rng)
				}
			}
		}
		checkSlopes(t, fc.name, fc.f)
	}
}

// checkWindow evaluates a random block of g's grid through windows of the field — the height's
// the block's apron, the channels' a larger block (another row stride) — against want's block.
func checkWindow(t *testing.T, desc string, s *stack.Stack, f *field.Field, g *landscape.Geometry, want *landscape.Weights, rng *rand.Rand) {
	t.Helper()
	i0, j0 := rng.Intn(want.W), rng.Intn(want.H)
	r := field.Rect{I0: i0, J0: j0, I1: i0 + 1 + rng.Intn(want.W-i0), J1: j0 + 1 + rng.Intn(want.H-j0)}
	ap := g.Field.ApronRect(r, g.Stack.GradientStep)
	crop := func(gr *field.Grid, rr field.Rect) *field.Window {
		rr = rr.Intersect(field.Rect{I1: gr.W, J1: gr.H})
		return &field.Window{Grid: gr.Region(rr.I0, rr.J0, rr.W(), rr.H()), I0: rr.I0, J0: rr.J0}
	}
	ws := &Windows{Height: crop(f.Height, ap), Channels: map[string]*field.Window{}}
	for name, ch := range f.Channels {
		ws.Channels[name] = crop(ch, ap.Grow(3))
	}
	got, err := ReferenceWindow(context.Background(), s, g, ws, r, Options{TileSize: 16 + rng.Intn(40)})
	if err != nil {
		t.Fatalf("%s: ReferenceWindow: %v", desc, err)
	}
	for j := r.J0; j < r.J1; j++ {
		for i := r.I0; i < r.I1; i++ {
			if q := got.Texel(i-r.I0, j-r.J0); q != want.Texel(i, j) {
				t.Fatalf("%s: ReferenceWindow of %v at texel (%d, %d): %v, want %v", desc, r, i, j, q, want.Texel(i, j))
			}
		}
	}
}

// checkSlopes holds Slopes.Fill to field.Sampler.Slope at every texel (NaNs alike).
func checkSlopes(t *testing.T, desc string, f *field.Field) {
	t.Helper()
	s := slopeRock()
	g, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sl Slopes
	got, err := sl.Fill(context.Background(), s, f, &g)
	if err != nil {
		t.Fatal(err)
	}
	hs := g.Field.Sampler(f.Height)
	for j := range got.H {
		for i := range got.W {
			x, z := g.Stack.TexelPos(uint32(i), uint32(j))
			want, v := hs.Slope(x, z, g.Stack.GradientStep), got.Data[j*got.W+i]
			if math.Float32bits(v) != math.Float32bits(want) && !(v != v && want != want) {
				t.Fatalf("%s: Slopes at (%d, %d) = %v, want %v", desc, i, j, v, want)
			}
		}
	}
}

// plateauField is StressField lowered by 9 m (about the stress field's middle) and clamped to
// [−8, 6] m: dune slopes facing every way beside exactly flat crests and hollows, where no aspect
// is defined (the ground of stack.AspectStack, as internal/fixture's AspectField).
func plateauField(n int) *field.Field {
	f := StressField(n)
	for k, v := range f.Height.Data {
		f.Height.Data[k] = min(max(v-9, -8), 6)
	}
	return f
}

// A window of a field (a world's cell) cannot give flow, which is routed over the whole height:
// ReferenceWindow says so, unless the caller hands it a window of the whole field's flow plane,
// which it then reads exactly as the whole-field bake does.
func TestReferenceWindowFlow(t *testing.T) {
	s, f := stack.FlowStack(), plateauField(96)
	g, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	whole := mustRef(t, s, f, Options{})
	r := field.Rect{I0: 10, J0: 20, I1: 70, J1: 60}
	ws := &Windows{Height: &field.Window{Grid: f.Height}, Channels: map[string]*field.Window{}}
	for name, ch := range f.Channels {
		ws.Channels[name] = &field.Window{Grid: ch}
	}
	if _, err := ReferenceWindow(context.Background(), s, &g, ws, r, Options{}); err == nil || !strings.Contains(err.Error(), "reads flow") {
		t.Fatalf("a window without flow: %v", err)
	}
	plane, err := f.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}
	ws.Channels[field.FlowChannel] = &field.Window{Grid: plane}
	got, err := ReferenceWindow(context.Background(), s, &g, ws, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for j := r.J0; j < r.J1; j++ {
		for i := r.I0; i < r.I1; i++ {
			if got.Texel(i-r.I0, j-r.J0) != whole.Texel(i, j) {
				t.Fatalf("texel (%d, %d): %v, want %v", i, j, got.Texel(i-r.I0, j-r.J0), whole.Texel(i, j))
			}
		}
	}
}
