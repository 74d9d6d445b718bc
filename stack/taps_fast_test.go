package stack

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"strata/field"
)

// The fast paths (taps_fast.go, weights_fast.go, slope_fast.go) are held to the general path —
// fillRowGeneral, slopeRowGeneral and Compiled.Weights per texel — texel by texel and bit for bit,
// as image/draw's tests hold its fast paths to a slow obvious loop: on random fields (placements,
// texel sizes, gradient steps, non-square grids, weights grids finer and coarser than the height
// grid, levels of the pyramid, special values) under many stacks.

// fastGround is a field for these tests: a height grid and the channels the stacks read, placed
// with its geometry (the weights grid possibly a level of the pyramid).
type fastGround struct {
	desc   string
	fg     field.Geometry
	hTexel [2]float64
	height *field.Grid
	named  map[string]*field.Grid // mask.snow, sediment
}

var fastSpecials = []float32{float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)),
	float32(math.Inf(-1)), math.MaxFloat32, -3e38, 0}

// groundGrid is smooth random relief of amplitude a (terraced sometimes: exact ties and zero
// gradients), with special values sprinkled in when wild.
func groundGrid(r *rand.Rand, w, h int, a float64, wild bool) *field.Grid {
	g := field.NewGrid(w, h)
	fx, fz, ph := 0.05+r.Float64()*0.6, 0.05+r.Float64()*0.6, r.Float64()*6
	step := 0.0
	if r.IntN(3) == 0 {
		step = a * (0.01 + r.Float64()*0.2)
	}
	for j := range h {
		for i := range w {
			v := a*math.Sin(fx*float64(i)+ph+1.3*math.Sin(fz*float64(j))) + a*0.02*r.Float64()
			if step > 0 {
				v = math.Floor(v/step) * step
			}
			g.Data[j*w+i] = float32(v)
		}
	}
	if wild {
		for range 1 + r.IntN(3) {
			g.Data[r.IntN(len(g.Data))] = fastSpecials[r.IntN(len(fastSpecials))]
		}
	}
	return g
}

// randomGround draws a field: about half the time with texel sizes and origins as DEMs have them
// (where the fast path's texel-centre shortcut applies), else arbitrary ones; the weights grid the
// height grid, finer or coarser; sometimes a level of the pyramid; sometimes wild values.
func randomGround(t testing.TB, r *rand.Rand) fastGround {
	t.Helper()
	for {
		w, h := 2+r.IntN(60), 2+r.IntN(60)
		tx, tz := 0.05+r.Float64()*40, 0.05+r.Float64()*40
		org := [2]float64{r.NormFloat64() * 3e4, r.NormFloat64() * 1e3}
		if r.IntN(2) == 0 {
			nice := []float64{0.5, 1, 2, 10, 30, 0.25, 3}
			tx = nice[r.IntN(len(nice))]
			tz = tx
			if r.IntN(4) == 0 {
				tz = nice[r.IntN(len(nice))]
			}
			org = [2]float64{float64(r.IntN(4000) - 2000), 137.5 * float64(r.IntN(3)-1)}
		}
		p := field.Placement{Size: [2]float64{float64(w) * tx, float64(h) * tz}, Origin: org}
		res := 0.0
		if r.IntN(2) == 0 {
			res = tx * []float64{0.5, 0.7, 1, 1.3, 1.9, 2, 3.3}[r.IntN(7)]
		}
		ww, wh, err := field.WeightsGrid(p, w, h, res)
		if err != nil {
			continue
		}
		fg, err := field.NewGeometry(p, w, h, ww, wh)
		if err != nil {
			continue
		}
		level := 0
		if r.IntN(3) == 0 {
			level = 1 + r.IntN(3)
			fg = fg.Level(level)
		}
		wild := r.IntN(5) == 0
		a := []float64{0.01, 1, 20, 300, 3000}[r.IntN(5)]
		return fastGround{
			desc: fmt.Sprintf("%d×%d at %.3g×%.3g m, origin %.6g, weights %d×%d (res %.3g), level %d, amplitude %g, wild %v",
				w, h, tx, tz, org, ww, wh, res, level, a, wild),
			fg:     fg,
			hTexel: [2]float64{tx, tz},
			height: groundGrid(r, w, h, a, wild),
			named: map[string]*field.Grid{
				"mask.snow": groundGrid(r, w, h, 0.5, wild && r.IntN(2) == 0),
				"sediment":  groundGrid(r, w, h, 1.2, false),
				// the flow plane as a bake binds it (field.FlowChannel): log10 m², read as a channel
				field.FlowChannel: groundGrid(r, w, h, 4, false),
			},
		}
	}
}

