package gpu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/noise"
	"strata/shaders"
)

// noiseProbe evaluates noise.wgsl's functions for a list of cases: in[c] = (i, j, k, seed, x, z,
// 1/featureSize computed on the CPU, octaves) as u32 (floats by bit pattern); out[c] = (PCG(seed),
// Hash2, Hash3, FBMInv bits) — the kernels call FBMInv with the CPU's inverse from params.
const noiseProbe = `
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = id.x;
    if (c >= arrayLength(&inp) / 8u) { return; }
    let b = c * 8u;
    let i = bitcast<i32>(inp[b]);
    let j = bitcast<i32>(inp[b + 1u]);
    let k = inp[b + 2u];
    let s = inp[b + 3u];
    let x = bitcast<f32>(inp[b + 4u]);
    let z = bitcast<f32>(inp[b + 5u]);
    let inv = bitcast<f32>(inp[b + 6u]);
    let oct = inp[b + 7u];
    outp[c * 4u] = PCG(s);
    outp[c * 4u + 1u] = Hash2(i, j, s);
    outp[c * 4u + 2u] = Hash3(i, j, k, s);
    outp[c * 4u + 3u] = bitcast<u32>(FBMInv(x, z, inv, oct, s));
}
`

type noiseCase struct {
	i, j     int32
	k, seed  uint32
	x, z, fs float32
	octaves  uint32
}

func runNoiseProbe(t *testing.T, cases []noiseCase) []uint32 {
	t.Helper()
	d := testDevice(t)
	lib, err := shaders.Load("noise")
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.NewComputePipeline("noise probe", lib+noiseProbe, "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	in := make([]byte, len(cases)*32)
	for c, nc := range cases {
		w := []uint32{uint32(nc.i), uint32(nc.j), nc.k, nc.seed, math.Float32bits(nc.x), math.Float32bits(nc.z),
			math.Float32bits(1 / nc.fs), nc.octaves}
		for q, v := range w {
			binary.LittleEndian.PutUint32(in[c*32+q*4:], v)
		}
	}
	ib, err := d.NewBuffer("noise probe in", uint64(len(in)), wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer ib.Release()
	if _, err := ib.Upload(in); err != nil {
		t.Fatal(err)
	}
	ob, err := d.NewBuffer("noise probe out", uint64(len(cases)*16), wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Release()
	bg, err := p.BindGroup("noise probe", BufferEntry(0, ib), BufferEntry(1, ob))
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Release()
	if err := d.Dispatch("noise probe", p, bg, uint32(len(cases)+63)/64, 1, 1); err != nil {
		t.Fatal(err)
	}
	raw, err := d.ReadBuffer(ob, 0, uint64(len(cases)*16))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, len(cases)*4)
	for q := range out {
		out[q] = binary.LittleEndian.Uint32(raw[q*4:])
	}
	return out
}

func noiseCases(n int) []noiseCase {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []noiseCase{
		{0, 0, 0, 0, 0, 0, 64, 1},
		{-1, -1, 1, 0xffffffff, -0.5, -0.5, 64, 4},
		{math.MaxInt32, math.MinInt32, 7, 0x80000000, 1e4, -1e4, 200, 8},
		{3, 4, 5, 1, 123.25, -7.75, 1, 16},
	}
	for len(cases) < n {
		cases = append(cases, noiseCase{
			i: int32(rng.Uint32()), j: int32(rng.Uint32()), k: rng.Uint32(), seed: rng.Uint32(),
			x: float32(rng.Float64()*8000 - 4000), z: float32(rng.Float64()*8000 - 4000),
			fs: float32(1 + rng.Float64()*300), octaves: 1 + rng.Uint32N(8),
		})
	}
	return cases
}

// TestNoiseHashBitExact: the lattice hash is integer arithmetic, so the GPU must agree with
// package noise on every bit.
func TestNoiseHashBitExact(t *testing.T) {
	cases := noiseCases(4096)
	out := runNoiseProbe(t, cases)
	bad := 0
	for c, nc := range cases {
		want := [3]uint32{noise.PCG(nc.seed), noise.Hash2(nc.i, nc.j, nc.seed), noise.Hash3(nc.i, nc.j, nc.k, nc.seed)}
		got := [3]uint32{out[c*4], out[c*4+1], out[c*4+2]}
		if got != want {
			if bad++; bad <= 5 {
				t.Errorf("case %+v: GPU PCG/Hash2/Hash3 %#x, Go %#x", nc, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ", bad, len(cases))
	}
}

// TestFBMMatchesGo: the float part may differ by rounding only.
func TestFBMMatchesGo(t *testing.T) {
	cases := noiseCases(4096)
	out := runNoiseProbe(t, cases)
	var worst float64
	for c, nc := range cases {
		got := math.Float32frombits(out[c*4+3])
		want := noise.FBM(nc.x, nc.z, nc.fs, nc.octaves, nc.seed)
		if d := math.Abs(float64(got - want)); d > worst {
			worst = d
		}
		if d := math.Abs(float64(got - want)); d > 1e-5 || got < 0 || got >= 1 {
			t.Errorf("FBM%+v: GPU %v, Go %v (|d| %.3g)", nc, got, want, d)
		}
	}
	t.Logf("worst |GPU - Go| FBM difference over %d cases: %.3g", len(cases), worst)
}
