package gpu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
	"strata/shaders"
	"strata/stack"
)

// aspectProbeSrc is an extra entry point appended to the weights kernel's source: field.wgsl's
// aspectFromTaps on given taps and step, and stack_rules' aspectBand on a given value, noise and
// rule lanes. Each case is 19 words: the four taps, g, v and n (f32 bits), then the rule's 12
// lane words; out: the aspect's bits, the band's bits.
const aspectProbeSrc = `
@group(0) @binding(8) var<storage, read> probeIn: array<u32>;
@group(0) @binding(9) var<storage, read_write> probeOut: array<u32>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = id.x;
    if (c >= arrayLength(&probeIn) / 19u) { return; }
    let b = c * 19u;
    var t: Taps;
    t.xp = bitcast<f32>(probeIn[b]);
    t.xm = bitcast<f32>(probeIn[b + 1u]);
    t.zp = bitcast<f32>(probeIn[b + 2u]);
    t.zm = bitcast<f32>(probeIn[b + 3u]);
    t.c = 0.0;
    let g = bitcast<f32>(probeIn[b + 4u]);
    let v = bitcast<f32>(probeIn[b + 5u]);
    let n = bitcast<f32>(probeIn[b + 6u]);
    let w = b + 7u;
    let r = RuleLane(probeIn[w], probeIn[w + 1u], probeIn[w + 2u], probeIn[w + 3u],
        bitcast<f32>(probeIn[w + 4u]), bitcast<f32>(probeIn[w + 5u]), bitcast<f32>(probeIn[w + 6u]), bitcast<f32>(probeIn[w + 7u]),
        bitcast<f32>(probeIn[w + 8u]), probeIn[w + 9u], bitcast<f32>(probeIn[w + 10u]), probeIn[w + 11u]);
    probeOut[c * 2u] = bitcast<u32>(aspectFromTaps(t, g));
    probeOut[c * 2u + 1u] = bitcast<u32>(aspectBand(v, r, n));
}
`

// aspectCase is one probe case: taps and step for the aspect; value, noise and rule for the band.
type aspectCase struct {
	xp, xm, zp, zm, g float32
	v, n              float32
	rule              []uint32 // 12 lane words, as stack.Pack writes them
}

