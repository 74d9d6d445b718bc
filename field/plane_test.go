package field

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"strata/internal/sysmem"
)

// planeEnv points the plane folder at a fresh temporary folder and sets the mode.
func planeEnv(t *testing.T, mode string) {
	t.Helper()
	t.Setenv(sysmem.EnvMapDir, t.TempDir())
	t.Setenv(sysmem.EnvMapPlanes, mode)
}

// A plane on disk is a zeroed grid like NewGrid's, reads back what is written, clones and cuts
// to heap grids equal to it, and Release unmaps it (Data nil, the bytes no longer counted).
func TestPlaneOnDisk(t *testing.T) {
	planeEnv(t, "always")
	before := sysmem.MappedBytes()
	g, err := NewPlane(37, 21, true)
	if err != nil {
		t.Fatal(err)
	}
	if !g.OnDisk() || g.W != 37 || g.H != 21 || len(g.Data) != 37*21 || sysmem.MappedBytes() != before+4*37*21 {
		t.Fatalf("plane %d×%d, %d samples, on disk %v, %d bytes mapped", g.W, g.H, len(g.Data), g.OnDisk(), sysmem.MappedBytes()-before)
	}
	heap := NewGrid(37, 21)
	if !slices.Equal(g.Data, heap.Data) {
		t.Fatal("a new plane on disk is not zero")
	}
	for k := range g.Data {
		g.Data[k] = float32(k) * 0.25
		heap.Data[k] = float32(k) * 0.25
	}
	g.Trim()
	if !slices.Equal(g.Data, heap.Data) || g.At(5, 7) != heap.At(5, 7) {
		t.Fatal("a plane on disk lost its samples")
	}
	c, r := g.Clone(), g.Region(3, 4, 10, 5)
	if c.OnDisk() || r.OnDisk() || !slices.Equal(c.Data, heap.Data) || !slices.Equal(r.Data, heap.Region(3, 4, 10, 5).Data) {
		t.Error("Clone and Region of a plane on disk differ from the heap grid's")
	}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
	g.Release()
	if g.Data != nil || g.OnDisk() || sysmem.MappedBytes() != before {
		t.Errorf("after Release: data %v, on disk %v, %d bytes still mapped", g.Data != nil, g.OnDisk(), sysmem.MappedBytes()-before)
	}
	g.Release()
	(*Grid)(nil).Release()
	heap.Release() // a heap grid is left as it is
	if heap.Data == nil {
		t.Error("Release of a heap grid dropped its data")
	}
}

// An import whose plane is on disk gives the grid and range of the import on the heap, for
// every format.
func TestImportOnDiskEqualsHeap(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "import", "*"))
	n := 0
	for _, p := range files {
		t.Setenv(sysmem.EnvMapPlanes, "never")
		want, wr, err := LoadHeightContext(t.Context(), p, ImportOptions{}, nil)
		if err != nil {
			continue // the refusals are import_test.go's
		}
		planeEnv(t, "always")
		got, gr, err := LoadHeightContext(t.Context(), p, ImportOptions{}, nil)
		if err != nil {
			t.Fatalf("%s on disk: %v", p, err)
		}
		if want.OnDisk() || !got.OnDisk() {
			t.Fatalf("%s: on disk %v and %v, want false and true", p, want.OnDisk(), got.OnDisk())
		}
		if got.W != want.W || got.H != want.H || !slices.Equal(got.Data, want.Data) || gr != wr {
			t.Errorf("%s: the plane on disk differs from the heap's", p)
		}
		got.Release()
		n++
	}
	if n < 10 {
		t.Fatalf("only %d importable files in testdata/import", n)
	}
}

// When the planes cannot be backed by a file, NewPlane and the import say so by name under
// STRATA_MAP_PLANES=always, and fall back to the heap in auto.
func TestPlaneBackingFailure(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(sysmem.EnvMapDir, filepath.Join(file, "planes")) // a folder under a file: cannot be made
	t.Setenv(sysmem.EnvMapPlanes, "always")
	if g, err := NewPlane(8, 8, true); !errors.Is(err, sysmem.ErrMapping) || g != nil {
		t.Errorf("NewPlane: %v, %v; want an error wrapping sysmem.ErrMapping", g, err)
	}
	p := filepath.Join("testdata", "import", "png16.png")
	if _, err := LoadHeight(p, ImportOptions{}); !errors.Is(err, sysmem.ErrMapping) {
		t.Errorf("import: %v; want an error wrapping sysmem.ErrMapping", err)
	}
	t.Setenv(sysmem.EnvMapPlanes, "auto")
	t.Setenv(sysmem.EnvLimit, "")
	g, err := NewPlane(8, 8, true)
	if err != nil || g.OnDisk() || len(g.Data) != 64 {
		t.Errorf("auto: %v, %v; want a heap plane", g, err)
	}
}

// Field.Release releases the height, the channels and the flow plane.
func TestFieldRelease(t *testing.T) {
	planeEnv(t, "always")
	before := sysmem.MappedBytes()
	h, _ := NewPlane(16, 16, true)
	c, _ := NewPlane(16, 16, true)
	f, err := New(Placement{Size: [2]float64{16, 16}}, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddChannel("mask.m", c); err != nil {
		t.Fatal(err)
	}
	f.Release()
	if h.OnDisk() || c.OnDisk() || sysmem.MappedBytes() != before {
		t.Errorf("after Field.Release: %d bytes still mapped", sysmem.MappedBytes()-before)
	}
}

// A plane dropped without Release is retired once the collector finds it unreachable (the safety
// net, runtime.AddCleanup: its blocks and pages go back, sysmem.Mapping.Retire).
func TestPlaneCleanup(t *testing.T) {
	planeEnv(t, "always")
	before := sysmem.MappedBytes()
	func() {
		g, err := NewPlane(64, 64, true)
		if err != nil {
			t.Fatal(err)
		}
		g.Data[0] = 1
	}()
	// Cleanups run on their own goroutine after the cycle that found the plane unreachable.
	for i := 0; i < 1000 && sysmem.MappedBytes() != before; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if sysmem.MappedBytes() != before {
		t.Errorf("a dropped plane still counts %d mapped bytes", sysmem.MappedBytes()-before)
	}
}
