package session

import "time"

// A dab on the Go evaluator with a slow (software) device's frames: one frame when a draft would
// be stale before it was drawn (docs/design.md "A dab's frames on two cores").
//
// The Go evaluator's dab pass publishes the view's new ground before it evaluates and places the
// touched tiles, so a draft can be drawn beside that work; the pass's end asks for the final
// frame. When the rest of the pass takes less than a draft frame does, the draft is stale before
// it ends: the final frame queues behind it (one frame at a time) and both frames share the two
// cores with the evaluation. The pass then publishes once, at its end: the stroke's frames wait
// for it (dabDue), and the dab's first frame is its final one.

// dabSmoothing weighs the newest measure of a dab's rest against the ones before.
const dabSmoothing = 0.5

// draftWorthIt reports whether a Go-evaluator dab pass, its view evaluated, should publish the
// view for a draft frame now: when the rest of the pass (the touched tiles and their placement,
// as the last dabs took) is expected to outlast a draft frame (as the last drafts took), or when
// either has not been measured yet. The worker's (passMu held).
func (p *pipeline) draftWorthIt() bool {
	frame := p.s.rend.draftCost()
	return p.dabRest == 0 || frame == 0 || p.dabRest >= frame
}

// noteDabRest records how long a Go-evaluator dab pass took from its view's publication (or the
// moment it would have published it) to its end. The worker's (passMu held).
func (p *pipeline) noteDabRest(d time.Duration) {
	if p.dabRest == 0 {
		p.dabRest = d
		return
	}
	p.dabRest = time.Duration(dabSmoothing*float64(d) + (1-dabSmoothing)*float64(p.dabRest))
}

// draftCost is how long the last reduced-resolution frames took (smoothed; 0: none yet).
func (r *renderLoop) draftCost() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Duration(r.draftMs * float64(time.Millisecond))
}

// noteDraft records a reduced-resolution frame's time. r.mu is held.
func (r *renderLoop) noteDraft(ms float64) {
	if r.draftMs == 0 {
		r.draftMs = ms
		return
	}
	r.draftMs = dabSmoothing*ms + (1-dabSmoothing)*r.draftMs
}
