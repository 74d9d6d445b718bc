package session

import (
	"image"

	"strata/field"
)

// Parts of tiles on the Go evaluator: a sculpt dab of 80 m changes the weights of ~100² texels,
// and the four 256² tiles holding them were evaluated and their densities computed whole (most of
// a dab's time after its view on two cores). The dirty set keeps, for a tile marked only by edit
// rectangles, the texels they reached (field.DirtySet.DrainParts); the Go evaluator evaluates
// the weights and the densities of those texels alone — the others' are as they were, and every
// tiling gives the same numbers — and places the populations on the whole tiles (a tile's
// instances are drawn from its whole density). The GPU's kernels take whole tiles.

// tilePart is the part of tile t the pass evaluates: the texels r of it on the Go evaluator
// (empty r: all of it), t itself on the GPU.
func (p *pipeline) tilePart(t field.Tile, r image.Rectangle) field.Tile {
	if p.mode == GPU || r.Empty() {
		return t
	}
	return field.TilePart(&p.geo.Field, t, r, p.geo.Stack.GradientStep)
}

// wholeTile is the session's tile of index i (field.TileAt on the current geometry and tiling).
func (p *pipeline) wholeTile(i int) (field.Tile, bool) {
	return field.TileAt(&p.geo.Field, p.s.opts.TileSize, p.geo.Stack.GradientStep, i)
}

// partial reports whether t is a part of its tile (tilePart).
func (p *pipeline) partial(t field.Tile) bool {
	w, ok := p.wholeTile(t.Index)
	return ok && w != t
}

// wholeTiles is tiles with each part replaced by its whole tile.
func (p *pipeline) wholeTiles(tiles []field.Tile) []field.Tile {
	out := make([]field.Tile, 0, len(tiles))
	for _, t := range tiles {
		if w, ok := p.wholeTile(t.Index); ok {
			out = append(out, w)
		}
	}
	return out
}

// tileMax is the largest density of the whole tile holding t in dens.
func (p *pipeline) tileMax(dens *field.Grid, t field.Tile) float32 {
	w, ok := p.wholeTile(t.Index)
	if !ok {
		return 0
	}
	var mx float32
	for j := w.J0; j < w.J0+w.H; j++ {
		for _, d := range dens.Data[j*dens.W+w.I0 : j*dens.W+w.I0+w.W] {
			mx = max(mx, d)
		}
	}
	return mx
}
