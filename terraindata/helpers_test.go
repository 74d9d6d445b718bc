package terraindata

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// testGrid is a small sloped height grid with an optional hole.
func testGrid(w, h int, holes bool) *HeightGrid {
	g := &HeightGrid{W: w, H: h, Heights: make([]float32, w*h), TexelX: 2, TexelZ: 4}
	for z := 0; z < h; z++ {
		for x := 0; x < w; x++ {
			g.Heights[z*w+x] = float32(3*x) - float32(z*z)*0.5 + 10
		}
	}
	if holes {
		g.Holes = make([]bool, w*h)
		g.Holes[w+1] = true
		g.Heights[w+1] = -1000 // below everything: must not count in heightRange
	}
	return g
}

// controlImage returns an rgba8 weight texture whose bytes sum to 255 per texel.
func controlImage(w, h, seed int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		a := uint8((i*7 + seed) % 200)
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = a, 255-a, 0, 0
	}
	return img
}

// fixtureControl is control texture i of a fixture with n layers: controlImage's split between
// the first two layers (all in R for a single layer), nothing in later textures, so every texel's
// weights sum to 255 as validation requires.
func fixtureControl(w, h, i, n int) *image.NRGBA {
	img := controlImage(w, h, i)
	if i > 0 {
		return image.NewNRGBA(img.Rect)
	}
	if n == 1 {
		for k := 0; k < len(img.Pix); k += 4 {
			img.Pix[k], img.Pix[k+1] = 255, 0
		}
	}
	return img
}

func writePNG(t *testing.T, p string, w, h int, c color.NRGBA) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = c.R, c.G, c.B, c.A
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// fixture describes a landscape the tests save.
type fixture struct {
	w, h     int
	holes    bool
	layers   []Layer
	textures bool // give layers source maps
	shift    float32
}

// saveFixture writes a complete, valid container at path the way the bake will.
func saveFixture(t *testing.T, path string, fx fixture) *Container {
	t.Helper()
	src := t.TempDir()
	layers := fx.layers
	if layers == nil {
		layers = []Layer{{Name: "sand", Tiling: 12}, {Name: "rock", Tiling: 8}, {Name: "grass"}, {Name: "snow"}, {Name: "mud"}}
	}
	if fx.textures {
		writePNG(t, filepath.Join(src, "sand.png"), 8, 8, color.NRGBA{200, 180, 120, 255})
		writePNG(t, filepath.Join(src, "rock_n.png"), 5, 3, color.NRGBA{10, 20, 250, 255})
		layers[0].Albedo = "sand.png"
		layers[1].Normal = "rock_n.png"
	}
	c, err := saveFixtureFrom(path, fx, src, layers)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// saveFixtureFrom is saveFixture without a *testing.T, for the subprocess of the kill test.
func saveFixtureFrom(path string, fx fixture, src string, layers []Layer) (*Container, error) {
	if layers == nil {
		layers = []Layer{{Name: "ground"}}
	}
	c := New()
	err := Save(path, c, func(dir string) error {
		g := testGrid(fx.w, fx.h, fx.holes)
		for i := range g.Heights {
			g.Heights[i] += fx.shift
		}
		if _, err := WriteHeight(filepath.Join(dir, "height.texture"), g); err != nil {
			return err
		}
		c.SetChild("height", "height.texture")
		if ok, err := WriteHoles(filepath.Join(dir, "holes.texture"), g); err != nil {
			return err
		} else if ok {
			c.SetChild("holes", "holes.texture")
		}
		for i := 0; i*4 < len(layers); i++ {
			name := "control" + string(rune('0'+i)) + ".texture"
			img := fixtureControl(fx.w, fx.h, i, len(layers))
			if _, err := WriteTextureRGBA8(filepath.Join(dir, name), img, Linear); err != nil {
				return err
			}
			c.SetChild("control"+string(rune('0'+i)), name)
		}
		a, err := PackAtlas(dir, layers, src, [2]int{16, 8})
		if err != nil {
			return err
		}
		c.SetAtlas(a)
		c.SetLayers(layers)
		mask := make([]float32, fx.w*fx.h)
		for i := range mask {
			mask[i] = float32(i) / float32(len(mask))
		}
		if _, err := WriteTextureFloatPixels(filepath.Join(dir, "mask_snow.texture"), R32F, fx.w, fx.h, mask); err != nil {
			return err
		}
		c.SetChild("channels.mask.snow", "mask_snow.texture")
		if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte("version: 1\nlayers: [{name: sand}]\n"), 0o644); err != nil {
			return err
		}
		c.SetChild("stack", "stack.yaml")
		r := g.Range()
		c.SetPlacement(Placement{Size: [2]float64{float64(fx.w) * 2, float64(fx.h) * 4}, Origin: [2]float64{0, 0}, HeightRange: r})
		return nil
	})
	return c, err
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) <= 1e-5*(1+math.Abs(float64(b))) }
