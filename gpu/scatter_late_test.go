package gpu

import (
	"context"
	"encoding/binary"
	"testing"

	"strata/field"
	"strata/scatter"
	"strata/stack"
)

// readCounter is the kernel's device count of its pool (Counter).
func readCounter(t *testing.T, k *ScatterKernel) int {
	t.Helper()
	b, err := k.dev.ReadBuffer(k.Counter(), 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	return int(binary.LittleEndian.Uint32(b))
}

// TestScatterPlaceTilesCountLate: PlaceTiles runs that do not wait for their count (CountLate)
// leave the same instances as runs that do — bit for bit, the Go reference's whole placement —
// with the pool's count on the device (Counter) from the first, the host's Count a run late, a
// pool that never overflowed, and a count the next run reads exact.
func TestScatterPlaceTilesCountLate(t *testing.T) {
	ss := newScatterSetup(t, 200, stack.StressStack())
	p := ss.params()
	tiles := ss.tiles(64)
	job := PlaceJob{Params: p, Geometry: &ss.fg, Height: ss.f.Height, Tiles: tiles}
	n0, err := ss.k.Place(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	// Raise the density of a few tiles one run at a time, as a stroke's dabs do.
	edits := []int{5, 6, 9, 10}
	counts := []int{n0}
	grows := ss.k.Grows()
	for _, e := range edits {
		edit := tiles[e]
		ss.raiseTile(t, p, edit)
		late := job
		late.Tiles, late.CountLate = []field.Tile{edit}, true
		n, err := ss.k.PlaceTiles(context.Background(), late)
		if err != nil {
			t.Fatal(err)
		}
		if n != ss.k.Count() {
			t.Errorf("PlaceTiles returned %d, Count %d", n, ss.k.Count())
		}
		dev := readCounter(t, ss.k) // waits for the run: its late count has landed or is ready to
		counts = append(counts, dev)
		if dev > ss.k.Capacity() || ss.k.Bound() < dev || ss.k.Bound() > ss.k.Capacity() {
			t.Errorf("edit %d: %d instances on the device, bound %d, capacity %d", e, dev, ss.k.Bound(), ss.k.Capacity())
		}
		if ss.k.Exact() && n != dev {
			t.Errorf("edit %d: an exact count %d, the device holds %d", e, n, dev)
		}
		if n > dev {
			t.Errorf("edit %d: the host's count %d is past the device's %d (the density only grew)", e, n, dev)
		}
	}
	if ss.k.Grows() != grows {
		t.Errorf("the late runs grew the pool %d times (a late run never overflows)", ss.k.Grows()-grows)
	}
	if ss.k.LateCounts() < len(edits)-1 {
		t.Errorf("%d late counts read back over %d runs (each run reads those that came in)", ss.k.LateCounts(), len(edits))
	}
	last := counts[len(counts)-1]
	if counts[1] <= n0 || last <= counts[1] {
		t.Errorf("counts %v: the raised density added nothing", counts)
	}
	got, err := ss.k.ReadMatrices() // settles the count first
	if err != nil {
		t.Fatal(err)
	}
	if !ss.k.Exact() || ss.k.Count() != last || len(got) != 16*last {
		t.Errorf("after Settle: exact %v, Count %d, %d matrices; the device holds %d", ss.k.Exact(), ss.k.Count(), len(got)/16, last)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(got), ss.goPlace(t, p, 128)); i >= 0 {
		t.Errorf("GPU pool after late PlaceTiles differs from the Go reference's whole placement at float %d", i)
	}

	// A run that waits after late ones: exact at once, the same set.
	late := job
	late.Tiles, late.CountLate = []field.Tile{tiles[5]}, true
	if _, err := ss.k.PlaceTiles(context.Background(), late); err != nil {
		t.Fatal(err)
	}
	job.Tiles = []field.Tile{tiles[6]}
	n, err := ss.k.PlaceTiles(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if !ss.k.Exact() || n != last || readCounter(t, ss.k) != last {
		t.Errorf("a waiting run after a late one: exact %v, %d instances, want %d", ss.k.Exact(), n, last)
	}
	if got, err = ss.k.ReadMatrices(); err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(got), ss.goPlace(t, p, 128)); i >= 0 {
		t.Errorf("GPU pool after a waiting run differs from the Go reference at float %d", i)
	}
}

// TestScatterPlaceEmptyClearsCounter: a run that places nothing leaves a pool whose counter says
// 0 (the viewport draws by it), after a run that placed instances in that pool.
func TestScatterPlaceEmptyClearsCounter(t *testing.T) {
	ss := newScatterSetup(t, 200, stack.StressStack())
	p := ss.params()
	job := PlaceJob{Params: p, Geometry: &ss.fg, Height: ss.f.Height, Tiles: ss.tiles(64)}
	for range 2 { // both pools hold instances
		if _, err := ss.k.Place(context.Background(), job); err != nil {
			t.Fatal(err)
		}
	}
	job.Tiles = nil
	n, err := ss.k.Place(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if c := readCounter(t, ss.k); n != 0 || c != 0 {
		t.Errorf("an empty place: %d instances, the counter says %d", n, c)
	}
}
