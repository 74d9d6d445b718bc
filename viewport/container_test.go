package viewport

import (
	"image"
	"image/color"
	"path/filepath"
	"testing"

	"strata/terraindata"
)

// writeTestContainer saves a small landscape built from scene s (heights, the first control,
// layer names and tints) with a square hole, and returns its path.
func writeTestContainer(t *testing.T, s *Scene, hole image.Rectangle) string {
	t.Helper()
	n := s.Height.W
	g := &terraindata.HeightGrid{W: n, H: s.Height.H, Heights: make([]float32, n*s.Height.H),
		TexelX: s.Placement.Size[0] / float64(n), TexelZ: s.Placement.Size[1] / float64(s.Height.H)}
	for i := range g.Heights {
		g.Heights[i] = s.Height.Data[4*i]
	}
	if !hole.Empty() {
		g.Holes = make([]bool, len(g.Heights))
		for j := hole.Min.Y; j < hole.Max.Y; j++ {
			for i := hole.Min.X; i < hole.Max.X; i++ {
				g.Holes[j*n+i] = true
			}
		}
	}
	ctrl := image.NewNRGBA(s.Controls[0].Bounds())
	copy(ctrl.Pix, toRGBA(s.Controls[0]).Pix)
	path := filepath.Join(t.TempDir(), "test.terrainData")
	c := terraindata.New()
	c.SetPlacement(terraindata.Placement{Size: s.Placement.Size, Origin: s.Placement.Origin, HeightRange: g.Range()})
	var layers []terraindata.Layer
	for _, l := range s.Layers {
		layers = append(layers, terraindata.Layer{Name: l.Name, Tiling: l.Tiling,
			Tint: "#" + hex2(l.Tint.R) + hex2(l.Tint.G) + hex2(l.Tint.B)})
	}
	c.SetLayers(layers)
	err := terraindata.Save(path, c, func(dir string) error {
		if _, err := terraindata.WriteHeight(filepath.Join(dir, "height.texture"), g); err != nil {
			return err
		}
		if err := c.SetChild("height", "height.texture"); err != nil {
			return err
		}
		if ok, err := terraindata.WriteHoles(filepath.Join(dir, "holes.texture"), g); err != nil {
			return err
		} else if ok {
			if err := c.SetChild("holes", "holes.texture"); err != nil {
				return err
			}
		}
		if _, err := terraindata.WriteTextureRGBA8(filepath.Join(dir, "control0.texture"), ctrl, terraindata.Linear); err != nil {
			return err
		}
		return c.SetChild("control0", "control0.texture")
	})
	if err != nil {
		t.Fatalf("save test container: %v", err)
	}
	return path
}

func hex2(v uint8) string {
	const d = "0123456789abcdef"
	return string([]byte{d[v>>4], d[v&15]})
}

func TestSceneFromContainer(t *testing.T) {
	src := dunesScene(64, 256)
	// Make layer 3's weight (alpha) zero somewhere: straight bytes must survive, not be
	// premultiplied into the RGB weights.
	ctrl := src.Controls[0].(*image.RGBA)
	ctrl.Pix[3] = 0
	path := writeTestContainer(t, src, image.Rect(10, 10, 14, 14))
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SceneFromContainer(c)
	if err != nil {
		t.Fatalf("SceneFromContainer: %v", err)
	}
	if s.Height.W != 64 || s.Height.H != 64 || s.Placement.Size != src.Placement.Size {
		t.Fatalf("height %dx%d size %v", s.Height.W, s.Height.H, s.Placement.Size)
	}
	for i := 0; i < 64*64; i++ {
		if s.Height.Data[4*i] != src.Height.Data[4*i] {
			t.Fatalf("height texel %d = %g, wrote %g", i, s.Height.Data[4*i], src.Height.Data[4*i])
		}
	}
	if _, _, _, cov := s.Height.At(11, 12); cov != 0 {
		t.Errorf("hole texel coverage %g, want 0", cov)
	}
	if _, _, _, cov := s.Height.At(20, 20); cov != 1 {
		t.Errorf("ground texel coverage %g, want 1", cov)
	}
	got := toRGBA(s.Controls[0])
	for i := range ctrl.Pix {
		if got.Pix[i] != ctrl.Pix[i] {
			t.Fatalf("control byte %d = %d, wrote %d", i, got.Pix[i], ctrl.Pix[i])
		}
	}
	if len(s.Layers) != 2 || s.Layers[1].Name != "rock" || s.Layers[1].Tint != (color.RGBA{0x7a, 0x6e, 0x64, 255}) {
		t.Errorf("layers %+v", s.Layers)
	}
	if s.Controls[1] != nil || s.Atlas != nil {
		t.Errorf("control 1 %v, atlas %v: want none", s.Controls[1], s.Atlas)
	}
}
