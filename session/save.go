package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/progress"
	"strata/recovery"
	"strata/terraindata"
)

// Save writes the landscape to the container it came from (or was last saved to).
func (s *Session) Save(ctx context.Context, report progress.Func) error {
	path := s.Path()
	if path == "" {
		return fmt.Errorf("session: %s has never been saved: choose where (Save As)", s.Name())
	}
	return s.SaveAs(ctx, path, report)
}

// SaveAs writes the landscape as the container at path, atomically (the old container stays
// until the new one is complete and valid), keeping the landscape's guid. The weights and scatter
// are evaluated afresh from the saved stack and field at full resolution, so what is saved is
// exactly what `strata bake` would make of it, whatever drafts the viewport showed. Edits made
// while it saves are kept for the next save.
func (s *Session) SaveAs(ctx context.Context, path string, report progress.Func) error {
	if report == nil {
		report = progress.Nop
	}
	// The folder must be there: one removed while the landscape was open (a project folder
	// deleted, a drive unmounted) is not made again behind the artist's back.
	if dir := filepath.Dir(path); dir != "" {
		if fi, err := os.Stat(dir); err != nil {
			return fmt.Errorf("session: cannot save %s: its folder %s is gone (%v); nothing was written — choose another folder with Save As", filepath.Base(path), dir, pathReason(err))
		} else if !fi.IsDir() {
			return fmt.Errorf("session: cannot save %s: %s is not a folder; nothing was written", filepath.Base(path), dir)
		}
	}
	snap, version, err := s.snapshot()
	if err != nil {
		return err
	}
	defer releaseSnapshot(snap)
	s.mu.Lock()
	mode := s.pipe.mode
	s.mu.Unlock()
	var ev bake.Evaluator
	if snap.Stack != nil {
		// The pipeline's twin, on kernels of the save's own (the pipeline's target stays the
		// viewport's).
		c := bake.Choice{Mode: bake.ModeCPU}
		if mode == GPU {
			c = bake.Choice{Mode: bake.ModeGPU, Device: s.dev}
		}
		if ev, err = bake.NewEvaluator(ctx, c); err != nil {
			return err
		}
		defer ev.Release()
	}
	if s.watch != nil {
		s.watch.ownSave(path, true)
		defer s.watch.ownSave(path, false)
	}
	ro := bake.RebakeOptions{EvalOptions: bake.EvalOptions{Options: bake.Options{Resolution: snap.Resolution(), Progress: report},
		Evaluator: ev}}
	if s.World() != nil && path == s.Path() {
		// A world's cell in place: its save takes turns with `strata world bake` of the cell.
		ro.Lock = terraindata.LockPath(path)
	}
	// The one save that evaluates (bake.Rebake, as strata bake and bake --from): the ground is
	// written while the stack is evaluated afresh at full resolution.
	if _, err := bake.Rebake(ctx, snap, path, ro); err != nil {
		return err
	}
	s.fmu.Lock()
	s.land.GUID = snap.GUID
	abs, aerr := filepath.Abs(path)
	if aerr != nil {
		abs = path
	}
	saved := baseFor(s.land, recovery.Base{Kind: recovery.BaseContainer, Path: abs})
	s.fmu.Unlock()
	s.mu.Lock()
	if s.doc.world != nil && path == s.doc.path {
		s.doc.worldWarned = false // the next edit is a new divergence from the world's sources
	} else {
		s.doc.world = nil
		s.doc.name = nameOf(path)
	}
	s.doc.path = path
	if s.version == version {
		s.doc.modified = false
		s.doc.savedAt, s.doc.savedOK = s.hist.mark(), true
		// The saved container is the recovery base now: the copy goes (recovery.go).
		s.recGens++
		s.doc.recBase, s.doc.recGen = saved, s.recGens
		s.rec.clearDirty()
		s.rec.step()
	} else {
		s.doc.savedOK = false // edited while saving: which step was saved is not known
	}
	s.doc.sources = []string{path}
	s.mu.Unlock()
	if s.watch != nil {
		s.watch.refresh()
	}
	s.emit(Event{Kind: EventDocument, Message: "Saved " + path})
	return nil
}

// pathReason is why a file operation failed, without the path the message already names.
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// snapshot copies what a save writes, with the worker idle so no half-applied edit is copied.
func (s *Session) snapshot() (*landscape.Landscape, uint64, error) {
	p := s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	s.mu.Lock()
	if !s.doc.loaded {
		s.mu.Unlock()
		return nil, 0, errNoLandscape
	}
	if p.stroke != nil || p.drag != nil {
		s.mu.Unlock()
		return nil, 0, fmt.Errorf("session: finish the stroke or drag before saving")
	}
	ops, st := p.takeOps(), s.doc.stack
	s.mu.Unlock()
	// Field edits still queued are part of what the artist sees: apply them first.
	p.applyFieldOps(ops, st)
	s.mu.Lock()
	version, st := s.version, s.doc.stack
	s.mu.Unlock()
	s.fmu.RLock()
	defer s.fmu.RUnlock()
	l := s.land
	// Whole-field copies, on disk with the planes they copy (released by releaseSnapshot).
	f := &field.Field{Placement: l.Field.Placement, Channels: map[string]*field.Grid{}}
	var err error
	if f.Height, err = l.Field.Height.ClonePlane(); err != nil {
		return nil, 0, fmt.Errorf("session: save: %w", err)
	}
	for k, g := range l.Field.Channels {
		if f.Channels[k], err = g.ClonePlane(); err != nil {
			f.Release()
			return nil, 0, fmt.Errorf("session: save: %w", err)
		}
	}
	snap := &landscape.Landscape{Stack: st, StackDir: l.StackDir, Field: f, GUID: l.GUID, AtlasSize: l.AtlasSize, Baked: l.Baked, Script: l.Script}
	if l.Holes != nil {
		snap.Holes = append([]bool(nil), l.Holes...)
	}
	if snap.Stack == nil {
		snap.Geometry, snap.Weights, snap.Scatter = l.Geometry, l.Weights, l.Scatter
	} else {
		snap.Geometry = l.Geometry
	}
	return snap, version, nil
}

// releaseSnapshot frees the planes a save's snapshot owns once the save is over: its copies of
// the height and channels (and the flow routed over them), and, when the save evaluated a stack,
// the weights and densities it evaluated. A baked landscape's weights and scatter are the open
// landscape's own and stay.
func releaseSnapshot(snap *landscape.Landscape) {
	snap.Field.Release()
	if snap.Stack == nil {
		return
	}
	snap.Weights.Release()
	for i := range snap.Scatter {
		snap.Scatter[i].Density.Release()
	}
}

// takeOps removes the queued field edits. s.mu is held.
func (p *pipeline) takeOps() []fieldOp {
	ops := p.fieldOps
	p.fieldOps = nil
	return ops
}
