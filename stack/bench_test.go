package stack

import "testing"

// benchTexels runs the per-texel path over a 256×256 synthetic patch with plausible inputs; the
// field-wide figure (sampling included) lives in bake's benchmarks.
func benchTexels(b *testing.B, s *Stack) {
	c, err := Compile(s, testGeom)
	if err != nil {
		b.Fatal(err)
	}
	const n = 256
	b.ReportAllocs()
	b.ResetTimer()
	var sink uint8
	for it := 0; it < b.N; it++ {
		for j := uint32(0); j < n; j++ {
			for i := uint32(0); i < n; i++ {
				var in TexelInputs
				in.X, in.Z = testGeom.TexelPos(i, j)
				in.Height = float32(int(i+j)%40) - 20
				in.Slope = float32((i*7 + j) % 35)
				in.Curvature = (float32(i%13) - 6) * 0.004
				in.Chan = [4]float32{float32(i%11) / 10, float32(j%7) / 6}
				w := c.Weights(&in)
				sink += w[0]
			}
		}
	}
	b.ReportMetric(float64(b.N)*n*n/b.Elapsed().Seconds()/1e6, "Mtexel/s")
	_ = sink
}

func BenchmarkWeightsDunes(b *testing.B)  { benchTexels(b, SampleDunes()) }
func BenchmarkWeightsStress(b *testing.B) { benchTexels(b, StressStack()) }
