package field

import (
	"fmt"
	"math"
)

// Geometry is the float32 placement of the height grid and the weights grid, computed once in
// NewGeometry. The reference evaluator, the tile apron and the GPU params (head lanes 0–1 of
// docs/params.md) all take these exact numbers from here, so the Go and WGSL twins multiply by
// the same bits and no second place can round them differently.
type Geometry struct {
	Placement Placement
	// HeightW, HeightH: the height grid (and every channel).
	HeightW, HeightH int
	// WeightsW, WeightsH: the weights grid the kernel writes one thread per texel of.
	WeightsW, WeightsH int

	// FieldMin is the field's minimum corner (X, Z) in metres: params head 0 .xy.
	FieldMin [2]float32
	// InvHTexel is height texels per metre (1 / height texel size): params head 0 .zw.
	InvHTexel [2]float32
	// WTexel is the weights texel size in metres: params head 1 .xy.
	WTexel [2]float32
	// HTexel is the height texel size in metres (the default gradientStep comes from it).
	HTexel [2]float32
	// Stride is how many texels of the weights grid lie between two texels of this one: 1 (or 0)
	// for the weights grid itself, 2^k for level k of its pyramid (Level). Texel (i, j) of a level
	// stands where texel (i·Stride, j·Stride) of the weights grid stands and has its exact bytes:
	// positions are always computed from that full-resolution index (WeightPos). WTexel stays the
	// full grid's texel size.
	Stride int
}

// Levels is the number of levels of the weights grid's pyramid: level 0 is the grid itself and
// the last level is the first whose grid fits in one tile of tileSize texels.
func (g *Geometry) Levels(tileSize int) int {
	if tileSize <= 0 {
		tileSize = DefaultTileSize
	}
	n := 1
	for w, h := g.WeightsW, g.WeightsH; w > tileSize || h > tileSize; n++ {
		w, h = (w+1)/2, (h+1)/2
	}
	return n
}

// Level is level k of the weights grid's pyramid (docs/design.md "Levels"): a grid of
// ⌈W/2^k⌉ × ⌈H/2^k⌉ texels whose texel (i, j) is the weights grid's texel (i·2^k, j·2^k) — the
// same world position, so the stack evaluated there gives the same bytes a whole bake writes.
// Level 0 is g. A level of a level is a level of the weights grid (strides multiply).
func (g Geometry) Level(k int) Geometry {
	if k <= 0 {
		return g
	}
	d := 1 << k
	g.WeightsW = (g.WeightsW + d - 1) / d
	g.WeightsH = (g.WeightsH + d - 1) / d
	g.Stride = g.StrideOrOne() * d
	return g
}

// StrideOrOne is Stride with the zero value read as 1.
func (g *Geometry) StrideOrOne() int {
	if g.Stride < 1 {
		return 1
	}
	return g.Stride
}

// NewGeometry computes the float32 geometry of a placement with a heightW×heightH height grid and a
// weightsW×weightsH weights grid. Each number is computed in float64 from the placement and the
// integer sizes and rounded to float32 once: the inverse texel size is W/size, not 1/f32(size/W),
// so it is the float32 nearest the true value.
func NewGeometry(p Placement, heightW, heightH, weightsW, weightsH int) (Geometry, error) {
	return newGeometry(p, heightW, heightH, weightsW, weightsH, CheckSize)
}

// newGeometry is NewGeometry with the grid-size check given (a container's or a world's).
func newGeometry(p Placement, heightW, heightH, weightsW, weightsH int, checkSize func(w, h int) error) (Geometry, error) {
	if err := p.Validate(); err != nil {
		return Geometry{}, err
	}
	if err := checkSize(heightW, heightH); err != nil {
		return Geometry{}, fmt.Errorf("field: height grid: %w", err)
	}
	if err := checkSize(weightsW, weightsH); err != nil {
		return Geometry{}, fmt.Errorf("field: weights grid: %w", err)
	}
	mn := p.Min()
	g := Geometry{Placement: p, HeightW: heightW, HeightH: heightH, WeightsW: weightsW, WeightsH: weightsH}
	for k, n := range [2][2]int{{heightW, weightsW}, {heightH, weightsH}} {
		g.FieldMin[k] = float32(mn[k])
		g.InvHTexel[k] = float32(float64(n[0]) / p.Size[k])
		g.HTexel[k] = float32(p.Size[k] / float64(n[0]))
		g.WTexel[k] = float32(p.Size[k] / float64(n[1]))
		if math.IsInf(float64(g.FieldMin[k]), 0) || g.InvHTexel[k] == 0 || math.IsInf(float64(g.InvHTexel[k]), 0) ||
			g.WTexel[k] == 0 || math.IsInf(float64(g.WTexel[k]), 0) {
			return Geometry{}, fmt.Errorf("field: placement %+v with a %d×%d grid does not fit float32", p, heightW, heightH)
		}
	}
	return g, nil
}

