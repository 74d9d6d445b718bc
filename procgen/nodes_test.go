package procgen

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"strata/bake"
	"strata/exr"
	"strata/field"
	"strata/gpu"
	"strata/noise"
	"strata/stack"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 37)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tgaBytes is a w×h uncompressed 24-bit TGA, bottom-up.
func tgaBytes(w, h int) []byte {
	b := make([]byte, 18, 18+3*w*h)
	b[2], b[12], b[14], b[16] = 2, byte(w), byte(h), 24
	for i := 0; i < w*h; i++ {
		b = append(b, byte(i), 128, 200)
	}
	return b
}

func exrBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := &exr.Image{Width: w, Height: h, Channels: []string{"R", "G", "B"}, Data: make([][]float32, 3)}
	for c := range img.Data {
		img.Data[c] = make([]float32, w*h)
		for i := range img.Data[c] {
			img.Data[c][i] = float32(c+i%3) / 4
		}
	}
	var b bytes.Buffer
	if err := exr.Encode(&b, img, exr.None); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// heightPNG is a 16-bit heightmap: a bowl with noise, codes spanning most of 0…65535.
func heightPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	g := field.NewGrid(w, h)
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			dx, dz := float64(i)/float64(w)-0.5, float64(j)/float64(h)-0.5
			g.Set(i, j, float32(900*(dx*dx+dz*dz)*2+300*float64(noise.FBM(float32(i), float32(j), 9, 3, 5))))
		}
	}
	var b bytes.Buffer
	if err := field.EncodePNG16(&b, g, [2]float64{0, 1000}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// maskPNG is an 8-bit grayscale channel: a ramp along x.
func maskPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			img.SetGray(i, j, color.Gray{uint8(255 * i / (w - 1))})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const everyNodeStack = `version: 1
noise: {featureSize: 40, octaves: 3, seed: 9}
layers:
  - name: meadow
  - name: scree
    rules:
      - {input: slope, min: 25, softness: 5, jitter: 3}
      - {input: mask, channel: wet, invert: true, min: 0.5, softness: 0.2}
populations:
  - name: boulders
    density: 0.02
    mesh: rock
    rules:
      - {input: layer, layer: scree, min: 0.5, softness: 0.1}
`

// everyNodeScript uses every node type and every mask input, on a 96×72 import resampled to
// 120×90 texels; the GPU test runs it on both evaluators.
const everyNodeScript = `
local g = proc.graph()
local h = g:node("valley", "terrain.import"):param("file", "maps/h.png"):param("range", {0, 1000})
  :param("size", {480, 360}):param("origin", {100, -50}):param("resolution", 4)
  :param("channels", {["mask.wet"] = "maps/wet.png", sediment = "maps/wet.png"})
local f = g:node("detail", "terrain.fbm"):input("raster", h):param("amplitude", 6):param("featureSize", 30):param("octaves", 5):param("seed", 3)
local m = g:node("high", "terrain.mask"):input("raster", f):param("input", "height"):param("min", 450):param("feather", 40):param("jitter", 25)
m = g:node("steep", "terrain.mask"):input("raster", m):param("input", "slope"):param("min", 30):param("feather", 6):param("gradientStep", 6)
m = g:node("gully", "terrain.mask"):input("raster", m):param("input", "curvature"):param("min", 0.002):param("feather", 0.002)
m = g:node("patches", "terrain.mask"):input("raster", m):param("input", "noise"):param("min", 0.55):param("feather", 0.05)
  :param("featureSize", 50):param("octaves", 3):param("seed", 77)
m = g:node("damp", "terrain.mask"):input("raster", m):param("input", "mask"):param("channel", "wet"):param("min", 0.6):param("feather", 0.1)
m = g:node("silt", "terrain.mask"):input("raster", m):param("input", "channel"):param("channel", "sediment"):param("max", 0.3):param("feather", 0.1):param("invert", true)
m = g:node("steep2", "terrain.mask"):input("raster", m):param("name", "steep"):param("input", "mask"):param("channel", "gully"):param("max", 0.5):param("combine", "multiply")
local st = g:node("ground", "terrain.stack"):input("raster", m):param("stack", "stacks/ground.yaml")
local sc = g:node("pines", "terrain.scatter"):input("raster", st):param("density", 0.01):param("seed", 4):param("scale", {0.8, 1.2})
  :param("mesh", "tree"):param("rules", {{input = "layer", layer = "meadow", min = 0.5, feather = 0.1}, {input = "slope", max = 25, softness = 5}})
local hole = g:node("pit", "terrain.mask"):input("raster", sc):param("input", "height"):param("max", 150)
g:node("write", "terrain.write"):input("raster", hole):param("name", "every")
  :param("layers", {"meadow", {name = "scree", tint = "#777068", tiling = 6, albedo = "textures.scree", normal = "textures.scree_n"},
                    {name = "high", albedo = "textures.snow"}, "steep", "gully", "patches", "damp", "silt"})
  :param("channels", {"mask.wet", "mask.high"}):param("holes", "pit"):param("atlasSize", {256, 128})
`

func everyNodeFiles(t *testing.T) map[string][]byte {
	return map[string][]byte{
		"maps/h.png": heightPNG(t, 96, 72), "maps/wet.png": maskPNG(t, 96, 72),
		"stacks/ground.yaml": []byte(everyNodeStack),
		"textures/scree.tga": tgaBytes(4, 4), "textures/scree_n.png": pngBytes(t, 4, 4), "textures/snow.exr": exrBytes(t, 4, 4),
	}
}

// One graph with every node type and every mask input writes a container that validates and
// holds what each node asked for.
func TestEveryNodeType(t *testing.T) {
	r := mustRun(t, everyNodeScript, everyNodeFiles(t), nil)
	if len(r.warnings) != 0 {
		t.Errorf("warnings: %q", r.warnings)
	}
	l := openValid(t, r.res.Written[0])
	f := l.Field
	if f.Height.W != 120 || f.Height.H != 90 || f.Origin != [2]float64{100, -50} || f.Size != [2]float64{480, 360} {
		t.Fatalf("field %dx%d at %v over %v", f.Height.W, f.Height.H, f.Origin, f.Size)
	}
	if len(f.Channels) != 2 || f.Channels["mask.wet"] == nil || f.Channels["mask.high"] == nil {
		t.Errorf("channels kept: %v", f.Channels)
	}
	if len(l.Baked.Layers) != 8 || l.Baked.Layers[1].Tint != "#777068" || l.Baked.Layers[1].Tiling != 6 || l.Baked.Layers[0].Tint != "" {
		t.Errorf("layer table %+v", l.Baked.Layers)
	}
	if a := l.Baked.Atlas; a == nil || a.Albedo == "" || a.Normal == "" || a.Mask != "" || a.Size != [2]int{256, 128} {
		t.Errorf("atlas %+v", a)
	}
	holes := 0
	for _, h := range l.Holes {
		if h {
			holes++
		}
	}
	if holes == 0 || holes == len(l.Holes) {
		t.Errorf("%d holes of %d texels", holes, len(l.Holes))
	}
	if len(l.Scatter) != 2 || l.Scatter[0].Name != "boulders" || l.Scatter[1].Name != "pines" || l.Scatter[1].Count == 0 {
		t.Errorf("scatter %+v", l.Scatter)
	}
	// Every layer shows somewhere, and every texel sums to 255.
	seen := make([]int, 8)
	for j := 0; j < l.Weights.H; j++ {
		for i := 0; i < l.Weights.W; i++ {
			q, sum := l.Weights.Texel(i, j), 0
			for k, b := range q {
				sum += int(b)
				if b > 0 {
					seen[k]++
				}
			}
			if sum != 255 {
				t.Fatalf("texel (%d,%d) sums to %d", i, j, sum)
			}
		}
	}
	for k, n := range seen {
		if n == 0 {
			t.Errorf("layer %d (%s) covers nothing", k, l.Baked.Layers[k].Name)
		}
	}
	if len(l.Script.Assets) != 6 {
		t.Errorf("the container carries %d assets, want 6: %v", len(l.Script.Assets), l.Script.Assets)
	}
}

// The graph evaluates on the GPU kernels and on the Go reference alike: the written controls agree
// on ≥ 99.99% of bytes and by at most 1 (the bake's criterion), and the forests on all but 0.1%.
func TestGPUMatchesReference(t *testing.T) {
	files := everyNodeFiles(t)
	cpu := mustRun(t, everyNodeScript, files, nil)
	gpu := mustRun(t, everyNodeScript, files, func(o *Options) { o.CPU = false })
	if gpu.res.Backend == "" || gpu.res.Backend[:3] != "GPU" {
		t.Fatalf("GPU run used %q", gpu.res.Backend)
	}
	a, b := openValid(t, cpu.res.Written[0]), openValid(t, gpu.res.Written[0])
	eq, worst := bake.CompareWeights(a.Weights, b.Weights)
	t.Logf("GPU %s: %.4f%% of control bytes equal, worst %d", gpu.res.Backend, 100*eq, worst)
	if eq < 0.9999 || worst > 1 {
		t.Errorf("%.4f%% of control bytes equal, worst %d; want ≥ 99.99%%, ≤ 1", 100*eq, worst)
	}
	for p := range a.Scatter {
		ca, cb := a.Scatter[p].Count, b.Scatter[p].Count
		if d := math.Abs(float64(ca - cb)); d > float64(ca)/1000+1 {
			t.Errorf("population %s: %d instances on the Go reference, %d on the GPU", a.Scatter[p].Name, ca, cb)
		}
	}
}

func grid(v ...float32) *field.Grid { return &field.Grid{W: len(v), H: 1, Data: v} }

// Normalize: masks divided by their sum (however small it is, down to MinMaskSum), the exact-255
// quantization, the first layer where every mask is zero (or their sum is below MinMaskSum).
func TestNormalize(t *testing.T) {
	w, err := Normalize([]*field.Grid{grid(0.5, 0.2, 0, 1, 0.3, float32(math.NaN()), 0, 1e-3, 1e-6),
		grid(0.5, 0.2, 0, 0, 0.6, 0.4, 0.5/65536, 0, 1e-6), grid(0, 0.2, 0, 1.5, 0.3, 0, 0.5/65536, 1e-3, 1e-6)})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][3]uint8{{128, 127, 0}, {85, 85, 85}, {255, 0, 0}, {128, 0, 127}, {64, 127, 64}, {0, 255, 0},
		{0, 128, 127}, {128, 0, 127}, {255, 0, 0}} {
		q := w.Texel(i, 0)
		if [3]uint8{q[0], q[1], q[2]} != want {
			t.Errorf("texel %d = %v, want %v", i, q[:3], want)
		}
	}
	if _, err := Normalize(nil); err == nil {
		t.Error("no masks: no error")
	}
	if _, err := Normalize([]*field.Grid{grid(1), grid(1, 1)}); err == nil {
		t.Error("masks of two sizes: no error")
	}
	if _, err := Normalize(make([]*field.Grid, stack.MaxLayers+1)); err == nil {
		t.Error("nine masks: no error")
	}
}

