package gpu

import (
	"fmt"

	"strata/field"
)

// FieldTile cuts tile t out of field f for WeightsKernel.Run: the apron-inclusive block of the
// height grid and of each channel named in channels (stack.Channels order: chan0..chan3). It copies
// the blocks, so the result stays valid while the field is edited.
func FieldTile(f *field.Field, channels []string, t field.Tile) (WeightsTile, error) {
	if f == nil || f.Height == nil {
		return WeightsTile{}, fmt.Errorf("gpu: field tile %d: no height grid", t.Index)
	}
	if len(channels) > 4 {
		return WeightsTile{}, fmt.Errorf("gpu: field tile %d: %d channels, the kernel has 4 slots (%v)", t.Index, len(channels), channels)
	}
	if t.W < 0 || t.H < 0 || t.BufW < 1 || t.BufH < 1 || t.BufI0 < 0 || t.BufJ0 < 0 ||
		t.BufI0+t.BufW > f.Height.W || t.BufJ0+t.BufH > f.Height.H {
		return WeightsTile{}, fmt.Errorf("gpu: field tile %d: buffer %d,%d+%dx%d outside the %dx%d grid",
			t.Index, t.BufI0, t.BufJ0, t.BufW, t.BufH, f.Height.W, f.Height.H)
	}
	wt := WeightsTile{
		Origin:    [2]uint32{uint32(t.I0), uint32(t.J0)},
		Size:      [2]uint32{uint32(t.W), uint32(t.H)},
		BufOrigin: [2]uint32{uint32(t.BufI0), uint32(t.BufJ0)},
		BufSize:   [2]uint32{uint32(t.BufW), uint32(t.BufH)},
		Height:    f.Height.Region(t.BufI0, t.BufJ0, t.BufW, t.BufH).Data,
	}
	for i, name := range channels {
		g := f.Channels[name]
		if g == nil {
			return WeightsTile{}, fmt.Errorf("gpu: field tile %d: the stack reads channel %q, which the field lacks", t.Index, name)
		}
		wt.Chans[i] = g.Region(t.BufI0, t.BufJ0, t.BufW, t.BufH).Data
	}
	return wt, nil
}
