package viewport

import (
	"image"
	"image/color"
	"math"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"

	"strata/shaders"
)

// TestPickAccuracy projects known ground points to the screen and picks them back: the answer
// must land within half a texel of the point, on a flat plane and on a slope, from the orbit
// camera and the map.
func TestPickAccuracy(t *testing.T) {
	const n, size = 128, 256.0
	half := 0.5 * size / n
	for _, tc := range []struct {
		name string
		h    func(x, z float64) float64
	}{
		{"flat", func(x, z float64) float64 { return 12 }},
		{"slope", func(x, z float64) float64 { return 0.35*x - 0.2*z + 40 }},
		{"dunes", nil},
	} {
		var s *Scene
		if tc.h == nil {
			s = dunesScene(n, size)
		} else {
			s = heightScene(n, size, tc.h)
		}
		for _, mode := range []ViewMode{ViewOrbit, ViewMap} {
			r := newTestRenderer(t, goldenW, goldenH, s)
			c := OrbitCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH)
			if mode == ViewMap {
				c = MapCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH)
			}
			r.SetCamera(c)
			f := c.frame(goldenW, goldenH, r.bounds)
			sm := newHeightSampler(s)
			for _, p := range [][2]float64{{0, 0}, {-60.3, 41.7}, {90.1, -100.9}, {-110, -110}, {33.3, 77.7}} {
				hgt, _ := sm.height(p[0], p[1])
				px, py, ok := f.project(vec3{p[0], hgt, p[1]})
				if !ok {
					t.Fatalf("%s: point %v behind the camera", tc.name, p)
				}
				hit, ok := r.Pick(px, py)
				if !ok {
					t.Errorf("%s mode %d: pick %v at (%.1f, %.1f): missed", tc.name, mode, p, px, py)
					continue
				}
				if d := math.Hypot(hit.X-p[0], hit.Z-p[1]); d > half {
					// Occluded points legitimately pick the nearer ground: accept only when the
					// hit lies on the same ray and in front of the target.
					if tc.name != "dunes" {
						t.Errorf("%s mode %d: pick %v → (%.3f, %.3f), %.3f m off, want ≤ %.3f", tc.name, mode, p, hit.X, hit.Z, d, half)
					}
				}
				if want, _ := sm.height(hit.X, hit.Z); math.Abs(hit.Height-want) > 1e-6 {
					t.Errorf("%s: hit height %.4f, field says %.4f", tc.name, hit.Height, want)
				}
			}
			if _, ok := r.Pick(1, 1); ok && mode == ViewOrbit {
				t.Errorf("%s: the sky corner picked ground", tc.name)
			}
		}
	}
}

func TestPickHoleMisses(t *testing.T) {
	s := heightScene(64, 128, func(x, z float64) float64 { return 0 })
	for j := 24; j < 40; j++ {
		for i := 24; i < 40; i++ {
			s.Height.Data[4*(j*64+i)+3] = 0
		}
	}
	r := newTestRenderer(t, goldenW, goldenH, s)
	r.SetCamera(MapCamera(s.Placement, [2]float64{0, 1}, float64(goldenW)/goldenH))
	if _, ok := r.Pick(goldenW/2, goldenH/2); ok {
		t.Errorf("picked ground inside a hole")
	}
	if _, ok := r.Pick(goldenW/2+70, goldenH/2); !ok {
		t.Errorf("missed solid ground beside the hole")
	}
	// A brush finds the cut ground's surface (restoring it is painted over the hole).
	if h, ok := r.PickGround(goldenW/2, goldenH/2); !ok || math.Abs(h.X) > 2 || math.Abs(h.Z) > 2 || h.Height != 0 {
		t.Errorf("PickGround inside the hole: %+v, %v; want the ground at the centre", h, ok)
	}
	img := render(t, r)
	c := img.RGBAAt(goldenW/2, goldenH/2)
	if c.B <= c.R {
		t.Errorf("hole centre pixel %v: want the sky (blue) through the hole", c)
	}
}