// geometry is what landscape.NewGeometry gives for stack s over the ground.
func (fg *fastGround) geometry(s *Stack) Geometry {
	return Geometry{
		FieldMin:     fg.fg.FieldMin,
		InvHTexel:    fg.fg.InvHTexel,
		WTexel:       fg.fg.WTexel,
		GradientStep: float32(s.GradientStepFor(fg.hTexel)),
		Stride:       uint32(fg.fg.StrideOrOne()),
	}
}

// chans binds s's channels to slots as bake does (height for unused slots).
func (fg *fastGround) chans(s *Stack) [4]*field.Grid {
	var out [4]*field.Grid
	names := s.Channels()
	for i := range out {
		out[i] = fg.height
		if i < len(names) {
			out[i] = fg.named[names[i]]
		}
	}
	return out
}

// same32 is bit-for-bit equality, except that any two NaNs are equal: an x86 operation on two
// NaNs returns the first operand's, and which operand of a commutative operation comes first is
// the compiler's choice, so NaN payloads are not reproducible between two compilations of the
// same expression. Every reader of an input treats all NaNs alike (Band compares, clamp01 maps
// NaN to 0), so the bytes are the same.
func same32(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b }

// sameInputs reports where two TexelInputs differ ("" when they do not; see same32).
func sameInputs(a, b *TexelInputs) string {
	switch {
	case !same32(a.X, b.X) || !same32(a.Z, b.Z):
		return fmt.Sprintf("position (%v, %v) vs (%v, %v)", a.X, a.Z, b.X, b.Z)
	case !same32(a.Height, b.Height):
		return fmt.Sprintf("height %v vs %v", a.Height, b.Height)
	case !same32(a.Slope, b.Slope):
		return fmt.Sprintf("slope %v vs %v", a.Slope, b.Slope)
	case !same32(a.Curvature, b.Curvature):
		return fmt.Sprintf("curvature %v vs %v", a.Curvature, b.Curvature)
	case !same32(a.Aspect, b.Aspect):
		return fmt.Sprintf("aspect %v vs %v", a.Aspect, b.Aspect)
	}
	for c := range a.Chan {
		if !same32(a.Chan[c], b.Chan[c]) {
			return fmt.Sprintf("channel %d %v vs %v", c, a.Chan[c], b.Chan[c])
		}
	}
	return ""
}

// fastStats counts what the fast paths were given, so a test can insist it exercised them.
type fastStats struct {
	texels, centred int // texels compared; of those, in rows and columns on texel centres
}

