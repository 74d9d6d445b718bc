package session

import (
	"fmt"
	"image/color"
	"slices"

	"strata/landscape"
	"strata/stack"
	"strata/viewport"
)

// stackOp is a change of the whole stack (a rule, a layer, a population, the noise).
type stackOp struct {
	name          string
	before, after *stack.Stack
}

func (o *stackOp) label() string   { return o.name }
func (o *stackOp) undo(s *Session) { s.setStack(o.before) }
func (o *stackOp) redo(s *Session) { s.setStack(o.after) }
func (o *stackOp) size() int       { return 4096 }

// Apply makes st the landscape's stack as one undoable step called label ("snow: min height")
// and re-evaluates what the change touches: nothing but the viewport's layer table for a tint or
// tiling, the scatter alone for a population, every tile for a rule. A stack that does not
// validate against the field (an error in a rule, a channel the field lacks) is refused by name
// and the previous stack stays. st becomes the session's: do not change it afterwards.
func (s *Session) Apply(label string, st *stack.Stack) error {
	if err := s.checkStack(st); err != nil {
		return err
	}
	s.mu.Lock()
	if !s.doc.loaded {
		s.mu.Unlock()
		return errNoLandscape
	}
	if s.doc.baked {
		s.mu.Unlock()
		return fmt.Errorf("session: %s holds baked weights and no stack: start a stack first (Layers → Edit as a stack)", s.doc.name)
	}
	if g := s.pipe.drag; g != nil {
		// A typed value while a slider drag is open ends the drag first.
		s.endDragLocked()
	}
	before := s.doc.stack
	s.hist.push(&stackOp{name: label, before: before, after: st})
	s.setStack(st)
	s.changed()
	s.mu.Unlock()
	s.emit(Event{Kind: EventDocument, Message: label})
	return nil
}

// Drag previews st while a slider (or any continuous control) moves: each call re-evaluates at
// once, as a coarse draft when a full pass would be slow here, and replaces the previous preview
// (only the newest state is ever evaluated). Nothing is recorded until EndDrag, which makes the
// whole drag one undoable step named by the first call's label.
func (s *Session) Drag(label string, st *stack.Stack) error {
	if err := s.checkStack(st); err != nil {
		return err
	}
	s.mu.Lock()
	if !s.doc.loaded || s.doc.baked {
		s.mu.Unlock()
		return errNoLandscape
	}
	if s.pipe.drag == nil {
		s.pipe.drag = &dragState{label: label, before: s.doc.stack}
	}
	s.setStack(st)
	s.bumpVersion()
	s.mu.Unlock()
	return nil
}

// EndDrag records the drag since the first Drag as one step and refines it to full resolution.
func (s *Session) EndDrag() {
	s.mu.Lock()
	s.endDragLocked()
	s.mu.Unlock()
	s.rend.calm()
	s.emit(Event{Kind: EventDocument})
}

func (s *Session) endDragLocked() {
	g := s.pipe.drag
	if g == nil {
		return
	}
	s.pipe.drag = nil
	if g.before != s.doc.stack {
		s.hist.push(&stackOp{name: g.label, before: g.before, after: s.doc.stack})
		s.changed()
	}
	if g.before != s.doc.stack && !weightsDiffer(g.before, s.doc.stack, &s.pipe.geo) {
		// A population's slider: the weights never changed and no draft stood in for them, so
		// only the population is placed again, whole (its spacing held during the drag).
		s.pipe.scatterAll = true
	} else {
		s.pipe.markAllWeights() // the drafts are refined now
	}
	s.pipe.kick()
}

// checkStack validates st on its own and against the field: every channel its rules read must
// be there.
func (s *Session) checkStack(st *stack.Stack) error {
	if st == nil {
		return fmt.Errorf("session: no stack")
	}
	if _, err := landscape.CheckStack(st, "the stack"); err != nil {
		return err
	}
	have := s.Channels()
	for _, u := range st.ChannelUses() { // flow is routed from the height, not stored
		if !slices.Contains(have, u.Channel) {
			return fmt.Errorf("session: a rule reads channel %q, which the field does not have (it has %v); add it first", u.Channel, have)
		}
	}
	return nil
}

// setStack swaps the stack and tells the pipeline what changed. s.mu is held.
func (s *Session) setStack(st *stack.Stack) {
	old := s.doc.stack
	s.doc.stack = st
	s.pipe.stackChanged(old, st)
}

// viewLayers is the viewport's layer table for st.
func viewLayers(st *stack.Stack) []viewport.Layer {
	out := make([]viewport.Layer, len(st.Layers))
	for i, l := range st.Layers {
		out[i] = viewport.Layer{Name: l.Name, Tint: color.RGBA{l.Tint[0], l.Tint[1], l.Tint[2], 255},
			Tiling: l.Tiling, Textured: l.Albedo != ""}
	}
	return out
}
