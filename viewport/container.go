package viewport

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"strata/terraindata"
)

// defaultTints colour layers that declare neither a tint nor an albedo, so each still reads as a
// distinct surface: sand, rock, grass, snow, soil, moss, gravel, clay.
var defaultTints = []color.RGBA{
	{0xd8, 0xc0, 0x8a, 255}, {0x7a, 0x6e, 0x64, 255}, {0x4a, 0x7a, 0x2e, 255}, {0xf2, 0xf4, 0xf8, 255},
	{0x6b, 0x4f, 0x36, 255}, {0x3f, 0x5a, 0x2a, 255}, {0x9a, 0x96, 0x8c, 255}, {0xb0, 0x6a, 0x45, 255},
}

// SceneFromContainer reads a landscape's payloads into a Scene: height (holes folded into the
// coverage), the two control textures, the layer table and the atlas. Populations are left
// empty: their instances come from the scatter kernel, which the caller runs and hands over as
// pool buffers.
func SceneFromContainer(c *terraindata.Container) (*Scene, error) {
	if c == nil {
		return nil, fmt.Errorf("viewport: scene from container: nil container")
	}
	p := c.Placement()
	s := &Scene{
		Placement:   Placement{Size: p.Size, Origin: p.Origin},
		HeightRange: p.HeightRange,
	}
	hr := c.Height()
	if hr == nil {
		return nil, fmt.Errorf("viewport: %s: manifest names no height child", c.Path())
	}
	ht, err := hr.Read()
	if err != nil {
		return nil, fmt.Errorf("viewport: height: %w", err)
	}
	if ht.Format != terraindata.RGBA32F {
		return nil, fmt.Errorf("viewport: %s: height is %s, want rgba32f", hr.Dir, ht.Format)
	}
	s.Height = HeightField{W: ht.Width, H: ht.Height, Data: ht.Float}
	if holes := c.Holes(); holes != nil {
		t, err := holes.Read()
		if err != nil {
			return nil, fmt.Errorf("viewport: holes: %w", err)
		}
		if t.RGBA8 == nil || t.Width != ht.Width || t.Height != ht.Height {
			return nil, fmt.Errorf("viewport: %s: holes %dx%d %s do not match the %dx%d height", holes.Dir, t.Width, t.Height, t.Format, ht.Width, ht.Height)
		}
		for j := 0; j < t.Height; j++ {
			for i := 0; i < t.Width; i++ {
				if t.RGBA8.Pix[t.RGBA8.PixOffset(i, j)] == 0 {
					s.Height.Data[4*(j*t.Width+i)+3] = 0
				}
			}
		}
	}
	for i, ref := range c.Controls() {
		if i >= 2 || ref == nil {
			continue
		}
		t, err := ref.Read()
		if err != nil {
			return nil, fmt.Errorf("viewport: control %d: %w", i, err)
		}
		if t.RGBA8 == nil {
			return nil, fmt.Errorf("viewport: %s: control %d is %s, want rgba8", ref.Dir, i, t.Format)
		}
		s.Controls[i] = t.RGBA8
	}
	if s.Layers, s.Atlas, err = SurfacesFromContainer(c); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%w (container %s)", err, c.Path())
	}
	return s, nil
}

// SurfacesFromContainer reads a landscape's surface table and atlas as the viewport draws them:
// each layer's tint (its own, white under a texture, else a default colour) and the atlas sheets.
// A world's cells share them, so a world's scene takes them from one cell.
func SurfacesFromContainer(c *terraindata.Container) (layers []Layer, atlas *Atlas, err error) {
	for i, l := range c.Layers() {
		if i >= 8 {
			break
		}
		vl := Layer{Name: l.Name, Tiling: l.Tiling, Textured: l.Albedo != ""}
		switch {
		case l.Tint != "":
			tint, err := parseHexColor(l.Tint)
			if err != nil {
				return nil, nil, fmt.Errorf("viewport: layer %d (%s): tint: %w", i, l.Name, err)
			}
			vl.Tint = tint
		case vl.Textured:
			vl.Tint = color.RGBA{255, 255, 255, 255}
		default:
			vl.Tint = defaultTints[i%len(defaultTints)]
		}
		layers = append(layers, vl)
	}
	if a := c.Atlas(); a != nil {
		atlas = &Atlas{}
		if a.Albedo != nil {
			t, err := a.Albedo.Read()
			if err != nil {
				return nil, nil, fmt.Errorf("viewport: atlas albedo: %w", err)
			}
			if t.RGBA8 != nil {
				atlas.Albedo = t.RGBA8
			}
		}
		if a.Normal != nil {
			t, err := a.Normal.Read()
			if err != nil {
				return nil, nil, fmt.Errorf("viewport: atlas normal: %w", err)
			}
			if t.RGBA8 != nil {
				atlas.Normal = t.RGBA8
			}
		}
		if atlas.Albedo == nil && atlas.Normal == nil {
			atlas = nil
		}
	}
	return layers, atlas, nil
}

// parseHexColor reads "#rrggbb" (or "rrggbb").
func parseHexColor(s string) (color.RGBA, error) {
	h := strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(h) != 6 {
		return color.RGBA{}, fmt.Errorf("%q is not #rrggbb", s)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return color.RGBA{}, fmt.Errorf("%q is not #rrggbb", s)
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, nil
}