// checkFast compares, for every tile of fg cut into tiles of tileSize and every row, FillRow,
// SlopeRow and WeightsRow (also on a part of the row) with the general path, and each population's
// inputs and densities; with slopes, the rows read a slope grid (UseSlopes).
func checkFast(t testing.TB, desc string, s *Stack, fg *fastGround, tileSize int, slopes bool, st *fastStats) {
	t.Helper()
	g := fg.geometry(s)
	c, err := Compile(s, g)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	chans := fg.chans(s)
	tiles := field.Tiles(&fg.fg, tileSize, g.GradientStep)
	var sg *field.Grid
	if slopes {
		sg = field.NewGrid(fg.fg.WeightsW, fg.fg.WeightsH)
		for _, tl := range tiles {
			tp := c.Taps(&fg.fg, fg.height, chans, tl)
			for j := tl.J0; j < tl.J0+tl.H; j++ {
				tp.slopeRowGeneral(j, tl.I0, sg.Data[j*sg.W+tl.I0:j*sg.W+tl.I0+tl.W])
			}
		}
	}
	comps := []*Compiled{c}
	for pop := range s.Populations {
		pc, err := CompilePopulation(s, pop, g)
		if err != nil {
			t.Fatalf("%s: population %d: %v", desc, pop, err)
		}
		comps = append(comps, pc)
	}
	for _, tl := range tiles {
		for ci, cc := range comps {
			tp := cc.Taps(&fg.fg, fg.height, chans, tl)
			if sg != nil {
				tp.UseSlopes(sg)
			}
			gen, fast := make([]TexelInputs, tl.W), make([]TexelInputs, tl.W)
			scratch, q := make([]TexelInputs, tl.W), make([][8]uint8, tl.W)
			sgen, sfast := make([]float32, tl.W), make([]float32, tl.W)
			for j := tl.J0; j < tl.J0+tl.H; j++ {
				clear(gen)
				clear(fast)
				tp.fillRowGeneral(j, tl.I0, gen)
				tp.FillRow(j, tl.I0, fast)
				if ci > 0 { // a population: DensityRow against DensityAt, the layers given
					for k := range scratch {
						for l := range scratch[k].Layers {
							v := float32(rand.IntN(256)) / 255
							scratch[k].Layers[l], gen[k].Layers[l], fast[k].Layers[l] = v, v, v
						}
					}
					tp.DensityRow(j, tl.I0, scratch, sfast)
					for k := range gen {
						if d := cc.DensityAt(&gen[k]); !same32(d, sfast[k]) {
							t.Fatalf("%s: population %d: DensityRow at texel (%d, %d): %v, general %v", desc, ci-1, tl.I0+k, j, sfast[k], d)
						}
					}
				}
				// A part of the row: the fast path with an offset into the tile's columns.
				a := rand.IntN(tl.W)
				b := a + rand.IntN(tl.W-a+1)
				part := make([]TexelInputs, b-a)
				tp.FillRow(j, tl.I0+a, part)
				for k := range gen {
					if d := sameInputs(&fast[k], &gen[k]); d != "" {
						t.Fatalf("%s, tile %d, stack %d: FillRow at texel (%d, %d): %s (fast vs general)", desc, tl.Index, ci, tl.I0+k, j, d)
					}
					if k >= a && k < b {
						if d := sameInputs(&part[k-a], &gen[k]); d != "" {
							t.Fatalf("%s, tile %d: FillRow of columns [%d, %d) at texel (%d, %d): %s", desc, tl.Index, tl.I0+a, tl.I0+b, tl.I0+k, j, d)
						}
					}
					if ci > 0 && !same32(cc.DensityAt(&fast[k]), cc.DensityAt(&gen[k])) {
						t.Fatalf("%s: population %d density at (%d, %d) differs", desc, ci-1, tl.I0+k, j)
					}
				}
				if ci > 0 {
					continue
				}
				tp.slopeRowGeneral(j, tl.I0, sgen)
				tp.SlopeRow(j, tl.I0, sfast)
				tp.WeightsRow(j, tl.I0, scratch, q)
				for k := range gen {
					if !same32(sgen[k], sfast[k]) {
						t.Fatalf("%s, tile %d: SlopeRow at texel (%d, %d): %v, general %v", desc, tl.Index, tl.I0+k, j, sfast[k], sgen[k])
					}
					if want := c.Weights(&gen[k]); q[k] != want {
						t.Fatalf("%s, tile %d: WeightsRow at texel (%d, %d): %v, general %v (inputs %+v)", desc, tl.Index, tl.I0+k, j, q[k], want, gen[k])
					}
				}
				if st != nil {
					st.texels += len(gen)
					_, pz := g.TexelPos(0, uint32(j))
					if tp.height.AxisZ(pz).Exact() {
						for _, col := range tp.fast.cols {
							if col.exact {
								st.centred++
							}
						}
					}
				}
				if b > a {
					tp.WeightsRow(j, tl.I0+a, scratch, q[:b-a])
					for k := a; k < b; k++ {
						if want := c.Weights(&gen[k]); q[k-a] != want {
							t.Fatalf("%s: WeightsRow of columns [%d, %d) at texel (%d, %d): %v, general %v", desc, tl.I0+a, tl.I0+b, tl.I0+k, j, q[k-a], want)
						}
					}
				}
			}
		}
	}
}

// slopeRule is a one-layer stack over ground: rock where rule says.
func slopeRule(ru Rule) *Stack {
	s := New()
	rock := NewLayer("rock")
	rock.Rules = []Rule{ru}
	s.Layers = []Layer{NewLayer("ground"), rock}
	return s
}

