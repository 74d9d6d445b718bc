package gpu

import (
	"image"
	"testing"

	"strata/sculpt"
)

// BenchmarkSculptDab is one dab on a 512² field resident on the device (height and two channels,
// one brick), waited for: "kernel" runs the sculpt kernel on the bricks (what the GPU evaluator
// does since issue 16); "upload" applies the dab with package sculpt on the host and rewrites the
// dab's rows of every plane in the bricks (what it did before). Radius 32 texels.
func BenchmarkSculptDab(b *testing.B) {
	for _, mode := range []sculpt.Mode{sculpt.Raise, sculpt.Smooth} {
		for _, path := range []string{"kernel", "upload"} {
			b.Run(mode.String()+"/"+path, func(b *testing.B) {
				d := testDevice(b)
				f := testField(b, 512, 2)
				geo, err := f.Geometry(0)
				if err != nil {
					b.Fatal(err)
				}
				chans := []string{"mask.snow", "sediment"}
				fb := d.NewFieldBuffers(0)
				defer fb.Release()
				fb.Cut(&geo, 2)
				if _, err := fb.Upload(f, chans, image.Rectangle{}); err != nil {
					b.Fatal(err)
				}
				if err := fb.Fill(b.Context(), image.Point{}); err != nil {
					b.Fatal(err)
				}
				k, err := d.NewSculptKernel()
				if err != nil {
					b.Fatal(err)
				}
				defer k.Release()
				pl := sculpt.PlaceOf(f)
				mn := f.Placement.Min()
				b.ResetTimer()
				for n := 0; n < b.N; n++ {
					x := mn[0] + 2*(200+float64(n%64))
					dab := sculpt.Dab{Params: sculpt.Params{Mode: mode, Strength: 0.5}, X: x, Z: mn[1] + 500, Radius: 64, Falloff: 0.5}
					if path == "kernel" {
						if _, err := k.Apply(fb, &dab); err != nil {
							b.Fatal(err)
						}
					} else {
						rect, err := dab.Apply(f.Height, pl)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := fb.Upload(f, chans, rect); err != nil {
							b.Fatal(err)
						}
					}
					d.Wait()
				}
			})
		}
	}
}