func runAspectProbe(t *testing.T, cases []aspectCase) (aspect, band []float32) {
	t.Helper()
	d := testDevice(t)
	src, err := shaders.Load("terrain_layer_weights")
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.NewComputePipeline("aspect probe", src+aspectProbeSrc, "probe", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	var raw []byte
	for _, c := range cases {
		for _, v := range []float32{c.xp, c.xm, c.zp, c.zm, c.g, c.v, c.n} {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
		for _, w := range c.rule {
			raw = binary.LittleEndian.AppendUint32(raw, w)
		}
	}
	ib, err := d.NewBuffer("aspect probe in", uint64(len(raw)), wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer ib.Release()
	if _, err := ib.Upload(raw); err != nil {
		t.Fatal(err)
	}
	outBytes := uint64(len(cases) * 8)
	ob, err := d.NewBuffer("aspect probe out", outBytes, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Release()
	bg, err := p.BindGroup("aspect probe", BufferEntry(8, ib), BufferEntry(9, ob))
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Release()
	if err := d.Dispatch("aspect probe", p, bg, (uint32(len(cases))+63)/64, 1, 1); err != nil {
		t.Fatal(err)
	}
	b, err := d.ReadBuffer(ob, 0, outBytes)
	if err != nil {
		t.Fatal(err)
	}
	for k := range cases {
		aspect = append(aspect, math.Float32frombits(binary.LittleEndian.Uint32(b[k*8:])))
		band = append(band, math.Float32frombits(binary.LittleEndian.Uint32(b[k*8+4:])))
	}
	return aspect, band
}

// aspectLanes packs rule ru as an aspect rule and returns its 12 lane words and decoded lanes.
func aspectLanes(t *testing.T, ru stack.Rule) ([]uint32, stack.PackedRule) {
	t.Helper()
	ru.Input = stack.InputAspect
	s := stack.New()
	l := stack.NewLayer("a")
	l.Rules = []stack.Rule{ru}
	s.Layers = []stack.Layer{stack.NewLayer("ground"), l}
	p, err := stack.Pack(s, stack.Geometry{InvHTexel: [2]float32{1, 1}, WTexel: [2]float32{1, 1}, GradientStep: 1})
	if err != nil {
		t.Fatal(err)
	}
	pr, _ := stack.UnpackRule(p, 0)
	return p[stack.RulesWord : stack.RulesWord+stack.RuleLanes*stack.LaneWords], pr
}

func angleOff(a, b float32) float64 {
	d := math.Mod(math.Abs(float64(a-b)), 360)
	return math.Min(d, 360-d)
}

// TestAspectKernelMatchesGo: the kernel's aspectFromTaps agrees with field.AspectK (planes facing
// every way at many steepnesses, random taps, flat taps) within 1e-3° — far inside the 0.5° the
// input is held to — and is ASPECT_FLAT exactly where Go's is; aspectBand equals stack.AspectBand
// (wrapping, feathered, jittered, inverted bands; values all round the compass, across the
// edges and past 360 by jitter; flat ground) within 1e-5.
func TestAspectKernelMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	rules := []stack.Rule{
		{Min: stack.F(315), Max: stack.F(45)},
		{Min: stack.F(315), Max: stack.F(45), Softness: 10, Jitter: 8},
		{Min: stack.F(60), Max: stack.F(120), Softness: 15},
		{Min: stack.F(150), Max: stack.F(210), Softness: 20, Jitter: 5, Invert: true},
		{Min: stack.F(0), Max: stack.F(360), Softness: 40},
		{},
		{Min: stack.F(350), Max: stack.F(10), Softness: 30, Jitter: 200},
		{Min: stack.F(90), Max: stack.F(90)},
	}
	var cases []aspectCase
	var packed []stack.PackedRule
	for k := 0; k < 4096; k++ {
		ri := k % len(rules)
		lanes, pr := aspectLanes(t, rules[ri])
		c := aspectCase{g: []float32{1, 2, 0.37, 30}[k%4], rule: lanes, n: rng.Float32()}
		switch k % 5 {
		case 0, 1: // a plane facing a random way
			a := rng.Float64() * 2 * math.Pi
			m := math.Pow(10, rng.Float64()*5-3) // gradient 0.001 … 100
			h := rng.Float64()*2000 - 500
			dx, dz := -m*math.Sin(a), -m*math.Cos(a)
			g := float64(c.g)
			c.xp, c.xm = float32(h+dx*g), float32(h-dx*g)
			c.zp, c.zm = float32(h+dz*g), float32(h-dz*g)
		case 2: // random taps, sometimes flat along one axis or both
			h := float32(rng.NormFloat64() * 100)
			c.xp, c.xm, c.zp, c.zm = h+float32(rng.NormFloat64()), h+float32(rng.NormFloat64()), h+float32(rng.NormFloat64()), h+float32(rng.NormFloat64())
			if rng.IntN(3) == 0 {
				c.xp = c.xm
			}
			if rng.IntN(3) == 0 {
				c.zp = c.zm
			}
		case 3: // the compass points exactly, and flat
			h := float32(rng.IntN(100))
			c.xp, c.xm, c.zp, c.zm = h, h, h, h
			switch rng.IntN(5) {
			case 0:
				c.zm++
			case 1:
				c.xm++
			case 2:
				c.zp++
			case 3:
				c.xp++
			}
		}
		// The band's value: all round the compass, at the rule's edges, flat.
		switch rng.IntN(4) {
		case 0:
			c.v = field.AspectFlat
		case 1:
			c.v = []float32{0, 360, 45, 315, 60, 120, 150, 210, 90, 350, 10}[rng.IntN(11)] + float32(rng.IntN(3)-1)*1e-4
			c.v = max(c.v, 0)
		default:
			c.v = rng.Float32() * 360
		}
		cases = append(cases, c)
		packed = append(packed, pr)
	}
	aspect, band := runAspectProbe(t, cases)
	var worst, worstBand float64
	for k, c := range cases {
		want := field.AspectK(c.xp, c.xm, c.zp, c.zm, 0.5/c.g)
		got := aspect[k]
		if (want == field.AspectFlat) != (got == field.AspectFlat) || got < field.AspectFlat || got > 360 {
			t.Fatalf("case %d taps %v %v %v %v: GPU aspect %v, Go %v", k, c.xp, c.xm, c.zp, c.zm, got, want)
		}
		if want != field.AspectFlat {
			d := angleOff(got, want)
			worst = max(worst, d)
			if d > 1e-3 {
				t.Errorf("case %d taps %v %v %v %v g %v: GPU aspect %v, Go %v (%.2g° apart)", k, c.xp, c.xm, c.zp, c.zm, c.g, got, want, d)
			}
		}
		wb := stack.AspectBand(c.v, &packed[k], c.n)
		d := math.Abs(float64(band[k] - wb))
		worstBand = max(worstBand, d)
		if d > 1e-5 {
			t.Errorf("case %d: aspectBand(%v, n %v) under %+v: GPU %v, Go %v", k, c.v, c.n, packed[k], band[k], wb)
		}
	}
	t.Logf("%d cases: worst aspect difference %.3g°, worst band difference %.3g", len(cases), worst, worstBand)
}
