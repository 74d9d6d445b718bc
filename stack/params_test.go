package stack

import (
	"errors"
	"math"
	"testing"

	"strata/noise"
)

var testGeom = Geometry{FieldMin: [2]float32{-2000, -2000}, InvHTexel: [2]float32{0.5, 0.5}, WTexel: [2]float32{2, 2}, GradientStep: 2}

func TestPackLayout(t *testing.T) {
	s := StressStack()
	p, err := Pack(s, testGeom)
	if err != nil {
		t.Fatal(err)
	}
	if want := (HeadLanes + LayerLanes + RuleLanes*16) * LaneWords; len(p) != want {
		t.Fatalf("len = %d words, want %d", len(p), want)
	}
	if math.Float32frombits(p[0]) != -2000 || math.Float32frombits(p[6]) != 2 || p[7] != 8 {
		t.Errorf("head = %v", p[:8])
	}
	// Offsets in ParamsLayout agree with what Pack writes.
	off := map[string]int{}
	for _, f := range ParamsLayout {
		off[f.Name] = f.Offset
	}
	if off["Params.rules"] != 208 || off["Head.targetOrigin"] != 64 || off["Head.layerCount"] != 28 || off["Rule.noiseSeed"] != 44 {
		t.Errorf("layout offsets: %v", off)
	}
	word := func(layer int, name string) uint32 { return p[(LayersOffset+layer*LayerBytes+off[name])/4] }
	start := uint32(0)
	for l := range s.Layers {
		if got := word(l, "Layer.ruleStart"); got != start {
			t.Errorf("layer %d ruleStart = %d, want %d", l, got, start)
		}
		if got := word(l, "Layer.ruleCount"); got != uint32(len(s.Layers[l].Rules)) {
			t.Errorf("layer %d ruleCount = %d", l, got)
		}
		start += uint32(len(s.Layers[l].Rules))
	}
	chans := s.Channels()
	if len(chans) != 2 || chans[0] != "mask.snow" || chans[1] != "sediment" {
		t.Fatalf("Channels = %v", chans)
	}
	r := 0
	for l := range s.Layers {
		for k := range s.Layers[l].Rules {
			ru := &s.Layers[l].Rules[k]
			pr, ok := UnpackRule(p, r)
			if !ok {
				t.Fatalf("no rule %d", r)
			}
			code, _ := ru.Input.Code()
			if pr.Input != code {
				t.Errorf("rule %d input %d, want %d", r, pr.Input, code)
			}
			if pr.Seed != noise.RuleSeed(1, uint32(r)) || pr.NoiseSeed != noise.NoiseInputSeed(pr.Seed) {
				t.Errorf("rule %d seeds %d %d", r, pr.Seed, pr.NoiseSeed)
			}
			if ru.Input.ReadsChannel() && chans[pr.Slot] != ru.FieldChannel() {
				t.Errorf("rule %d slot %d reads %s, want %s", r, pr.Slot, chans[pr.Slot], ru.FieldChannel())
			}
			if (ru.Min != nil) != (pr.Flags&FlagHasMin != 0) || (ru.Max != nil) != (pr.Flags&FlagHasMax != 0) || ru.Invert != (pr.Flags&FlagInvert != 0) {
				t.Errorf("rule %d flags %b", r, pr.Flags)
			}
			if pr.Softness != 0 && pr.InvTwoSoft != 1/(2*pr.Softness) {
				t.Errorf("rule %d invTwoSoft %v", r, pr.InvTwoSoft)
			}
			r++
		}
	}
	PackTile(p, [2]uint32{1, 2}, [2]uint32{3, 4}, [2]uint32{5, 6}, [2]uint32{7, 8})
	for i, w := range p[8:16] {
		if w != uint32(i+1) {
			t.Fatalf("PackTile head 2-3 = %v", p[8:16])
		}
	}
}

