package session

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"strata/field"
)

// The full-resolution pass: the tiles behind the view that the populations are placed from
// (pipeline.pass calls evaluateFull once the view is evaluated).

// fullBudget is how long a pass spends on the full-resolution tiles the populations need (the
// background work behind the view) before it looks at the view again.
const fullBudget = 150 * time.Millisecond

// evaluateFull is the background behind the view: the full-resolution tiles the populations
// need (every dirty tile, for at most fullBudget a pass) and, once none is left, the populations
// placed on them. A stack with no population needs none: its dirty tiles are dropped.
func (p *pipeline) evaluateFull(ps passState, changedField bool) (more bool, pass Pass, err error) {
	s := p.s
	st := ps.st
	if p.testHookBeforeDrain != nil {
		p.testHookBeforeDrain()
	}
	s.mu.Lock()
	if ps.dragging && p.dirty.Len() > 0 {
		// A layer's slider moves: the populations hold until the release (the full-resolution
		// weights they read are the release's work). A population's own slider places it live.
		s.mu.Unlock()
		return false, pass, nil
	}
	var idx []int
	var parts []image.Rectangle
	scatterAll, respace := false, false
	if s.doc.stack == st {
		if len(st.Populations) == 0 {
			p.dirty.Drain() // no population reads them
		} else {
			idx, parts = p.dirty.DrainParts()
		}
		scatterAll, respace = p.scatterAll, p.respace
		p.scatterAll, p.respace = false, false
		if respace && p.mode == GPU {
			scatterAll = true // the maximum is the kernel's over the tiles it runs: all of them
		}
	}
	// Otherwise a stack edit arrived while this pass prepared: the tiles it marked and the
	// placement it asked for belong to the next pass, which evaluates them with that stack
	// (this one would clear them with results of the old one).
	tiles := make([]field.Tile, 0, len(idx))
	for k, i := range idx {
		if t, ok := p.wholeTile(i); ok {
			tiles = append(tiles, p.tilePart(t, parts[k]))
		}
	}
	// At most a budget's worth now, nearest the camera first; the rest stays marked for the next
	// pass (the view first).
	p.nearestFirst(tiles)
	if n := p.fullBatch(len(tiles)); n < len(tiles) {
		for _, t := range tiles[n:] {
			p.dirty.Mark(t.Index)
		}
		tiles = tiles[:n]
		more = true
		if scatterAll {
			p.scatterAll, scatterAll = true, false
		}
		if respace {
			p.respace, respace = true, false
		}
	}
	p.passIsFull = len(tiles) > 0
	s.mu.Unlock()
	tFull := time.Now()
	var fullTook time.Duration // the sync and the tiles' evaluation (the parts' full)
	defer func() { p.addParts(passParts{full: fullTook}) }()
	if len(tiles) > 0 || scatterAll {
		// The whole field's tiles, and the populations placed from them, read the field where
		// it is: its upload must have landed.
		if err := p.landField(true); err != nil {
			p.remark(tiles, scatterAll, respace)
			return true, pass, err
		}
		if err := p.syncField(st); err != nil {
			p.remark(tiles, scatterAll, respace)
			return true, pass, err
		}
	}
	if len(tiles) > 0 {
		t0 := time.Now()
		unlock := p.lockGPU()
		err := p.full.run(ps.ctx, st, s.land.Field, &p.geo, tiles)
		// Measured finished (fullBatch sizes the next batches by it), except a stroke's few
		// tiles: their evaluation stays in the queue ahead of the placement and the frame that
		// read it, and the frame's wait is the dab's one.
		measure := !ps.stroking || p.mode != GPU
		if p.mode == GPU && measure {
			s.dev.Wait()
		}
		unlock()
		pass.Duration = time.Since(t0)
		pass.Tiles = len(tiles)
		fullTook = time.Since(tFull)
		if err != nil {
			p.remark(tiles, scatterAll, respace)
			return true, pass, err
		}
		texels, parted := 0, false
		for _, t := range tiles {
			texels += t.W * t.H
			parted = parted || p.partial(t)
		}
		if measure && !parted {
			// Whole tiles only: a dab's small parts cost more a texel (each part's set-up), and
			// the batches after it are of whole tiles.
			p.fullNs = float64(pass.Duration) / float64(max(texels, 1))
		}
		if p.evaluated == nil {
			p.evaluated = map[int]uint64{}
		}
		for _, t := range tiles {
			p.evals++
			p.evaluated[t.Index] = p.evals
		}
		s.flash(tiles)
	}
	if more {
		p.unplaced = append(p.unplaced, p.wholeTiles(tiles)...)
		p.tryEarly(ps)
		return true, pass, nil
	}
	if len(p.unplaced) > 0 {
		// The earlier batches' tiles are placed with these (a whole placement covers them),
		// whole: their densities are still to compute.
		seen := map[int]int{}
		for k, t := range tiles {
			seen[t.Index] = k
		}
		for _, t := range p.unplaced {
			if k, ok := seen[t.Index]; ok {
				tiles[k] = t
			} else if !scatterAll {
				seen[t.Index] = len(tiles)
				tiles = append(tiles, t)
			}
		}
		p.unplaced = nil
	}
	if len(st.Populations) == 0 && len(p.pops) > 0 {
		// The last population went: so do its instances.
		p.syncPops(st)
		if err := s.view.SetPopulations(nil); err != nil {
			return false, pass, err
		}
	}
	placed := len(st.Populations) > 0 && (len(tiles) > 0 || scatterAll || respace || changedField)
	if placed {
		t1 := time.Now()
		if err := p.scatter(ps.ctx, st, tiles, scatterAll, respace, ps.dragging || ps.stroking); err != nil {
			if !errors.Is(err, context.Canceled) {
				s.emit(Event{Kind: EventError, Err: fmt.Errorf("scatter: %w", err)})
			}
		}
		pass.Scatter = time.Since(t1)
	}
	return false, pass, nil
}

