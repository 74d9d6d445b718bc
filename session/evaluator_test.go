package session

import (
	"image"
	"testing"

	"strata/field"
)

// tileRects covers exactly the tiles' texels, each once, in few rectangles: a block of tiles is
// one, a row of them one, scattered tiles their own.
func TestTileRects(t *testing.T) {
	geo := field.Geometry{WeightsW: 1000, WeightsH: 700}
	all := field.Tiles(&geo, 100, 0)
	pick := func(idx ...int) []field.Tile {
		var out []field.Tile
		for _, i := range idx {
			out = append(out, all[i])
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		tiles []field.Tile
		want  int
	}{
		{"all", all, 1},
		{"a block of 3×2", pick(11, 12, 13, 21, 22, 23), 1},
		{"a row", pick(30, 31, 32, 33, 34, 35, 36, 37, 38, 39), 1},
		{"two apart", pick(0, 5), 2},
		{"an L", pick(0, 1, 10), 2},
		{"out of order", pick(23, 11, 22, 13, 12, 21), 1},
	} {
		rects := tileRects(&geo, tc.tiles)
		if len(rects) != tc.want {
			t.Errorf("%s: %d rectangles %v, want %d", tc.name, len(rects), rects, tc.want)
		}
		covered := map[image.Point]int{}
		for _, r := range rects {
			for j := r.Min.Y; j < r.Max.Y; j += 10 {
				for i := r.Min.X; i < r.Max.X; i += 10 {
					covered[image.Pt(i, j)]++
				}
			}
		}
		want := map[image.Point]int{}
		for _, t := range tc.tiles {
			for j := t.J0; j < t.J0+t.H; j += 10 {
				for i := t.I0; i < t.I0+t.W; i += 10 {
					want[image.Pt(i, j)]++
				}
			}
		}
		if len(covered) != len(want) {
			t.Errorf("%s: %d sample points covered, want %d", tc.name, len(covered), len(want))
		}
		for p, n := range covered {
			if n != 1 || want[p] != 1 {
				t.Errorf("%s: point %v covered %d times (in the tiles: %d)", tc.name, p, n, want[p])
				break
			}
		}
	}
}
