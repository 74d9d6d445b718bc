package field

import (
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// tileCase is a geometry to cut: height grid, weights grid and a gradient step.
type tileCase struct {
	desc   string
	p      Placement
	hw, hh int
	ww, wh int
	g      float32
	ts     int
}

var tileCases = []tileCase{
	{"square, weights = height, g = texel", Placement{Size: [2]float64{200, 200}}, 100, 100, 100, 100, 2, 32},
	{"non-square texels, coarse weights", Placement{Size: [2]float64{300, 120}, Origin: [2]float64{1000, -500}}, 150, 40, 75, 50, 5, 16},
	{"fine weights over coarse height", Placement{Size: [2]float64{64, 64}, Origin: [2]float64{-3.3, 7.1}}, 16, 16, 203, 197, 0.7, 64},
	{"large g, small tiles", Placement{Size: [2]float64{1000, 800}}, 97, 83, 123, 91, 45, 8},
	{"g = 0", Placement{Size: [2]float64{10, 10}}, 10, 10, 10, 10, 0, 3},
	{"one tile for everything", Placement{Size: [2]float64{4000, 4000}}, 125, 125, 125, 125, 32, 256},
	{"far from the origin", Placement{Size: [2]float64{512, 512}, Origin: [2]float64{1e5, -2e5}}, 64, 64, 128, 128, 8, 32},
}

func TestTilesCoverOnce(t *testing.T) {
	for _, tc := range tileCases {
		geo := mustGeo(t, tc.p, tc.hw, tc.hh, tc.ww, tc.wh)
		count := make([]int, tc.ww*tc.wh)
		for k, tile := range Tiles(&geo, tc.ts, tc.g) {
			if tile.Index != k {
				t.Errorf("%s: tile %d has Index %d", tc.desc, k, tile.Index)
			}
			if at, ok := TileAt(&geo, tc.ts, tc.g, k); !ok || at != tile {
				t.Errorf("%s: TileAt(%d) = %+v, %v; want %+v", tc.desc, k, at, ok, tile)
			}
			if tile.BufI0 < 0 || tile.BufJ0 < 0 || tile.BufI0+tile.BufW > tc.hw || tile.BufJ0+tile.BufH > tc.hh || tile.BufW < 1 || tile.BufH < 1 {
				t.Errorf("%s: tile %d buffer %+v outside the %d×%d grid", tc.desc, k, tile, tc.hw, tc.hh)
			}
			for j := tile.J0; j < tile.J0+tile.H; j++ {
				for i := tile.I0; i < tile.I0+tile.W; i++ {
					count[j*tc.ww+i]++
				}
			}
		}
		for k, c := range count {
			if c != 1 {
				t.Fatalf("%s: weights texel (%d, %d) is in %d tiles, want 1", tc.desc, k%tc.ww, k/tc.ww, c)
			}
		}
	}
}

// TestApronHoldsEveryTap is the property the seam guarantee rests on: for every tile and every
// texel in it, each of the five taps (centre, ±g on x and z) reads grid indices — after the grid
// clamp — inside the tile's buffer, and the tile-buffer sampler returns bit-identical values to
// the whole-grid sampler.
func TestApronHoldsEveryTap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	cases := slices.Clone(tileCases)
	for k := 0; k < 40; k++ {
		p := Placement{
			Size:   [2]float64{10 + r.Float64()*2000, 10 + r.Float64()*2000},
			Origin: [2]float64{(r.Float64() - 0.5) * 1e4, (r.Float64() - 0.5) * 1e4},
		}
		hw, hh := 2+r.IntN(90), 2+r.IntN(90)
		ww, wh := 1+r.IntN(150), 1+r.IntN(150)
		g := float32(r.Float64() * 4 * p.Size[0] / float64(hw))
		cases = append(cases, tileCase{"random", p, hw, hh, ww, wh, g, 1 + r.IntN(40)})
	}
	for _, tc := range cases {
		geo := mustGeo(t, tc.p, tc.hw, tc.hh, tc.ww, tc.wh)
		grid := NewGrid(tc.hw, tc.hh)
		for k := range grid.Data {
			grid.Data[k] = r.Float32() * 100
		}
		whole := geo.Sampler(grid)
		for _, tile := range Tiles(&geo, tc.ts, tc.g) {
			buf := grid.Region(tile.BufI0, tile.BufJ0, tile.BufW, tile.BufH)
			bs := geo.BufferSampler(buf, tile)
			rs := geo.RegionSampler(grid, tile.BufI0, tile.BufJ0, tile.BufW, tile.BufH)
			for j := tile.J0; j < tile.J0+tile.H; j++ {
				for i := tile.I0; i < tile.I0+tile.W; i++ {
					px, pz := geo.WeightPos(i, j)
					for _, tap := range [][2]float32{{px, pz}, {px + tc.g, pz}, {px - tc.g, pz}, {px, pz + tc.g}, {px, pz - tc.g}} {
						for k, lim := range [2][3]int{{tile.BufI0, tile.BufW, tc.hw}, {tile.BufJ0, tile.BufH, tc.hh}} {
							u := float32((tap[k]-geo.FieldMin[k])*geo.InvHTexel[k]) - 0.5
							f := int(math.Floor(float64(u)))
							for _, idx := range []int{f, f + 1} {
								idx = min(max(idx, 0), lim[2]-1)
								if idx < lim[0] || idx >= lim[0]+lim[1] {
									t.Fatalf("%s: tile %+v texel (%d, %d) tap %v reads index %d on axis %d outside the buffer", tc.desc, tile, i, j, tap, idx, k)
								}
							}
						}
						want := whole.Bilinear(tap[0], tap[1])
						if got := bs.Bilinear(tap[0], tap[1]); math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("%s: tile %d buffer tap %v = %v, whole grid %v", tc.desc, tile.Index, tap, got, want)
						}
						if got := rs.Bilinear(tap[0], tap[1]); math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("%s: tile %d region tap %v = %v, whole grid %v", tc.desc, tile.Index, tap, got, want)
						}
					}
				}
			}
		}
	}
}

