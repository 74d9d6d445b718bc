package viewport

import (
	"image"
	"image/color"
	"math"
	"testing"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

const goldenW, goldenH = 256, 160

// flatTwoLayerScene: a flat 256 m field, sand on the west half, grass on the east, blended
// over a 32 m band through the middle.
func flatTwoLayerScene() *Scene {
	s := heightScene(64, 256, func(x, z float64) float64 { return 0 })
	s.HeightRange = [2]float64{0, 1}
	ctrl := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for j := 0; j < 64; j++ {
		for i := 0; i < 64; i++ {
			x := (float64(i) + 0.5) * 4 // metres from the west edge
			g := math.Max(0, math.Min(1, (x-112)/32))
			gb := uint8(math.Round(g * 255))
			o := 4 * (j*64 + i)
			ctrl.Pix[o], ctrl.Pix[o+1] = 255-gb, gb
		}
	}
	s.Controls[0] = ctrl
	s.Layers = []Layer{
		{Name: "sand", Tint: color.RGBA{0xd8, 0xc0, 0x8a, 255}},
		{Name: "grass", Tint: color.RGBA{0x4a, 0x7a, 0x2e, 255}},
	}
	return s
}

func render(t *testing.T, r *Renderer) *image.RGBA {
	t.Helper()
	img, err := r.Frame()
	if err != nil {
		t.Fatalf("Frame: %v", err)
	}
	return img
}

func TestGoldenFlatTwoLayers(t *testing.T) {
	s := flatTwoLayerScene()
	r := newTestRenderer(t, goldenW, goldenH, s)
	r.SetCamera(OrbitCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH))
	checkGolden(t, "flat_two_layers", render(t, r))
}

func TestGoldenDunes(t *testing.T) {
	s := dunesScene(128, 512)
	r := newTestRenderer(t, goldenW, goldenH, s)
	c := OrbitCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH)
	c.Pitch = 30 * math.Pi / 180
	r.SetCamera(c)
	img := render(t, r)
	if st := r.Stats(); st.Chunks == 0 || st.Triangles == 0 {
		t.Errorf("stats %+v: nothing drawn", st)
	}
	checkGolden(t, "dunes", img)
}

func TestGoldenMap(t *testing.T) {
	s := dunesScene(128, 512)
	r := newTestRenderer(t, goldenW, goldenH, s)
	r.SetCamera(MapCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH))
	checkGolden(t, "map", render(t, r))
}

// instanceMatrices places n instances on a ring of the given radius around (cx, cz) on flat
// ground at height y, with the scatter kernel's matrix layout (SPEC "Scatter").
func instanceMatrices(n int, cx, cz, radius, y, scale float64) []float32 {
	var m []float32
	for k := 0; k < n; k++ {
		a := 2 * math.Pi * float64(k) / float64(n)
		x, z := cx+radius*math.Cos(a), cz+radius*math.Sin(a)
		yaw := a * 3
		sn, cs := math.Sincos(yaw)
		m = append(m,
			float32(cs*scale), 0, float32(-sn*scale), 0,
			0, float32(scale), 0, 0,
			float32(sn*scale), 0, float32(cs*scale), 0,
			float32(x), float32(y), float32(z), 1)
	}
	return m
}

func TestGoldenInstances(t *testing.T) {
	d := testDevice(t)
	s := flatTwoLayerScene()
	trees := instanceMatrices(12, 0, 0, 30, 0, 1.6)
	// The trees come from a GPU buffer, as the scatter kernel leaves them: drawn without a CPU copy.
	pool, err := d.NewBuffer("test tree pool", uint64(4*len(trees)), wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Release()
	if err := pool.Write(0, wgpu.ToBytes(trees)); err != nil {
		t.Fatal(err)
	}
	s.Populations = []Population{
		{Name: "pines", Mesh: MeshTree, Pool: pool.Buf, Count: 12},
		{Name: "rocks", Mesh: MeshRock, Matrices: instanceMatrices(8, 0, 0, 14, 0, 2.5), Count: 8},
		{Name: "bushes", Mesh: MeshBush, Matrices: instanceMatrices(10, 0, 0, 45, 0, 1.5), Count: 10},
	}
	r := newTestRenderer(t, goldenW, goldenH, s)
	c := OrbitCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH)
	c.Focus(0, 3, 0)
	c.Distance = 110
	c.Pitch = 25 * math.Pi / 180
	r.SetCamera(c)
	img := render(t, r)
	if st := r.Stats(); st.Instances != 30 {
		t.Errorf("instances drawn = %d, want 30", st.Instances)
	}
	checkGolden(t, "instances", img)
}

