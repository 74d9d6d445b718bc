package viewport

import (
	"fmt"
	"image"
	"image/color"

	"github.com/cogentcore/webgpu/wgpu"
)

// Placement says where the field stands in the world: Size metres along X and Z, centred on
// Origin. It mirrors the container's placement so the viewport does not need to read files.
type Placement struct {
	Size   [2]float64 // metres along world X and Z
	Origin [2]float64 // world X, Z of the field's centre
}

// Min is the field's minimum corner (world X, Z).
func (p Placement) Min() [2]float64 {
	return [2]float64{p.Origin[0] - p.Size[0]/2, p.Origin[1] - p.Size[1]/2}
}

// HeightField is the container's height payload in memory: W×H texels of rgba32f, row 0 at the
// field's minimum Z — R height in metres, G dh/dx, B dh/dz, A coverage (0 = a hole).
// Samples are cell-centred: texel (i, j) stands at min + ((i+0.5)·size.X/W, (j+0.5)·size.Z/H).
type HeightField struct {
	W, H int
	Data []float32 // 4·W·H floats
}

// At returns texel (i, j) clamped to the grid: height, gradient X, gradient Z, coverage.
func (h *HeightField) At(i, j int) (hgt, gx, gz, cov float32) {
	i = clampInt(i, 0, h.W-1)
	j = clampInt(j, 0, h.H-1)
	o := 4 * (j*h.W + i)
	return h.Data[o], h.Data[o+1], h.Data[o+2], h.Data[o+3]
}

// Layer is one surface of the stack as the viewport draws it.
type Layer struct {
	Name string
	// Tint is the layer's colour (sRGB). When Textured is set and the scene has an atlas, the
	// atlas albedo cell is multiplied by it, so leave it white for an untinted texture.
	Tint color.RGBA
	// Tiling is how many metres one repeat of the layer's atlas cell covers (default 8).
	Tiling float64
	// Textured says the layer's atlas cells hold its own maps (the container's layer declares an
	// albedo); otherwise the layer is drawn in its tint alone.
	Textured bool
}

// Atlas holds the layers' maps packed 4 cells across and 2 down, layer n at cell (n%4, n/4)
// (0-based). Either image may be nil.
type Atlas struct {
	Albedo image.Image // sRGB colour
	Normal image.Image // tangent-space normal, X along world +X, Y along world +Z, 0.5 = 0
}

// Mesh names a built-in instance mesh.
type Mesh string

// Built-in instance meshes, generated in code.
const (
	MeshTree Mesh = "tree"
	MeshRock Mesh = "rock"
	MeshBush Mesh = "bush"
)

// Population is one scattered set of instances. Pool, when given, is the scatter kernel's own
// GPU buffer (array<mat4x4<f32>>, column-major, tightly packed, Storage usage) and is drawn
// straight from the GPU; the viewport borrows it and never releases it. Otherwise Matrices
// (16 floats per instance) are uploaded.
type Population struct {
	Name     string
	Mesh     Mesh
	Pool     *wgpu.Buffer
	Matrices []float32
	Count    int // instances to draw (at most the pool's capacity)
}

// Scene is everything the viewport draws, independent of files: the container's payloads in
// memory plus the scatter pools.
type Scene struct {
	Placement   Placement
	HeightRange [2]float64 // lowest and highest metres the field reaches
	Height      HeightField
	// Controls are the two weight textures (layers 0–3 in RGBA of [0], 4–7 in [1]); they may
	// have another size than the height grid. A nil control means "no weight" for its layers,
	// and with both nil layer 0 covers everything.
	Controls    [2]image.Image
	Layers      []Layer
	Atlas       *Atlas
	Populations []Population
}

// Validate reports what would make the scene undrawable, with the field that says so.
func (s *Scene) Validate() error {
	if s == nil {
		return fmt.Errorf("viewport: scene: nil")
	}
	if !(s.Placement.Size[0] > 0 && s.Placement.Size[1] > 0) {
		return fmt.Errorf("viewport: scene: placement size %v must be positive", s.Placement.Size)
	}
	h := s.Height
	if h.W < 2 || h.H < 2 {
		return fmt.Errorf("viewport: scene: height grid %dx%d must be at least 2x2", h.W, h.H)
	}
	if len(h.Data) != 4*h.W*h.H {
		return fmt.Errorf("viewport: scene: height data has %d floats, want 4·%d·%d = %d", len(h.Data), h.W, h.H, 4*h.W*h.H)
	}
	if len(s.Layers) > 8 {
		return fmt.Errorf("viewport: scene: %d layers, at most 8", len(s.Layers))
	}
	for i, c := range s.Controls {
		if c != nil && c.Bounds().Empty() {
			return fmt.Errorf("viewport: scene: control %d is empty", i)
		}
	}
	for i, p := range s.Populations {
		switch p.Mesh {
		case MeshTree, MeshRock, MeshBush:
		default:
			return fmt.Errorf("viewport: scene: population %d (%s): unknown mesh %q (tree, rock, bush)", i, p.Name, p.Mesh)
		}
		if p.Count < 0 {
			return fmt.Errorf("viewport: scene: population %d (%s): negative count %d", i, p.Name, p.Count)
		}
		if p.Pool == nil && len(p.Matrices) < 16*p.Count {
			return fmt.Errorf("viewport: scene: population %d (%s): %d matrix floats for %d instances", i, p.Name, len(p.Matrices), p.Count)
		}
		if p.Pool != nil && p.Pool.GetSize() < uint64(64*p.Count) {
			return fmt.Errorf("viewport: scene: population %d (%s): pool holds %d bytes, %d instances need %d", i, p.Name, p.Pool.GetSize(), p.Count, 64*p.Count)
		}
	}
	return nil
}

// texel returns the field's texel size in metres along X and Z.
func (s *Scene) texel() [2]float64 {
	return [2]float64{s.Placement.Size[0] / float64(s.Height.W), s.Placement.Size[1] / float64(s.Height.H)}
}

// heightBounds returns the lowest and highest height in the data, falling back to HeightRange
// when the data is flat or empty.
func (s *Scene) heightBounds() (lo, hi float64) {
	lo, hi = s.HeightRange[0], s.HeightRange[1]
	if hi > lo {
		return lo, hi
	}
	d := s.Height.Data
	if len(d) < 4 {
		return 0, 0
	}
	lo, hi = float64(d[0]), float64(d[0])
	for o := 0; o < len(d); o += 4 {
		v := float64(d[o])
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