// fullBatch is how many of n full-resolution tiles fit fullBudget (at least one), at the time
// per texel the full passes measured (the pages' until one has).
func (p *pipeline) fullBatch(n int) int {
	ns := p.fullNs
	if ns <= 0 {
		ns = p.nsPerTexel
	}
	per := float64(p.s.opts.TileSize*p.s.opts.TileSize) * ns
	if per <= 0 {
		return n
	}
	n = min(n, max(1, int(float64(fullBudget)/per)))
	if p.testFullBatch > 0 {
		n = min(n, p.testFullBatch)
	}
	return n
}

// tryEarly places the populations early (early.go) on the tiles evaluated so far, after a batch
// that left more to evaluate: not while a gesture holds the placement, nor once the stack or the
// tiles it evaluated have changed since.
func (p *pipeline) tryEarly(ps passState) {
	s := p.s
	st := ps.st
	// On the GPU the whole field is evaluated and placed within the settle (2.8–2.9 s at 16384²
	// on the H200): placing early there cost more than it showed (docs/design.md).
	if len(st.Populations) == 0 || ps.dragging || ps.stroking || p.mode == GPU {
		return
	}
	s.mu.Lock()
	current := s.doc.stack == st
	var done []field.Tile
	seen := map[int]bool{}
	for _, t := range p.unplaced {
		if !seen[t.Index] && !p.dirty.Marked(t.Index) {
			seen[t.Index] = true
			done = append(done, t)
		}
	}
	s.mu.Unlock()
	if !current || len(done) == 0 {
		return
	}
	if _, err := p.placeEarly(ps.ctx, st, done); err != nil && !errors.Is(err, context.Canceled) {
		s.emit(Event{Kind: EventError, Err: fmt.Errorf("scatter: %w", err)})
	}
}

// remark marks tiles (and the placement) again after a failed or cancelled evaluation, so the
// next pass, with the newest state, covers them.
func (p *pipeline) remark(tiles []field.Tile, scatterAll, respace bool) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tiles {
		p.dirty.Mark(t.Index)
	}
	if scatterAll {
		p.scatterAll = true
	}
	if respace {
		p.respace = true
	}
}
