package landscape

import (
	"fmt"
	"runtime"
	"unsafe"

	"strata/field"
	"strata/internal/sysmem"
)

// Planes on disk (docs/field.md "Planes on disk"): a landscape whose planes — height, channels,
// holes, weights — would take more than sysmem.MapShare of the memory budget keeps them in
// memory-mapped files (field.NewPlane, sysmem.Map). The slices are the same types as on the heap;
// only who holds the pages differs.

// FieldPlaneBytes is the memory a field's planes take: 4 bytes a texel for the height and each
// channel.
func FieldPlaneBytes(f *field.Field) uint64 {
	if f == nil || f.Height == nil {
		return 0
	}
	return 4 * uint64(f.Height.W) * uint64(f.Height.H) * uint64(1+len(f.Channels))
}

// NewWeightsOn is NewWeights on disk when onDisk is set (one mapping holds Lo and Hi; Hi is
// touched only by stacks of more than four layers, so its pages are never made). A mapping that
// fails falls back to the heap as field.NewPlane does.
func NewWeightsOn(w, h int, onDisk bool) (*Weights, error) {
	if !onDisk || w < 1 || h < 1 {
		return NewWeights(w, h), nil
	}
	n := w * h * 4
	what := fmt.Sprintf("%d×%d weights", w, h)
	m, err := sysmem.Map(2*n, what)
	if err != nil {
		if sysmem.PlanesForced() {
			return nil, fmt.Errorf("landscape: %w", err)
		}
		if cerr := sysmem.Check(2*uint64(n), what+" on the heap"); cerr != nil {
			return nil, fmt.Errorf("landscape: %w; %w", err, cerr)
		}
		return NewWeights(w, h), nil
	}
	b := m.Bytes()
	wt := &Weights{W: w, H: h, Lo: b[:n:n], Hi: b[n:], mem: m}
	// As for a plane: retired once the collector finds the Weights unreachable (a late reader of
	// Lo or Hi reads zeros, never faults); nothing is to keep Lo or Hi without the Weights.
	runtime.AddCleanup(wt, func(m *sysmem.Mapping) { m.Retire() }, m)
	return wt, nil
}

// NewWeightsFor is the w×h weights grid evaluated over f: on disk when f's planes and these
// weights (8 bytes a texel) would take more than their share of memory.
func NewWeightsFor(f *field.Field, w, h int) (*Weights, error) {
	onDisk, err := sysmem.PlanesOnDisk(FieldPlaneBytes(f) + 8*uint64(w)*uint64(h))
	if err != nil {
		return nil, err
	}
	return NewWeightsOn(w, h, onDisk)
}

// OnDisk reports weights whose planes are memory-mapped.
func (w *Weights) OnDisk() bool { return w != nil && w.mem != nil }

// Release unmaps weights on disk now (Lo and Hi become nil); heap weights are left to the
// collector. Nil-safe and idempotent.
func (w *Weights) Release() {
	if w == nil || w.mem == nil {
		return
	}
	m := w.mem
	w.mem, w.Lo, w.Hi = nil, nil, nil
	m.Release()
}

// newHoles is a zeroed (all ground) holes mask of n texels, on disk when onDisk is set; the
// mapping returned is the landscape's to release (nil on the heap).
func newHoles(n int, onDisk bool) ([]bool, *sysmem.Mapping, error) {
	if !onDisk {
		return make([]bool, n), nil, nil
	}
	m, err := sysmem.Map(n, fmt.Sprintf("holes of %d texels", n))
	if err != nil {
		if sysmem.PlanesForced() {
			return nil, nil, fmt.Errorf("landscape: %w", err)
		}
		if cerr := sysmem.Check(uint64(n), "holes on the heap"); cerr != nil {
			return nil, nil, fmt.Errorf("landscape: %w; %w", err, cerr)
		}
		return make([]bool, n), nil, nil
	}
	b := m.Bytes()
	return unsafe.Slice((*bool)(unsafe.Pointer(&b[0])), n), m, nil
}

// setHolesMem makes m (newHoles) the landscape's: released with it, or by the collector once the
// landscape is unreachable (nothing keeps Holes without the Landscape).
func (l *Landscape) setHolesMem(m *sysmem.Mapping) {
	if m == nil {
		return
	}
	l.holesMem = m
	runtime.AddCleanup(l, func(m *sysmem.Mapping) { m.Retire() }, m)
}

// OnDisk reports a landscape whose height is memory-mapped (Open chose disk for its planes).
func (l *Landscape) OnDisk() bool { return l != nil && l.Field != nil && l.Field.Height.OnDisk() }

// Release frees the planes on disk of a landscape whose lifetime is clear (an open that failed,
// a command's landscape at its end, a test): height, channels, flow, holes, weights and the
// populations' densities. Nothing may read them afterwards. Heap planes are left to the
// collector. Nil-safe and idempotent.
func (l *Landscape) Release() {
	if l == nil {
		return
	}
	l.Field.Release()
	l.Weights.Release()
	for i := range l.Scatter {
		l.Scatter[i].Density.Release()
	}
	if l.holesMem != nil {
		l.Holes = nil
		l.holesMem.Release()
		l.holesMem = nil
	}
}

// Retire gives the disk blocks and pages of a landscape's planes on disk back now — height,
// channels, flow, holes and weights (field.Grid.Retire) — for a landscape that was dropped while
// something may still read a slice of one (the editor's session when another landscape replaces
// it): the memory stays mapped and reads zeros. Heap planes are left to the collector. Nil-safe
// and idempotent.
func (l *Landscape) Retire() {
	if l == nil {
		return
	}
	l.Field.Retire()
	l.Weights.Retire()
	l.holesMem.Retire()
	for i := range l.Scatter {
		l.Scatter[i].Density.Retire()
	}
}

// Retire is Release for weights something may still read (Landscape.Retire): the memory stays
// mapped and reads zeros. Nil-safe and idempotent.
func (w *Weights) Retire() {
	if w != nil {
		w.mem.Retire()
	}
}

// planesOnDisk reports whether the landscape's planes, with extra bytes more, go on disk: they
// do once its height is on disk, else when they would take more than their share of memory.
func (l *Landscape) planesOnDisk(extra uint64) (bool, error) {
	if l.OnDisk() {
		return true, nil
	}
	return sysmem.PlanesOnDisk(FieldPlaneBytes(l.Field) + uint64(len(l.Holes)) + extra)
}

// NewPlane is a zeroed plane of the height's size for a new channel (a painted mask), on disk
// with the landscape's other planes.
func (l *Landscape) NewPlane() (*field.Grid, error) {
	w, h := l.Field.Height.W, l.Field.Height.H
	onDisk, err := l.planesOnDisk(4 * uint64(w) * uint64(h))
	if err != nil {
		return nil, err
	}
	return field.NewPlane(w, h, onDisk)
}

// MakeHoles gives a landscape without holes its all-ground mask (the first hole painted), on disk
// with its other planes. A landscape with holes keeps them.
func (l *Landscape) MakeHoles() error {
	if l.Holes != nil {
		return nil
	}
	n := l.Field.Height.W * l.Field.Height.H
	onDisk, err := l.planesOnDisk(uint64(n))
	if err != nil {
		return err
	}
	holes, mem, err := newHoles(n, onDisk)
	if err != nil {
		return err
	}
	l.Holes = holes
	l.setHolesMem(mem)
	return nil
}
