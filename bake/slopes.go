package bake

import (
	"context"
	"fmt"
	"image"

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
	// stale are weights texels whose slopes Fill computes again (ResetRect).
	stale image.Rectangle
}

// Reset forgets the slopes: the height's values changed.
func (s *Slopes) Reset() { s.grid, s.stale = nil, image.Rectangle{} }

// Retire is Reset for an evaluator that is dropped: the grid's disk blocks and pages go back now
// (field.Grid.Retire) if it is on disk.
func (s *Slopes) Retire() {
	s.grid.Retire()
	s.Reset()
}

// ResetRect forgets the slopes of the weights texels in r (those whose taps read a part of the
// height that changed); the next Fill computes the tiles holding them again, the same values a
// whole Fill would.
func (s *Slopes) ResetRect(r image.Rectangle) {
	if s.grid != nil {
		s.stale = s.stale.Union(r)
	}
}

// Fill returns the slopes of f's height under geometry g, on every core, computing them when it
// holds none for this height grid and geometry. The grid is the whole weights grid (texel (i, j)
// at j·W+i), for Options.Slopes and scatter's density.
func (s *Slopes) Fill(ctx context.Context, st *stack.Stack, f *field.Field, g *landscape.Geometry) (*field.Grid, error) {
	kept := s.grid != nil && s.height == f.Height && s.geo == *g
	if kept && s.stale.Empty() {
		return s.grid, nil
	}
	c, err := stack.Compile(st, g.Stack)
	if err != nil {
		s.grid = nil
		return nil, fmt.Errorf("bake: slopes: %w", err)
	}
	tiles := g.Tiles(field.DefaultTileSize)
	grid := s.grid
	if kept {
		some := tiles[:0:0]
		for _, t := range tiles {
			if image.Rect(t.I0, t.J0, t.I0+t.W, t.J0+t.H).Overlaps(s.stale) {
				some = append(some, t)
			}
		}
		tiles = some
	} else {
		// A whole weights grid: on disk when the height is (field.NewPlaneLike).
		if grid, err = field.NewPlaneLike(g.Field.WeightsW, g.Field.WeightsH, f.Height); err != nil {
			s.grid = nil
			return nil, fmt.Errorf("bake: slopes: %w", err)
		}
	}
	s.grid, s.stale = nil, image.Rectangle{}
	err = forTiles(ctx, tiles, Options{}, "slopes", func(t field.Tile) {
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
