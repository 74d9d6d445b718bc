package field

import (
	"image"
	"math"
	"sync"
)

// DefaultTileSize is the side of a tile in weights texels when a caller gives none (SPEC "Tiles
// and seams").
const DefaultTileSize = 256

// Tiling says how a bake cuts the weights grid into square tiles.
type Tiling struct {
	TileSize int // weights texels per side; 0 = DefaultTileSize
}

// Size is the tile side in weights texels, with the default applied.
func (t Tiling) Size() int {
	if t.TileSize <= 0 {
		return DefaultTileSize
	}
	return t.TileSize
}

// Tiles cuts geo's weights grid with this tiling; see the function Tiles.
func (t Tiling) Tiles(geo *Geometry, gradientStep float32) []Tile {
	return Tiles(geo, t.Size(), gradientStep)
}

// Tile is one unit of bake work. Its interior is a block of weights texels, the texels it writes;
// its buffer is the block of height (and channel) texels it reads, the interior's footprint plus
// an apron wide enough for every tap, clamped to the grid.
type Tile struct {
	Index int // row-major position in the tile grid: ty·nx + tx

	// Interior, in weights texels: [I0, I0+W) × [J0, J0+H).
	I0, J0, W, H int

	// Buffer, in height texels: [BufI0, BufI0+BufW) × [BufJ0, BufJ0+BufH).
	BufI0, BufJ0, BufW, BufH int
}

// TileGrid is the number of tiles across and down a wW×wH weights grid.
func TileGrid(wW, wH, tileSize int) (nx, ny int) {
	if tileSize <= 0 {
		tileSize = DefaultTileSize
	}
	return (wW + tileSize - 1) / tileSize, (wH + tileSize - 1) / tileSize
}

// Tiles cuts geo's weights grid into tiles of tileSize texels (0 = DefaultTileSize; the last row
// and column are narrower) and gives each its apron-inclusive buffer for taps up to gradientStep
// metres away (the slope/curvature step g; pass 0 when no rule reads slope or curvature).
//
// The apron (docs/field.md): along x, the lowest height texel a tile reads is the floor of
// u = (pLo - g - minX) · invHTexelX - 0.5 where pLo is its first texel's centre, and the highest
// is that floor + 1 for u at pHi + g, pHi its last texel's centre. These are evaluated with the
// very float32 expressions the sampler uses, and because rounding is monotonic no texel in between
// can reach further; one more texel on each side is kept as a safety margin. The range is clamped
// to the grid, so a tile's buffer clamp equals the grid clamp and every tiling reads the same
// values. A gradientStep that is NaN or infinite gets the whole grid.
func Tiles(geo *Geometry, tileSize int, gradientStep float32) []Tile {
	if tileSize <= 0 {
		tileSize = DefaultTileSize
	}
	nx, ny := TileGrid(geo.WeightsW, geo.WeightsH, tileSize)
	tiles := make([]Tile, 0, nx*ny)
	for ty := 0; ty < ny; ty++ {
		for tx := 0; tx < nx; tx++ {
			tiles = append(tiles, geo.tile(tx, ty, nx, tileSize, gradientStep))
		}
	}
	return tiles
}

// TileAt is tile number index of Tiles(geo, tileSize, gradientStep), computed alone; ok is false
// when index is outside the tile grid.
func TileAt(geo *Geometry, tileSize int, gradientStep float32, index int) (t Tile, ok bool) {
	if tileSize <= 0 {
		tileSize = DefaultTileSize
	}
	nx, ny := TileGrid(geo.WeightsW, geo.WeightsH, tileSize)
	if index < 0 || index >= nx*ny {
		return Tile{}, false
	}
	return geo.tile(index%nx, index/nx, nx, tileSize, gradientStep), true
}

func (geo *Geometry) tile(tx, ty, nx, ts int, g float32) Tile {
	i0, j0 := tx*ts, ty*ts
	return geo.tileOf(ty*nx+tx, i0, j0, min(ts, geo.WeightsW-i0), min(ts, geo.WeightsH-j0), g)
}

// tileOf is the tile numbered index whose interior is the w×h weights texels at (i0, j0), with
// its apron-inclusive buffer.
func (geo *Geometry) tileOf(index, i0, j0, w, h int, g float32) Tile {
	t := Tile{Index: index, I0: i0, J0: j0, W: w, H: h}
	lo, hi := geo.apronX(t.I0, t.I0+t.W, g)
	t.BufI0, t.BufW = lo, hi-lo+1
	lo, hi = geo.apronZ(t.J0, t.J0+t.H, g)
	t.BufJ0, t.BufH = lo, hi-lo+1
	return t
}