// TestFrameOnDemand: an unchanged renderer returns the cached image; camera, overlay, scene and
// size changes render anew; a fading tile flash keeps rendering until it is gone.
func TestFrameOnDemand(t *testing.T) {
	s := flatTwoLayerScene()
	r := newTestRenderer(t, 64, 40, s)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r.Now = func() time.Time { return now }
	c := OrbitCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH)
	r.SetCamera(c)
	a := render(t, r)
	if b := render(t, r); b != a {
		t.Errorf("second Frame with nothing changed rendered again")
	}
	r.SetCamera(c)
	if b := render(t, r); b != a {
		t.Errorf("setting the same camera rendered again")
	}
	c.Orbit(0.1, 0)
	r.SetCamera(c)
	b := render(t, r)
	if b == a {
		t.Errorf("camera change did not render")
	}
	r.SetOverlay(Overlay{TileSize: 16, Flashes: []TileFlash{{I: 0, J: 0, At: now}}, Fade: time.Second})
	f1 := render(t, r)
	if !r.Animating() {
		t.Errorf("flash fading but Animating() is false")
	}
	now = now.Add(500 * time.Millisecond)
	if f2 := render(t, r); f2 == f1 {
		t.Errorf("fading flash did not render again")
	}
	now = now.Add(time.Second)
	f3 := render(t, r)
	if r.Animating() {
		t.Errorf("flash over but still animating")
	}
	if f4 := render(t, r); f4 != f3 {
		t.Errorf("rendered again after the flash faded")
	}
	if err := r.Resize(80, 50); err != nil {
		t.Fatal(err)
	}
	if img := render(t, r); img.Bounds() != image.Rect(0, 0, 80, 50) {
		t.Errorf("after Resize(80, 50) frame is %v", img.Bounds())
	}
	if err := r.Resize(0, 10); err == nil || !strings.HasPrefix(err.Error(), "viewport:") {
		t.Errorf("Resize(0, 10) = %v, want a viewport: error", err)
	}
}

// TestLODErrorMonotonic: a parent's error is never below its children's, and a flat field has
// no error at all.
func TestLODErrorMonotonic(t *testing.T) {
	s := dunesScene(200, 800)
	tr := newLODTree(&s.Height)
	for l := 0; l < tr.levels-1; l++ {
		n := 1 << l
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				for k := 0; k < 4; k++ {
					c := (2*j+k/2)*(2*n) + 2*i + k%2
					if tr.err[l+1][c] > tr.err[l][j*n+i] {
						t.Fatalf("level %d node (%d,%d): error %g below child's %g", l, i, j, tr.err[l][j*n+i], tr.err[l+1][c])
					}
				}
			}
		}
	}
	if tr.err[0][0] <= 0 {
		t.Errorf("dunes root error %g, want > 0", tr.err[0][0])
	}
	flat := newLODTree(&heightScene(100, 100, func(x, z float64) float64 { return 3 }).Height)
	if flat.err[0][0] != 0 {
		t.Errorf("flat root error %g, want 0", flat.err[0][0])
	}
}

// TestLODSelection: chunks near the eye are finer than far ones, the selection covers the
// visible field without overlaps, and a larger pixel budget draws fewer chunks.
func TestLODSelection(t *testing.T) {
	// Uniformly rough ground, so the error depends on the distance alone.
	s := heightScene(512, 2048, func(x, z float64) float64 { return 10 * math.Sin(x/23) * math.Sin(z/29) })
	tr := newLODTree(&s.Height)
	c := OrbitCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH)
	c.Distance *= 0.5
	c.Pitch = 20 * math.Pi / 180
	f := c.frame(1280, 720, bounds{min: vec3{-1024, -10, -1024}, max: vec3{1024, 60, 1024}})
	count := func(px float64) []chunkInst {
		p := lodParams{f: &f, min: s.Placement.Min(), texel: s.texel(), maxPxErr: px}
		return tr.selectChunks(&p, nil)
	}
	fine, coarse := count(2), count(8)
	if len(fine) <= len(coarse) {
		t.Errorf("2 px budget drew %d chunks, 8 px drew %d: want more for the tighter budget", len(fine), len(coarse))
	}
	var near, far chunkInst
	nd, fd := math.Inf(1), 0.0
	for _, ch := range fine {
		cx := -1024 + (float64(ch.X0)+16*float64(ch.Step))*4
		cz := -1024 + (float64(ch.Z0)+16*float64(ch.Step))*4
		d := math.Hypot(cx-f.eye[0], cz-f.eye[2])
		if d < nd {
			nd, near = d, ch
		}
		if d > fd {
			fd, far = d, ch
		}
	}
	if near.Step >= far.Step {
		t.Errorf("nearest chunk step %g, farthest %g: want finer near the eye", near.Step, far.Step)
	}
	// No two chunks overlap (a quadtree cut).
	for i, a := range fine {
		for _, b := range fine[i+1:] {
			sa, sb := float64(a.Step*chunkCells), float64(b.Step*chunkCells)
			if float64(a.X0) < float64(b.X0)+sb && float64(b.X0) < float64(a.X0)+sa &&
				float64(a.Z0) < float64(b.Z0)+sb && float64(b.Z0) < float64(a.Z0)+sa {
				t.Fatalf("chunks %+v and %+v overlap", a, b)
			}
		}
	}
}

