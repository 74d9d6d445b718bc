package landscape_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"strata/field"
	"strata/landscape"
)

// OpenWith tells the height's complete rows as its blocks land (in any order), each told row
// already final, up to the last; and Progress counts the rows of every child streamed, to the
// whole. Cancelled after the first block, it fails wrapping the context's error.
func TestOpenWithTellsRows(t *testing.T) {
	path := planesContainer(t)
	whole, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var told []int
	var early []float32 // the rows told, as they were when told
	var last, total int
	var rng field.Range
	l, err := landscape.OpenWith(context.Background(), path, landscape.OpenOptions{
		Range:    &rng,
		Progress: func(done, n int) { last, total = done, n },
		Rows: func(g *field.Grid, done int) {
			from := 0
			if len(told) > 0 {
				from = told[len(told)-1]
			}
			told = append(told, done)
			early = append(early, g.Data[from*g.W:done*g.W]...)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := l.Field.Height
	if len(told) == 0 || told[len(told)-1] != h.H || !slices.IsSorted(told) {
		t.Errorf("rows told %v, want increasing to %d", told, h.H)
	}
	if !slices.Equal(early, whole.Field.Height.Data) {
		t.Error("a row told complete changed after it was told")
	}
	if lo, hi := h.MinMax(); rng != (field.Range{Min: lo, Max: hi}) {
		t.Errorf("the range found while reading %v, the grid's %v…%v", rng, lo, hi)
	}
	// height, holes, the mask, two controls and the population's density: 6 children of 256 rows.
	if last != total || total != 6*h.H {
		t.Errorf("progress ended at %d of %d rows, want %d", last, total, 6*h.H)
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, err = landscape.OpenWith(ctx, path, landscape.OpenOptions{Rows: func(*field.Grid, int) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after the first rows: %v", err)
	}
}
