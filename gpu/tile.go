package gpu

import (
	"fmt"

	"strata/field"
)

// FieldTile cuts tile t out of field f for WeightsKernel.Run: the apron-inclusive block of the
// height grid and of each channel named in channels (stack.Channels order: chan0..chan3). It copies
// the blocks, so the result stays valid while the field is edited. (WeightsKernel.RunField cuts
// into re-used blocks, TileCutter, for a caller that runs the tile at once.)
func FieldTile(f *field.Field, channels []string, t field.Tile) (WeightsTile, error) {
	wt, grids, err := tileHeader(f, channels, t)
	if err != nil {
		return WeightsTile{}, err
	}
	wt.Height = grids[0].Region(t.BufI0, t.BufJ0, t.BufW, t.BufH).Data
	for i := range wt.Chans {
		if grids[1+i] != nil {
			wt.Chans[i] = grids[1+i].Region(t.BufI0, t.BufJ0, t.BufW, t.BufH).Data
		}
	}
	return wt, nil
}

// tileHeader checks tile t against f and returns its WeightsTile without blocks and the grids the
// blocks come from: height, then chan0..chan3 (nil for a slot no channel uses).
func tileHeader(f *field.Field, channels []string, t field.Tile) (WeightsTile, [5]*field.Grid, error) {
	var grids [5]*field.Grid
	if f == nil || f.Height == nil {
		return WeightsTile{}, grids, fmt.Errorf("gpu: field tile %d: no height grid", t.Index)
	}
	if len(channels) > 4 {
		return WeightsTile{}, grids, fmt.Errorf("gpu: field tile %d: %d channels, the kernel has 4 slots (%v)", t.Index, len(channels), channels)
	}
	if t.W < 0 || t.H < 0 || t.BufW < 1 || t.BufH < 1 || t.BufI0 < 0 || t.BufJ0 < 0 ||
		t.BufI0+t.BufW > f.Height.W || t.BufJ0+t.BufH > f.Height.H {
		return WeightsTile{}, grids, fmt.Errorf("gpu: field tile %d: buffer %d,%d+%dx%d outside the %dx%d grid",
			t.Index, t.BufI0, t.BufJ0, t.BufW, t.BufH, f.Height.W, f.Height.H)
	}
	wt := WeightsTile{
		Origin:    [2]uint32{uint32(t.I0), uint32(t.J0)},
		Size:      [2]uint32{uint32(t.W), uint32(t.H)},
		BufOrigin: [2]uint32{uint32(t.BufI0), uint32(t.BufJ0)},
		BufSize:   [2]uint32{uint32(t.BufW), uint32(t.BufH)},
	}
	grids[0] = f.Height
	for i, name := range channels {
		g, ok, err := f.ChannelGrid(name) // the flow plane for field.FlowChannel
		if err != nil {
			return WeightsTile{}, grids, fmt.Errorf("gpu: field tile %d: %w", t.Index, err)
		}
		if !ok {
			return WeightsTile{}, grids, fmt.Errorf("gpu: field tile %d: the stack reads channel %q, which the field lacks", t.Index, name)
		}
		if g.W != f.Height.W || g.H != f.Height.H {
			return WeightsTile{}, grids, fmt.Errorf("gpu: field tile %d: channel %q is %dx%d, the height grid %dx%d", t.Index, name, g.W, g.H, f.Height.W, f.Height.H)
		}
		grids[1+i] = g
	}
	return wt, grids, nil
}

// wholeGrid reports that the buffer block at origin of size is all of g.
func wholeGrid(g *field.Grid, origin, size [2]uint32) bool {
	return origin == [2]uint32{} && int(size[0]) == g.W && int(size[1]) == g.H && len(g.Data) == g.W*g.H
}

// TileCutter cuts tiles as FieldTile does into blocks it re-uses from tile to tile, for a caller
// that hands each tile to a kernel at once (the queue copies the data): a bake cutting every tile
// of a band for the density kernel allocates nothing per tile once warm.
type TileCutter struct {
	planes [5][]float32
}

// Cut returns tile t of f with its height and channel blocks in the cutter's buffers, valid until
// the next Cut (a block that is the whole grid is the grid's own data: read it, never write it).
func (c *TileCutter) Cut(f *field.Field, channels []string, t field.Tile) (WeightsTile, error) {
	wt, grids, err := tileHeader(f, channels, t)
	if err != nil {
		return WeightsTile{}, err
	}
	n := t.BufW * t.BufH
	block := func(i int) []float32 {
		g := grids[i]
		if wholeGrid(g, wt.BufOrigin, wt.BufSize) {
			return g.Data // the block is the grid: no copy (the kernels only read it)
		}
		if cap(c.planes[i]) < n {
			c.planes[i] = make([]float32, n)
		}
		p := c.planes[i][:n]
		for j := 0; j < t.BufH; j++ {
			copy(p[j*t.BufW:(j+1)*t.BufW], g.Data[(t.BufJ0+j)*g.W+t.BufI0:])
		}
		return p
	}
	wt.Height = block(0)
	for i := range wt.Chans {
		if grids[1+i] != nil {
			wt.Chans[i] = block(1 + i)
		}
	}
	return wt, nil
}
