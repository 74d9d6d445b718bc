package sculpt

import (
	"context"
	"testing"

	"strata/field"
)

// BenchmarkSculptDab is one dab of each mode, radius 64 texels (falloff 0.5), on a 1024² grid:
// the arithmetic a stroke's worker runs per dab, without the re-evaluation it triggers.
func BenchmarkSculptDab(b *testing.B) {
	for _, p := range allModes() {
		b.Run(label(p), func(b *testing.B) {
			g, pl := bumpy(1024, 1024)
			d := Dab{Params: p, X: pl.Min[0] + 1024, Z: pl.Min[1] + 1024, Radius: 128, Falloff: 0.5}
			b.ResetTimer()
			for range b.N {
				if _, err := d.Apply(g, pl); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSculptWeighted is procgen's terrain.sculpt on a 1024² grid weighted everywhere.
func BenchmarkSculptWeighted(b *testing.B) {
	w := field.NewGrid(1024, 1024)
	for k := range w.Data {
		w.Data[k] = 0.5
	}
	for _, p := range []Params{{Mode: Smooth, Strength: 1, HalfWidth: 4}, {Mode: Noise, Strength: 1, Amplitude: 3, FeatureSize: 40, Seed: 1}} {
		b.Run(p.Mode.String(), func(b *testing.B) {
			g, pl := bumpy(1024, 1024)
			d := &Dab{Params: p}
			b.ResetTimer()
			for range b.N {
				if _, err := ApplyWeighted(context.Background(), g, pl, d, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
