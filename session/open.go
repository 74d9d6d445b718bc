package session

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"strata/field"
	"strata/landscape"
	"strata/progress"
	"strata/recovery"
	"strata/stack"
	"strata/viewport"
)

// OpenSample opens the built-in "dunes" sample with its own stack (File → New → Sample).
func (s *Session) OpenSample(ctx context.Context) error {
	s.mu.Lock()
	ahead := s.sample
	s.sample = nil
	s.mu.Unlock()
	var l *landscape.Landscape
	if ahead != nil {
		select {
		case l = <-ahead:
		case <-ctx.Done():
			return ctx.Err()
		}
	} else {
		l = sampleLandscape()
	}
	return s.load(ctx, l, "", "dunes", nil, recovery.Base{Kind: recovery.BaseSample})
}

// sampleLandscape is the built-in sample: its stack on its ground.
func sampleLandscape() *landscape.Landscape {
	return &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunes()}
}

// OpenSampleSized is OpenSample at n×n height texels (tests and benchmarks keep fields small).
func (s *Session) OpenSampleSized(ctx context.Context, n int, st *stack.Stack) error {
	if st == nil {
		st = stack.SampleDunes()
	}
	return s.load(ctx, &landscape.Landscape{Stack: st, Field: field.SampleDunesSized(n)}, "", "dunes", nil,
		recovery.Base{Kind: recovery.BaseSample, Texels: n})
}

// OpenLandscape opens an assembled landscape (a benchmark's field and stack) under name.
func (s *Session) OpenLandscape(ctx context.Context, l *landscape.Landscape, name string) error {
	return s.load(ctx, l, "", name, nil, recovery.Base{Kind: recovery.BaseInline})
}

// OpenContainer opens a terrainData container for editing: its stack, channels, holes and weights
// come back as they were saved. A container with no stack opens with its baked weights shown.
// On any error the landscape open until now stays open. As a heightmap's, the viewport's
// level-of-detail tree is built from the height's rows as they are read (the rest of the
// container — channels, controls, densities — is read meanwhile), and the status bar says what
// the open does.
func (s *Session) OpenContainer(ctx context.Context, path string) error {
	name := filepath.Base(path)
	read := stepTimes{last: time.Now()}
	tree := &rowsTree{}
	defer func() { tree.b.Stop() }() // nothing once the tree was taken; the build on a failure
	defer s.opening("")              // the status says what the open does until it is done
	var rng field.Range              // the height's, found as it is read: no second scan
	l, err := landscape.OpenWith(ctx, path, landscape.OpenOptions{
		Progress: func(done, total int) { s.reading(name, done, total) },
		Rows:     tree.rows,
		Range:    &rng,
	})
	if err != nil {
		return err
	}
	if l.Stack != nil {
		absoluteTextures(l.Stack, path)
	}
	read.add("read the container")
	s.opening(fmt.Sprintf("refining %s: levels of detail…", name))
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	base := baseFor(l, recovery.Base{Kind: recovery.BaseContainer, Path: abs})
	hr := [2]float64{float64(rng.Min), float64(rng.Max)}
	if err := s.loadWith(ctx, l, path, nameOf(path), []string{path}, read, &hr, base, tree.b); err != nil {
		l.Retire() // never the session's: its planes go back now (retired: the viewport may have seen it)
		return err
	}
	return nil
}

// HeightmapOptions says how to read a heightmap for File → New → From heightmap.
type HeightmapOptions struct {
	Import field.ImportOptions
	// Size is the field's extent in metres; nil = one metre per texel.
	Size *[2]float64
	// Progress hears the rows read of the file (nil: none); the status bar hears them too.
	Progress progress.Func
}

// reading announces an open's read of a file, rows done of total (name "" when it ended): the
// status bar says so while a large heightmap is read.
func (s *Session) reading(name string, done, total int) {
	text := ""
	if name != "" && total > 0 {
		text = fmt.Sprintf("reading %s… %d%%", name, 100*done/total)
	}
	s.opening(text)
}

// opening puts what an open is doing in the status bar (Status.Reading; "" when it is done).
func (s *Session) opening(text string) {
	s.mu.Lock()
	st := s.pipe.status
	st.Reading = text
	changed := st.Reading != s.pipe.status.Reading
	s.pipe.status.Reading = st.Reading
	st.Instances = append([]PopulationCount(nil), st.Instances...)
	s.mu.Unlock()
	if changed {
		s.emit(Event{Kind: EventStatus, Status: st})
	}
}

