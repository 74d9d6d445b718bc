package gpu

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"strata/field"
	"strata/internal/fixture"
	"strata/stack"
)

// testField is fixture.StressField: the dunes ground on n×n texels of texel metres, off the world
// origin, with the stress stack's channels (the scatter tests use the same ground).
func testField(t testing.TB, n int, texel float64) *field.Field {
	t.Helper()
	return fixture.StressField(n, texel)
}

// weightsSetup is everything both twins read: the float32 geometry and the packed lanes.
type weightsSetup struct {
	f      *field.Field
	s      *stack.Stack
	fg     field.Geometry
	sg     stack.Geometry
	params []uint32
}

func newWeightsSetup(t testing.TB, f *field.Field, s *stack.Stack) *weightsSetup {
	return newWeightsSetupRes(t, f, s, 0)
}

// newWeightsSetupRes is newWeightsSetup with a weights grid of resolution metres per texel.
func newWeightsSetupRes(t testing.TB, f *field.Field, s *stack.Stack, resolution float64) *weightsSetup {
	t.Helper()
	fg, err := f.Geometry(resolution)
	if err != nil {
		t.Fatal(err)
	}
	sg := stack.Geometry{FieldMin: fg.FieldMin, InvHTexel: fg.InvHTexel, WTexel: fg.WTexel,
		GradientStep: float32(s.GradientStepFor(f.TexelSize()))}
	params, err := stack.Pack(s, sg)
	if err != nil {
		t.Fatal(err)
	}
	return &weightsSetup{f: f, s: s, fg: fg, sg: sg, params: params}
}

// reference evaluates the weights with the Go twins (stack.Compiled over field.Sampler on the
// whole grid): the deliberately plain loop the kernel is checked against.
func (w *weightsSetup) reference(t testing.TB) (lo, hi []byte) {
	t.Helper()
	c, err := stack.Compile(w.s, w.sg)
	if err != nil {
		t.Fatal(err)
	}
	hs := w.fg.Sampler(w.f.Height)
	var cs [4]field.Sampler
	for i, name := range w.s.Channels() {
		g, ok, err := w.f.ChannelGrid(name) // the flow plane too: Go routes it, both twins read it
		if err != nil || !ok {
			t.Fatalf("channel %q: %v", name, err)
		}
		cs[i] = w.fg.Sampler(g)
	}
	W, H := w.fg.WeightsW, w.fg.WeightsH
	lo, hi = make([]byte, W*H*4), make([]byte, W*H*4)
	g := w.sg.GradientStep
	for j := 0; j < H; j++ {
		for i := 0; i < W; i++ {
			var in stack.TexelInputs
			in.X, in.Z = w.sg.TexelPos(uint32(i), uint32(j))
			in.Height = hs.Bilinear(in.X, in.Z)
			in.Slope, in.Curvature = hs.SlopeCurvature(in.X, in.Z, g)
			in.Aspect = hs.Aspect(in.X, in.Z, g)
			for k := range cs {
				in.Chan[k] = cs[k].Bilinear(in.X, in.Z)
			}
			q := c.Weights(&in)
			o := (j*W + i) * 4
			copy(lo[o:o+4], q[:4])
			copy(hi[o:o+4], q[4:])
		}
	}
	return lo, hi
}

// gpu runs the kernel over the field cut into tiles of tileSize (0: one tile for the whole field).
func (w *weightsSetup) gpu(t testing.TB, k *WeightsKernel, tileSize int) (lo, hi []byte) {
	t.Helper()
	d := k.dev
	target, err := d.NewWeightsTarget(uint32(w.fg.WeightsW), uint32(w.fg.WeightsH))
	if err != nil {
		t.Fatal(err)
	}
	defer target.Release()
	if tileSize == 0 {
		tileSize = max(w.fg.WeightsW, w.fg.WeightsH)
	}
	chans := w.s.Channels()
	for _, tile := range field.Tiles(&w.fg, tileSize, w.sg.GradientStep) {
		wt, err := FieldTile(w.f, chans, tile)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Run(context.Background(), target, w.params, wt); err != nil {
			t.Fatal(err)
		}
	}
	lo, hi, err = target.ReadWeights()
	if err != nil {
		t.Fatal(err)
	}
	return lo, hi
}

