package session

import (
	"image"
	"testing"

	"strata/field"
)

// The height's range kept by blocks of texels follows edits of a rectangle — growing above the top,
// and shrinking when the highest texel is lowered — as a whole read of the grid gives it.
func TestBandRangesFollowEdits(t *testing.T) {
	g := field.SampleDunesSized(600).Height // 10×10 blocks of 64², the last ones short
	var b bandRanges
	if got, want := b.update(g, image.Rectangle{}), gridRange(g); got != want {
		t.Fatalf("first update %v, the grid's range %v", got, want)
	}
	top := 0
	for k, v := range g.Data {
		if v > g.Data[top] {
			top = k
		}
	}
	edits := []struct {
		k int
		v float32
	}{
		{300*600 + 10, 500},      // above the top, in a middle block
		{300*600 + 10, -40},      // the new top lowered below the bottom: the range shrinks back
		{top, g.Data[top] - 100}, // the original top lowered: the top comes from another texel
		{599*600 + 599, 1e4},     // the last texel, the last (short) block
	}
	for _, e := range edits {
		g.Data[e.k] = e.v
		i, j := e.k%g.W, e.k/g.W
		if got, want := b.update(g, image.Rect(i, j, i+1, j+1)), gridRange(g); got != want {
			t.Fatalf("after texel %d = %v: the kept range is %v, the grid's %v", e.k, e.v, got, want)
		}
	}
	// A dab's rectangle across blocks, raised far above the top and then sunk below the bottom.
	r := image.Rect(50, 200, 170, 330)
	for _, d := range []float32{2e4, -5e4} {
		for j := r.Min.Y; j < r.Max.Y; j++ {
			for i := r.Min.X; i < r.Max.X; i++ {
				g.Data[j*g.W+i] += d * float32((i+j)%7) / 7
			}
		}
		if got, want := b.update(g, r), gridRange(g); got != want {
			t.Fatalf("after a rectangle %v moved by up to %v: the kept range is %v, the grid's %v", r, d, got, want)
		}
	}
}
