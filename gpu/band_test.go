package gpu

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
	"strata/stack"
)

// noiseInputStack is the sample with a noise-input rule on its rock layer and no jitter: the
// kernel draws noise only through ruleNoise's kind 1.
func noiseInputStack() *stack.Stack {
	s := stack.SampleDunes()
	s.Layers[1].Rules = append(s.Layers[1].Rules, stack.Rule{Input: stack.InputNoise, Min: stack.F(0.45), Softness: 0.1})
	return s
}

// TestWeightsKernelsIdentical: the plain kernel and the lattice-cache kernel write the same bytes
// for stacks with and without noise (jitter everywhere, a noise input, none), and the kernel picks
// the plain one exactly for the stacks that draw no noise.
func TestWeightsKernelsIdentical(t *testing.T) {
	k := testWeightsKernel(t)
	defer k.Release()
	f := testField(t, 130, 2)
	for _, c := range []struct {
		name  string
		s     *stack.Stack
		noisy bool
	}{
		{"sample", stack.SampleDunes(), false},
		{"noise input", noiseInputStack(), true},
		{"stress", stack.StressStack(), true},
		{"aspect", stack.AspectStack(), true},
		{"flow", stack.FlowStack(), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWeightsSetup(t, f, c.s)
			k.force = 0
			alo, ahi := w.gpu(t, k, 64)
			want := weightsShaders[variantPlain]
			if c.noisy {
				want = weightsShaders[variantNoise]
			}
			if k.bgPipe.Name != want {
				t.Errorf("picked %s, want %s", k.bgPipe.Name, want)
			}
			k.force = 1 + variantPlain
			plo, phi := w.gpu(t, k, 64)
			k.force = 1 + variantNoise
			nlo, nhi := w.gpu(t, k, 64)
			k.force = 0
			if k.pipes[variantNoise] == nil || k.pipes[variantPlain] == nil {
				t.Fatal("a forced variant did not run")
			}
			if !bytes.Equal(plo, nlo) || !bytes.Equal(phi, nhi) {
				eq, worst, _ := compareWeights(append(plo, phi...), append(nlo, nhi...))
				t.Fatalf("plain and noise kernels differ: %.4f%% equal, worst %d", 100*eq, worst)
			}
			if !bytes.Equal(alo, plo) || !bytes.Equal(ahi, phi) {
				t.Fatal("the picked kernel differs from the forced ones")
			}
		})
	}
}

// TestWeightsTargetOrigin: a band-sized target placed at an origin receives exactly the bytes of
// the same texels in a whole-field run, for a band in the middle and one at the ragged corner.
func TestWeightsTargetOrigin(t *testing.T) {
	k := testWeightsKernel(t)
	defer k.Release()
	f := testField(t, 150, 2)
	w := newWeightsSetup(t, f, stack.StressStack())
	lo, hi := w.gpu(t, k, 64)
	W := w.fg.WeightsW
	tiles := field.Tiles(&w.fg, 32, w.sg.GradientStep)
	nx, _ := field.TileGrid(W, w.fg.WeightsH, 32)
	for _, b := range []struct{ tx, ty, nw, nh int }{{1, 1, 2, 3}, {3, 2, 2, 3}} {
		i0, j0 := b.tx*32, b.ty*32
		bw, bh := min(b.nw*32, W-i0), min(b.nh*32, w.fg.WeightsH-j0)
		target, err := k.dev.NewWeightsTarget(uint32(bw), uint32(bh))
		if err != nil {
			t.Fatal(err)
		}
		target.Origin = [2]uint32{uint32(i0), uint32(j0)}
		for ty := b.ty; ty < b.ty+b.nh; ty++ {
			for tx := b.tx; tx < b.tx+b.nw; tx++ {
				if err := k.RunField(context.Background(), target, w.params, f, w.s.Channels(), tiles[ty*nx+tx]); err != nil {
					t.Fatal(err)
				}
			}
		}
		// A tile outside the band is refused, not written elsewhere.
		if err := k.RunField(context.Background(), target, w.params, f, w.s.Channels(), tiles[0]); err == nil {
			t.Error("a tile outside the target's band was accepted")
		}
		blo := make([]byte, len(lo))
		bhi := make([]byte, len(hi))
		if err := k.dev.ReadTextureInto(target.Lo, blo[(j0*W+i0)*4:], 4*W); err != nil {
			t.Fatal(err)
		}
		if err := k.dev.ReadTextureInto(target.Hi, bhi[(j0*W+i0)*4:], 4*W); err != nil {
			t.Fatal(err)
		}
		target.Release()
		for j := j0; j < j0+bh; j++ {
			a, z := (j*W+i0)*4, (j*W+i0+bw)*4
			if !bytes.Equal(blo[a:z], lo[a:z]) || !bytes.Equal(bhi[a:z], hi[a:z]) {
				t.Fatalf("band at (%d,%d): row %d differs from the whole-field run", i0, j0, j)
			}
		}
	}
}