func testWeightsKernel(t testing.TB) *WeightsKernel {
	t.Helper()
	k, err := testDevice(t).NewWeightsKernel()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// compareWeights returns the share of equal bytes and the largest difference.
func compareWeights(got, want []byte) (equal float64, worst int, at int) {
	n := 0
	for i := range want {
		d := int(got[i]) - int(want[i])
		if d < 0 {
			d = -d
		}
		if d == 0 {
			n++
		}
		if d > worst {
			worst, at = d, i
		}
	}
	return float64(n) / float64(len(want)), worst, at
}

func checkSum255(t *testing.T, lo, hi []byte) {
	t.Helper()
	for p := 0; p < len(lo)/4; p++ {
		s := 0
		for c := 0; c < 4; c++ {
			s += int(lo[p*4+c]) + int(hi[p*4+c])
		}
		if s != 255 {
			t.Fatalf("texel %d: bytes sum to %d, want 255", p, s)
		}
	}
}

// TestWeightsMatchReference: GPU vs the Go reference, texel by texel, on the dunes stack, the
// stress stack (every input kind but aspect and flow, jitter on every rule, invert), the aspect
// stack (wrapping, inverted and jittered aspect bands) and the flow stack (flow bands in log10 m²
// beside a mask in the next slot; the plane routed by the Go reference, bound as a channel) on
// dunes with flat plateaus.
func TestWeightsMatchReference(t *testing.T) {
	k := testWeightsKernel(t)
	defer k.Release()
	f := testField(t, 96, 2)
	flat := fixture.AspectField(96, 2)
	for _, c := range []struct {
		name       string
		s          *stack.Stack
		f          *field.Field
		resolution float64 // metres per weights texel; 0: the height grid
	}{
		{"dunes", stack.SampleDunes(), f, 0},
		{"stress", stack.StressStack(), f, 0},
		{"stress 3m weights", stack.StressStack(), f, 3},
		{"aspect", stack.AspectStack(), flat, 0},
		{"aspect 3m weights", stack.AspectStack(), flat, 3},
		{"flow", stack.FlowStack(), flat, 0},
		{"flow 3m weights", stack.FlowStack(), flat, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWeightsSetupRes(t, c.f, c.s, c.resolution)
			rlo, rhi := w.reference(t)
			glo, ghi := w.gpu(t, k, 64)
			checkSum255(t, glo, ghi)
			want := append(append([]byte{}, rlo...), rhi...)
			got := append(append([]byte{}, glo...), ghi...)
			eq, worst, at := compareWeights(got, want)
			t.Logf("%s: %.4f%% of bytes equal, worst difference %d", c.name, 100*eq, worst)
			if eq < 0.99 || worst > 2 {
				tex := (at % len(rlo)) / 4
				t.Errorf("%s: %.4f%% equal (want ≥ 99%%), worst %d (want ≤ 2) at texel (%d,%d)",
					c.name, 100*eq, worst, tex%w.fg.WeightsW, tex/w.fg.WeightsW)
			}
			layers := map[int]bool{}
			for p := 0; p < len(rlo); p++ {
				if rlo[p] != 0 {
					layers[p%4] = true
				}
				if rhi[p] != 0 {
					layers[4+p%4] = true
				}
			}
			t.Logf("%s: layers that show somewhere: %d", c.name, len(layers))
		})
	}
}

// TestWeightsTilingsIdentical: tiles of 64 and 128 texels and one tile for the whole field give
// the same bytes, because every read is placed from the field minimum: the stress stack, and the
// aspect stack on dunes with flat plateaus.
func TestWeightsTilingsIdentical(t *testing.T) {
	k := testWeightsKernel(t)
	defer k.Release()
	for _, c := range []struct {
		name string
		s    *stack.Stack
		f    *field.Field
	}{
		{"stress", stack.StressStack(), testField(t, 200, 2)}, // 200 is not a multiple of 64 or 128: ragged edge tiles
		{"aspect", stack.AspectStack(), fixture.AspectField(200, 2)},
		{"flow", stack.FlowStack(), fixture.AspectField(200, 2)}, // routed once for the field: tiles read one plane
	} {
		w := newWeightsSetup(t, c.f, c.s)
		wlo, whi := w.gpu(t, k, 0)
		for _, ts := range []int{64, 128} {
			t.Run(fmt.Sprintf("%s/%d", c.name, ts), func(t *testing.T) {
				lo, hi := w.gpu(t, k, ts)
				if !bytes.Equal(lo, wlo) || !bytes.Equal(hi, whi) {
					eq, worst, _ := compareWeights(append(lo, hi...), append(wlo, whi...))
					t.Fatalf("tiling %d differs from the whole field: %.4f%% equal, worst %d", ts, 100*eq, worst)
				}
			})
		}
	}
}
