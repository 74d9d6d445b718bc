package gpu

import (
	"context"
	"fmt"
	"testing"

	"strata/field"
	"strata/stack"
)

// BenchmarkWeights512 is terrain_layer_weights on a 512² field (2 m texels): per tiling, the
// whole field including every tile's upload, waited for on the device. Reported: Mtexel/s and
// ms per 256² tile.
func BenchmarkWeights512(b *testing.B) {
	d := testDevice(b)
	k, err := d.NewWeightsKernel()
	if err != nil {
		b.Fatal(err)
	}
	defer k.Release()
	f := testField(b, 512, 2)
	for _, sc := range []struct {
		name string
		s    *stack.Stack
	}{{"dunes", stack.SampleDunes()}, {"stress", stack.StressStack()}} {
		w := newWeightsSetup(b, f, sc.s)
		target, err := d.NewWeightsTarget(uint32(w.fg.WeightsW), uint32(w.fg.WeightsH))
		if err != nil {
			b.Fatal(err)
		}
		for _, ts := range []int{256, 512} {
			tiles := field.Tiles(&w.fg, ts, w.sg.GradientStep)
			wts := make([]WeightsTile, len(tiles))
			for i, tile := range tiles {
				if wts[i], err = FieldTile(f, sc.s.Channels(), tile); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("%s/tile%d", sc.name, ts), func(b *testing.B) {
				for b.Loop() {
					for _, wt := range wts {
						if err := k.Run(context.Background(), target, w.params, wt); err != nil {
							b.Fatal(err)
						}
					}
					d.Wait()
				}
				texels := float64(w.fg.WeightsW * w.fg.WeightsH)
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(texels/sec/1e6, "Mtexel/s")
				b.ReportMetric(sec*1e3/(texels/(256*256)), "ms/256²tile")
			})
		}
		target.Release()
	}
}

// BenchmarkWeightsReference512 is the plain single-goroutine Go twin on the same field, for the
// ratio (bake.Reference runs it over all cores).
func BenchmarkWeightsReference512(b *testing.B) {
	f := testField(b, 512, 2)
	for _, sc := range []struct {
		name string
		s    *stack.Stack
	}{{"dunes", stack.SampleDunes()}, {"stress", stack.StressStack()}} {
		w := newWeightsSetup(b, f, sc.s)
		b.Run(sc.name, func(b *testing.B) {
			for b.Loop() {
				w.reference(b)
			}
			b.ReportMetric(float64(w.fg.WeightsW*w.fg.WeightsH)/(b.Elapsed().Seconds()/float64(b.N))/1e6, "Mtexel/s")
		})
	}
}
