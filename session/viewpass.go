package session

import (
	"errors"
	"image"
	"time"

	"strata/viewport"
)

// The view pass: the pages of the weights pyramid the camera samples, coarse first, drafts while
// a slider moves (pipeline.pass calls evaluateView before evaluateFull).

// draftBudget is how long a pass may take while a slider moves: the levels of the weights
// pyramid it evaluates are the finest whose pages the camera samples that fit this (the live
// loop's target is a new frame within ~150 ms on a 2-core CPU).
const draftBudget = 40 * time.Millisecond

// batchBudget is how long a pass evaluates pages of the view before it publishes them and lets a
// frame through, where frames are cheap (a real GPU): a view refines in steps a person sees. On a
// software device, whose frame of a large field costs a second of the same cores, the view is
// evaluated whole and drawn once.
const batchBudget = 120 * time.Millisecond

// evaluateView writes the pages of the weights pyramid the camera samples that the generation
// lacks (or whose ground changed), coarse before fine and nearest first; while a slider moves,
// only the levels that fit draftBudget. It shows the generation once its first pages are in, and
// reports whether the view still lacks pages.
func (p *pipeline) evaluateView(ps passState) (more bool, pass Pass, err error) {
	s := p.s
	w, h := p.viewSize()
	need := s.view.WeightsNeed(w, h)
	var todo []viewport.PageKey
	for _, key := range need {
		if p.stale[key] || !s.view.WeightsResident(key, ps.gen) {
			todo = append(todo, key)
		}
	}
	p.dropUnneededStale(need, ps.gen)
	pageCost := time.Duration(float64(pageTexels) * p.nsPerTexel)
	drafting := false
	if ps.dragging {
		all := len(todo)
		todo = draftPages(todo, need, pageCost)
		drafting = len(todo) < all // finer levels wait for the release
	}
	t0 := time.Now()
	done := 0
	// A generation not shown yet shows once its coarsest pages of the view are in: the first
	// picture of an edit covers the whole view, fast. After that the view is evaluated whole in
	// one pass — unless a newer state or another camera asks for another plan, or frames are
	// cheap enough here to show the refinement as it goes (batchBudget).
	first := -1
	if ps.gen != p.shownGen {
		first = coarsestTodo(todo)
	}
	cam := s.view.Camera()
	progressive := s.rend.fast()
	for _, key := range todo {
		if done > 0 {
			if first >= 0 && key.Level != first {
				break
			}
			if p.superseded(ps.version) || s.view.Camera() != cam || (progressive && time.Since(t0) > batchBudget) {
				break
			}
		}
		if err := p.evaluatePage(ps, key); err != nil {
			if errors.Is(err, viewport.ErrAtlasFull) {
				break // the budget holds no more of this view: it shows coarser levels there
			}
			return true, pass, err
		}
		delete(p.stale, key)
		done++
	}
	// Measured finished: the time per texel decides drafts. A stroke's pages are not measured
	// (a dab's few pages say little, and a stroke draws no drafts by it): their work stays in the
	// queue ahead of the frame that shows it, which waits once for all of it.
	measure := done > 0 && (!ps.stroking || p.mode != GPU)
	if measure && p.mode == GPU {
		s.dev.Wait()
	}
	took := time.Since(t0)
	if ps.gen != p.shownGen && done > 0 {
		s.view.ShowWeights(ps.gen)
		p.shownGen = ps.gen
	}
	// Pages the Go reference made while the field travels to the device say nothing of the GPU's
	// time per texel: measured from them, drafts and full batches would stay CPU-sized long after.
	if measure && !p.res.uploading() {
		p.measured(took, done*pageTexels)
		p.fullPasses++
	}
	left := len(todo) - done
	if done < len(todo) && !s.view.WeightsRoom() {
		left = 0 // nothing more fits: the view is as evaluated as the budget allows
	}
	s.mu.Lock()
	p.viewTexels = left * pageTexels
	s.mu.Unlock()
	return left > 0 && !drafting, Pass{Duration: took, Pages: done, Draft: drafting || left > 0}, nil
}

// superseded reports a newer state than version: a pass working for it should plan again.
func (p *pipeline) superseded(version uint64) bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version != version || len(p.fieldOps) > 0
}

// pageTexels is what one page costs to evaluate (its texels and the far border).
const pageTexels = (viewport.PageSize + 1) * (viewport.PageSize + 1)

// coarsestTodo is the coarsest level among pages to do.
func coarsestTodo(todo []viewport.PageKey) int {
	c := 0
	for _, k := range todo {
		c = max(c, k.Level)
	}
	return c
}

// draftPages keeps of todo the levels a drag can afford: from the coarsest down, a level of the
// view joins while the pages of all levels so far fit draftBudget (the coarsest always does).
func draftPages(todo, need []viewport.PageKey, pageCost time.Duration) []viewport.PageKey {
	perLevel := map[int]int{}
	top := 0
	for _, k := range need {
		perLevel[k.Level]++
		top = max(top, k.Level)
	}
	finest := top
	var spent time.Duration
	for l := top; l >= 0; l-- {
		spent += time.Duration(perLevel[l]) * pageCost
		if l < top && spent > draftBudget {
			break
		}
		finest = l
	}
	out := todo[:0:0]
	for _, k := range todo {
		if k.Level >= finest {
			out = append(out, k)
		}
	}
	return out
}

// dropUnneededStale forgets stale pages the view no longer samples: they would otherwise show
// the old ground when the camera comes back before they are written again.
func (p *pipeline) dropUnneededStale(need []viewport.PageKey, gen uint64) {
	if len(p.stale) == 0 {
		return
	}
	needed := make(map[viewport.PageKey]bool, len(need))
	for _, k := range need {
		needed[k] = true
	}
	for k := range p.stale {
		if !needed[k] {
			p.s.view.DropPage(k, gen)
			delete(p.stale, k)
		}
	}
}

// evaluatePage evaluates one page of generation ps.gen into the viewport.
func (p *pipeline) evaluatePage(ps passState, key viewport.PageKey) error {
	geo := p.geo.Level(key.Level)
	x0, z0, x1, z1 := p.s.view.PageRect(key)
	rect := image.Rect(x0, z0, x1, z1)
	unlock := p.lockGPU()
	defer unlock()
	return p.pages.page(ps.ctx, p.s.view, ps.st, p.s.land.Field, &geo, key, ps.gen, rect)
}

// measured folds a pass's time per texel into the estimate that decides drafts. The first real
// pass replaces the one made at open.
func (p *pipeline) measured(took time.Duration, texels int) {
	m := float64(took) / float64(max(1, texels))
	s := p.s
	s.mu.Lock()
	if p.fullPasses == 0 {
		p.nsPerTexel = m
	} else {
		p.nsPerTexel = 0.5*p.nsPerTexel + 0.5*m
	}
	s.mu.Unlock()
}