func TestGoldenOverlays(t *testing.T) {
	s := dunesScene(128, 512)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start.Add(250 * time.Millisecond)
	for _, tc := range []struct {
		name string
		o    Overlay
	}{
		{"overlay_weight", Overlay{Mode: OverlayWeight, Layer: 1}},
		{"overlay_slope", Overlay{Mode: OverlaySlope, SlopeMax: 45}},
		{"overlay_curvature", Overlay{Mode: OverlayCurvature, CurvatureScale: 0.03}},
		{"overlay_tiles", Overlay{TileSize: 32, Fade: time.Second, Flashes: []TileFlash{
			{I: 1, J: 1, At: start}, {I: 2, J: 1, At: start}, {I: 2, J: 2, At: start.Add(-900 * time.Millisecond)},
		}}},
		{"overlay_brush", Overlay{Brush: true, BrushCenter: [2]float64{40, 60}, BrushRadius: 70}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRenderer(t, goldenW, goldenH, s)
			r.Now = func() time.Time { return now }
			r.SetCamera(MapCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH))
			if tc.name == "overlay_brush" {
				c := OrbitCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH)
				r.SetCamera(c)
			}
			r.SetOverlay(tc.o)
			checkGolden(t, tc.name, render(t, r))
		})
	}
}

// testAtlas packs two 64² cells: layer 0 a checkerboard of light and dark sand, layer 1 blue
// and white stripes; the normal atlas gives layer 0 round bumps and leaves the rest flat.
func testAtlas() *Atlas {
	const cell = 64
	alb := image.NewRGBA(image.Rect(0, 0, 4*cell, 2*cell))
	nrm := image.NewRGBA(alb.Rect)
	for y := 0; y < 2*cell; y++ {
		for x := 0; x < 4*cell; x++ {
			c := color.RGBA{255, 255, 255, 255}
			n := color.RGBA{128, 128, 255, 255}
			cx, cy := x%cell, y%cell
			switch {
			case x < cell && y < cell:
				if (cx/16+cy/16)%2 == 0 {
					c = color.RGBA{230, 200, 140, 255}
				} else {
					c = color.RGBA{150, 110, 60, 255}
				}
				a := 2 * math.Pi * float64(cx) / 32
				b := 2 * math.Pi * float64(cy) / 32
				n = color.RGBA{uint8(128 + 90*math.Cos(a)), uint8(128 + 90*math.Cos(b)), 200, 255}
			case x < 2*cell && y < cell:
				if (cx/8)%2 == 0 {
					c = color.RGBA{40, 90, 200, 255}
				}
			}
			alb.SetRGBA(x, y, c)
			nrm.SetRGBA(x, y, n)
		}
	}
	return &Atlas{Albedo: alb, Normal: nrm}
}

func TestGoldenAtlas(t *testing.T) {
	s := flatTwoLayerScene()
	s.Atlas = testAtlas()
	s.Layers[0].Textured, s.Layers[0].Tiling = true, 32
	s.Layers[0].Tint = color.RGBA{255, 255, 255, 255}
	s.Layers[1].Textured, s.Layers[1].Tiling = true, 24
	s.Layers[1].Tint = color.RGBA{255, 255, 255, 255}
	r := newTestRenderer(t, goldenW, goldenH, s)
	r.SetCamera(OrbitCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH))
	checkGolden(t, "atlas", render(t, r))
}
