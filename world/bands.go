package world

import (
	"fmt"
	"io"

	"strata/field"
	"strata/terraindata"
)

// Edge bands of baked cells: the strips along each cell's four edges of what its container
// stores (heights with their gradients, channels, weights), read by streaming each payload once.
// World validation stitches them to re-evaluate every seam from what the cells hold.

// patch is a block of some grid of the world holding values of type T.
type patch[T any] struct {
	r    field.Rect
	data []T // r.W()·r.H(), row-major
}

// stitch fills block r from the patches that overlap it, or reports the first texel none holds.
func stitch[T any](patches []patch[T], r field.Rect) ([]T, error) {
	out := make([]T, r.Texels())
	have := make([]bool, len(out))
	for _, p := range patches {
		x := p.r.Intersect(r)
		if x.Empty() {
			continue
		}
		for j := x.J0; j < x.J1; j++ {
			src := p.data[(j-p.r.J0)*p.r.W()+x.I0-p.r.I0:]
			o := (j-r.J0)*r.W() + x.I0 - r.I0
			copy(out[o:o+x.W()], src[:x.W()])
			for k := o; k < o+x.W(); k++ {
				have[k] = true
			}
		}
	}
	for k, ok := range have {
		if !ok {
			return nil, fmt.Errorf("texel (%d, %d) is in no baked cell's edge band", r.I0+k%r.W(), r.J0+k/r.W())
		}
	}
	return out, nil
}

// bandRects is the four strips, b texels deep, along the edges of block r (overlapping at the
// corners; the whole block when it is thinner than two bands).
func bandRects(r field.Rect, b int) []field.Rect {
	if 2*b >= r.W() || 2*b >= r.H() {
		return []field.Rect{r}
	}
	return []field.Rect{
		{I0: r.I0, J0: r.J0, I1: r.I0 + b, J1: r.J1}, {I0: r.I1 - b, J0: r.J0, I1: r.I1, J1: r.J1},
		{I0: r.I0, J0: r.J0, I1: r.I1, J1: r.J0 + b}, {I0: r.I0, J0: r.J1 - b, I1: r.I1, J1: r.J1},
	}
}

// readBands streams a payload of a cell whose texels are block at of a world grid and keeps the
// edge strips of depth b: value(block, k) extracts texel k of a streamed block (row-major from
// the block's first row).
func readBands[T any](ref *terraindata.Ref, at field.Rect, b int, value func(blk terraindata.Block, k int) T) ([]patch[T], error) {
	if ref == nil {
		return nil, fmt.Errorf("no such child")
	}
	s, err := ref.Stream()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if s.Info.Width != at.W() || s.Info.Height != at.H() {
		return nil, fmt.Errorf("%s: %dx%d, the cell is %dx%d", s.File, s.Info.Width, s.Info.Height, at.W(), at.H())
	}
	var out []patch[T]
	for _, r := range bandRects(at, b) {
		out = append(out, patch[T]{r: r, data: make([]T, r.Texels())})
	}
	w := at.W()
	for {
		blk, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for y := blk.Y0; y < blk.Y0+blk.N; y++ {
			j := at.J0 + y
			for _, p := range out {
				if j < p.r.J0 || j >= p.r.J1 {
					continue
				}
				for i := p.r.I0; i < p.r.I1; i++ {
					p.data[(j-p.r.J0)*p.r.W()+i-p.r.I0] = value(blk, (y-blk.Y0)*w+i-at.I0)
				}
			}
		}
	}
}

// heightTexel is a height payload's R, G, B, A at streamed texel k.
func heightTexel(blk terraindata.Block, k int) [4]float32 {
	return [4]float32(blk.Float[4*k : 4*k+4])
}

// floatTexel is an r32f payload's value at streamed texel k.
func floatTexel(blk terraindata.Block, k int) float32 { return blk.Float[k] }

// byteTexel is an rgba8 payload's four bytes at streamed texel k (one row per block).
func byteTexel(blk terraindata.Block, k int) [4]byte { return [4]byte(blk.Bytes[4*k : 4*k+4]) }

// cellBands is what one baked cell's edge bands hold.
type cellBands struct {
	height   []patch[[4]float32]
	chans    map[string][]patch[float32]
	controls [2][]patch[[4]byte]
	texel    [2]float64 // the cell's height texel size (its payload's gradients use it)
}

// readCellBands reads the edge bands of cell i's container c: b height texels deep, bw weights
// texels deep.
func (w *World) readCellBands(i int, c *terraindata.Container, b, bw int) (*cellBands, error) {
	cl := &w.CellList[i]
	hr, wr := cl.HeightRect(), cl.WeightsRect()
	out := &cellBands{chans: map[string][]patch[float32]{},
		texel: [2]float64{c.Placement().Size[0] / float64(hr.W()), c.Placement().Size[1] / float64(hr.H())}}
	var err error
	if out.height, err = readBands(c.Height(), hr, b, heightTexel); err != nil {
		return nil, err
	}
	for _, ch := range w.Channels {
		if out.chans[ch.Name], err = readBands(c.Channel(ch.Name), hr, b, floatTexel); err != nil {
			return nil, fmt.Errorf("channel %s: %w", ch.Name, err)
		}
	}
	for k, ref := range c.Controls() {
		if k >= 2 {
			break
		}
		if out.controls[k], err = readBands(ref, wr, bw, byteTexel); err != nil {
			return nil, err
		}
	}
	if len(c.Controls()) < 2 { // four layers or fewer: control1 is all zero
		for _, r := range bandRects(wr, bw) {
			out.controls[1] = append(out.controls[1], patch[[4]byte]{r: r, data: make([][4]byte, r.Texels())})
		}
	}
	return out, nil
}