// terrain.fbm is the textbook fbm over terrain_fbm: amplitude · Σ 0.5^k · n_k, i.e.
// amplitude · norm · (2·FBM − 1), added to the height below.
func TestFBMHeights(t *testing.T) {
	r := mustRun(t, `
local g = proc.graph()
local s = g:node("s", "terrain.source"):param("size", {40, 20}):param("resolution", 2):param("height", 7)
local f = g:node("f", "terrain.fbm"):input("raster", s):param("amplitude", 3):param("featureSize", 16):param("octaves", 3):param("seed", 9)
local m = g:node("m", "terrain.mask"):input("raster", f)
g:node("w", "terrain.write"):input("raster", m):param("name", "x"):param("layers", {"m"})
`, nil, nil)
	l := openValid(t, r.res.Written[0])
	geo, _ := l.Field.Geometry(0)
	for j := 0; j < 10; j++ {
		for i := 0; i < 20; i++ {
			x, z := geo.WeightPos(i, j)
			want := 7 + float32(3*1.75)*(2*noise.FBM(x, z, 16, 3, 9)-1)
			if got := l.Field.Height.At(i, j); got != want {
				t.Fatalf("(%d,%d) height %v, want %v", i, j, got, want)
			}
		}
	}
}

// A lent device (the editor's) is used and left open: the run frees only what it made on it.
func TestLentDevice(t *testing.T) {
	dev, err := gpu.Open(t.Context(), gpu.Options{Label: "procgen test"})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Release()
	script := src + "local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", s):param(\"input\", \"slope\"):param(\"max\", 1)\n" +
		"g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"x\"):param(\"layers\", {\"m\"})\n"
	for range 2 {
		r := mustRun(t, script, nil, func(o *Options) { o.CPU, o.Device = false, dev })
		if !strings.HasPrefix(r.res.Backend, "GPU") {
			t.Fatalf("backend %q", r.res.Backend)
		}
	}
}
