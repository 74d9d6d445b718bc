package bake

import (
	"context"
	"fmt"

	"strata/field"
	"strata/internal/pool"
	"strata/internal/sysmem"
	"strata/landscape"
	"strata/stack"
)

// InputMap is one rule input over the weights grid of geo: at every weights texel, the value the
// Go reference evaluator reads there for a rule of that input — stack.Taps.FillRow's numbers with
// geo's gradient step, texel for texel. in is one of slope (degrees), aspect (degrees clockwise
// from +Z; field.AspectFlat on flat ground), curvature (1/m, + gully), height (metres), flow
// (log10 m² of upslope area: the field's flow plane, field.Field.FlowPlane, routed now when it is
// not current, sampled bilinearly at the texel's centre as a flow rule reads it), or channel (the
// field channel named channel, sampled bilinearly at the texel's centre, in its stored units). Row
// 0 is the field's minimum Z, as everywhere.
//
// It is how `strata export --maps` writes its maps and how the editor's aspect and flow overlays
// are computed, so a rule `slope > 30` and the exported slope map agree texel for texel: the value
// comes from the evaluator's own code (a one-rule stack compiled over geo), not from a second
// implementation. Tiles run on every core (internal/pool); done (may be nil) gets the tiles
// finished of the total; a cancelled ctx stops it between tiles with ctx's error.
func InputMap(ctx context.Context, geo *landscape.Geometry, f *field.Field, in stack.Input, channel string, done func(finished, total int)) (*field.Grid, error) {
	if f == nil || f.Height == nil {
		return nil, fmt.Errorf("bake: %s map: no height field", in)
	}
	rule := stack.Rule{Input: in}
	var chans [4]*field.Grid
	switch in {
	case stack.InputSlope, stack.InputAspect, stack.InputCurvature, stack.InputHeight:
	case stack.InputChannel:
		g := f.Channels[channel]
		if g == nil {
			return nil, fmt.Errorf("bake: channel map: the field has no channel %q", channel)
		}
		rule.Channel, chans[0] = channel, g // the one channel a one-rule stack reads: slot 0
	case stack.InputFlow:
		g, _, err := f.ChannelGrid(field.FlowChannel) // the plane a flow rule reads, in slot 0
		if err != nil {
			return nil, fmt.Errorf("bake: flow map: %w", err)
		}
		chans[0] = g
	default:
		return nil, fmt.Errorf("bake: no map of input %q: slope, aspect, curvature, height, flow or channel", in)
	}
	s := stack.New()
	s.Layers = []stack.Layer{stack.NewLayer("ground"), stack.NewLayer(string(in))}
	s.Layers[1].Rules = []stack.Rule{rule}
	c, err := stack.Compile(s, geo.Stack)
	if err != nil {
		return nil, fmt.Errorf("bake: %s map: %w", in, err)
	}
	fg := &geo.Field
	if err := sysmem.Check(uint64(fg.WeightsW)*uint64(fg.WeightsH)*4, fmt.Sprintf("the %s map (%d×%d float32)", in, fg.WeightsW, fg.WeightsH)); err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	out := &field.Grid{W: fg.WeightsW, H: fg.WeightsH, Data: make([]float32, fg.WeightsW*fg.WeightsH)}
	tiles := field.Tiles(fg, field.DefaultTileSize, geo.Stack.GradientStep)
	var report func(int)
	if done != nil {
		report = func(n int) { done(n, len(tiles)) }
	}
	err = pool.Each(ctx, len(tiles), 0, func(k int) {
		t := tiles[k]
		tp := c.Taps(fg, f.Height, chans, t)
		ins := make([]stack.TexelInputs, t.W)
		for j := t.J0; j < t.J0+t.H; j++ {
			tp.FillRow(j, t.I0, ins)
			row := out.Data[j*out.W+t.I0 : j*out.W+t.I0+t.W]
			for i := range ins {
				row[i] = pick(in, &ins[i])
			}
		}
	}, report)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pick is the input's value among a texel's inputs.
func pick(in stack.Input, t *stack.TexelInputs) float32 {
	switch in {
	case stack.InputSlope:
		return t.Slope
	case stack.InputAspect:
		return t.Aspect
	case stack.InputCurvature:
		return t.Curvature
	case stack.InputHeight:
		return t.Height
	}
	return t.Chan[0]
}
