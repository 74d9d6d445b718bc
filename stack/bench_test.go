package stack

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"strata/field"
)

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

// BenchmarkWeightsRow is a tile's rows through Taps on one core: the fast paths (WeightsRow)
// against the general path they are held to (fillRowGeneral, then Weights per texel), over the
// dunes sample at 512² (7.8 m texels; the defaults: every tap on a texel centre) and with a 1.3 m
// weights grid (3077², taps between centres). ns/texel is the wall time of one core.
func BenchmarkWeightsRow(b *testing.B) {
	f := field.SampleDunesSized(512)
	r := rand.New(rand.NewPCG(1, 1))
	named := map[string]*field.Grid{"mask.snow": groundGrid(r, 512, 512, 0.5, false), "sediment": groundGrid(r, 512, 512, 1.2, false)}
	for _, res := range []float64{0, 1.3} {
		fg, err := f.Geometry(res)
		if err != nil {
			b.Fatal(err)
		}
		ground := fastGround{fg: fg, hTexel: f.TexelSize(), height: f.Height, named: named}
		for _, sc := range []struct {
			name string
			s    *Stack
		}{{"slope30", slopeRule(Rule{Input: InputSlope, Min: F(30)})}, {"dunes", SampleDunes()}, {"stress", StressStack()}} {
			if res != 0 && sc.name == "stress" {
				continue // noise-bound: the taps are a few percent of it
			}
			c, err := Compile(sc.s, ground.geometry(sc.s))
			if err != nil {
				b.Fatal(err)
			}
			tiles := field.Tiles(&fg, 0, c.Geometry.GradientStep)
			for _, path := range []string{"general", "fast"} {
				b.Run(fmt.Sprintf("res%v/%s/%s", res, sc.name, path), func(b *testing.B) {
					ins := make([]TexelInputs, field.DefaultTileSize)
					out := make([][8]uint8, field.DefaultTileSize)
					texels := 0
					for b.Loop() {
						for _, t := range tiles {
							tp := c.Taps(&fg, f.Height, ground.chans(sc.s), t)
							for j := t.J0; j < t.J0+t.H; j++ {
								if path == "fast" {
									tp.WeightsRow(j, t.I0, ins, out[:t.W])
									continue
								}
								tp.fillRowGeneral(j, t.I0, ins[:t.W])
								for k := range t.W {
									out[k] = c.Weights(&ins[k])
								}
							}
							texels += t.W * t.H
						}
					}
					b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(texels), "ns/texel")
				})
			}
		}
	}
}
