package field

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"strata/internal/pool"
)

// The streaming import writes every format straight into the output grid: the decoders hand
// rows (or blocks of rows) of the file's own bytes to the converters here, which map them into
// the grid and learn, on the way, the range of the values and the first non-finite texel. What
// they hold besides the grid is bounded (a band, a block or a few rows per worker).

// Range is the smallest and largest value of a grid, as Grid.MinMax gives them, learned while
// the file was read (an 8192² MinMax is 0.2–0.44 s on two cores; the editor needs it at once). It
// describes the grid as loaded: writing to the grid afterwards does not update it.
type Range struct{ Min, Max float32 }

// codeLUT maps every integer code 0 … maxCode onto lo … hi exactly as the import always has,
// lo + code·(hi-lo)/maxCode in float64 rounded to float32 once, so a lookup gives the same bits.
func codeLUT(lo, hi float64, maxCode int) []float32 {
	lut := make([]float32, maxCode+1)
	scale := (hi - lo) / float64(maxCode)
	for c := range lut {
		lut[c] = float32(lo + float64(c)*scale)
	}
	return lut
}

// stats is what converting some rows taught: the range of the integer codes (their values are
// monotonic in the code, so the range of the values follows) or of the float values (as ordered
// keys, floatKey), and the first non-finite texel.
type stats struct {
	minCode, maxCode int   // integer formats; minCode > maxCode: none seen
	minKey, maxKey   int32 // float formats; minKey > maxKey: none seen
	bad              int   // grid index of the first non-finite value, -1: none
}

func newStats() stats {
	return stats{minCode: math.MaxInt, maxCode: -1, minKey: math.MaxInt32, maxKey: math.MinInt32, bad: -1}
}

// merge takes o's findings into s.
func (s *stats) merge(o stats) {
	s.minCode, s.maxCode = min(s.minCode, o.minCode), max(s.maxCode, o.maxCode)
	s.minKey, s.maxKey = min(s.minKey, o.minKey), max(s.maxKey, o.maxKey)
	if o.bad >= 0 && (s.bad < 0 || o.bad < s.bad) {
		s.bad = o.bad
	}
}

// floatKey orders finite float32 bit patterns as signed integers the way the builtin min and max
// order the floats, -0 below +0, so a range found with integer min/max (branch-free) is the one
// Grid.MinMax finds.
func floatKey(bits uint32) int32 { return int32(bits ^ uint32(int32(bits)>>31)&0x7fffffff) }

// keyFloat inverts floatKey.
func keyFloat(k int32) float32 { return math.Float32frombits(uint32(k) ^ uint32(k>>31)&0x7fffffff) }

// codes16 converts a row of 16-bit codes (big-endian when be) into dst through lut, inverting
// them first when inv (a TIFF stored WhiteIsZero).
func (s *stats) codes16(dst []float32, src []byte, be, inv bool, lut []float32) {
	if len(dst) == 0 {
		return
	}
	var flip uint16
	if inv {
		flip = 0xffff
	}
	l := (*[65536]float32)(lut)
	var lo, hi uint16
	if be {
		lo, hi = codes16BE(dst, src, flip, l)
	} else {
		lo, hi = codes16LE(dst, src, flip, l)
	}
	s.minCode, s.maxCode = min(s.minCode, int(lo)), max(s.maxCode, int(hi))
}

// codes16BE is stats.codes16 for big-endian codes, four at a time with two pairs of range
// accumulators (the loop's speed is the dependency chain of min and max).
func codes16BE(dst []float32, src []byte, flip uint16, lut *[65536]float32) (lo, hi uint16) {
	src = src[:2*len(dst)]
	lo0, hi0 := uint16(0xffff), uint16(0)
	lo1, hi1 := lo0, hi0
	i := 0
	for ; i+3 < len(dst); i += 4 {
		s := src[2*i : 2*i+8]
		c0, c1 := binary.BigEndian.Uint16(s[0:])^flip, binary.BigEndian.Uint16(s[2:])^flip
		c2, c3 := binary.BigEndian.Uint16(s[4:])^flip, binary.BigEndian.Uint16(s[6:])^flip
		lo0, hi0 = min(lo0, c0, c2), max(hi0, c0, c2)
		lo1, hi1 = min(lo1, c1, c3), max(hi1, c1, c3)
		d := dst[i : i+4]
		d[0], d[1], d[2], d[3] = lut[c0], lut[c1], lut[c2], lut[c3]
	}
	for ; i < len(dst); i++ {
		c := binary.BigEndian.Uint16(src[2*i:]) ^ flip
		lo0, hi0 = min(lo0, c), max(hi0, c)
		dst[i] = lut[c]
	}
	return min(lo0, lo1), max(hi0, hi1)
}

