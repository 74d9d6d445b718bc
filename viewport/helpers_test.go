package viewport

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/gpu"
	"strata/internal/testgpu"
	"strata/noise"
)

// testDevice is the test binary's one device (internal/testgpu).
func testDevice(t testing.TB) *gpu.Device { return testgpu.Device(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	testgpu.Release()
	os.Exit(code)
}

func newTestRenderer(t testing.TB, w, h int, s *Scene) *Renderer {
	t.Helper()
	r, err := New(testDevice(t), w, h)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(r.Release)
	if s != nil {
		if err := r.SetScene(s); err != nil {
			t.Fatalf("SetScene: %v", err)
		}
	}
	return r
}

// heightScene builds a scene of n×n texels over size metres from a height function; the
// gradient comes from central differences, like the bake writes it.
func heightScene(n int, size float64, hfn func(x, z float64) float64) *Scene {
	s := &Scene{Placement: Placement{Size: [2]float64{size, size}}}
	s.Height = HeightField{W: n, H: n, Data: make([]float32, 4*n*n)}
	tx := size / float64(n)
	mn := s.Placement.Min()
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			x, z := mn[0]+(float64(i)+0.5)*tx, mn[1]+(float64(j)+0.5)*tx
			h := hfn(x, z)
			gx := (hfn(x+tx, z) - hfn(x-tx, z)) / (2 * tx)
			gz := (hfn(x, z+tx) - hfn(x, z-tx)) / (2 * tx)
			o := 4 * (j*n + i)
			s.Height.Data[o], s.Height.Data[o+1], s.Height.Data[o+2], s.Height.Data[o+3] = float32(h), float32(gx), float32(gz), 1
			lo, hi = math.Min(lo, h), math.Max(hi, h)
		}
	}
	s.HeightRange = [2]float64{lo, hi}
	return s
}

// dunesScene is a dunes-like field from noise.FBM with sand on gentle ground and rock on steep
// faces (weights from the slope, as the sample stack does), n×n texels over size metres.
func dunesScene(n int, size float64) *Scene {
	hfn := func(x, z float64) float64 {
		v := float64(noise.FBM(float32(x), float32(z), float32(size/3), 3, 7))
		ridge := 1 - math.Abs(2*v-1)
		return 34*ridge*ridge*ridge + 8*v
	}
	s := heightScene(n, size, hfn)
	ctrl := image.NewRGBA(image.Rect(0, 0, n, n))
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			o := 4 * (j*n + i)
			g := math.Hypot(float64(s.Height.Data[o+1]), float64(s.Height.Data[o+2]))
			deg := math.Atan(g) * 180 / math.Pi
			rock := math.Max(0, math.Min(1, (deg-20)/6))
			rb := uint8(math.Round(rock * 255))
			ctrl.Pix[o], ctrl.Pix[o+1] = 255-rb, rb
		}
	}
	s.Controls[0] = ctrl
	s.Layers = []Layer{
		{Name: "sand", Tint: color.RGBA{0xd8, 0xc0, 0x8a, 255}, Tiling: 12},
		{Name: "rock", Tint: color.RGBA{0x7a, 0x6e, 0x64, 255}, Tiling: 8},
	}
	return s
}

// goldenTolerance: a pixel matches when every channel differs by at most this much; a test
// passes when at least goldenFraction of pixels match. lavapipe is deterministic on one
// machine; the slack absorbs LLVM and driver version differences in rasterization.
const (
	goldenTolerance = 12
	goldenFraction  = 0.99
)

// checkGolden compares img with testdata/NAME.png. STRATA_UPDATE_GOLDEN=1 rewrites the golden;
// on a mismatch NAME.got.png and NAME.diff.png are written next to it.
func checkGolden(t *testing.T, name string, img *image.RGBA) {
	t.Helper()
	path := filepath.Join("testdata", name+".png")
	if os.Getenv("STRATA_UPDATE_GOLDEN") == "1" {
		if err := writePNG(path, img); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	want, err := readPNG(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run with STRATA_UPDATE_GOLDEN=1 to create it)", path, err)
	}
	ok, frac, diff := compareImages(img, want)
	if ok {
		return
	}
	got := strings.TrimSuffix(path, ".png") + ".got.png"
	dp := strings.TrimSuffix(path, ".png") + ".diff.png"
	_ = writePNG(got, img)
	if diff != nil {
		_ = writePNG(dp, diff)
	}
	t.Errorf("%s: %.2f%% of pixels within %d, want ≥ %.0f%%; wrote %s and %s", name, 100*frac, goldenTolerance, 100*goldenFraction, got, dp)
}

func compareImages(got *image.RGBA, want image.Image) (bool, float64, *image.RGBA) {
	if got.Bounds().Size() != want.Bounds().Size() {
		return false, 0, nil
	}
	b := got.Bounds()
	wm := toRGBA(want)
	diff := image.NewRGBA(b)
	match := 0
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			o := y*got.Stride + 4*x
			p := y*wm.Stride + 4*x
			worst := 0
			for c := 0; c < 3; c++ {
				d := int(got.Pix[o+c]) - int(wm.Pix[p+c])
				if d < 0 {
					d = -d
				}
				worst = max(worst, d)
			}
			if worst <= goldenTolerance {
				match++
				g := uint8(int(got.Pix[o]+got.Pix[o+1]+got.Pix[o+2]) / 12)
				diff.Pix[o], diff.Pix[o+1], diff.Pix[o+2] = g, g, g
			} else {
				diff.Pix[o], diff.Pix[o+1], diff.Pix[o+2] = 255, uint8(255-min(255, 4*worst)), 0
			}
			diff.Pix[o+3] = 255
		}
	}
	frac := float64(match) / float64(b.Dx()*b.Dy())
	return frac >= goldenFraction, frac, diff
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func readPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}
