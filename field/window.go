package field

import (
	"fmt"
	"math"
)

// MaxWorldSide is the largest side, in texels, of the grids of a world (package world: a grid of
// containers baked cell by cell). One container stays within MaxSide; a world is never held in
// memory whole, only in windows, so it may be larger. The bound is where float32 stops placing a
// texel well: a weights texel's centre is computed as minX + (f32(i) + 0.5)·wTexel, and i + 0.5
// is exact only below 2^23; at 2^20 the bilinear fraction u - floor(u) still resolves 1/16 of a
// texel (docs/worlds.md, "At 1M² texels").
const MaxWorldSide = 1 << 20

// Rect is a block of grid texels, [I0, I1) × [J0, J1), in the coordinates of a whole grid.
type Rect struct{ I0, J0, I1, J1 int }

// W is the block's width in texels.
func (r Rect) W() int { return r.I1 - r.I0 }

// H is the block's height in texels.
func (r Rect) H() int { return r.J1 - r.J0 }

// Empty reports a block with no texel.
func (r Rect) Empty() bool { return r.I1 <= r.I0 || r.J1 <= r.J0 }

// Texels is the number of texels in the block (0 when empty).
func (r Rect) Texels() int64 {
	if r.Empty() {
		return 0
	}
	return int64(r.W()) * int64(r.H())
}

// Intersect is the block both r and o cover (possibly empty).
func (r Rect) Intersect(o Rect) Rect {
	return Rect{max(r.I0, o.I0), max(r.J0, o.J0), min(r.I1, o.I1), min(r.J1, o.J1)}
}

// Union is the smallest block covering r and o (an empty one counts as nothing).
func (r Rect) Union(o Rect) Rect {
	switch {
	case r.Empty():
		return o
	case o.Empty():
		return r
	}
	return Rect{min(r.I0, o.I0), min(r.J0, o.J0), max(r.I1, o.I1), max(r.J1, o.J1)}
}

// Grow is r widened by n texels on every side (not clamped).
func (r Rect) Grow(n int) Rect { return Rect{r.I0 - n, r.J0 - n, r.I1 + n, r.J1 + n} }

// Contains reports whether o lies inside r.
func (r Rect) Contains(o Rect) bool {
	return o.I0 >= r.I0 && o.J0 >= r.J0 && o.I1 <= r.I1 && o.J1 <= r.J1
}

// String is "[i0,i1)×[j0,j1)".
func (r Rect) String() string { return fmt.Sprintf("[%d,%d)×[%d,%d)", r.I0, r.I1, r.J0, r.J1) }

// Window is a block of a larger grid held in memory: Grid holds the texels [I0, I0+W) × [J0,
// J0+H) of the whole grid, row-major. A world cell reads its sources as windows (the cell plus
// the apron its taps reach), so a world far larger than memory is evaluated a cell at a time with
// every read placed exactly as the whole grid would place it.
type Window struct {
	*Grid
	I0, J0 int
}

// Rect is the block of the whole grid the window holds.
func (w *Window) Rect() Rect { return Rect{w.I0, w.J0, w.I0 + w.W, w.J0 + w.H} }

// Crop copies block r (whole-grid coordinates, inside the window) into a grid of its own.
func (w *Window) Crop(r Rect) (*Grid, error) {
	if r.Empty() || !w.Rect().Contains(r) {
		return nil, fmt.Errorf("field: crop %v outside the window %v", r, w.Rect())
	}
	return w.Region(r.I0-w.I0, r.J0-w.J0, r.W(), r.H()), nil
}