// codes16LE is codes16BE for little-endian codes.
func codes16LE(dst []float32, src []byte, flip uint16, lut *[65536]float32) (lo, hi uint16) {
	src = src[:2*len(dst)]
	lo0, hi0 := uint16(0xffff), uint16(0)
	lo1, hi1 := lo0, hi0
	i := 0
	for ; i+3 < len(dst); i += 4 {
		s := src[2*i : 2*i+8]
		c0, c1 := binary.LittleEndian.Uint16(s[0:])^flip, binary.LittleEndian.Uint16(s[2:])^flip
		c2, c3 := binary.LittleEndian.Uint16(s[4:])^flip, binary.LittleEndian.Uint16(s[6:])^flip
		lo0, hi0 = min(lo0, c0, c2), max(hi0, c0, c2)
		lo1, hi1 = min(lo1, c1, c3), max(hi1, c1, c3)
		d := dst[i : i+4]
		d[0], d[1], d[2], d[3] = lut[c0], lut[c1], lut[c2], lut[c3]
	}
	for ; i < len(dst); i++ {
		c := binary.LittleEndian.Uint16(src[2*i:]) ^ flip
		lo0, hi0 = min(lo0, c), max(hi0, c)
		dst[i] = lut[c]
	}
	return min(lo0, lo1), max(hi0, hi1)
}

// codes8 converts a row of 8-bit codes into dst through lut (inverted when inv).
func (s *stats) codes8(dst []float32, src []byte, inv bool, lut []float32) {
	if len(dst) == 0 {
		return
	}
	src = src[:len(dst)]
	l := (*[256]float32)(lut)
	var flip byte
	if inv {
		flip = 0xff
	}
	lo0, hi0 := byte(0xff), byte(0)
	lo1, hi1 := lo0, hi0
	i := 0
	for ; i+3 < len(dst); i += 4 {
		c := src[i : i+4]
		c0, c1, c2, c3 := c[0]^flip, c[1]^flip, c[2]^flip, c[3]^flip
		lo0, hi0 = min(lo0, c0, c2), max(hi0, c0, c2)
		lo1, hi1 = min(lo1, c1, c3), max(hi1, c1, c3)
		d := dst[i : i+4]
		d[0], d[1], d[2], d[3] = l[c0], l[c1], l[c2], l[c3]
	}
	for ; i < len(dst); i++ {
		c := src[i] ^ flip
		lo0, hi0 = min(lo0, c), max(hi0, c)
		dst[i] = l[c]
	}
	s.minCode, s.maxCode = min(s.minCode, int(lo0), int(lo1)), max(s.maxCode, int(hi0), int(hi1))
}

// floats checks values already in the grid (at grid index k0) and takes their range: two values
// at a time with two pairs of accumulators, non-finite ones only flagged (the grid is then
// refused, its range unused) and looked for one by one afterwards.
func (s *stats) floats(vals []float32, k0 int) {
	const exp = 0x7f800000 // a float's exponent bits: all set for NaN and ±Inf
	lo0, hi0 := s.minKey, s.maxKey
	lo1, hi1 := lo0, hi0
	var odd uint32
	i := 0
	for ; i+1 < len(vals); i += 2 {
		b0, b1 := math.Float32bits(vals[i]), math.Float32bits(vals[i+1])
		odd |= (b0&exp + 1<<23) | (b1&exp + 1<<23) // bit 31 set by an exponent of all ones
		ka, kb := floatKey(b0), floatKey(b1)
		lo0, hi0 = min(lo0, ka), max(hi0, ka)
		lo1, hi1 = min(lo1, kb), max(hi1, kb)
	}
	for ; i < len(vals); i++ {
		b := math.Float32bits(vals[i])
		odd |= b&exp + 1<<23
		k := floatKey(b)
		lo0, hi0 = min(lo0, k), max(hi0, k)
	}
	s.minKey, s.maxKey = min(lo0, lo1), max(hi0, hi1)
	if odd&(1<<31) == 0 {
		return
	}
	for i, v := range vals {
		if math.Float32bits(v)&exp == exp {
			if s.bad < 0 || k0+i < s.bad {
				s.bad = k0 + i
			}
			return
		}
	}
}

// floats32 converts a row of float32 samples stored in order into dst (at grid index k0), checking
// them as floats does.
func (s *stats) floats32(dst []float32, src []byte, order binary.ByteOrder, k0 int) {
	src = src[:4*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(order.Uint32(src[4*i:]))
	}
	s.floats(dst, k0)
}

// gridOut is the grid an import fills, with the lookup table of an integer format and what the
// workers found, merged.
type gridOut struct {
	g   *Grid
	lut []float32 // integer formats; nil for float formats

	mu  sync.Mutex // guards st; taken by workers after each band, never while holding another lock
	st  stats
	cnt atomic.Int64 // rows converted, for a check that every row was written

	rows rowTracker // the complete rows, told to a RowsFunc
}

