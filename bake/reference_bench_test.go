package bake

import (
	"context"
	"testing"

	"strata/field"
	"strata/stack"
)

// BenchmarkReference is the figure: Mtexel/s of the Go reference on the dunes sample
// (2000², 2 m texels) with the sample stack and with the 16-rule stress stack.
func BenchmarkReference(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    *stack.Stack
		f    func() *field.Field
	}{
		{"sample", stack.SampleDunes(), field.SampleDunes},
		{"stress16", stack.StressStack(), func() *field.Field { return StressField(field.DunesTexels) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := bc.f()
			b.ResetTimer()
			var texels int
			for b.Loop() {
				w, err := Reference(context.Background(), bc.s, f, Options{})
				if err != nil {
					b.Fatal(err)
				}
				texels += w.W * w.H
			}
			b.ReportMetric(float64(texels)/b.Elapsed().Seconds()/1e6, "Mtexel/s")
		})
	}
}
