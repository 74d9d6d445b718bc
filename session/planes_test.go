package session

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"testing"

	"strata/field"
	"strata/internal/sysmem"
)

// A landscape on disk that the session drops gives its planes back at that moment, not at a
// later collection: reopening a heightmap holds one landscape's planes, not two; opening the
// sample after it gives the heightmap's back; a save's copies of the planes go when it is
// written. Counted in sysmem.MappedBytes with the collector off, so the safety net
// (runtime.AddCleanup) cannot be what gives them back.
func TestReplacedLandscapeGivesItsPlanesBack(t *testing.T) {
	t.Setenv(sysmem.EnvMapPlanes, "always")
	t.Setenv(sysmem.EnvMapDir, t.TempDir())
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const n = 256
	src := filepath.Join(t.TempDir(), "h.f32")
	writeF32(t, src, field.SampleDunesSized(n).Height)
	o := HeightmapOptions{Import: field.ImportOptions{Size: [2]int{n, n}}}
	h := newHarness(t, Options{Evaluator: CPU})
	before := sysmem.MappedBytes()
	open := func(what string) uint64 {
		t.Helper()
		if err := h.s.OpenHeightmap(context.Background(), src, o); err != nil {
			t.Fatal(err)
		}
		h.waitFrame(h.s.Version())
		got := sysmem.MappedBytes() - before
		if got < 4*n*n {
			t.Fatalf("%s: %d bytes mapped, less than the height's %d: the planes are not on disk", what, got, 4*n*n)
		}
		return got
	}
	first := open("opened")
	again := open("opened again")
	if again > first {
		t.Errorf("the heightmap opened again: %d bytes mapped, %d after the first open: the first landscape's planes were kept", again, first)
	}

	if err := h.s.SaveAs(context.Background(), filepath.Join(t.TempDir(), "h.terrainData"), nil); err != nil {
		t.Fatal(err)
	}
	if got := sysmem.MappedBytes() - before; got > first {
		t.Errorf("after a save: %d bytes mapped, %d before it: the save's copies were kept", got, first)
	}

	if err := h.s.OpenSampleSized(context.Background(), 64, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	// The sample's own grids are on the heap; what it maps is its evaluator's weights (64²).
	if got := sysmem.MappedBytes() - before; got >= 4*n*n {
		t.Errorf("the sample opened over the heightmap: %d bytes mapped, %d with the heightmap: its planes were kept", got, first)
	}
}