// fastStacks are the stacks every ground is tried under.
func fastStacks() map[string]*Stack {
	curv := New()
	gully := NewLayer("gully")
	gully.Rules = []Rule{{Input: InputCurvature, Min: F(0.001), Softness: 0.002}}
	ridge := NewLayer("ridge")
	ridge.Rules = []Rule{{Input: InputCurvature, Max: F(-0.001)}, {Input: InputHeight, Min: F(0)}}
	curv.Layers = []Layer{NewLayer("ground"), gully, ridge}
	chans := New()
	snow := NewLayer("snow")
	snow.Rules = []Rule{{Input: InputMask, Channel: "snow", Min: F(0.2)}}
	sed := NewLayer("sed")
	sed.Rules = []Rule{{Input: InputChannel, Channel: "sediment", Max: F(0.5), Softness: 0.2, Jitter: 0.1}, {Input: InputSlope, Max: F(40)}}
	chans.Layers = []Layer{NewLayer("ground"), snow, sed}
	nz := New()
	patch := NewLayer("patch")
	patch.Rules = []Rule{{Input: InputNoise, Min: F(0.5), Softness: 0.05}, {Input: InputSlope, Min: F(10), Jitter: 4}}
	nz.Layers = []Layer{NewLayer("ground"), patch}
	off := slopeRule(Rule{Input: InputSlope, Min: F(30)})
	off.Layers[1].Strength = 0
	aspects := New()
	north := NewLayer("north")
	north.Rules = []Rule{{Input: InputAspect, Min: F(315), Max: F(45)}}
	east := NewLayer("east")
	east.Rules = []Rule{{Input: InputAspect, Min: F(45), Max: F(135), Softness: 20, Jitter: 10}, {Input: InputSlope, Min: F(5), Jitter: 2}}
	notsouth := NewLayer("notsouth")
	notsouth.Rules = []Rule{{Input: InputAspect, Min: F(170), Max: F(190), Invert: true}, {Input: InputCurvature, Max: F(0)}}
	aspects.Layers = []Layer{NewLayer("ground"), north, east, notsouth}
	return map[string]*Stack{
		"aspect":              AspectStack(),
		"flow":                FlowStack(),
		"aspects":             aspects,
		"aspect, step 3.1 m":  withStep(AspectStack(), 3.1),
		"aspect, any":         slopeRule(Rule{Input: InputAspect}),
		"stress":              StressStack(),
		"dunes":               SampleDunes(),
		"starter":             Starter(),
		"slope ≥ 30":          slopeRule(Rule{Input: InputSlope, Min: F(30)}),
		"slope ≥ 0":           slopeRule(Rule{Input: InputSlope, Min: F(0)}),
		"slope ≥ -5":          slopeRule(Rule{Input: InputSlope, Min: F(-5)}),
		"slope ≥ 89.999":      slopeRule(Rule{Input: InputSlope, Min: F(89.999)}),
		"slope ≥ 90":          slopeRule(Rule{Input: InputSlope, Min: F(90)}),
		"slope ≤ 1e-30":       slopeRule(Rule{Input: InputSlope, Max: F(1e-30)}),
		"slope 20–40 invert":  slopeRule(Rule{Input: InputSlope, Min: F(20), Max: F(40), Invert: true}),
		"slope 35 soft 5":     slopeRule(Rule{Input: InputSlope, Min: F(35), Softness: 5}),
		"slope 10 jitter 3":   slopeRule(Rule{Input: InputSlope, Min: F(10), Softness: 2, Jitter: 3}),
		"slope, strength 0":   off,
		"curvature":           curv,
		"channels":            chans,
		"noise":               nz,
		"height, step 2.5 m":  withStep(slopeRule(Rule{Input: InputHeight, Min: F(0), Softness: 1}), 2.5),
		"slope, step 0.37 m":  withStep(slopeRule(Rule{Input: InputSlope, Min: F(25)}), 0.37),
		"slope, step 20 m":    withStep(slopeRule(Rule{Input: InputSlope, Max: F(25), Softness: 3}), 20),
		"stress, step 4 m":    withStep(StressStack(), 4),
		"dunes, step 1e-3 m":  withStep(SampleDunes(), 1e-3),
		"slope, step 1e+4 m":  withStep(slopeRule(Rule{Input: InputSlope, Min: F(5)}), 1e4),
		"slope, step 0.999 m": withStep(slopeRule(Rule{Input: InputSlope, Min: F(5)}), 0.999),
	}
}

func withStep(s *Stack, g float64) *Stack {
	s.GradientStep = F(g)
	return s
}