// TestDensityBands: the density over two bands (each reading a band target of weights) equals the
// whole grid's, value for value, and so do the maxima.
func TestDensityBands(t *testing.T) {
	ss := newScatterSetup(t, 150, stack.StressStack())
	d := ss.k.dev
	wk := testWeightsKernel(t)
	defer wk.Release()
	W, H := ss.fg.WeightsW, ss.fg.WeightsH
	pp, err := stack.PackPopulation(ss.s, 0, ss.sg)
	if err != nil {
		t.Fatal(err)
	}
	tiles := ss.tiles(50)
	got := make([]float32, W*H)
	var maxD float32
	var cut TileCutter
	for _, b := range [][2]int{{0, 100}, {100, H}} {
		target, err := d.NewWeightsTarget(uint32(W), uint32(b[1]-b[0]))
		if err != nil {
			t.Fatal(err)
		}
		target.Origin = [2]uint32{0, uint32(b[0])}
		var band []field.Tile
		for _, tl := range tiles {
			if tl.J0 >= b[0] && tl.J0 < b[1] {
				band = append(band, tl)
			}
		}
		for _, tl := range band {
			if err := wk.RunField(context.Background(), target, ss.weightsSetup.params, ss.f, ss.s.Channels(), tl); err != nil {
				t.Fatal(err)
			}
		}
		m, err := ss.k.DensityBand(context.Background(), pp, target.Origin, target.W, target.H, target, len(band), func(i int) (WeightsTile, error) {
			return cut.Cut(ss.f, ss.s.Channels(), band[i])
		})
		if err != nil {
			t.Fatal(err)
		}
		maxD = max(maxD, m)
		if err := ss.k.ReadDensityInto(got[b[0]*W:], W); err != nil {
			t.Fatal(err)
		}
		target.Release()
	}
	if maxD != ss.max {
		t.Errorf("banded max %v, whole %v", maxD, ss.max)
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(ss.density[i]) {
			t.Fatalf("texel (%d,%d): banded %v, whole %v", i%W, i/W, got[i], ss.density[i])
		}
	}
	// Placement needs the whole grid: a band left in the buffer is refused.
	_, err = ss.k.Place(context.Background(), PlaceJob{Params: ss.params(), Geometry: &ss.fg, Height: ss.f.Height, Tiles: tiles})
	if err == nil {
		t.Error("Place accepted a density buffer holding a band")
	}
}

// TestReadIntoStrides: ReadTextureInto and ReadBufferRows place rows at the caller's stride and
// leave the bytes between them alone.
func TestReadIntoStrides(t *testing.T) {
	d := testDevice(t)
	tex, err := d.NewTexture("stride probe", 5, 3, wgpu.TextureFormatRGBA8Unorm, wgpu.TextureUsageTextureBinding)
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Release()
	src := make([]byte, 5*3*4)
	for i := range src {
		src[i] = byte(i + 1)
	}
	if err := tex.Write(src); err != nil {
		t.Fatal(err)
	}
	dst := bytes.Repeat([]byte{0xEE}, 64*3)
	if err := d.ReadTextureInto(tex, dst, 64); err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 3; y++ {
		if !bytes.Equal(dst[y*64:y*64+20], src[y*20:(y+1)*20]) || dst[y*64+20] != 0xEE {
			t.Fatalf("row %d: %v", y, dst[y*64:y*64+24])
		}
	}
	if err := d.ReadTextureInto(tex, make([]byte, 59), 20); err == nil {
		t.Error("a destination too short was accepted")
	}
	buf, err := d.NewBuffer("stride probe", 48, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	words := make([]byte, 48)
	for i := range 12 {
		binary.LittleEndian.PutUint32(words[4*i:], uint32(100+i))
	}
	if err := buf.Write(0, words); err != nil {
		t.Fatal(err)
	}
	out := bytes.Repeat([]byte{0xEE}, 40)
	if err := d.ReadBufferRows(buf, 8, 2, 8, out, 20); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out[0:8], words[8:16]) || !bytes.Equal(out[20:28], words[16:24]) || out[8] != 0xEE || out[28] != 0xEE {
		t.Fatalf("rows: %v", out)
	}
}

// TestRequestableLimits: a limit the adapter reports as unlimited (the "undefined" sentinel of
// the request struct) is asked for as the largest defined value, not dropped to the default;
// others pass unchanged; and the device gets more than the default buffer size.
func TestRequestableLimits(t *testing.T) {
	for _, c := range []struct {
		buf, wantBuf uint64
		tex, wantTex uint32
	}{
		{math.MaxUint64, math.MaxUint64 - 1, math.MaxUint32, math.MaxUint32 - 1},
		{2 << 30, 2 << 30, 16384, 16384},
	} {
		b, x := requestableProbe(c.buf, c.tex)
		if b != c.wantBuf || x != c.wantTex {
			t.Errorf("requestable(%d, %d) = %d, %d; want %d, %d", c.buf, c.tex, b, x, c.wantBuf, c.wantTex)
		}
	}
	d := testDevice(t)
	if d.Limits.MaxBufferSize <= 256<<20 {
		t.Errorf("max buffer size %d: the default, not the adapter's", d.Limits.MaxBufferSize)
	}
}