// TestAddingTopLayerKeepsSeeds: rules are numbered bottom-up, so a layer added on top moves no
// existing rule's noise (nor its packed lanes).
func TestAddingTopLayerKeepsSeeds(t *testing.T) {
	s := StressStack()
	s.Layers = s.Layers[:6]
	before, err := Pack(s, testGeom)
	if err != nil {
		t.Fatal(err)
	}
	top := NewLayer("top")
	top.Rules = []Rule{{Input: InputNoise, Min: F(0.5), Jitter: 0.1}}
	s.Layers = append(s.Layers, top)
	after, err := Pack(s, testGeom)
	if err != nil {
		t.Fatal(err)
	}
	for i := RulesWord; i < len(before); i++ {
		if before[i] != after[i] {
			t.Fatalf("word %d changed: %d → %d", i, before[i], after[i])
		}
	}
}

func TestPackPopulation(t *testing.T) {
	s := StressStack()
	p, err := PackPopulation(s, 0, testGeom)
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := UnpackLayer(p, 0)
	if pl.Strength != 0.02 || pl.RuleStart != 0 || pl.RuleCount != 2 {
		t.Errorf("layer lane 0 = %+v", pl)
	}
	r0, _ := UnpackRule(p, 0)
	if r0.Input != 6 || r0.Slot != uint32(s.LayerIndex("gravel")) {
		t.Errorf("layer rule = %+v", r0)
	}
	if r0.Seed != noise.RuleSeed(1, uint32(s.RuleCount())) {
		t.Errorf("population rule 0 seed should continue after %d layer rules", s.RuleCount())
	}
	if _, err := PackPopulation(s, 3, testGeom); err == nil {
		t.Error("out-of-range population packed")
	}
}

func TestPackRefusesInvalid(t *testing.T) {
	s := SampleDunes()
	s.Layers[1].Rules[0].Softness = -1
	_, err := Pack(s, testGeom)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("Pack of invalid stack: %v", err)
	}
	if _, err := Pack(SampleDunes(), Geometry{}); err == nil {
		t.Error("zero geometry packed")
	}
}

// TestCompiledMatchesDirect checks the compiled per-texel path against an obviously correct one
// built from Band, Compose, Quantize and noise.FBM over the unpacked lanes.
func TestCompiledMatchesDirect(t *testing.T) {
	s := StressStack()
	c, err := Compile(s, testGeom)
	if err != nil {
		t.Fatal(err)
	}
	want := NeedHeight | NeedSlope | NeedCurvature | NeedChan0 | NeedChan1
	if c.Needs() != want {
		t.Errorf("Needs = %b, want %b", c.Needs(), want)
	}
	for i := uint32(0); i < 2000; i++ {
		var in TexelInputs
		in.X, in.Z = testGeom.TexelPos(i*37%2000, i*91%2000)
		in.Height = float32(i%41) - 20
		in.Slope = float32(i % 37)
		in.Curvature = (float32(i%13) - 6) * 0.004
		in.Chan = [4]float32{float32(i%11) / 10, float32(i%7) / 6}
		var cov [8]float32
		for l := 1; l < len(s.Layers); l++ {
			pl, _ := UnpackLayer(c.Params, l)
			v := pl.Strength
			for r := pl.RuleStart; r < pl.RuleStart+pl.RuleCount; r++ {
				pr, _ := UnpackRule(c.Params, int(r))
				var x float32
				switch pr.Input {
				case 0:
					x = in.Height
				case 1:
					x = in.Slope
				case 2:
					x = in.Curvature
				case 3, 5:
					x = in.Chan[pr.Slot]
				case 4:
					x = noise.FBMInv(in.X, in.Z, pr.InvFeatureSize, pr.Octaves, pr.NoiseSeed)
				}
				n := noise.FBMInv(in.X, in.Z, pr.InvFeatureSize, pr.Octaves, pr.Seed)
				v *= Band(x, &pr, n)
			}
			cov[l] = v
		}
		if got, want := c.Weights(&in), Quantize(Compose(cov)); got != want {
			t.Fatalf("texel %d: Weights %v, direct %v", i, got, want)
		}
	}
}

