package viewport

import (
	"context"
	"sync"

	"strata/internal/pool"
)

// HeightSource is the ground a scene stands on, read where the renderer needs it rather than
// copied whole: the pages of its payload's pyramid a frame samples, the heights its level-of-detail
// tree and picking read. A 16K field's payload is 4 GiB; the renderer holds the pages of the view.
//
// The payload is the container's rgba32f height texel: R metres, G dh/dx, B dh/dz, A coverage
// (0 = a hole). Implementations are read by the renderer's goroutines while their owner may edit
// them: Lock and Unlock bracket every read (an owner that edits takes the write side of the same
// lock and tells the renderer what changed through UpdateHeight). Renderer.mu is always taken
// before a source's lock, never after.
type HeightSource interface {
	// GridSize is the height grid, W×H texels, row 0 at the field's minimum Z.
	GridSize() (w, h int)
	// HeightRow returns the heights (metres) of row j, W values; the slice may be the source's
	// own and is read only while locked.
	HeightRow(j int) []float32
	// Texel is texel (i, j) of the payload; i, j lie inside the grid.
	Texel(i, j int) [4]float32
	// Lock and Unlock bracket a batch of reads.
	Lock()
	Unlock()
}

// HoleReporter is an optional method of a HeightSource: HasHoles false promises that every
// texel's coverage is 1 (no hole anywhere), so the instances skip their coverage test — a walk of
// the height pyramid's page table at every vertex, a fifth of the trees' cost on a software
// rasteriser. A source without it, or reporting true, is tested.
type HoleReporter interface {
	HasHoles() bool
}

// HeightField is the container's height payload in memory: W×H texels of rgba32f, row 0 at the
// field's minimum Z — R height in metres, G dh/dx, B dh/dz, A coverage (0 = a hole).
// Samples are cell-centred: texel (i, j) stands at min + ((i+0.5)·size.X/W, (j+0.5)·size.Z/H).
// It is the HeightSource of a payload that fits in memory (a container, a world's picture, tests).
type HeightField struct {
	W, H int
	Data []float32 // 4·W·H floats

	mu   sync.Mutex // guards rows
	rows []float32  // HeightRow's heights, filled on first use
}

// At returns texel (i, j) clamped to the grid: height, gradient X, gradient Z, coverage.
func (h *HeightField) At(i, j int) (hgt, gx, gz, cov float32) {
	i = clampInt(i, 0, h.W-1)
	j = clampInt(j, 0, h.H-1)
	o := 4 * (j*h.W + i)
	return h.Data[o], h.Data[o+1], h.Data[o+2], h.Data[o+3]
}

// GridSize implements HeightSource.
func (h *HeightField) GridSize() (int, int) { return h.W, h.H }

// Texel implements HeightSource.
func (h *HeightField) Texel(i, j int) [4]float32 {
	o := 4 * (j*h.W + i)
	return [4]float32{h.Data[o], h.Data[o+1], h.Data[o+2], h.Data[o+3]}
}

// HeightRow implements HeightSource (the R channel of row j).
func (h *HeightField) HeightRow(j int) []float32 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rows == nil {
		h.rows = make([]float32, h.W*h.H)
		for k := range h.rows {
			h.rows[k] = h.Data[4*k]
		}
	}
	return h.rows[j*h.W : (j+1)*h.W]
}

// Lock implements HeightSource: a HeightField is changed only through the renderer.
func (h *HeightField) Lock() {}

// Unlock implements HeightSource.
func (h *HeightField) Unlock() {}

// written forgets the heights HeightRow copied (UpdateHeight wrote the payload).
func (h *HeightField) written() {
	h.mu.Lock()
	h.rows = nil
	h.mu.Unlock()
}

// fillHeightPage writes page key of the height pyramid into dst (rgba32f, n×m texels, rows
// tightly packed): texel (a, b) is the payload at the full grid's texel
// (min((X·PageSize+a)·2^k, W−1), min((Z·PageSize+b)·2^k, H−1)), so the texel just past a level's
// last one holds the grid's edge, where a chunk's last vertex stands. src is locked; its rows are
// read on every core (a first frame fills a few dozen pages of 64 Ki texels each).
func fillHeightPage(src HeightSource, key PageKey, n, m int, dst []float32) {
	w, h := src.GridSize()
	s := 1 << key.Level
	pool.Each(context.Background(), m, 0, func(b int) {
		j := min((key.Z*PageSize+b)*s, h-1)
		for a := 0; a < n; a++ {
			i := min((key.X*PageSize+a)*s, w-1)
			t := src.Texel(i, j)
			copy(dst[4*(b*n+a):], t[:])
		}
	}, nil)
}
