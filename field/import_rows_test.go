package field

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// rowsWatch is a RowsFunc that holds an import to its promise: one call at a time, done
// increasing within the grid, and the rows it reports already final (a copy taken at the report
// is compared with the grid the import returns).
type rowsWatch struct {
	active atomic.Int32
	calls  int
	done   int
	g      *Grid
	seen   []float32 // rows 0 … done-1 as they were when reported
	err    error
}

func (r *rowsWatch) fn(g *Grid, done int) {
	if r.active.Add(1) != 1 && r.err == nil {
		r.err = fmt.Errorf("rows heard from two goroutines at once")
	}
	defer r.active.Add(-1)
	switch {
	case r.err != nil:
	case r.g != nil && g != r.g:
		r.err = fmt.Errorf("rows of two grids")
	case done <= r.done || done > g.H:
		r.err = fmt.Errorf("rows done went %d → %d of %d", r.done, done, g.H)
	default:
		r.g = g
		r.seen = append(r.seen, g.Data[r.done*g.W:done*g.W]...)
		r.done = done
		r.calls++
	}
}

// check compares what was reported with the grid the import returned (g nil: it failed).
func (r *rowsWatch) check(g *Grid) error {
	if r.err != nil || g == nil {
		return r.err
	}
	if r.g != g || r.done != g.H {
		return fmt.Errorf("rows done %d of %d at the end (same grid %v)", r.done, g.H, r.g == g)
	}
	for k, v := range g.Data {
		if math.Float32bits(r.seen[k]) != math.Float32bits(v) {
			return fmt.Errorf("texel (%d, %d) was %v when its row was reported, %v at the end", k%g.W, k/g.W, r.seen[k], v)
		}
	}
	return nil
}

// inOrder are the cases decoded by one goroutine from the first row to the last (PNG not
// interlaced, TIFF in one strip): in small pieces they report their rows band by band. (Bands,
// strips and blocks on several workers may finish in any order, and one that finishes last may
// complete every row at once.)
var inOrder = map[string]bool{"h16.png": true, "h8.png": true,
	"png16.png": true, "deflate16.tif": true, "none16.tif": true, "none8.tif": true, "deflatepred.tif": true}

// TestRowsDone: every kind of file, whole and in small pieces, reports its complete rows in
// order, ending at the last, each row final when reported; files decoded in order report them
// band by band before the end.
func TestRowsDone(t *testing.T) {
	cases := streamCases(t)
	for _, pieces := range []bool{false, true} {
		if pieces {
			smallPieces(t)
		}
		for name, b := range cases {
			ext := filepath.Ext(name)
			spec := heightSpec(rawSizes[name], DefaultRange)
			var w rowsWatch
			spec.rows = w.fn
			g, _, err := importFrom(context.Background(), name, bytes.NewReader(b), int64(len(b)), ext, spec, nil)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if err := w.check(g); err != nil {
				t.Errorf("%s (small pieces %v): %v", name, pieces, err)
			}
			if pieces && inOrder[name] && w.calls < 2 {
				t.Errorf("%s in small pieces: its %d rows reported in %d call", name, g.H, w.calls)
			}
		}
	}
}

// RowsPrefix: bands in any order, overlapping, repeated or outside the grid; the prefix grows
// only when the rows above a band are there.
func TestRowsPrefix(t *testing.T) {
	r := NewRowsPrefix(10)
	for _, tc := range []struct {
		y0, y1 int
		want   int
		grew   bool
	}{
		{4, 6, 0, false},  // a band below a gap
		{-3, 2, 2, true},  // from above the grid
		{2, 3, 3, true},   //
		{3, 4, 6, true},   // fills the gap: the band below counts now
		{3, 5, 6, false},  // again
		{8, 20, 6, false}, // past the grid's end
		{6, 8, 10, true},  // the last gap
	} {
		if got, grew := r.Add(tc.y0, tc.y1); got != tc.want || grew != tc.grew {
			t.Errorf("Add(%d, %d) = %d, %v; want %d, %v", tc.y0, tc.y1, got, grew, tc.want, tc.grew)
		}
	}
}
