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

// BenchmarkWeightsTile256 takes one 256² tile (stress stack, 2 m texels, inside a 1024² field)
// apart: cut is FieldTile alone (the CPU copies of the apron-inclusive height and channel
// blocks), run is Run on an already cut tile (params + buffer uploads + dispatch) waited for,
// cut+run is what the editor pays per dirty tile through FieldTile, runfield the same through
// RunField (no intermediate copy), resident is the kernel alone (Repeat).
func BenchmarkWeightsTile256(b *testing.B) {
	d := testDevice(b)
	k, err := d.NewWeightsKernel()
	if err != nil {
		b.Fatal(err)
	}
	defer k.Release()
	f := testField(b, 1024, 2)
	for _, sc := range []struct {
		name string
		s    *stack.Stack
	}{{"dunes", stack.SampleDunes()}, {"stress", stack.StressStack()}} {
		w := newWeightsSetup(b, f, sc.s)
		target, err := d.NewWeightsTarget(uint32(w.fg.WeightsW), uint32(w.fg.WeightsH))
		if err != nil {
			b.Fatal(err)
		}
		tile := field.Tiles(&w.fg, 256, w.sg.GradientStep)[5] // an interior tile
		wt, err := FieldTile(f, sc.s.Channels(), tile)
		if err != nil {
			b.Fatal(err)
		}
		if err := k.Run(context.Background(), target, w.params, wt); err != nil {
			b.Fatal(err)
		}
		d.Wait()
		b.Run(sc.name+"/cut", func(b *testing.B) {
			for b.Loop() {
				if _, err := FieldTile(f, sc.s.Channels(), tile); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(sc.name+"/run", func(b *testing.B) {
			for b.Loop() {
				if err := k.Run(context.Background(), target, w.params, wt); err != nil {
					b.Fatal(err)
				}
				d.Wait()
			}
		})
		b.Run(sc.name+"/cut+run", func(b *testing.B) {
			for b.Loop() {
				wt, err := FieldTile(f, sc.s.Channels(), tile)
				if err != nil {
					b.Fatal(err)
				}
				if err := k.Run(context.Background(), target, w.params, wt); err != nil {
					b.Fatal(err)
				}
				d.Wait()
			}
		})
		b.Run(sc.name+"/runfield", func(b *testing.B) {
			for b.Loop() {
				if err := k.RunField(context.Background(), target, w.params, f, sc.s.Channels(), tile); err != nil {
					b.Fatal(err)
				}
				d.Wait()
			}
		})
		b.Run(sc.name+"/resident", func(b *testing.B) {
			for b.Loop() {
				if err := k.Repeat(1); err != nil {
					b.Fatal(err)
				}
				d.Wait()
			}
		})
		target.Release()
	}
}