func TestCompiledPopulation(t *testing.T) {
	s := StressStack()
	c, err := CompilePopulation(s, 0, testGeom)
	if err != nil {
		t.Fatal(err)
	}
	if c.Density != 0.02 || c.Needs() != NeedLayers|NeedSlope {
		t.Fatalf("density %v needs %b", c.Density, c.Needs())
	}
	in := TexelInputs{X: 10, Z: 500, Slope: 5} // 5°: well under the max of 25
	in.Layers[s.LayerIndex("gravel")] = 1
	if d := c.DensityAt(&in); d <= 0.019 || d > 0.02 {
		t.Errorf("density on gravel, flat: %v", d)
	}
	in.Layers[s.LayerIndex("gravel")] = 0
	if d := c.DensityAt(&in); d != 0 {
		t.Errorf("density off gravel: %v", d)
	}
	// The dunes stack: slope-only, rock above 18°.
	d, err := Compile(SampleDunes(), testGeom)
	if err != nil || d.Needs() != NeedSlope {
		t.Fatalf("dunes: %v needs %b", err, d.Needs())
	}
	for _, tc := range []struct {
		slope float32
		want  [8]uint8
	}{{0, [8]uint8{255}}, {18, [8]uint8{128, 127}}, {30, [8]uint8{0, 255}}} {
		if got := d.Weights(&TexelInputs{Slope: tc.slope}); got != tc.want {
			t.Errorf("dunes at %v°: %v, want %v", tc.slope, got, tc.want)
		}
	}
}

// TestPackTarget: lane 4 carries the target's first texel and the level's stride; Pack leaves the
// origin 0 with stride 1 (or the geometry's), and PackTile does not touch them.
func TestPackTarget(t *testing.T) {
	p, err := Pack(StressStack(), testGeom)
	if err != nil {
		t.Fatal(err)
	}
	if p[16] != 0 || p[17] != 0 {
		t.Fatalf("Pack wrote target origin %v", p[16:18])
	}
	PackTarget(p, [2]uint32{256, 4096})
	PackTile(p, [2]uint32{1, 2}, [2]uint32{3, 4}, [2]uint32{5, 6}, [2]uint32{7, 8})
	if p[16] != 256 || p[17] != 4096 || p[18] != 1 || p[19] != 0 {
		t.Errorf("head lane 4 = %v, want [256 4096 1 0]", p[16:20])
	}
	if p[8] != 1 || p[15] != 8 {
		t.Errorf("PackTile lanes = %v", p[8:16])
	}
	g := testGeom
	g.Stride = 8
	if p, err = Pack(StressStack(), g); err != nil || p[18] != 8 {
		t.Errorf("a level of stride 8 packs head lane 4 as %v (%v), want stride 8", p[16:20], err)
	}
}

// TestDrawsNoise: the sample stack (one slope rule, no jitter) draws none; the stress stack does;
// noise on layer 0 only does not count, since its rules are never evaluated.
func TestDrawsNoise(t *testing.T) {
	pack := func(s *Stack) []uint32 {
		p, err := Pack(s, testGeom)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if DrawsNoise(pack(SampleDunes())) {
		t.Error("sample stack: DrawsNoise = true")
	}
	if !DrawsNoise(pack(StressStack())) {
		t.Error("stress stack: DrawsNoise = false")
	}
	s := SampleDunes()
	s.Layers[1].Rules[0].Jitter = 2
	if !DrawsNoise(pack(s)) {
		t.Error("sample with a jittered rock rule: DrawsNoise = false")
	}
	s = SampleDunes()
	s.Layers[1].Rules = append(s.Layers[1].Rules, Rule{Input: InputNoise, Min: F(0.3)})
	if !DrawsNoise(pack(s)) {
		t.Error("sample with a noise rule: DrawsNoise = false")
	}
	s = SampleDunes()
	s.Layers[0].Rules = []Rule{{Input: InputNoise, Min: F(0.3)}}
	if DrawsNoise(pack(s)) {
		t.Error("noise only on layer 0: DrawsNoise = true")
	}
}
