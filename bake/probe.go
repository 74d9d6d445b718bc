package bake

import (
	"fmt"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// ProbeWeights evaluates stack s at weights texel (i, j) with the Go reference: the same bytes a
// whole-field Reference writes there. The editor's status bar reads the weights under the cursor
// this way, so the GPU's weights never have to come back to the CPU while the artist works.
func ProbeWeights(s *stack.Stack, f *field.Field, g *landscape.Geometry, i, j int) ([8]uint8, error) {
	fg := &g.Field
	if i < 0 || j < 0 || i >= fg.WeightsW || j >= fg.WeightsH {
		return [8]uint8{}, fmt.Errorf("bake: probe: texel (%d, %d) is outside the %d×%d weights grid", i, j, fg.WeightsW, fg.WeightsH)
	}
	c, err := stack.Compile(s, g.Stack)
	if err != nil {
		return [8]uint8{}, fmt.Errorf("bake: %w", err)
	}
	chans, err := channelGrids(s, f)
	if err != nil {
		return [8]uint8{}, err
	}
	// A 1×1 tile has the apron every tap of that texel needs, as any tiling's tile would.
	t, _ := field.TileAt(fg, 1, g.Stack.GradientStep, j*fg.WeightsW+i)
	tp := c.Taps(fg, f.Height, chans, t)
	var in [1]stack.TexelInputs
	tp.FillRow(j, i, in[:])
	return c.Weights(&in[0]), nil
}
