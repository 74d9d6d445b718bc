package viewport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"strata/exr"
	"strata/field"
	"strata/landscape"
	"strata/noise"
)

// sameTree reports the first node where two trees differ (bounds and errors compared bit for
// bit, so even a −0 for a +0 counts).
func sameTree(got, want *lodTree) error {
	if got.w != want.w || got.h != want.h || got.levels != want.levels || got.rootCells != want.rootCells {
		return fmt.Errorf("tree %d×%d, %d levels, root %d cells; want %d×%d, %d levels, root %d cells",
			got.w, got.h, got.levels, got.rootCells, want.w, want.h, want.levels, want.rootCells)
	}
	for l := range want.levels {
		for k := range want.minH[l] {
			for _, v := range [3]struct {
				name string
				a, b float32
			}{{"min", got.minH[l][k], want.minH[l][k]}, {"max", got.maxH[l][k], want.maxH[l][k]}, {"error", got.err[l][k], want.err[l][k]}} {
				if math.Float32bits(v.a) != math.Float32bits(v.b) {
					n := 1 << l
					return fmt.Errorf("level %d node (%d, %d): %s %v, want %v", l, k%n, k/n, v.name, v.a, v.b)
				}
			}
		}
	}
	return nil
}

// roughGrid is a w×h grid of rough heights with both zeros here and there.
func roughGrid(w, h int, seed uint64) *gridSource {
	g := &gridSource{w: w, h: h, data: make([]float32, w*h)}
	r := rand.New(rand.NewPCG(seed, 15))
	for j := range h {
		for i := range w {
			v := 40*noise.FBM(float32(i), float32(j), 60, 3, 1) + float32(r.IntN(100))/50
			switch r.IntN(97) {
			case 0:
				v = 0
			case 1:
				v = float32(math.Copysign(0, -1))
			}
			g.data[j*w+i] = v
		}
	}
	return g
}

// build feeds g's rows to a TreeBuilder in random bands (one call at a time, as an import makes
// them) and returns its tree.
func build(t *testing.T, g *gridSource, r *rand.Rand) *lodTree {
	t.Helper()
	b, err := NewTreeBuilder(g.w, g.h, g.HeightRow)
	if err != nil {
		t.Fatal(err)
	}
	for done := 0; done < g.h; {
		done = min(g.h, done+1+r.IntN(max(1, g.h/5)))
		b.Rows(done)
	}
	tr, err := b.Tree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b.Stop() // after the tree: nothing left to stop
	return tr.t
}

// outsideEmpty checks a whole tree over g against update over the whole grid, which computes the
// nodes whose vertices reach the grid: those are the same to the bit, every other node is empty
// (min > max, no error), and the root's bounds are the grid's lowest and highest height.
func outsideEmpty(tr *lodTree, g *gridSource) error {
	old := allocLODTree(g.w, g.h)
	old.update(g, 0, 0, g.w, g.h)
	for l := range tr.levels {
		n := 1 << l
		span := tr.rootCells >> l
		for k := range tr.minH[l] {
			ci, cj := k%n, k/n
			a := [3]float32{tr.minH[l][k], tr.maxH[l][k], tr.err[l][k]}
			if ci*span >= g.w-1 || cj*span >= g.h-1 {
				if !(a[0] > a[1]) || a[2] != 0 {
					return fmt.Errorf("level %d node (%d, %d) lies outside the grid: bounds %v…%v, error %v", l, ci, cj, a[0], a[1], a[2])
				}
				continue
			}
			b := [3]float32{old.minH[l][k], old.maxH[l][k], old.err[l][k]}
			if math.Float32bits(a[0]) != math.Float32bits(b[0]) || math.Float32bits(a[1]) != math.Float32bits(b[1]) || math.Float32bits(a[2]) != math.Float32bits(b[2]) {
				return fmt.Errorf("level %d node (%d, %d): %v, update over the grid %v", l, ci, cj, a, b)
			}
		}
	}
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for _, v := range g.data {
		lo, hi = min(lo, v), max(hi, v)
	}
	if tr.minH[0][0] != lo || tr.maxH[0][0] != hi {
		return fmt.Errorf("root bounds %v…%v, the grid's %v…%v", tr.minH[0][0], tr.maxH[0][0], lo, hi)
	}
	return nil
}

// TestTreeBuilderIsTheTree: the tree built as the rows arrive, in bands of any size, is the tree
// built at once over the whole grid, and that is the tree update builds over it where its
// nodes reach the grid (outsideEmpty) — square and not, sides near a power of two and far from
// one, down to 2×2.
func TestTreeBuilderIsTheTree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 15))
	for _, sz := range [][2]int{{2, 2}, {33, 33}, {65, 40}, {300, 300}, {257, 129}, {1000, 90}, {90, 1000}, {1025, 1025}} {
		g := roughGrid(sz[0], sz[1], uint64(sz[0]*sz[1]))
		want := newLODTree(g)
		if err := outsideEmpty(want, g); err != nil {
			t.Errorf("%d×%d: %v", g.w, g.h, err)
		}
		for k := range 3 {
			if err := sameTree(build(t, g, r), want); err != nil {
				t.Errorf("%d×%d, bands %d: %v", g.w, g.h, k, err)
			}
		}
	}
}