// Geometry is NewGeometry for this field with the weights grid of the given resolution (metres
// per weights texel; 0 = the height grid).
func (f *Field) Geometry(resolution float64) (Geometry, error) {
	if f.Height == nil {
		return Geometry{}, fmt.Errorf("field: height grid is missing")
	}
	w, h, err := WeightsGrid(f.Placement, f.Height.W, f.Height.H, resolution)
	if err != nil {
		return Geometry{}, err
	}
	return NewGeometry(f.Placement, f.Height.W, f.Height.H, w, h)
}

// WeightsGrid is the size of the weights grid for a resolution in metres per texel:
// round(size / resolution) per axis (docs/design.md), at least 1. Resolution 0 means the height
// grid's own size, which is SPEC's default: controls then line up with the heightmap pixel for pixel.
func WeightsGrid(p Placement, heightW, heightH int, resolution float64) (w, h int, err error) {
	if resolution == 0 {
		return heightW, heightH, CheckSize(heightW, heightH)
	}
	if !(resolution > 0) || math.IsInf(resolution, 0) {
		return 0, 0, fmt.Errorf("field: resolution %v: must be a positive number of metres per texel", resolution)
	}
	if err := p.Validate(); err != nil {
		return 0, 0, err
	}
	fw, fh := math.Round(p.Size[0]/resolution), math.Round(p.Size[1]/resolution)
	if fw > MaxSide || fh > MaxSide {
		return 0, 0, fmt.Errorf("field: resolution %v m over %v×%v m gives a %v×%v weights grid, more than %d per side",
			resolution, p.Size[0], p.Size[1], fw, fh, MaxSide)
	}
	w, h = max(int(fw), 1), max(int(fh), 1)
	return w, h, CheckSize(w, h)
}

// WeightPos is the world (x, z) of weights texel (i, j)'s centre, in float32 and in the order the
// kernel computes it: minX + (f32(i·Stride) + 0.5) * wTexelX.
func (g *Geometry) WeightPos(i, j int) (px, pz float32) {
	s := g.StrideOrOne()
	px = g.FieldMin[0] + float32((float32(i*s)+0.5)*g.WTexel[0])
	pz = g.FieldMin[1] + float32((float32(j*s)+0.5)*g.WTexel[1])
	return px, pz
}

// DefaultGradientStep is the gradientStep used when a stack leaves it out: the field's texel size
// (SPEC "Inputs"). With non-square texels it is the larger of the two, so the central difference
// spans at least one texel on both axes.
func (g *Geometry) DefaultGradientStep() float32 {
	return max(g.HTexel[0], g.HTexel[1])
}

// Sampler returns a sampler over the whole grid gr (the height or any channel).
func (g *Geometry) Sampler(gr *Grid) Sampler {
	return g.RegionSampler(gr, 0, 0, gr.W, gr.H)
}

// RegionSampler returns a sampler that reads only the w×h block of gr starting at grid texel
// (i0, j0) — a tile's apron-inclusive buffer — without copying it. Taps are clamped to that block,
// which equals the clamp to the grid when the block is a Tile's buffer (the apron covers every
// tap). The block is intersected with the grid.
func (g *Geometry) RegionSampler(gr *Grid, i0, j0, w, h int) Sampler {
	return g.WindowSampler(&Window{Grid: gr}, i0, j0, w, h)
}

// BufferSampler returns a sampler over buf, a copy of a tile's buffer (Grid.Region of t's buffer
// block), read exactly as the GPU reads its tile buffer.
func (g *Geometry) BufferSampler(buf *Grid, t Tile) Sampler {
	if buf == nil || len(buf.Data) < buf.W*buf.H || buf.W < 1 || buf.H < 1 {
		return Sampler{}
	}
	return Sampler{
		data:   buf.Data[:buf.W*buf.H],
		i0:     t.BufI0,
		j0:     t.BufJ0,
		maxI:   buf.W - 1,
		maxJ:   buf.H - 1,
		stride: buf.W,
		minX:   g.FieldMin[0],
		minZ:   g.FieldMin[1],
		invX:   g.InvHTexel[0],
		invZ:   g.InvHTexel[1],
	}
}