func TestRegion(t *testing.T) {
	g := NewGrid(5, 4)
	for k := range g.Data {
		g.Data[k] = float32(k)
	}
	tests := []struct {
		desc         string
		i0, j0, w, h int
		wantW, wantH int
		wantFirst    float32
		wantNil      bool
	}{
		{"inside", 1, 1, 2, 2, 2, 2, 6, false},
		{"whole", 0, 0, 5, 4, 5, 4, 0, false},
		{"hangs over the max edge", 3, 2, 10, 10, 2, 2, 13, false},
		{"hangs over the min edge", -2, -1, 4, 3, 2, 2, 0, false},
		{"misses", 7, 0, 2, 2, 0, 0, 0, true},
	}
	for _, tc := range tests {
		r := g.Region(tc.i0, tc.j0, tc.w, tc.h)
		if tc.wantNil {
			if r != nil {
				t.Errorf("%s: got %+v, want nil", tc.desc, r)
			}
			continue
		}
		if r.W != tc.wantW || r.H != tc.wantH || r.Data[0] != tc.wantFirst || len(r.Data) != r.W*r.H {
			t.Errorf("%s: got %d×%d first %v, want %d×%d first %v", tc.desc, r.W, r.H, r.Data[0], tc.wantW, tc.wantH, tc.wantFirst)
		}
	}
}