// OpenHeightmap starts a new landscape on a heightmap with a starter stack (ground, and rock on
// slopes). The heightmap is watched: when another program rewrites it, the changed texels are
// reloaded as an undoable step.
func (s *Session) OpenHeightmap(ctx context.Context, path string, o HeightmapOptions) error {
	name := filepath.Base(path)
	read := stepTimes{last: time.Now()}
	// The viewport's level-of-detail tree is built from the rows the decoder has completed while
	// it decodes the rest, on the core the decode leaves (docs/design.md "Progressive open").
	tree := &rowsTree{}
	defer func() { tree.b.Stop() }() // nothing once the tree was taken; the build on a failure
	defer s.opening("")              // the status says what the open does until it is done
	f, rng, err := landscape.LoadFieldRows(ctx, path, o.Import, o.Size, func(done, total int) {
		s.reading(name, done, total)
		if o.Progress != nil {
			o.Progress("read "+name, done, total)
		}
	}, tree.rows)
	if err != nil {
		return err
	}
	read.add("read the heightmap")
	s.opening(fmt.Sprintf("refining %s: levels of detail…", name))
	l := &landscape.Landscape{Stack: stack.Starter(), Field: f}
	// The import found the height's lowest and highest value as it read: no second scan.
	hr := [2]float64{float64(rng.Min), float64(rng.Max)}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	imp := o.Import
	base := baseFor(l, recovery.Base{Kind: recovery.BaseHeightmap, Path: abs, Import: &imp, Size: o.Size})
	if err := s.loadWith(ctx, l, "", nameOf(path), nil, read, &hr, base, tree.b); err != nil {
		l.Retire() // never the session's: its planes go back now (retired: the viewport may have seen it)
		return err
	}
	s.mu.Lock()
	s.doc.sources = []string{path}
	s.doc.heightImport = &o
	s.mu.Unlock()
	if s.watch != nil {
		s.watch.refresh()
	}
	return nil
}

// NewFlat starts a flat landscape of size metres at texels × texels, at height metres.
func (s *Session) NewFlat(ctx context.Context, size [2]float64, texels [2]int, height float64) error {
	if err := field.CheckSize(texels[0], texels[1]); err != nil {
		return fmt.Errorf("session: new flat: %w", err)
	}
	g := field.NewGrid(texels[0], texels[1])
	for i := range g.Data {
		g.Data[i] = float32(height)
	}
	f, err := field.New(field.Placement{Size: size}, g)
	if err != nil {
		return fmt.Errorf("session: new flat: %w", err)
	}
	st := stack.New()
	st.Layers = []stack.Layer{stack.NewLayer("ground")}
	st.Layers[0].Tint = stack.Color{0x8a, 0x7a, 0x5a}
	return s.load(ctx, &landscape.Landscape{Stack: st, Field: f}, "", "untitled", nil,
		recovery.Base{Kind: recovery.BaseFlat, FlatSize: size, FlatTexels: texels, FlatHeight: height})
}

// absoluteTextures makes a stack's relative texture paths absolute against dir, so the stack
// means the same files wherever it is saved next.
func absoluteTextures(st *stack.Stack, dir string) {
	for i := range st.Layers {
		for _, p := range []*string{&st.Layers[i].Albedo, &st.Layers[i].Normal, &st.Layers[i].Mask} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(dir, filepath.FromSlash(*p))
			}
		}
	}
}

// rowsTree starts a TreeBuilder at a read's first report of complete rows and hands it the
// rows as they complete (field.RowsFunc: on the decoder's goroutine, one call at a time). b is
// read once the read has returned.
type rowsTree struct {
	b      *viewport.TreeBuilder
	failed bool // the grid has no tree (too small: the read refuses it)
}

func (r *rowsTree) rows(g *field.Grid, done int) {
	if r.b == nil && !r.failed {
		b, err := viewport.NewTreeBuilder(g.W, g.H, func(j int) []float32 { return g.Data[j*g.W : (j+1)*g.W] })
		r.b, r.failed = b, err != nil
	}
	if r.b != nil {
		r.b.Rows(done)
	}
}