// TestTreeBuilderStops: a builder stopped before every row arrived, or waited on with a
// cancelled context, returns no tree and leaves no goroutine; a tree asked for before every row
// arrived is refused; a tree of another grid is refused by the scene.
func TestTreeBuilderStops(t *testing.T) {
	g := roughGrid(300, 200, 1)
	b, err := NewTreeBuilder(g.w, g.h, g.HeightRow)
	if err != nil {
		t.Fatal(err)
	}
	b.Rows(120)
	b.Stop()
	b.Stop()
	if tr, err := b.Tree(context.Background()); tr != nil || err == nil {
		t.Errorf("a stopped build: tree %v, err %v", tr != nil, err)
	}

	b, _ = NewTreeBuilder(g.w, g.h, g.HeightRow)
	b.Rows(150)
	if tr, err := b.Tree(context.Background()); tr != nil || err == nil {
		t.Errorf("150 of 200 rows: tree %v, err %v", tr != nil, err)
	}

	b, _ = NewTreeBuilder(g.w, g.h, g.HeightRow)
	b.Rows(g.h)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if tr, err := b.Tree(ctx); err == nil {
		// The build may have finished first; the tree is then whole.
		if err := sameTree(tr.t, newLODTree(g)); err != nil {
			t.Error(err)
		}
	} else if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}

	if _, err := NewTreeBuilder(1, 5, g.HeightRow); err == nil {
		t.Error("a 1×5 grid was accepted")
	}

	b, _ = NewTreeBuilder(g.w, g.h, g.HeightRow)
	b.Rows(g.h)
	tr, err := b.Tree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := heightScene(120, 100, func(x, z float64) float64 { return x })
	s.Tree = tr
	if err := s.Validate(); err == nil {
		t.Error("a scene took the tree of another grid")
	}
}

// TestTreeBuilderEachFormat: a heightmap of every format the editor opens progressively, read by
// landscape.LoadFieldRows with its complete rows going to a TreeBuilder as they arrive, gives the
// tree SetScene builds over the field it read.
func TestTreeBuilderEachFormat(t *testing.T) {
	src := roughGrid(517, 263, 7)
	g := &field.Grid{W: src.w, H: src.h, Data: src.data}
	for k, v := range g.Data {
		g.Data[k] = float32(math.Abs(float64(v))) // integer formats: codes of a range
	}
	rng := [2]float64{0, 80}
	dir := t.TempDir()
	files := map[string]func(io.Writer) error{
		"h.png": func(w io.Writer) error { return field.EncodePNG16(w, g, rng) },
		"h.r16": func(w io.Writer) error { return field.EncodeR16(w, g, rng) },
		"h.f32": func(w io.Writer) error { return field.EncodeF32(w, g) },
		"h.tif": func(w io.Writer) error { return field.EncodeTIFF16(w, g, rng) },
		"f.tif": func(w io.Writer) error { return field.EncodeTIFFFloat(w, g) },
		"h.exr": func(w io.Writer) error {
			return exr.Encode(w, &exr.Image{Width: g.W, Height: g.H, Channels: []string{"Y"}, Data: [][]float32{g.Data}}, exr.ZIP)
		},
	}
	for name, enc := range files {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		var b *TreeBuilder
		var calls int
		fl, _, err := landscape.LoadFieldRows(context.Background(), path, field.ImportOptions{Range: rng, Size: [2]int{g.W, g.H}}, nil, nil,
			func(grid *field.Grid, done int) {
				if b == nil {
					var berr error
					if b, berr = NewTreeBuilder(grid.W, grid.H, func(j int) []float32 { return grid.Data[j*grid.W : (j+1)*grid.W] }); berr != nil {
						t.Error(berr)
						return
					}
				}
				calls++
				b.Rows(done)
			})
		if err != nil || b == nil {
			t.Fatalf("%s: %v (builder %v)", name, err, b != nil)
		}
		tr, err := b.Tree(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h := fl.Height
		if err := sameTree(tr.t, newLODTree(&gridSource{w: h.W, h: h.H, data: h.Data})); err != nil {
			t.Errorf("%s (%d reports of rows): %v", name, calls, err)
		}
	}
}

// TestLeafRow: a row of leaves computed row by row has leafNode's bounds, node by node, to the
// bit — on grids whose last leaves reach past the edge and whose last rows are outside.
func TestLeafRow(t *testing.T) {
	for _, sz := range [][2]int{{2, 2}, {33, 34}, {64, 65}, {97, 41}, {300, 211}} {
		g := roughGrid(sz[0], sz[1], 9)
		a, b := allocLODTree(g.w, g.h), allocLODTree(g.w, g.h)
		row := func(j int) []float32 { return g.HeightRow(min(j, g.h-1)) }
		leaf := a.levels - 1
		n := 1 << leaf
		for cj := range a.nodeRows(leaf) {
			a.leafRow(row, cj)
			for ci := range a.nodeCols(leaf) {
				b.leafNode(row, ci, cj, n)
			}
		}
		if err := sameTree(a, b); err != nil {
			t.Errorf("%d×%d: %v", g.w, g.h, err)
		}
	}
}