// rowTracker tells a RowsFunc how many of the grid's first rows are complete, from row ranges
// the decoders report in any order (each row once it holds its final value).
type rowTracker struct {
	fn RowsFunc
	mu sync.Mutex  // guards p; fn is called holding it
	p  *RowsPrefix // allocated only when fn is set
}

// RowsPrefix follows the rows of a grid completed in any order (bands decoded on several
// workers) and says how many of its first rows are complete: what a RowsFunc is told. The imports
// here and a container's read (landscape.OpenWith) use it. Not safe for concurrent use.
type RowsPrefix struct {
	done   []bool // rows reported
	prefix int    // rows 0 … prefix-1 are all done
}

// NewRowsPrefix follows the h rows of a grid.
func NewRowsPrefix(h int) *RowsPrefix { return &RowsPrefix{done: make([]bool, max(h, 0))} }

// Add marks rows y0 … y1-1 complete (rows marked before and rows outside the grid are ignored)
// and returns how many of the first rows are complete, and whether that grew.
func (r *RowsPrefix) Add(y0, y1 int) (int, bool) {
	for y := max(y0, 0); y < min(y1, len(r.done)); y++ {
		r.done[y] = true
	}
	p := r.prefix
	for p < len(r.done) && r.done[p] {
		p++
	}
	grew := p > r.prefix
	r.prefix = p
	return p, grew
}

func newGridOut(g *Grid, lut []float32) *gridOut {
	return &gridOut{g: g, lut: lut, st: newStats()}
}

// hear makes fn hear the complete rows (nil: nobody listens, and rowsDone costs nothing).
func (o *gridOut) hear(fn RowsFunc) {
	if fn != nil {
		o.rows.fn, o.rows.p = fn, NewRowsPrefix(o.g.H)
	}
}

// rowsDone reports rows y0 … y1-1 complete: written, and not written again by the decode. Rows
// reported before are ignored, and so is anything outside the grid.
func (o *gridOut) rowsDone(y0, y1 int) {
	t := &o.rows
	if t.fn == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, grew := t.p.Add(y0, y1); grew {
		t.fn(o.g, p)
	}
}

// add merges a worker's findings about rows rows.
func (o *gridOut) add(s stats, rows int) {
	o.mu.Lock()
	o.st.merge(s)
	o.mu.Unlock()
	o.cnt.Add(int64(rows))
}

// finish refuses a grid with a non-finite value, naming the first (as the import always has),
// and returns the grid's range.
func (o *gridOut) finish(path, kind string) (*Grid, Range, error) {
	st, g := o.st, o.g
	if st.bad >= 0 {
		return nil, Range{}, fmt.Errorf("field: %s: texel (%d, %d) of the %s is %v: samples must be finite", path, st.bad%g.W, st.bad/g.W, kind, g.Data[st.bad])
	}
	if o.lut != nil {
		if st.minCode > st.maxCode {
			return nil, Range{}, fmt.Errorf("field: %s: %s: no rows were decoded", path, kind)
		}
		return g, Range{o.lut[st.minCode], o.lut[st.maxCode]}, nil
	}
	if st.minKey > st.maxKey {
		return nil, Range{}, fmt.Errorf("field: %s: %s: no rows were decoded", path, kind)
	}
	return g, Range{keyFloat(st.minKey), keyFloat(st.maxKey)}, nil
}

// progress reports rows done of total to a caller's func: from one goroutine at a time (it is
// called under mu), with done increasing, at most about 256 times and always at the end.
type progress struct {
	fn          func(done, total int)
	total, step int
	mu          sync.Mutex // guards done and last; fn is called holding it
	done, last  int
}

func newProgress(fn func(done, total int), total int) *progress {
	p := &progress{fn: fn, total: total, step: max(1, total/256)}
	if fn != nil {
		fn(0, total)
	}
	return p
}

// add counts rows more rows done.
func (p *progress) add(rows int) {
	if p == nil || p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = min(p.done+rows, p.total)
	if p.done-p.last >= p.step || (p.done == p.total && p.last != p.total) {
		p.last = p.done
		p.fn(p.done, p.total)
	}
}

// eachTask runs fn(worker, k) for every k in 0 … n-1 on up to GOMAXPROCS goroutines (worker is
// 0 … workers-1, so fn can keep a buffer per worker). The first error, or ctx's (checked before
// each task), stops handing out tasks; it is returned once every goroutine has returned, so
// nothing of the import runs on after it.
func eachTask(ctx context.Context, n int, fn func(worker, k int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	var once sync.Once
	var first error
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				err := ctx.Err()
				if err == nil {
					err = fn(w, k)
					pool.Between() // planes on disk: the residency check (sysmem)
				}
				if err != nil {
					once.Do(func() { first = err })
					failed.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// workerCount is how many goroutines eachTask runs for n tasks, for sizing buffers.
func workerCount(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n)) }
