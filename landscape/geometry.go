package landscape

import (
	"fmt"

	"strata/field"
	"strata/internal/sysmem"
	"strata/stack"
)

// Geometry is the float32 placement of one bake: the field's (height and weights grids) and the
// stack's view of the same numbers for its params lanes. Both come from field.NewGeometry, the one
// place those numbers are rounded, so the reference, the tile aprons and the kernel agree.
type Geometry struct {
	Field field.Geometry
	Stack stack.Geometry
}

// NewGeometry places stack s over field f with a weights grid of the given resolution (metres per
// weights texel; 0 = the height grid).
func NewGeometry(s *stack.Stack, f *field.Field, resolution float64) (Geometry, error) {
	if f == nil || f.Height == nil {
		return Geometry{}, fmt.Errorf("bake: no height field")
	}
	fg, err := f.Geometry(resolution)
	if err != nil {
		return Geometry{}, fmt.Errorf("bake: %w", err)
	}
	return geometryOf(s, fg, f.TexelSize())
}

// geometryOf places stack s over the field geometry fg whose height texels are hTexel metres.
func geometryOf(s *stack.Stack, fg field.Geometry, hTexel [2]float64) (Geometry, error) {
	step := s.GradientStepFor(hTexel)
	if !(step > 0) {
		return Geometry{}, fmt.Errorf("bake: gradientStep %v must be > 0", step)
	}
	return Geometry{
		Field: fg,
		Stack: stack.Geometry{
			FieldMin:     fg.FieldMin,
			InvHTexel:    fg.InvHTexel,
			WTexel:       fg.WTexel,
			GradientStep: float32(step),
			Stride:       uint32(fg.StrideOrOne()),
		},
	}, nil
}

// WorldGeometry places stack s over a field of placement p with a heightW×heightH height grid and
// a weights grid of the given resolution (0 = the height grid): the numbers NewGeometry gives a
// field of that placement and grid, for grids up to field.MaxWorldSide a side.
func WorldGeometry(s *stack.Stack, p field.Placement, heightW, heightH int, resolution float64) (Geometry, error) {
	ww, wh, err := field.WorldWeightsGrid(p, heightW, heightH, resolution)
	if err != nil {
		return Geometry{}, fmt.Errorf("bake: %w", err)
	}
	fg, err := field.WorldGeometry(p, heightW, heightH, ww, wh)
	if err != nil {
		return Geometry{}, fmt.Errorf("bake: %w", err)
	}
	return geometryOf(s, fg, [2]float64{p.Size[0] / float64(heightW), p.Size[1] / float64(heightH)})
}

// Tiles cuts the weights grid into tiles of tileSize texels (0 = field.DefaultTileSize) with
// aprons wide enough for the stack's gradientStep.
func (g *Geometry) Tiles(tileSize int) []field.Tile {
	return field.Tiles(&g.Field, tileSize, g.Stack.GradientStep)
}

// Weights is the evaluated stack: two RGBA8 images over the weights grid, layers 0–3 in Lo and
// 4–7 in Hi, row 0 at the field's minimum Z. The eight bytes of a texel sum to exactly 255.
type Weights struct {
	W, H   int
	Lo, Hi []byte // W*H*4 each

	// mem is the mapping Lo and Hi lie in for weights on disk (NewWeightsOn); nil on the heap.
	mem *sysmem.Mapping
}

// NewWeights allocates zeroed weights for a w×h grid.
func NewWeights(w, h int) *Weights {
	return &Weights{W: w, H: h, Lo: make([]byte, w*h*4), Hi: make([]byte, w*h*4)}
}

// Texel returns the eight layer bytes of texel (i, j).
func (w *Weights) Texel(i, j int) [8]uint8 {
	o := (j*w.W + i) * 4
	var q [8]uint8
	copy(q[:4], w.Lo[o:o+4])
	copy(q[4:], w.Hi[o:o+4])
	return q
}

// Layer returns layer k's weights (0..255) as a W*H slice.
func (w *Weights) Layer(k int) []byte {
	src, c := w.Lo, k
	if k >= 4 {
		src, c = w.Hi, k-4
	}
	out := make([]byte, w.W*w.H)
	for i := range out {
		out[i] = src[i*4+c]
	}
	return out
}

// Level is level k of the weights' pyramid (field.Geometry.Level, docs/design.md "Levels"): the
// texels (i·2^k, j·2^k), which are exactly what the stack evaluated on the level's own grid
// gives. A container's stored controls give every level of the pyramid this way, without the
// stack.
func (w *Weights) Level(k int) *Weights {
	if k <= 0 {
		return w
	}
	d := 1 << k
	out := NewWeights((w.W+d-1)/d, (w.H+d-1)/d)
	for j := 0; j < out.H; j++ {
		for i := 0; i < out.W; i++ {
			o, s := 4*(j*out.W+i), 4*(j*d*w.W+i*d)
			copy(out.Lo[o:o+4], w.Lo[s:s+4])
			copy(out.Hi[o:o+4], w.Hi[s:s+4])
		}
	}
	return out
}

// Level is level k of g's weights pyramid (field.Geometry.Level) with the stack's view of it.
func (g *Geometry) Level(k int) Geometry {
	out := *g
	out.Field = g.Field.Level(k)
	out.Stack.Stride = uint32(out.Field.StrideOrOne())
	return out
}