// apronX and apronZ are apron along each axis for texels [i0, i1) of this grid, whose positions
// are those of the weights grid's texels i·Stride.
func (geo *Geometry) apronX(i0, i1 int, g float32) (lo, hi int) {
	s := geo.StrideOrOne()
	return apron(geo.FieldMin[0], geo.WTexel[0], geo.InvHTexel[0], i0*s, (i1-1)*s+1, g, geo.HeightW)
}

func (geo *Geometry) apronZ(j0, j1 int, g float32) (lo, hi int) {
	s := geo.StrideOrOne()
	return apron(geo.FieldMin[1], geo.WTexel[1], geo.InvHTexel[1], j0*s, (j1-1)*s+1, g, geo.HeightH)
}

// apron is the inclusive range of height texels read by weights texels [i0, i1) along one axis,
// plus one safety texel each side, clamped to [0, n).
func apron(fieldMin, wTexel, invH float32, i0, i1 int, g float32, n int) (lo, hi int) {
	if g != g || math.IsInf(float64(g), 0) {
		return 0, n - 1
	}
	g = float32(math.Abs(float64(g)))
	pLo := fieldMin + float32((float32(i0)+0.5)*wTexel)
	pHi := fieldMin + float32((float32(i1-1)+0.5)*wTexel)
	uLo := float32((pLo-g-fieldMin)*invH) - 0.5
	uHi := float32((pHi+g-fieldMin)*invH) - 0.5
	lo = int(math.Floor(float64(uLo))) - 1
	hi = int(math.Floor(float64(uHi))) + 2
	return min(max(lo, 0), n-1), min(max(hi, 0), n-1)
}

// DirtySet is the set of tiles whose weights no longer match the field or the stack: an edit marks
// them, the bake drains them. It is safe for concurrent use, so a brush on the UI goroutine can
// mark while a bake goroutine drains.
type DirtySet struct {
	mu       sync.Mutex
	geo      Geometry
	tileSize int
	g        float32
	nx, ny   int
	marked   []bool
	count    int
	// parts holds, for a tile marked only by MarkRect since it was last drained, the weights
	// texels inside it the rectangles reached (DrainParts); a tile marked any other way has none.
	parts map[int]image.Rectangle
}

// NewDirtySet returns an empty set over geo's weights grid cut into tiles of tileSize texels
// (0 = default). gradientStep is the stack's slope/curvature step in metres: MarkRect widens a
// rectangle by it, because a height edit changes the slope of texels up to that far away.
func NewDirtySet(geo Geometry, tileSize int, gradientStep float32) *DirtySet {
	if tileSize <= 0 {
		tileSize = DefaultTileSize
	}
	nx, ny := TileGrid(geo.WeightsW, geo.WeightsH, tileSize)
	return &DirtySet{geo: geo, tileSize: tileSize, g: gradientStep, nx: nx, ny: ny, marked: make([]bool, nx*ny)}
}

// SetGradientStep changes the step MarkRect widens by (the stack's gradientStep changed).
func (d *DirtySet) SetGradientStep(g float32) {
	d.mu.Lock()
	d.g = g
	d.mu.Unlock()
}

// Mark marks tile index; an index outside the tile grid is ignored.
func (d *DirtySet) Mark(index int) {
	d.mu.Lock()
	d.mark(index)
	d.mu.Unlock()
}

// mark marks tile index whole: every texel of it is due.
func (d *DirtySet) mark(index int) {
	if index >= 0 && index < len(d.marked) && !d.marked[index] {
		d.marked[index] = true
		d.count++
	}
	delete(d.parts, index)
}

// markPart marks tile index for the texels r of it, unless it is already marked whole.
func (d *DirtySet) markPart(index int, r image.Rectangle) {
	if d.marked[index] {
		if p, ok := d.parts[index]; ok {
			d.parts[index] = p.Union(r)
		}
		return
	}
	d.marked[index] = true
	d.count++
	if d.parts == nil {
		d.parts = map[int]image.Rectangle{}
	}
	d.parts[index] = r
}

// MarkAll marks every tile (the stack changed, or a whole channel was replaced).
func (d *DirtySet) MarkAll() {
	d.mu.Lock()
	for k := range d.marked {
		d.mark(k)
	}
	d.mu.Unlock()
}