func TestDirtySet(t *testing.T) {
	p := Placement{Size: [2]float64{1024, 512}} // min (-512, -256)
	geo := mustGeo(t, p, 512, 256, 512, 256)    // 2 m texels
	const ts = 64                               // 8×4 tiles of 128 m
	tests := []struct {
		desc           string
		x0, z0, x1, z1 float64
		want           []int
	}{
		{"inside one tile", -500, -250, -490, -240, []int{0}},
		{"corners in any order", -490, -240, -500, -250, []int{0}},
		{"near a seam reaches over by g", -387, -250, -386, -240, []int{0, 1}},
		{"spans two rows", 10, -10, 20, 10, []int{12, 20}},
		{"outside the field", 5000, 5000, 5100, 5100, nil},
		{"just outside the edge still reaches in", -520, -250, -515, -240, []int{0}},
		{"NaN marks all", math.NaN(), 0, 0, 0, seq(32)},
	}
	for _, tc := range tests {
		d := NewDirtySet(geo, ts, 4)
		d.MarkRect(tc.x0, tc.z0, tc.x1, tc.z1)
		if got := d.Drain(); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("%s: marked %v, want %v", tc.desc, got, tc.want)
		}
		if d.Len() != 0 {
			t.Errorf("%s: Len after Drain = %d", tc.desc, d.Len())
		}
	}

	d := NewDirtySet(geo, ts, 4)
	d.Mark(5)
	d.Mark(3)
	d.Mark(5)
	d.Mark(-1)
	d.Mark(1000)
	if d.Len() != 2 {
		t.Errorf("Len = %d, want 2", d.Len())
	}
	if got := d.Drain(); !slices.Equal(got, []int{3, 5}) {
		t.Errorf("Drain = %v, want [3 5]", got)
	}
	d.MarkAll()
	if got := d.Drain(); !slices.Equal(got, seq(32)) {
		t.Errorf("MarkAll then Drain = %v", got)
	}

	// concurrent marking and draining loses nothing
	var wg sync.WaitGroup
	seen := make([]bool, 32)
	var mu sync.Mutex
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := w; k < 32; k += 4 {
				d.Mark(k)
				if k%3 == 0 {
					got := d.Drain()
					mu.Lock()
					for _, i := range got {
						seen[i] = true
					}
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	for _, i := range d.Drain() {
		seen[i] = true
	}
	for k, s := range seen {
		if !s {
			t.Errorf("tile %d marked concurrently was lost", k)
		}
	}
}

// TestDirtyRectCoversTaps checks MarkRect against the apron: an edit inside a rectangle must mark
// every tile whose buffer-read taps could see an edited height texel.
func TestDirtyRectCoversTaps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range tileCases {
		geo := mustGeo(t, tc.p, tc.hw, tc.hh, tc.ww, tc.wh)
		tiles := Tiles(&geo, tc.ts, tc.g)
		for k := 0; k < 20; k++ {
			// edit one height texel: its cell is the rectangle
			hi, hj := r.IntN(tc.hw), r.IntN(tc.hh)
			x0 := float64(geo.FieldMin[0]) + float64(hi)*float64(geo.HTexel[0])
			z0 := float64(geo.FieldMin[1]) + float64(hj)*float64(geo.HTexel[1])
			d := NewDirtySet(geo, tc.ts, tc.g)
			d.MarkRect(x0, z0, x0+float64(geo.HTexel[0]), z0+float64(geo.HTexel[1]))
			marked := d.Drain()
			grid := NewGrid(tc.hw, tc.hh)
			grid.Set(hi, hj, 1)
			s := geo.Sampler(grid)
			for _, tile := range tiles {
				if slices.Contains(marked, tile.Index) {
					continue
				}
				for j := tile.J0; j < tile.J0+tile.H; j++ {
					for i := tile.I0; i < tile.I0+tile.W; i++ {
						px, pz := geo.WeightPos(i, j)
						for _, tap := range [][2]float32{{px, pz}, {px + tc.g, pz}, {px - tc.g, pz}, {px, pz + tc.g}, {px, pz - tc.g}} {
							if s.Bilinear(tap[0], tap[1]) != 0 {
								t.Fatalf("%s: edit of texel (%d, %d) changes tile %d, which MarkRect left clean (marked %v)", tc.desc, hi, hj, tile.Index, marked)
							}
						}
					}
				}
			}
		}
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for k := range s {
		s[k] = k
	}
	return s
}

// TestDirtySetParts: a tile marked only by rectangles drains with the texels they reached in it;
// marked whole any other way (before or after), it drains whole.
func TestDirtySetParts(t *testing.T) {
	p := Placement{Size: [2]float64{1024, 512}} // min (-512, -256)
	geo := mustGeo(t, p, 512, 256, 512, 256)    // 2 m texels
	const ts = 64
	d := NewDirtySet(geo, ts, 4)
	want, _ := d.TexelRect(-500, -250, -490, -240)
	d.MarkRect(-500, -250, -490, -240)
	idx, parts := d.DrainParts()
	if !slices.Equal(idx, []int{0}) || parts[0] != want {
		t.Fatalf("one rectangle: %v %v, want [0] [%v]", idx, parts, want)
	}
	if want.Empty() || want.Dx() >= ts {
		t.Fatalf("the rectangle's texels %v: want a part of the tile", want)
	}
	// Two rectangles in one tile: their union; one over a seam: each tile's share.
	d.MarkRect(-500, -250, -490, -240)
	d.MarkRect(-460, -200, -450, -190)
	r2, _ := d.TexelRect(-460, -200, -450, -190)
	d.MarkRect(-387, -150, -386, -140)
	seam, _ := d.TexelRect(-387, -150, -386, -140)
	idx, parts = d.DrainParts()
	if !slices.Equal(idx, []int{0, 1}) || parts[0] != want.Union(r2).Union(seam.Intersect(image.Rect(0, 0, ts, ts))) ||
		parts[1] != seam.Intersect(image.Rect(ts, 0, 2*ts, ts)) {
		t.Errorf("union and seam: %v %v", idx, parts)
	}
	// Whole, then a rectangle; a rectangle, then whole; MarkAll.
	d.Mark(0)
	d.MarkRect(-500, -250, -490, -240)
	d.MarkRect(-387, -150, -386, -140)
	d.Mark(1)
	d.MarkRect(10, -10, 20, 10)
	d.MarkAll()
	if idx, parts = d.DrainParts(); len(idx) != 32 {
		t.Fatalf("MarkAll drained %d tiles", len(idx))
	}
	for k, r := range parts {
		if !r.Empty() {
			t.Errorf("tile %d drained as part %v after being marked whole", idx[k], r)
		}
	}
	// TilePart: the tile's index, the texels inside it, a buffer within the tile's.
	tile, _ := TileAt(&geo, ts, 4, 0)
	part := TilePart(&geo, tile, want, 4)
	if part.Index != 0 || image.Rect(part.I0, part.J0, part.I0+part.W, part.J0+part.H) != want {
		t.Errorf("TilePart = %+v, want the texels %v of tile 0", part, want)
	}
	if part.BufI0 < tile.BufI0 || part.BufJ0 < tile.BufJ0 || part.BufI0+part.BufW > tile.BufI0+tile.BufW || part.BufJ0+part.BufH > tile.BufJ0+tile.BufH || part.BufW >= tile.BufW {
		t.Errorf("TilePart's buffer %+v, the tile's %+v", part, tile)
	}
	if got := TilePart(&geo, tile, image.Rectangle{}, 4); got != tile {
		t.Errorf("TilePart of nothing = %+v, want the tile", got)
	}
}
