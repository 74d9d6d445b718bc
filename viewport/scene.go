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
	// Counter, with Pool, is the pool's instance count on the device (a u32 at offset 0, CopySrc
	// usage: gpu.ScatterKernel.Counter), borrowed as Pool is: a frame copies it into its indirect
	// draw's arguments before its render pass, so it draws the instances the newest placement
	// left whether or not the host has read their count. Count is then the host's count (which
	// may be a placement late): what a draft's every-n-th instance and the frame's figures use.
	Counter *wgpu.Buffer
}

// Scene is everything the viewport draws, independent of files: the container's payloads in
// memory plus the scatter pools.
type Scene struct {
	Placement   Placement
	HeightRange [2]float64 // lowest and highest metres the field reaches
	// Height is the height payload in memory; Ground, when set, is read instead (a field too
	// large to copy: the renderer reads the pages a frame needs from it).
	Height HeightField
	Ground HeightSource
	// Tree, when set, is the ground's level-of-detail tree, built over the same heights before
	// the scene (TreeBuilder, while a heightmap was read); nil: SetScene builds it. A tree is
	// given to one scene only: the renderer updates it in place.
	Tree *Tree
	// Controls are the two stored weight textures (layers 0–3 in RGBA of [0], 4–7 in [1]); they
	// may have another size than the height grid, and the renderer fills the weights pyramid's
	// pages from them. A nil control means "no weight" for its layers, and with both nil (and no
	// pages written: WeightsSlot, PutWeights) layer 0 covers everything. A tightly packed RGBA or
	// NRGBA control is kept as it is, not copied (two 8K controls are 512 MiB): the caller leaves
	// it unchanged while the scene is shown, and UpdateControlsRect writes into it.
	Controls [2]image.Image
	// WeightsGrid is the weights grid's size when there are no Controls (an evaluator writes its
	// pages); zero means the height grid.
	WeightsGrid [2]int
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
	if s.Ground != nil {
		if w, h := s.Ground.GridSize(); w < 2 || h < 2 {
			return fmt.Errorf("viewport: scene: height grid %dx%d must be at least 2x2", w, h)
		}
	} else {
		h := &s.Height
		if h.W < 2 || h.H < 2 {
			return fmt.Errorf("viewport: scene: height grid %dx%d must be at least 2x2", h.W, h.H)
		}
		if len(h.Data) != 4*h.W*h.H {
			return fmt.Errorf("viewport: scene: height data has %d floats, want 4·%d·%d = %d", len(h.Data), h.W, h.H, 4*h.W*h.H)
		}
	}
	if s.Tree != nil {
		tw, th := s.Tree.GridSize()
		if w, h := s.ground().GridSize(); tw != w || th != h {
			return fmt.Errorf("viewport: scene: the tree was built over %dx%d heights, the ground is %dx%d", tw, th, w, h)
		}
	}
	if g := s.WeightsGrid; g != [2]int{} && (g[0] < 1 || g[1] < 1) {
		return fmt.Errorf("viewport: scene: weights grid %v must be positive", g)
	}
	if len(s.Layers) > 8 {
		return fmt.Errorf("viewport: scene: %d layers, at most 8", len(s.Layers))
	}
	for i, c := range s.Controls {
		if c != nil && c.Bounds().Empty() {
			return fmt.Errorf("viewport: scene: control %d is empty", i)
		}
	}
	return validatePopulations(s.Populations)
}

// validatePopulations reports what would make a scene's populations undrawable.
func validatePopulations(pops []Population) error {
	for i, p := range pops {
		switch p.Mesh {
		case MeshTree, MeshRock, MeshBush:
		default:
			return fmt.Errorf("viewport: scene: population %d (%s): unknown mesh %q (tree, rock, bush)", i, p.Name, p.Mesh)
		}
		if p.Count < 0 {
			return fmt.Errorf("viewport: scene: population %d (%s): negative count %d", i, p.Name, p.Count)
		}
		if p.Counter != nil && (p.Pool == nil || p.Counter.GetSize() < 4) {
			return fmt.Errorf("viewport: scene: population %d (%s): a counter needs a pool and 4 bytes", i, p.Name)
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

// ground is the scene's height source: Ground, or the in-memory Height.
func (s *Scene) ground() HeightSource {
	if s.Ground != nil {
		return s.Ground
	}
	return &s.Height
}

// texel returns the field's texel size in metres along X and Z.
func (s *Scene) texel() [2]float64 {
	w, h := s.ground().GridSize()
	return [2]float64{s.Placement.Size[0] / float64(w), s.Placement.Size[1] / float64(h)}
}

// heightBounds returns HeightRange, or (when it is empty) the range of the LOD tree built over
// the ground.
func (s *Scene) heightBounds(t *lodTree) (lo, hi float64) {
	lo, hi = s.HeightRange[0], s.HeightRange[1]
	if hi > lo || t == nil || !(t.minH[0][0] <= t.maxH[0][0]) {
		return lo, hi
	}
	return float64(t.minH[0][0]), float64(t.maxH[0][0])
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
