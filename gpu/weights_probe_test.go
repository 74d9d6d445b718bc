package gpu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/shaders"
	"strata/stack"
)

func runWeightsProbe(t *testing.T, in []uint32, outWords int) []uint32 {
	t.Helper()
	d := testDevice(t)
	src, err := shaders.Load("terrain_layer_weights")
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.NewComputePipeline("weights probe", src+weightsProbeSrc, "probe", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	raw := make([]byte, len(in)*4)
	for i, v := range in {
		binary.LittleEndian.PutUint32(raw[i*4:], v)
	}
	ib, err := d.NewBuffer("weights probe in", uint64(len(raw)), wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer ib.Release()
	if _, err := ib.Upload(raw); err != nil {
		t.Fatal(err)
	}
	ob, err := d.NewBuffer("weights probe out", uint64(outWords*4), wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Release()
	bg, err := p.BindGroup("weights probe", BufferEntry(8, ib), BufferEntry(9, ob))
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Release()
	n := uint32(len(in) / 12)
	if err := d.Dispatch("weights probe", p, bg, (n+63)/64, 1, 1); err != nil {
		t.Fatal(err)
	}
	b, err := d.ReadBuffer(ob, 0, uint64(outWords*4))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, outWords)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[i*4:])
	}
	return out
}

// weightsProbeSrc is an extra entry point appended to the weights kernel's own source: it runs the
// kernel's quantize (vector ranks, no private arrays) on given shares, so it is held to
// stack.Quantize on cases the weights tests never produce (ties, shares that sum short of or past
// 1, values outside [0, 1], NaN), and noise.wgsl's FBMPre next to FBMInv (same inverse). Bindings 8 and 9 are its
// own; the derived layout holds only those. Each case is 12 words: the shares' f32 bits, then x,
// z, featureSize (f32 bits) and the seed (octaves: 1 + case % 8); out: the 8 quantized bytes as
// u32, FBMPre's bits, FBM's bits.
const weightsProbeSrc = `
@group(0) @binding(8) var<storage, read> probeIn: array<u32>;
@group(0) @binding(9) var<storage, read_write> probeOut: array<u32>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = id.x;
    if (c >= arrayLength(&probeIn) / 12u) { return; }
    let b = c * 12u;
    let lo = vec4<f32>(bitcast<f32>(probeIn[b]), bitcast<f32>(probeIn[b + 1u]), bitcast<f32>(probeIn[b + 2u]), bitcast<f32>(probeIn[b + 3u]));
    let hi = vec4<f32>(bitcast<f32>(probeIn[b + 4u]), bitcast<f32>(probeIn[b + 5u]), bitcast<f32>(probeIn[b + 6u]), bitcast<f32>(probeIn[b + 7u]));
    let q = quantize(lo, hi);
    let o = c * 10u;
    probeOut[o] = u32(q.lo.x);
    probeOut[o + 1u] = u32(q.lo.y);
    probeOut[o + 2u] = u32(q.lo.z);
    probeOut[o + 3u] = u32(q.lo.w);
    probeOut[o + 4u] = u32(q.hi.x);
    probeOut[o + 5u] = u32(q.hi.y);
    probeOut[o + 6u] = u32(q.hi.z);
    probeOut[o + 7u] = u32(q.hi.w);
    let x = bitcast<f32>(probeIn[b + 8u]);
    let z = bitcast<f32>(probeIn[b + 9u]);
    let fs = bitcast<f32>(probeIn[b + 10u]);
    let seed = probeIn[b + 11u];
    probeOut[o + 8u] = bitcast<u32>(FBMPre(x, z, 1.0 / fs, 1u + c % 8u, seed));
    probeOut[o + 9u] = bitcast<u32>(FBMInv(x, z, 1.0 / fs, 1u + c % 8u, seed));
}
`

// probeShares are share vectors that exercise every branch of the quantizer: real compositions,
// exact ties, remainders that tie after scaling, sums short of 1 (d > 8 gives layer 0 the rest),
// sums past 1 (d < 0), zeros, values past [0, 1] and NaN.
func probeShares(n int) [][8]float32 {
	rng := rand.New(rand.NewPCG(5, 6))
	out := [][8]float32{
		{1}, {}, {0.5, 0.5}, {0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125},
		{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.3, 0.3, 0.3, 0.1}, {1, 1, 1, 1, 1, 1, 1, 1},
		{0.9, 0.9}, {2, -1, 0.5}, {float32(math.NaN()), 0.5, 0.5}, {0.01, 0.01, 0.01},
		{0.999, 0.999, 0.999, 0.999, 0.999, 0.999, 0.999, 0.999},
		{0.0039, 0.0039, 0.0039, 0.0039, 0.0039, 0.0039, 0.0039, 0.0039},
	}
	for len(out) < n {
		var s [8]float32
		switch len(out) % 4 {
		case 0: // a composition as the kernel makes it
			rem := float32(1)
			for l := 7; l >= 1; l-- {
				s[l] = rng.Float32() * rem
				if rng.IntN(3) == 0 {
					s[l] = 0
				}
				rem -= s[l]
			}
			s[0] = rem
		case 1: // coarse values: many equal remainders
			for k := range s {
				s[k] = float32(rng.IntN(9)) / 32
			}
		case 2: // anything in [0, 0.3]: sums far from 1 either way
			for k := range s {
				s[k] = rng.Float32() * 0.3
			}
		default: // a few layers, summing a little past 1
			for k := range s {
				if rng.IntN(2) == 0 {
					s[k] = rng.Float32()
				}
			}
			var sum float32
			for _, v := range s {
				sum += v
			}
			if sum > 0 {
				for k := range s {
					s[k] = s[k] / sum * 1.02
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// TestWeightsQuantizeMatchesGo: the kernel's rank-based quantize equals stack.Quantize (loops over
// private arrays) on every case, and FBMPre (shared row hashes, select gradients), which the
// kernel draws its noise from, agrees with FBM on the same device up to rounding (a driver may
// contract a different multiply-add; FBM itself is held to package noise by TestFBMMatchesGo).
// Seen: quantize exact on lavapipe and the H200; FBMPre − FBM within 1e-6 on both.
func TestWeightsQuantizeMatchesGo(t *testing.T) {
	shares := probeShares(4096)
	nc := noiseCases(len(shares))
	in := make([]uint32, 0, len(shares)*12)
	for c, s := range shares {
		for _, v := range s {
			in = append(in, math.Float32bits(v))
		}
		in = append(in, math.Float32bits(nc[c].x), math.Float32bits(nc[c].z), math.Float32bits(nc[c].fs), nc[c].seed)
	}
	out := runWeightsProbe(t, in, len(shares)*10)
	bad := 0
	var worst float64
	for c, s := range shares {
		want := stack.Quantize(s)
		var got [8]uint8
		for k := range got {
			got[k] = uint8(out[c*10+k])
		}
		if got != want {
			if bad++; bad <= 5 {
				t.Errorf("quantize %v: GPU %v, Go %v", s, got, want)
			}
		}
		pre := math.Float32frombits(out[c*10+8])
		ref := math.Float32frombits(out[c*10+9])
		d := math.Abs(float64(pre - ref))
		worst = max(worst, d)
		if d > 1e-6 || pre < 0 || pre >= 1 {
			t.Errorf("case %+v: FBMPre %v, FBM %v on the same device", nc[c], pre, ref)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d quantize cases differ", bad, len(shares))
	}
	t.Logf("worst |FBMPre - FBM| over %d cases: %.3g", len(shares), worst)
}
