package scatter

import (
	"context"
	"fmt"

	"strata/field"
	"strata/stack"
)

// Density is terrain_scatter_density's reference: population pop's density at every weights
// texel, population.density · Π band(rule), in instances/m², and the largest value reached (the
// spacing follows from it). A `layer` rule reads the quantized final weight of its layer as
// byte/255 from weightsLo (layers 0–3) and weightsHi (4–7), four bytes per texel, rows packed —
// the bytes the weights kernel wrote, so GPU and Go read the same numbers. weightsLo/Hi may be
// nil when no rule reads a layer. The grid is evaluated tile by tile on every core, each tile
// reading the field through its apron-inclusive block as the kernel does.
func Density(ctx context.Context, s *stack.Stack, pop int, f *field.Field, geo Geometry, weightsLo, weightsHi []byte) (*field.Grid, float32, error) {
	fg := &geo.Field
	if f == nil || f.Height == nil {
		return nil, 0, fmt.Errorf("scatter: density: no height grid")
	}
	out, err := field.NewPlaneLike(fg.WeightsW, fg.WeightsH, f.Height) // on disk with the height
	if err != nil {
		return nil, 0, fmt.Errorf("scatter: density: %w", err)
	}
	tiles := field.Tiles(fg, field.DefaultTileSize, geo.Stack.GradientStep)
	maxes, err := DensityTiles(ctx, s, pop, f, geo, weightsLo, weightsHi, out, tiles, nil)
	if err != nil {
		return nil, 0, err
	}
	return out, maxOf(maxes), nil
}

// DensityTiles is Density for the given tiles only, written into out (the weights grid) in
// place: the editor re-evaluates the tiles an edit dirtied. It returns each tile's largest
// density, so a caller keeping them per tile knows the field's maximum without a full pass.
// slopes, when not nil, is the slope of every weights texel (bake.Slopes), read instead of
// sampled: the same numbers.
func DensityTiles(ctx context.Context, s *stack.Stack, pop int, f *field.Field, geo Geometry, weightsLo, weightsHi []byte, out *field.Grid, tiles []field.Tile, slopes *field.Grid) ([]float32, error) {
	c, err := compileDensity(s, pop, geo)
	if err != nil {
		return nil, err
	}
	fg := &geo.Field
	if f == nil || f.Height == nil || f.Height.W != fg.HeightW || f.Height.H != fg.HeightH {
		return nil, fmt.Errorf("scatter: density: the field's height grid is not the geometry's %d×%d", fg.HeightW, fg.HeightH)
	}
	if out == nil || out.W != fg.WeightsW || out.H != fg.WeightsH {
		return nil, fmt.Errorf("scatter: density: the output is not the %d×%d weights grid", fg.WeightsW, fg.WeightsH)
	}
	channel := func(name string) *field.Window {
		if g, ok, err := f.ChannelGrid(name); ok && err == nil { // the flow plane too
			return &field.Window{Grid: g}
		}
		return nil
	}
	if slopes != nil && (slopes.W != out.W || slopes.H != out.H) {
		return nil, fmt.Errorf("scatter: density: slopes are %d×%d, the weights grid %d×%d", slopes.W, slopes.H, out.W, out.H)
	}
	return densityTiles(ctx, c, s, pop, geo, &field.Window{Grid: f.Height}, channel, weightsLo, weightsHi, out, [2]int{}, tiles, slopes)
}

// compileDensity compiles population pop of s for the density evaluators.
func compileDensity(s *stack.Stack, pop int, geo Geometry) (*stack.Compiled, error) {
	c, err := stack.CompilePopulation(s, pop, geo.Stack)
	if err != nil {
		return nil, fmt.Errorf("scatter: density: %w", err)
	}
	return c, nil
}

// densityTiles is DensityTiles and DensityWindow once their inputs are checked: population pop
// (compiled to c) over the tiles, reading the height window and the channel windows by name (nil
// for a channel the field lacks), into out, whose texel (0, 0) is weights texel at, as are the
// layer bytes lo, hi, and the whole grid's slopes when not nil (at is then (0, 0)). It returns
// each tile's largest density.
func densityTiles(ctx context.Context, c *stack.Compiled, s *stack.Stack, pop int, geo Geometry, height *field.Window,
	channel func(name string) *field.Window, lo, hi []byte, out *field.Grid, at [2]int, tiles []field.Tile, slopes *field.Grid) ([]float32, error) {
	n := max(out.W, 0) * max(out.H, 0) // an empty window's block has no texels
	if c.Needs()&stack.NeedLayers != 0 && (len(lo) < 4*n || len(hi) < 4*n) {
		return nil, fmt.Errorf("scatter: density: population %d reads layer weights: need %d bytes each, have %d and %d",
			pop, 4*n, len(lo), len(hi))
	}
	var chans [4]*field.Window
	for i, name := range s.Channels() {
		if i >= 4 {
			break
		}
		if chans[i] = channel(name); chans[i] == nil && c.Needs()&stack.NeedChan(i) != 0 {
			return nil, fmt.Errorf("scatter: density: the stack reads channel %q, which the field lacks", name)
		}
	}
	maxes := make([]float32, len(tiles))
	err := forTiles(ctx, len(tiles), func(k int) {
		t := tiles[k]
		tp := c.TapsWindow(&geo.Field, height, chans, t)
		if slopes != nil {
			tp.UseSlopes(slopes)
		}
		maxes[k] = densityTile(c, tp, t, lo, hi, out, at)
	})
	if err != nil {
		return nil, fmt.Errorf("scatter: density: %w", ctx.Err())
	}
	return maxes, nil
}

// maxOf is the largest of the tiles' maxima (0 for none).
func maxOf(maxes []float32) float32 {
	var mx float32
	for _, m := range maxes {
		mx = max(mx, m)
	}
	return mx
}

// layerByte is byte/255 for each byte value, the `layer` input's value.
var layerByte = func() (t [256]float32) {
	for b := range t {
		t[b] = float32(b) / 255
	}
	return t
}()

// densityTile evaluates one tile through tp into out, whose texel (0, 0) is weights texel at (and
// so are the layer bytes lo, hi), and returns its largest density.
func densityTile(c *stack.Compiled, tp stack.Taps, t field.Tile, lo, hi []byte, out *field.Grid, at [2]int) float32 {
	needs := c.Needs()
	var mx float32
	row := make([]stack.TexelInputs, t.W)
	for j := t.J0; j < t.J0+t.H; j++ {
		o := (j-at[1])*out.W + t.I0 - at[0]
		if needs&stack.NeedLayers != 0 {
			for k := range row {
				for l := 0; l < 4; l++ {
					row[k].Layers[l] = layerByte[lo[4*(o+k)+l]]
					row[k].Layers[4+l] = layerByte[hi[4*(o+k)+l]]
				}
			}
		}
		dens := out.Data[o : o+t.W]
		tp.DensityRow(j, t.I0, row, dens) // FillRow then DensityAt per texel, bit for bit
		for _, d := range dens {
			if d > mx {
				mx = d
			}
		}
	}
	return mx
}