// WindowSampler is RegionSampler over a window: it reads the w×h block whose first texel is
// whole-grid texel (i0, j0), intersected with the window, and places every tap from the field
// minimum in whole-grid texels. When the window holds the block clamped to the whole grid (the
// apron of a tile, see ApronRect), the reads equal RegionSampler's over the whole grid bit for bit.
func (g *Geometry) WindowSampler(win *Window, i0, j0, w, h int) Sampler {
	if win == nil || win.Grid == nil {
		return Sampler{}
	}
	i1, j1 := min(i0+w, win.I0+win.W), min(j0+h, win.J0+win.H)
	i0, j0 = max(i0, win.I0), max(j0, win.J0)
	if i1 <= i0 || j1 <= j0 {
		return Sampler{}
	}
	li0, lj0 := i0-win.I0, j0-win.J0
	return Sampler{
		data:   win.Data[lj0*win.W+li0 : (j1-1-win.J0)*win.W+(i1-win.I0)],
		i0:     i0,
		j0:     j0,
		maxI:   i1 - i0 - 1,
		maxJ:   j1 - j0 - 1,
		stride: win.W,
		minX:   g.FieldMin[0],
		minZ:   g.FieldMin[1],
		invX:   g.InvHTexel[0],
		invZ:   g.InvHTexel[1],
	}
}

// WorldGeometry is NewGeometry for the grids of a world: the same float32 numbers, computed the
// same way, for grids up to MaxWorldSide a side (a world is only ever held in windows).
func WorldGeometry(p Placement, heightW, heightH, weightsW, weightsH int) (Geometry, error) {
	return newGeometry(p, heightW, heightH, weightsW, weightsH, CheckWorldSize)
}

// CheckWorldSize reports a grid size that is empty or beyond MaxWorldSide a side: CheckSize for
// the grids of a world, which are only ever held in windows.
func CheckWorldSize(w, h int) error {
	if w < 1 || h < 1 || w > MaxWorldSide || h > MaxWorldSide {
		return fmt.Errorf("field: grid %d×%d: a world grid has 1 … %d texels per side", w, h, MaxWorldSide)
	}
	return nil
}

// WorldWeightsGrid is WeightsGrid for a world's grids (up to MaxWorldSide a side).
func WorldWeightsGrid(p Placement, heightW, heightH int, resolution float64) (w, h int, err error) {
	if resolution == 0 {
		return heightW, heightH, nil
	}
	if !(resolution > 0) || math.IsInf(resolution, 0) {
		return 0, 0, fmt.Errorf("field: resolution %v: must be a positive number of metres per texel", resolution)
	}
	if err := p.Validate(); err != nil {
		return 0, 0, err
	}
	fw, fh := math.Round(p.Size[0]/resolution), math.Round(p.Size[1]/resolution)
	if fw > MaxWorldSide || fh > MaxWorldSide {
		return 0, 0, fmt.Errorf("field: resolution %v m over %v×%v m gives a %v×%v weights grid, more than %d per side",
			resolution, p.Size[0], p.Size[1], fw, fh, MaxWorldSide)
	}
	return max(int(fw), 1), max(int(fh), 1), nil
}

// ApronRect is the block of height texels the weights texels of r read, with taps up to
// gradientStep metres away: the union of the aprons of its tiles (Tiles), clamped to the grid.
// A window holding it evaluates r exactly as the whole grid would.
func (g *Geometry) ApronRect(r Rect, gradientStep float32) Rect {
	if r.Empty() {
		return Rect{}
	}
	i0, i1 := g.apronX(r.I0, r.I1, gradientStep)
	j0, j1 := g.apronZ(r.J0, r.J1, gradientStep)
	return Rect{i0, j0, i1 + 1, j1 + 1}
}

// RegionTiles cuts block r of the weights grid into tiles of tileSize texels (0 = default) from
// its own corner, each with its apron-inclusive buffer in whole-grid texels, as Tiles does for the
// whole grid. Any tiling gives the same bytes (docs/design.md), so r's tiles need not be the
// whole grid's. Indices run row-major over r's tiles.
func RegionTiles(geo *Geometry, r Rect, tileSize int, gradientStep float32) []Tile {
	if tileSize <= 0 {
		tileSize = DefaultTileSize
	}
	if r.Empty() {
		return nil
	}
	nx, ny := TileGrid(r.W(), r.H(), tileSize)
	tiles := make([]Tile, 0, nx*ny)
	for ty := 0; ty < ny; ty++ {
		for tx := 0; tx < nx; tx++ {
			i0, j0 := r.I0+tx*tileSize, r.J0+ty*tileSize
			tiles = append(tiles, geo.tileOf(ty*nx+tx, i0, j0, min(tileSize, r.I1-i0), min(tileSize, r.J1-j0), gradientStep))
		}
	}
	return tiles
}