// MarkRect marks every tile whose weights can change when the field changes inside the world
// rectangle [x0, x1] × [z0, z1] (a brush stroke's bounds; corners in any order). The rectangle is
// widened by gradientStep plus two height texels — the reach of a slope or curvature tap and of
// its bilinear footprint, with a texel to spare. A rectangle that does not touch the field marks
// nothing; one with NaN corners marks everything, since it cannot say where it is.
func (d *DirtySet) MarkRect(x0, z0, x1, z1 float64) {
	if math.IsNaN(x0) || math.IsNaN(z0) || math.IsNaN(x1) || math.IsNaN(z1) {
		d.MarkAll()
		return
	}
	r, ok := d.TexelRect(x0, z0, x1, z1)
	if !ok {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for ty := r.Min.Y / d.tileSize; ty <= (r.Max.Y-1)/d.tileSize; ty++ {
		for tx := r.Min.X / d.tileSize; tx <= (r.Max.X-1)/d.tileSize; tx++ {
			tile := image.Rect(tx*d.tileSize, ty*d.tileSize, (tx+1)*d.tileSize, (ty+1)*d.tileSize)
			d.markPart(ty*d.nx+tx, r.Intersect(tile))
		}
	}
}

// TexelRect is the block of weights texels whose taps reach the world rectangle [x0, x1] ×
// [z0, z1] (MarkRect marks the tiles holding it); ok is false when none does. NaN bounds give
// the whole grid.
func (d *DirtySet) TexelRect(x0, z0, x1, z1 float64) (r image.Rectangle, ok bool) {
	if math.IsNaN(x0) || math.IsNaN(z0) || math.IsNaN(x1) || math.IsNaN(z1) {
		return image.Rect(0, 0, d.geo.WeightsW, d.geo.WeightsH), true
	}
	d.mu.Lock()
	g := math.Abs(float64(d.g))
	d.mu.Unlock()
	if math.IsNaN(g) || math.IsInf(g, 0) {
		g = math.Inf(1)
	}
	var lo, hi [2]int
	for k, rr := range [2][2]float64{{min(x0, x1), max(x0, x1)}, {min(z0, z1), max(z0, z1)}} {
		reach := g + 2*float64(d.geo.HTexel[k])
		mn := float64(d.geo.FieldMin[k])
		size := d.geo.Placement.Size[k]
		a, b := rr[0]-reach, rr[1]+reach
		if b < mn || a > mn+size {
			return image.Rectangle{}, false
		}
		wT := float64(d.geo.WTexel[k])
		n := d.geo.WeightsW
		if k == 1 {
			n = d.geo.WeightsH
		}
		// texels whose centres lie in [a, b]; the reach's spare texel covers float32 rounding
		ilo := math.Max(math.Ceil((a-mn)/wT-0.5), 0)
		ihi := math.Min(math.Floor((b-mn)/wT-0.5), float64(n-1))
		if ilo > ihi {
			return image.Rectangle{}, false
		}
		lo[k], hi[k] = int(ilo), int(ihi)
	}
	return image.Rect(lo[0], lo[1], hi[0]+1, hi[1]+1), true
}

// Len is the number of marked tiles.
func (d *DirtySet) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.count
}

// Marked reports whether tile index is marked.
func (d *DirtySet) Marked(index int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return index >= 0 && index < len(d.marked) && d.marked[index]
}

// Drain returns the marked tile indices in ascending order and clears the set.
func (d *DirtySet) Drain() []int {
	idx, _ := d.DrainParts()
	return idx
}

// DrainParts is Drain, with for each tile the weights texels due in it (parts[k] for idx[k]):
// the texels MarkRect's rectangles reached in a tile marked only by them (the others' weights,
// and what is computed from them, are as they were), or the empty rectangle for a tile marked
// whole (Mark, MarkAll, or MarkRect with NaN bounds).
func (d *DirtySet) DrainParts() (idx []int, parts []image.Rectangle) {
	d.mu.Lock()
	defer d.mu.Unlock()
	idx = make([]int, 0, d.count)
	parts = make([]image.Rectangle, 0, d.count)
	for k, m := range d.marked {
		if m {
			idx = append(idx, k)
			parts = append(parts, d.parts[k])
			d.marked[k] = false
		}
	}
	d.count = 0
	clear(d.parts)
	return idx, parts
}

// TilePart is the part of tile t (one of Tiles(geo, …, gradientStep)) inside the weights texels r,
// with its own apron-inclusive buffer and t's index: evaluated alone it gives the texels the
// whole tile gives there (every tiling reads the same values). An r that covers no texel of t
// gives t.
func TilePart(geo *Geometry, t Tile, r image.Rectangle, gradientStep float32) Tile {
	in := r.Intersect(image.Rect(t.I0, t.J0, t.I0+t.W, t.J0+t.H))
	if in.Empty() || in == image.Rect(t.I0, t.J0, t.I0+t.W, t.J0+t.H) {
		return t
	}
	return geo.tileOf(t.Index, in.Min.X, in.Min.Y, in.Dx(), in.Dy(), gradientStep)
}
