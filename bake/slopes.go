package bake

import (
	"context"
	"fmt"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// Slopes keeps the slope of every weights texel of one geometry over one height grid, for an
// evaluator that runs again and again over ground that does not move — the live editor, where a
// rule edit changes the stack but not the height. The slope is a function of the height and the
// geometry alone (field.Sampler.Slope at the texel's position), so the grid holds exactly what
// each evaluation would sample again: four bilinear taps and an arctangent per texel, a third
// of a weights pass that reads slope and of a density pass. The zero value is empty; Fill
// computes it at first use, and again after Reset or when the geometry or height grid differ.
type Slopes struct {
	grid   *field.Grid
	height *field.Grid
	geo    landscape.Geometry
}

// Reset forgets the slopes: the height's values changed.
func (s *Slopes) Reset() { s.grid = nil }

// Fill returns the slopes of f's height under geometry g, on every core, computing them when it
// holds none for this height grid and geometry. The grid is the whole weights grid (texel (i, j)
// at j·W+i), for Options.Slopes and scatter's density.
func (s *Slopes) Fill(ctx context.Context, st *stack.Stack, f *field.Field, g *landscape.Geometry) (*field.Grid, error) {
	if s.grid != nil && s.height == f.Height && s.geo == *g {
		return s.grid, nil
	}
	s.grid = nil
	c, err := stack.Compile(st, g.Stack)
	if err != nil {
		return nil, fmt.Errorf("bake: slopes: %w", err)
	}
	grid := field.NewGrid(g.Field.WeightsW, g.Field.WeightsH)
	err = forTiles(ctx, g.Tiles(field.DefaultTileSize), Options{}, "slopes", func(t field.Tile) {
		tp := c.Taps(&g.Field, f.Height, [4]*field.Grid{}, t)
		for j := t.J0; j < t.J0+t.H; j++ {
			tp.SlopeRow(j, t.I0, grid.Data[j*grid.W+t.I0:j*grid.W+t.I0+t.W])
		}
	})
	if err != nil {
		return nil, err
	}
	s.grid, s.height, s.geo = grid, f.Height, *g
	return grid, nil
}