// TestFrameUniformLayout: the Go frameUniforms fields and WGSL's struct Frame members agree in
// order, and every member is a vec4 or the leading mat4, so offsets match by construction.
func TestFrameUniformLayout(t *testing.T) {
	src, err := shaders.Raw(shaders.ViewportCommon)
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)struct Frame \{(.*?)\};`).FindStringSubmatch(src)
	if body == nil {
		t.Fatal("struct Frame not found in viewport_common.wgsl")
	}
	var members []string
	for _, m := range regexp.MustCompile(`(\w+):\s*(mat4x4<f32>|vec4<f32>)`).FindAllStringSubmatch(body[1], -1) {
		members = append(members, strings.ReplaceAll(m[1], "_", ""))
	}
	var want []string
	ft := reflect.TypeOf(frameUniforms{})
	for i := 0; i < ft.NumField(); i++ {
		want = append(want, strings.ToLower(ft.Field(i).Name))
	}
	if strings.Join(members, ",") != strings.Join(want, ",") {
		t.Errorf("WGSL Frame members %v, Go frameUniforms fields %v", members, want)
	}
	var u frameUniforms
	if got := 4 * len(u.floats()); got != frameUniformSize || frameUniformSize != 64+16*(len(want)-1) {
		t.Errorf("packed %d bytes, frameUniformSize %d, WGSL %d", got, frameUniformSize, 64+16*(len(want)-1))
	}
}

func TestReleaseNilSafe(t *testing.T) {
	var r *Renderer
	r.Release()
	var tx *texture
	tx.Release()
	var p *renderPipeline
	p.Release()
	var tr *terrain
	tr.Release()
	var in *instances
	in.Release()
	rr := newTestRenderer(t, 8, 8, nil)
	rr.Release()
	rr.Release()
	if _, err := rr.Frame(); err == nil {
		t.Errorf("Frame after Release: no error")
	}
}

func TestSceneValidate(t *testing.T) {
	good := flatTwoLayerScene()
	if err := good.Validate(); err != nil {
		t.Fatalf("valid scene: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(s *Scene)
		want string
	}{
		{"no size", func(s *Scene) { s.Placement.Size = [2]float64{0, 10} }, "placement size"},
		{"short data", func(s *Scene) { s.Height.Data = s.Height.Data[:8] }, "height data"},
		{"nine layers", func(s *Scene) { s.Layers = make([]Layer, 9) }, "at most 8"},
		{"bad mesh", func(s *Scene) { s.Populations = []Population{{Name: "x", Mesh: "cactus"}} }, "unknown mesh"},
		{"few matrices", func(s *Scene) { s.Populations = []Population{{Name: "x", Mesh: MeshRock, Count: 2}} }, "matrix floats"},
	} {
		s := *flatTwoLayerScene()
		tc.edit(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "viewport:") {
			t.Errorf("%s: Validate() = %v, want a viewport: error mentioning %q", tc.name, err, tc.want)
		}
	}
	_ = os.Getenv
}

// TestIncrementalUpdates: updating controls, height and populations in place gives the same
// frame as uploading the changed scene from scratch.
func TestIncrementalUpdates(t *testing.T) {
	base := flatTwoLayerScene()
	r := newTestRenderer(t, 96, 60, base)
	cam := OrbitCamera(base.Placement, [2]float64{0, 20}, 1.6)
	r.SetCamera(cam)
	before := render(t, r)

	// The changes: all grass, a 20 m bump in one corner, three rocks.
	grass := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for k := 0; k < len(grass.Pix); k += 4 {
		grass.Pix[k+1] = 255
	}
	rocks := []Population{{Name: "r", Mesh: MeshRock, Matrices: instanceMatrices(3, 0, 0, 20, 0, 4), Count: 3}}
	bump := func(s *Scene) {
		for j := 0; j < 8; j++ {
			for i := 0; i < 8; i++ {
				s.Height.Data[4*(j*64+i)] = 20
			}
		}
	}
	if err := r.UpdateControls(0, grass); err != nil {
		t.Fatal(err)
	}
	bumped := flatTwoLayerScene()
	bump(bumped)
	rect := image.Rect(0, 0, 8, 8)
	if err := r.UpdateHeight(rect, heightRect(bumped, rect)); err != nil {
		t.Fatal(err)
	}
	if err := r.SetPopulations(rocks); err != nil {
		t.Fatal(err)
	}
	got := render(t, r)

	fresh := flatTwoLayerScene()
	fresh.Controls[0] = grass
	bump(fresh)
	fresh.Populations = rocks
	r2 := newTestRenderer(t, 96, 60, fresh)
	r2.bounds = r.bounds
	r2.SetCamera(cam)
	want := render(t, r2)
	if ok, frac, _ := compareImages(got, want); !ok {
		t.Errorf("incremental frame matches a fresh upload on %.1f%% of pixels", 100*frac)
	}
	if ok, _, _ := compareImages(got, before); ok {
		t.Errorf("the updates changed nothing on screen")
	}
	if err := r.UpdateControls(2, grass); err == nil {
		t.Errorf("UpdateControls(2): no error")
	}
}

// heightRect cuts rect's texels out of s's height payload, rows tightly packed.
func heightRect(s *Scene, rect image.Rectangle) []float32 {
	var out []float32
	for j := rect.Min.Y; j < rect.Max.Y; j++ {
		o := 4 * (j*s.Height.W + rect.Min.X)
		out = append(out, s.Height.Data[o:o+4*rect.Dx()]...)
	}
	return out
}

// The editor's other ways in give the picture a fresh upload gives: weights pages written from the
// CPU or where the kernel writes them (a slot of the atlas), stored weights written tile by tile,
// a new layer table;
// a density overlay colours only where the density is above zero; UpdateHeight copies (the
// caller's slice is not kept) and rejects a rectangle outside the grid.
func TestEditorUpdates(t *testing.T) {
	grass := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for k := 0; k < len(grass.Pix); k += 4 {
		grass.Pix[k+1] = 255
	}
	cam := OrbitCamera(flatTwoLayerScene().Placement, [2]float64{0, 20}, 1.6)
	fresh := flatTwoLayerScene()
	fresh.Controls[0] = grass
	fresh.Layers[1].Tint = color.RGBA{0x20, 0x40, 0xc0, 255}
	ref := newTestRenderer(t, 96, 60, fresh)
	ref.SetCamera(cam)
	want := render(t, ref)

	d := testDevice(t)
	layers := append([]Layer(nil), fresh.Layers...)
	for _, way := range []string{"pages", "slots", "rects"} {
		sc := flatTwoLayerScene()
		if way != "rects" {
			sc.Controls = [2]image.Image{} // an evaluator writes the pages
			sc.WeightsGrid = [2]int{64, 64}
		}
		r := newTestRenderer(t, 96, 60, sc)
		r.SetCamera(cam)
		if err := r.SetLayers(layers); err != nil {
			t.Fatal(err)
		}
		switch way {
		case "pages", "slots":
			// Generation 1 of the weights, every page the camera samples, from the CPU or
			// written where the weights kernel writes (the slot's target).
			for _, key := range r.WeightsNeed(96, 60) {
				x0, z0, x1, z1 := r.PageRect(key)
				lo := make([]byte, 0, 4*(x1-x0)*(z1-z0))
				for j := z0; j < z1; j++ {
					for i := x0; i < x1; i++ {
						o := grass.PixOffset(min(i<<key.Level, 63), min(j<<key.Level, 63))
						lo = append(lo, grass.Pix[o:o+4]...)
					}
				}
				hi := make([]byte, len(lo))
				if way == "pages" {
					if err := r.PutWeights(key, 1, lo, hi); err != nil {
						t.Fatal(err)
					}
					continue
				}
				tg, slot, err := r.WeightsSlot(key, 1)
				if err != nil {
					t.Fatal(err)
				}
				for i, b := range [][]byte{lo, hi} {
					tex := []*gpu.Texture{tg.Lo, tg.Hi}[i]
					err := d.Do("test page", func() error {
						return d.Queue.WriteTexture(&wgpu.ImageCopyTexture{Texture: tex.Tex, Aspect: wgpu.TextureAspectAll,
							Origin: wgpu.Origin3D{X: uint32(x0) - tg.Origin[0], Y: uint32(z0) - tg.Origin[1]}},
							b, &wgpu.TextureDataLayout{BytesPerRow: uint32(4 * (x1 - x0)), RowsPerImage: uint32(z1 - z0)},
							&wgpu.Extent3D{Width: uint32(x1 - x0), Height: uint32(z1 - z0), DepthOrArrayLayers: 1})
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				r.CommitWeights(key, 1, slot)
			}
			if f := render(t, r); r.Stats().MissingWeights == 0 {
				_ = f
				t.Errorf("%s: generation 1 written but not shown: the frame misses none", way)
			}
			r.ShowWeights(1)
		case "rects":
			for _, q := range []image.Rectangle{image.Rect(0, 0, 32, 64), image.Rect(32, 0, 64, 64)} {
				pix := make([]byte, 0, 4*q.Dx()*q.Dy())
				for j := q.Min.Y; j < q.Max.Y; j++ {
					pix = append(pix, grass.Pix[grass.PixOffset(q.Min.X, j):grass.PixOffset(q.Max.X, j)]...)
				}
				if err := r.UpdateControlsRect(0, 64, 64, q, pix); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.UpdateControlsRect(1, 64, 64, image.Rect(0, 0, 64, 64), make([]byte, 64*64*4)); err != nil {
				t.Fatal(err)
			}
		}
		if ok, frac, _ := compareImages(render(t, r), want); !ok {
			t.Errorf("%s: frame matches a fresh upload on %.1f%% of pixels", way, 100*frac)
		}
		if m := r.Stats().MissingWeights; m != 0 {
			t.Errorf("%s: the frame lacks %d weights pages", way, m)
		}
		r.Release()
	}

	// Density overlay: the west half dense, the east half empty.
	r := newTestRenderer(t, 96, 60, flatTwoLayerScene())
	r.SetCamera(MapCamera(flatTwoLayerScene().Placement, [2]float64{0, 1}, 1.6))
	plain := render(t, r)
	dens := make([]float32, 64*64)
	for j := 0; j < 64; j++ {
		for i := 0; i < 32; i++ {
			dens[j*64+i] = 0.01
		}
	}
	if err := r.SetDensity(nil, 64, 64, dens, 0.01); err != nil {
		t.Fatal(err)
	}
	r.SetOverlay(Overlay{Mode: OverlayDensity})
	over := render(t, r)
	west, east := 0, 0
	for y := 10; y < 50; y++ {
		for x := 20; x < 76; x++ {
			if over.RGBAAt(x, y) != plain.RGBAAt(x, y) {
				if x < 48 {
					west++
				} else {
					east++
				}
			}
		}
	}
	if west < 500 || east > 40 {
		t.Errorf("density overlay changed %d west pixels (dense) and %d east pixels (empty)", west, east)
	}
	// The same halves in a grid wider than an overlay keeps (box-filtered by 3): the same picture.
	bw := 2*overlaySide + 1
	big := make([]float32, bw*64)
	for j := 0; j < 64; j++ {
		for i := 0; i < bw/2; i++ {
			big[j*bw+i] = 0.01
		}
	}
	if err := r.SetDensity(nil, bw, 64, big, 0.01); err != nil {
		t.Fatal(err)
	}
	if ok, frac, _ := compareImages(render(t, r), over); !ok {
		t.Errorf("a %dx64 density grid matches the 64x64 one on %.1f%% of pixels", bw, 100*frac)
	}

	hf := flatTwoLayerScene()
	rect := image.Rect(60, 60, 64, 64)
	data := heightRect(hf, rect)
	for k := 0; k < len(data); k += 4 {
		data[k] = 5
	}
	if err := r.UpdateHeight(rect, data); err != nil {
		t.Fatal(err)
	}
	data[0] = 99
	if h, _, _, _ := r.scene.Height.At(60, 60); h != 5 {
		t.Errorf("height at (60,60) is %v after the caller changed its slice; want 5", h)
	}
	if err := r.UpdateHeight(image.Rect(62, 62, 66, 66), make([]float32, 64)); err == nil {
		t.Error("UpdateHeight outside the grid: no error")
	}
}

// An instance standing over a hole is not drawn: with rock 0 of a ring in a hole, the frame is
// the frame of the ring without it.
func TestInstancesOverHolesHidden(t *testing.T) {
	ring := instanceMatrices(6, 0, 0, 40, 0, 6)
	holed := func(pops []float32) *Scene {
		s := flatTwoLayerScene()
		// flatTwoLayerScene: 64×64 texels over 256 m centred on 0; rock 0 stands at (40, 0).
		for j := 28; j < 36; j++ {
			for i := 40; i < 48; i++ {
				s.Height.Data[4*(j*64+i)+3] = 0
			}
		}
		s.Populations = []Population{{Name: "rocks", Mesh: MeshRock, Matrices: pops, Count: len(pops) / 16}}
		return s
	}
	cam := OrbitCamera(flatTwoLayerScene().Placement, [2]float64{0, 10}, 1.6)
	a := newTestRenderer(t, 160, 100, holed(ring))
	a.SetCamera(cam)
	b := newTestRenderer(t, 160, 100, holed(ring[16:]))
	b.SetCamera(cam)
	b.bounds = a.bounds
	if n := countDiffering(render(t, a), render(t, b)); n > 2 {
		t.Errorf("the rock over the hole was drawn: %d pixels differ from the ring without it", n)
	}
	c := newTestRenderer(t, 160, 100, holed(ring))
	c.SetCamera(cam)
	full := flatTwoLayerScene()
	full.Populations = []Population{{Name: "rocks", Mesh: MeshRock, Matrices: ring, Count: 6}}
	d := newTestRenderer(t, 160, 100, full)
	d.SetCamera(cam)
	d.bounds = c.bounds
	if n := countDiffering(render(t, c), render(t, d)); n < 30 {
		t.Errorf("the hole changed %d pixels: the test shows nothing", n)
	}
}

// countDiffering counts pixels whose colour differs by more than 8 in a channel.
func countDiffering(a, b *image.RGBA) int {
	n := 0
	for i := 0; i+3 < len(a.Pix) && i+3 < len(b.Pix); i += 4 {
		for c := 0; c < 3; c++ {
			if d := int(a.Pix[i+c]) - int(b.Pix[i+c]); d > 8 || d < -8 {
				n++
				break
			}
		}
	}
	return n
}

// TestBrushLevelTint: a flatten brush's level tints the ground inside the ring cool where the
// ground lies below it (a dab fills) and warm where it lies above (a dab cuts), draws its contour
// where the ground crosses it, and leaves the picture outside the ring alone.
func TestBrushLevelTint(t *testing.T) {
	s := dunesScene(128, 512)
	r := newTestRenderer(t, goldenW, goldenH, s)
	r.SetCamera(MapCamera(s.Placement, s.HeightRange, float64(goldenW)/goldenH))
	ring := Overlay{Brush: true, BrushCenter: [2]float64{0, 0}, BrushRadius: 150}
	shot := func(o Overlay) *image.RGBA {
		r.SetOverlay(o)
		return render(t, r)
	}
	// coolness sums blue minus red over the picture's pixels.
	coolness := func(img *image.RGBA) int {
		n := 0
		for i := 0; i < len(img.Pix); i += 4 {
			n += int(img.Pix[i+2]) - int(img.Pix[i])
		}
		return n
	}
	lo, hi := s.HeightRange[0], s.HeightRange[1]
	off := shot(ring)
	above, below, mid := ring, ring, ring
	above.BrushLevel, above.BrushLevelOn = hi+100, true // all ground below the level: filled
	below.BrushLevel, below.BrushLevelOn = lo-100, true // all ground above it: cut
	mid.BrushLevel, mid.BrushLevelOn = (lo+hi)/2, true
	fill, cut, half := shot(above), shot(below), shot(mid)
	if c0, cf, cc := coolness(off), coolness(fill), coolness(cut); !(cf > c0 && c0 > cc) {
		t.Errorf("blue minus red: no level %d, level above the ground %d, below it %d; want the fill coolest and the cut warmest", c0, cf, cc)
	}
	// Outside the ring nothing changes: the corners are far from the centre.
	for _, img := range []*image.RGBA{fill, cut, half} {
		for _, p := range []image.Point{{2, 2}, {goldenW - 3, 2}, {2, goldenH - 3}, {goldenW - 3, goldenH - 3}} {
			if img.RGBAAt(p.X, p.Y) != off.RGBAAt(p.X, p.Y) {
				t.Errorf("pixel %v outside the ring changed with the level: %v, was %v", p, img.RGBAAt(p.X, p.Y), off.RGBAAt(p.X, p.Y))
			}
		}
	}
	// A level through the ground draws its contour: pixels near the line's pale yellow that
	// neither the fill nor the cut picture has.
	contour := 0
	for i := 0; i < len(half.Pix); i += 4 {
		pale := func(p []uint8) bool { return p[0] > 235 && p[1] > 225 && p[2] > 170 && p[2] < 235 }
		if pale(half.Pix[i:i+4]) && !pale(fill.Pix[i:i+4]) && !pale(cut.Pix[i:i+4]) {
			contour++
		}
	}
	if contour < 10 {
		t.Errorf("a level through the ground drew %d contour pixels", contour)
	}
}