// randomStack is a stack of up to eight layers of random rules over every input a layer reads.
func randomStack(r *rand.Rand) *Stack {
	inputs := []Input{InputHeight, InputSlope, InputSlope, InputCurvature, InputNoise, InputMask, InputChannel, InputAspect}
	s := New()
	s.Noise.Octaves = 1 + r.IntN(6)
	for l := range 1 + r.IntN(8) {
		ly := NewLayer(fmt.Sprintf("l%d", l))
		ly.Strength = []float64{0, 1, r.Float64()}[r.IntN(3)]
		for range r.IntN(4) {
			in := inputs[r.IntN(len(inputs))]
			ru := Rule{Input: in, Invert: r.IntN(4) == 0}
			scale := map[Input]float64{InputHeight: 300, InputSlope: 60, InputCurvature: 0.05, InputNoise: 1, InputMask: 0.5, InputChannel: 1.2, InputAspect: 300}[in]
			if r.IntN(3) > 0 {
				ru.Min = F((r.Float64()*1.2 - 0.1) * scale)
			}
			if r.IntN(3) == 0 {
				ru.Max = F((r.Float64()*1.2 - 0.1) * scale)
			}
			if in == InputAspect { // an arc: both edges or neither, anywhere on the compass
				ru.Min, ru.Max = nil, nil
				if r.IntN(4) > 0 {
					ru.Min, ru.Max = F(r.Float64()*360), F(r.Float64()*360)
				}
			}
			if ru.Min != nil && ru.Max != nil && *ru.Min > *ru.Max && in != InputAspect {
				ru.Min, ru.Max = ru.Max, ru.Min
			}
			if r.IntN(2) == 0 {
				ru.Softness = r.Float64() * 0.2 * scale
			}
			if r.IntN(3) == 0 {
				ru.Jitter = r.Float64() * 0.2 * scale
			}
			switch in {
			case InputMask:
				ru.Channel = "snow"
			case InputChannel:
				ru.Channel = "sediment"
			}
			ly.Rules = append(ly.Rules, ru)
		}
		s.Layers = append(s.Layers, ly)
	}
	return s
}

func TestFastPathsMatchGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 12))
	stacks := fastStacks()
	var st fastStats
	for trial := range 40 {
		fg := randomGround(t, r)
		ts := []int{7, 16, 64, 1 << 20}[r.IntN(4)]
		for name, s := range stacks {
			checkFast(t, fmt.Sprintf("trial %d (%s), tile %d, stack %q", trial, fg.desc, ts, name), s, &fg, ts, false, &st)
		}
		checkFast(t, fmt.Sprintf("trial %d (%s), slopes given", trial, fg.desc), StressStack(), &fg, ts, true, nil)
		for k := range 5 {
			checkFast(t, fmt.Sprintf("trial %d (%s), random stack %d", trial, fg.desc, k), randomStack(r), &fg, ts, r.IntN(4) == 0, &st)
		}
	}
	if st.centred < st.texels/20 {
		t.Errorf("%d of %d texels had every tap on texel centres: the shortcut is not exercised", st.centred, st.texels)
	}
}

// On the defaults — the weights grid the height grid, gradientStep the texel size — every tap of
// every texel lands on a texel centre, and the fast path reads texels (not blends) everywhere:
// on the DEM of scripts/gdal-compare.sh, the dunes sample and levels of both.
func TestFastPathsCentredOnDefaults(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		p     field.Placement
		w, h  int
		level int
	}{
		{"gdal-compare DEM 4096×3496 at 10 m", field.Placement{Size: [2]float64{40960, 34960}}, 4096, 3496, 0},
		{"the same, level 3", field.Placement{Size: [2]float64{40960, 34960}}, 4096, 3496, 3},
		{"dunes 2000² at 2 m", field.Placement{Size: [2]float64{4000, 4000}}, 2000, 2000, 0},
		{"off-centre 1000×700 at 0.5 m", field.Placement{Size: [2]float64{500, 350}, Origin: [2]float64{137.5, -61.25}}, 1000, 700, 1},
	} {
		fg, err := field.NewGeometry(tc.p, tc.w, tc.h, tc.w, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		fg = fg.Level(tc.level)
		ground := fastGround{fg: fg, hTexel: [2]float64{tc.p.Size[0] / float64(tc.w), tc.p.Size[1] / float64(tc.h)}}
		ground.height = field.NewGrid(tc.w, tc.h)
		s := slopeRule(Rule{Input: InputSlope, Min: F(30)})
		g := ground.geometry(s)
		c, err := Compile(s, g)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range field.Tiles(&fg, 0, g.GradientStep) {
			tp := c.Taps(&fg, ground.height, [4]*field.Grid{}, tl)
			for k, col := range tp.fast.cols {
				if !col.exact {
					t.Fatalf("%s: column %d: a tap is off texel centres (%+v)", tc.desc, tl.I0+k, col)
				}
			}
			for j := tl.J0; j < tl.J0+tl.H; j++ {
				_, pz := g.TexelPos(0, uint32(j))
				h := &tp.height
				if !h.AxisZ(pz).Exact() || !h.AxisZ(pz-g.GradientStep).Exact() || !h.AxisZ(pz+g.GradientStep).Exact() {
					t.Fatalf("%s: row %d: a tap is off texel centres", tc.desc, j)
				}
			}
			// A coarse level's tile blends its taps rather than scan a block 4^k its size.
			if scan := tl.BufW*tl.BufH <= scanRatio*tl.W*tl.H; tp.tame(0) != scan {
				t.Fatalf("%s: a flat ground's tile %+v: tame %v, want %v", tc.desc, tl, tp.tame(0), scan)
			}
		}
	}
}

