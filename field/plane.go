package field

import (
	"fmt"
	"runtime"
	"unsafe"

	"strata/internal/sysmem"
)

// Planes on disk (docs/field.md "Planes on disk"): a landscape's planes — its height and channels
// — are Grids like any other, but when the landscape's planes would take more than
// sysmem.MapShare of the memory budget their Data lies in a memory-mapped, unlinked file
// (sysmem.Map) instead of the Go heap. Data is still a []float32 of W·H samples: every reader and
// writer indexes it as before, and a plane on disk holds exactly what a plane on the heap would
// (a save or a bake of either is byte for byte the same). What differs is who keeps the pages:
// the kernel writes cold ones back to the file and drops them, and sysmem's governor trims them
// from the resident set under STRATA_MEMORY_LIMIT.

// importPlanes is the planes a heightmap import plans for: its height and the weights grid the
// editor evaluates over it (8 bytes a texel, here counted as one more float32 plane: layers 4–7
// are touched only by stacks with more than four layers).
const importPlanes = 2

// PlanesOnDisk reports whether a landscape of planes float32 planes of w×h texels (and extra
// bytes of other planes: holes, weights) keeps them on disk (sysmem.PlanesOnDisk).
func PlanesOnDisk(w, h, planes int, extra uint64) (bool, error) {
	return sysmem.PlanesOnDisk(4*uint64(w)*uint64(h)*uint64(planes) + extra)
}

// NewPlane returns a zeroed w×h grid, on disk when onDisk is set (PlanesOnDisk), else on the heap.
// A plane that cannot be mapped (a full disk, no disk-backed folder) goes on the heap when the
// memory budget holds it, unless STRATA_MAP_PLANES=always; otherwise the error wraps
// sysmem.ErrMapping (and sysmem.ErrDiskFull for a full disk). The caller checks the memory a heap
// plane needs (sysmem.CheckPlanes) as for any grid.
func NewPlane(w, h int, onDisk bool) (*Grid, error) {
	if err := CheckSize(w, h); err != nil {
		return nil, err
	}
	if !onDisk {
		return &Grid{W: w, H: h, Data: make([]float32, w*h)}, nil
	}
	what := fmt.Sprintf("a %d×%d plane", w, h)
	m, err := sysmem.Map(4*w*h, what)
	if err != nil {
		if sysmem.PlanesForced() {
			return nil, fmt.Errorf("field: %w", err)
		}
		if cerr := sysmem.Check(4*uint64(w)*uint64(h), what+" on the heap"); cerr != nil {
			return nil, fmt.Errorf("field: %w; %w", err, cerr)
		}
		return &Grid{W: w, H: h, Data: make([]float32, w*h)}, nil
	}
	b := m.Bytes()
	g := &Grid{W: w, H: h, Data: unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), w*h), mem: m}
	// The safety net: a plane dropped without Release gives its disk blocks and pages back once
	// the collector finds it unreachable. It is retired, not unmapped (sysmem.Mapping.Retire): a
	// goroutine may still read a slice of its Data that the collector does not count as a
	// reference to g (a save's rows, a sampler), and reads zeros there rather than faulting.
	runtime.AddCleanup(g, func(m *sysmem.Mapping) { m.Retire() }, m)
	return g, nil
}

// NewPlaneLike is NewPlane of w×h kept where like is kept: a plane derived from another (the flow
// routed over a height, the slopes and densities evaluated over it, an undo's copy of it) lives on
// disk when the plane it comes from does, so a landscape's working planes follow its budget
// together (docs/field.md "Planes on disk").
func NewPlaneLike(w, h int, like *Grid) (*Grid, error) {
	return NewPlane(w, h, like.OnDisk())
}

// ClonePlane is Clone kept where g is kept (NewPlaneLike): a whole-field copy (an undo's, a
// save's) of a plane on disk is on disk too. The caller releases it when its lifetime is clear.
func (g *Grid) ClonePlane() (*Grid, error) {
	c, err := NewPlaneLike(g.W, g.H, g)
	if err != nil {
		return nil, err
	}
	copy(c.Data, g.Data)
	return c, nil
}

// OnDisk reports a plane whose Data is memory-mapped (NewPlane).
func (g *Grid) OnDisk() bool { return g != nil && g.mem != nil }

// Release frees a plane on disk now: its mapping is undone, Data is nil and the file's blocks go
// back to the disk. Nothing may read the old Data afterwards. A heap grid is left to the
// collector; Release is nil-safe and idempotent.
func (g *Grid) Release() {
	if g == nil || g.mem == nil {
		return
	}
	m := g.mem
	g.mem, g.Data = nil, nil
	m.Release()
}

// Retire gives a plane on disk's disk blocks and pages back now, where its owner is dropped but
// a bare slice of its Data may still be read somewhere (a landscape replaced by another: a
// viewport overlay, a goroutine finishing with it): the memory stays mapped and reads zeros
// (sysmem.Mapping.Retire), so a late reader gets wrong numbers, never a fault. It is what the
// collector's safety net does, done at the moment the owner is known to be dropped. A heap grid
// is left to the collector; Retire is nil-safe and idempotent, and Release after it frees nothing
// more.
func (g *Grid) Retire() {
	if g != nil {
		g.mem.Retire()
	}
}

// Trim drops a plane on disk's pages from the resident set (sysmem.Mapping.Trim); its data is
// kept. A heap grid is left as it is.
func (g *Grid) Trim() {
	if g != nil {
		g.mem.Trim()
	}
}

// Release releases the height, every channel and the flow plane (Grid.Release): for a field
// whose lifetime is clear (an open that failed, a command's field at its end).
func (f *Field) Release() {
	if f == nil {
		return
	}
	f.flowMu.Lock()
	flow := f.flow
	f.flow, f.flowOf = nil, nil
	f.flowMu.Unlock()
	flow.Release()
	f.Height.Release()
	for _, g := range f.Channels {
		g.Release()
	}
}

// Retire retires the height, every channel and the flow plane (Grid.Retire): for a field that was
// dropped while something may still read a slice of it.
func (f *Field) Retire() {
	if f == nil {
		return
	}
	f.flowMu.Lock()
	flow := f.flow
	f.flowMu.Unlock()
	flow.Retire()
	f.Height.Retire()
	for _, g := range f.Channels {
		g.Retire()
	}
}

// newImportPlane allocates the grid an import fills, on disk when the landscape it starts would
// hold more than its share of memory (importPlanes planes of w×h): the decoder's own buffers
// (extra bytes) are always checked against memory, the plane against memory or against the disk.
func newImportPlane(w, h int, extra uint64, what string) (*Grid, error) {
	onDisk, err := PlanesOnDisk(w, h, importPlanes, 0)
	if err != nil {
		return nil, err
	}
	plane := 4 * uint64(w) * uint64(h)
	if !onDisk {
		extra += plane
	} else if err := sysmem.CheckPlanes(plane, true, what); err != nil {
		return nil, err
	}
	if err := sysmem.Check(extra, what); err != nil {
		return nil, err
	}
	return NewPlane(w, h, onDisk)
}
