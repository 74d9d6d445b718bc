package viewport

import (
	"image"
	"image/color"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"strata/noise"
)

// bigDunes builds an n×n dunes-like scene over n metres quickly: heights once (in parallel),
// gradients by central differences of the array, sand/rock weights by slope.
func bigDunes(n int) *Scene {
	size := float64(n)
	s := &Scene{Placement: Placement{Size: [2]float64{size, size}}}
	s.Height = HeightField{W: n, H: n, Data: make([]float32, 4*n*n)}
	h := make([]float32, n*n)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := w; j < n; j += workers {
				for i := 0; i < n; i++ {
					x, z := float32(i)-float32(n)/2, float32(j)-float32(n)/2
					v := float64(noise.FBM(x, z, 180, 4, 7))
					ridge := 1 - math.Abs(2*v-1)
					h[j*n+i] = float32(34*ridge*ridge*ridge + 8*v)
				}
			}
		}(w)
	}
	wg.Wait()
	at := func(i, j int) float32 { return h[clampInt(j, 0, n-1)*n+clampInt(i, 0, n-1)] }
	ctrl := image.NewRGBA(image.Rect(0, 0, n, n))
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			o := 4 * (j*n + i)
			gx := (at(i+1, j) - at(i-1, j)) / 2
			gz := (at(i, j+1) - at(i, j-1)) / 2
			s.Height.Data[o], s.Height.Data[o+1], s.Height.Data[o+2], s.Height.Data[o+3] = h[j*n+i], gx, gz, 1
			lo, hi = math.Min(lo, float64(h[j*n+i])), math.Max(hi, float64(h[j*n+i]))
			deg := math.Atan(math.Hypot(float64(gx), float64(gz))) * 180 / math.Pi
			rb := uint8(math.Round(math.Max(0, math.Min(1, (deg-20)/6)) * 255))
			ctrl.Pix[o], ctrl.Pix[o+1], ctrl.Pix[o+3] = 255-rb, rb, 0
		}
	}
	s.HeightRange = [2]float64{lo, hi}
	s.Controls[0] = ctrl
	s.Layers = []Layer{
		{Name: "sand", Tint: color.RGBA{0xd8, 0xc0, 0x8a, 255}},
		{Name: "rock", Tint: color.RGBA{0x7a, 0x6e, 0x64, 255}},
	}
	return s
}

// benchFrame renders 1280×720 frames with readback from the default orbit camera and from a
// low, close camera (the LOD's worst case: fine chunks near the eye, the horizon far away).
func benchFrame(b *testing.B, n int) {
	s := bigDunes(n)
	r := newTestRenderer(b, 1280, 720, s)
	if v := os.Getenv("STRATA_BENCH_PXERR"); v != "" {
		r.MaxPixelError, _ = strconv.ParseFloat(v, 64)
	}
	for _, view := range []string{"orbit", "low"} {
		b.Run(view, func(b *testing.B) {
			c := OrbitCamera(s.Placement, s.HeightRange, 1280.0/720)
			if view == "low" {
				c.Distance = float64(n) / 8
				c.Pitch = 12 * math.Pi / 180
			}
			r.SetCamera(c)
			if _, err := r.Frame(); err != nil { // warm-up: pipeline compile
				b.Fatal(err)
			}
			var gpu, sel float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.Invalidate()
				if _, err := r.Frame(); err != nil {
					b.Fatal(err)
				}
				st := r.Stats()
				gpu += st.GPUms
				sel += st.SelectMs
			}
			st := r.Stats()
			b.ReportMetric(gpu/float64(b.N), "gpu+readback-ms")
			b.ReportMetric(sel/float64(b.N), "select-ms")
			b.ReportMetric(float64(st.Chunks), "chunks")
			b.ReportMetric(float64(st.Triangles), "triangles")
		})
	}
}

func BenchmarkFrameDunes2000(b *testing.B) { benchFrame(b, 2000) }
func BenchmarkFrame4096(b *testing.B)      { benchFrame(b, 4096) }

// BenchmarkSceneUpload4096 measures SetScene: texture upload plus building the LOD tree.
func BenchmarkSceneUpload4096(b *testing.B) {
	s := bigDunes(4096)
	r := newTestRenderer(b, 64, 64, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := r.SetScene(s); err != nil {
			b.Fatal(err)
		}
	}
}