// FuzzFastPaths: a fuzzed ground, geometry and rule, the fast paths against the general path.
func FuzzFastPaths(f *testing.F) {
	f.Add(uint64(1), uint8(20), uint8(13), float32(10), float32(10), float32(0), float32(0), uint8(0), uint8(0), float32(0),
		uint8(1), float32(30), float32(0), float32(0), float32(0), uint8(2))
	f.Add(uint64(2), uint8(33), uint8(7), float32(0.37), float32(1.1), float32(137.5), float32(-61.25), uint8(3), uint8(1), float32(2.5),
		uint8(1), float32(10), float32(50), float32(3), float32(2), uint8(6))
	f.Add(uint64(3), uint8(9), uint8(40), float32(2), float32(2), float32(-1e5), float32(3e4), uint8(2), uint8(2), float32(0),
		uint8(2), float32(0), float32(0.01), float32(0.001), float32(0), uint8(4))
	f.Fuzz(func(t *testing.T, seed uint64, w, h uint8, tx, tz, ox, oz float32, resK, level uint8, step float32,
		input uint8, lo, hi, soft, jit float32, flags uint8) {
		if w < 1 || h < 1 || w > 64 || h > 64 {
			return
		}
		p := field.Placement{Size: [2]float64{float64(w) * float64(tx), float64(h) * float64(tz)}, Origin: [2]float64{float64(ox), float64(oz)}}
		res := 0.0
		if resK%4 != 0 {
			res = float64(tx) * []float64{0.5, 1.3, 2.7}[resK%4-1]
		}
		ww, wh, err := field.WeightsGrid(p, int(w), int(h), res)
		if err != nil || ww > 256 || wh > 256 {
			return
		}
		fgeo, err := field.NewGeometry(p, int(w), int(h), ww, wh)
		if err != nil {
			return
		}
		r := rand.New(rand.NewPCG(seed, 7))
		fg := fastGround{desc: fmt.Sprintf("%+v", p), fg: fgeo.Level(int(level % 4)), hTexel: [2]float64{float64(tx), float64(tz)},
			height: groundGrid(r, int(w), int(h), float64(1+seed%500), seed%7 == 0),
			named:  map[string]*field.Grid{"mask.snow": groundGrid(r, int(w), int(h), 0.5, seed%5 == 0), "sediment": groundGrid(r, int(w), int(h), 1.2, false)}}
		ru := Rule{Input: []Input{InputHeight, InputSlope, InputCurvature, InputNoise, InputMask, InputChannel, InputAspect}[input%7],
			Softness: float64(soft), Jitter: float64(jit), Invert: flags&1 != 0}
		if ru.Input == InputMask {
			ru.Channel = "snow"
		} else if ru.Input == InputChannel {
			ru.Channel = "sediment"
		}
		if flags&2 != 0 {
			ru.Min = F(float64(lo))
		}
		if flags&4 != 0 {
			ru.Max = F(float64(hi))
		}
		s := slopeRule(ru)
		if flags&8 != 0 {
			s.Layers = append(s.Layers, StressStack().Layers[2:5]...)
		}
		if step > 0 {
			s.GradientStep = F(float64(step))
		}
		if _, err := Compile(s, fg.geometry(s)); err != nil {
			return
		}
		checkFast(t, fg.desc, s, &fg, 16, flags&16 != 0, nil)
	})
}
