package session

// history is the undo and redo stacks of operations, bounded in memory: when the steps kept
// weigh more than limit bytes, the oldest are dropped (a paint step keeps only the tiles it
// touched, so hundreds of strokes fit).
type history struct {
	done, undone []op
	bytes        int
	limit        int
	// dropped counts the oldest steps dropped to keep within limit.
	dropped int
}

// mark is a point in the history: the newest step done then, and how many steps had been dropped.
type mark struct {
	top     op
	dropped int
}

// op is one undoable edit. undo and redo run with Session.mu held and may queue field work for
// the worker; they return the document change to announce.
type op interface {
	label() string
	undo(s *Session)
	redo(s *Session)
	size() int
}

func (h *history) push(o op) {
	h.done = append(h.done, o)
	h.undone = nil
	// A step's size can grow after it was pushed (a stroke's blocks are recorded by the worker
	// as it reaches the dabs): the sum is taken afresh, so the bound holds whatever the order.
	h.bytes = 0
	for _, d := range h.done {
		h.bytes += d.size()
	}
	for h.bytes > h.limit && len(h.done) > 1 {
		h.bytes -= h.done[0].size()
		h.done[0] = nil
		h.done = h.done[1:]
		h.dropped++
	}
}

func (h *history) popUndo() op {
	if len(h.done) == 0 {
		return nil
	}
	o := h.done[len(h.done)-1]
	h.done = h.done[:len(h.done)-1]
	h.undone = append(h.undone, o)
	return o
}

func (h *history) popRedo() op {
	if len(h.undone) == 0 {
		return nil
	}
	o := h.undone[len(h.undone)-1]
	h.undone = h.undone[:len(h.undone)-1]
	h.done = append(h.done, o)
	return o
}

func (h *history) clear() { *h = history{limit: h.limit} }

// top is the newest step done (nil when none).
func (h *history) top() op {
	if len(h.done) == 0 {
		return nil
	}
	return h.done[len(h.done)-1]
}

// mark is where the history stands now.
func (h *history) mark() mark { return mark{h.top(), h.dropped} }

// at reports that undo and redo have brought the document back to m's state. A step is one
// edit, so the newest step done names the state; with none done, the states before and after
// steps were dropped differ (undo stops short of the first).
func (h *history) at(m mark) bool {
	return h.top() == m.top && (m.top != nil || h.dropped == m.dropped)
}

// Undo reverts the last step; false when there is none (or a drag or stroke is in progress).
func (s *Session) Undo() bool {
	return s.step("Undo", s.hist.popUndo, func(o op) { o.undo(s) })
}

// Redo applies the last undone step again; false when there is none.
func (s *Session) Redo() bool {
	return s.step("Redo", s.hist.popRedo, func(o op) { o.redo(s) })
}

// step pops a step off one side of the history and applies it (not during a gesture).
func (s *Session) step(verb string, pop func() op, apply func(op)) bool {
	s.mu.Lock()
	if s.pipe.gestureActive() {
		s.mu.Unlock()
		return false
	}
	o := pop()
	if o != nil {
		apply(o)
		s.changed()
	}
	s.mu.Unlock()
	if o != nil {
		s.emit(Event{Kind: EventDocument, Message: verb + " " + o.label()})
	}
	return o != nil
}

// UndoLabel and RedoLabel name the steps Undo and Redo would take ("" when none), for the menu.
func (s *Session) UndoLabel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.hist.done); n > 0 {
		return s.hist.done[n-1].label()
	}
	return ""
}

// RedoLabel names the step Redo would apply again.
func (s *Session) RedoLabel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.hist.undone); n > 0 {
		return s.hist.undone[n-1].label()
	}
	return ""
}

// changed bumps the version and marks the document modified — unless the history is back at the
// step it was opened or saved at (an edit undone). s.mu is held.
func (s *Session) changed() {
	s.doc.modified = !s.doc.savedOK || !s.hist.at(s.doc.savedAt)
	s.doc.steps++
	s.bumpVersion()
	s.rec.step()  // the recovery copy is written after every step
	s.pipe.kick() // the pass that publishes the version (frames say refining until it has)
	if msg := s.worldNotice(); msg != "" {
		go s.emit(Event{Kind: EventNotice, Message: msg}) // emit never runs under s.mu
	}
}
