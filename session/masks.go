package session

import (
	"fmt"
	"image"
	"slices"
	"sort"
	"strings"

	"strata/field"
)

// Mask channels: a new empty mask as an undoable step, and the channel edits it queues.

// channelOp adds a channel (undo removes it again, keeping its data for redo).
type channelOp struct {
	name string
	grid *field.Grid
}

func (o *channelOp) label() string { return "New mask " + strings.TrimPrefix(o.name, field.MaskPrefix) }
func (o *channelOp) undo(s *Session) {
	s.doc.channels = removeString(s.doc.channels, o.name)
	s.pipe.queue(&setChannelOp{name: o.name})
}
func (o *channelOp) redo(s *Session) {
	s.doc.channels = insertSorted(s.doc.channels, o.name)
	s.pipe.queue(&setChannelOp{name: o.name, grid: o.grid})
}
func (o *channelOp) size() int { return 4 * len(o.grid.Data) }

// setChannelOp adds (grid set) or removes (grid nil) a field channel.
type setChannelOp struct {
	name string
	grid *field.Grid
}

func (o *setChannelOp) apply(p *pipeline) (fieldChange, error) {
	f := p.s.land.Field
	if o.grid == nil {
		delete(f.Channels, o.name)
		return fieldChange{}, nil
	}
	if err := f.AddChannel(o.name, o.grid); err != nil {
		return fieldChange{}, err
	}
	return fieldChange{target: o.name, rect: image.Rect(0, 0, f.Height.W, f.Height.H)}, nil
}

// NewMask adds an empty mask channel mask.<name> (0 everywhere) as an undoable step; rules and
// brushes can use it at once.
func (s *Session) NewMask(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.doc.loaded {
		return errNoLandscape
	}
	full, err := s.maskChannel(name)
	if err != nil {
		return fmt.Errorf("session: new mask: %w", err)
	}
	g, err := s.newPlane()
	if err != nil {
		return fmt.Errorf("session: new mask: %w", err)
	}
	op := &channelOp{name: full, grid: g}
	s.hist.push(op)
	op.redo(s)
	s.changed()
	go s.emit(Event{Kind: EventDocument, Message: op.label()})
	return nil
}

// MaskChannel is the channel NewMask(name) would add — mask.<name>, the prefix optional, spaces
// around it ignored — or why it would refuse: no name, a character a channel name may not hold,
// or a channel of that name in the field already.
func (s *Session) MaskChannel(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maskChannel(name)
}

// maskChannel is MaskChannel with s.mu held.
func (s *Session) maskChannel(name string) (string, error) {
	name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), field.MaskPrefix))
	full := field.MaskPrefix + name
	if name == "" {
		return "", fmt.Errorf("a mask needs a name")
	}
	if err := field.CheckChannelName(full); err != nil {
		return "", err
	}
	if slices.Contains(s.doc.channels, full) {
		return "", fmt.Errorf("the field already has a mask %q", name)
	}
	return full, nil
}

// newPlane is a zeroed plane of the height grid's size (fixed for a landscape's life), on disk
// with the landscape's other planes when they are (landscape.Landscape.NewPlane).
func (s *Session) newPlane() (*field.Grid, error) {
	s.fmu.RLock()
	defer s.fmu.RUnlock()
	if s.land == nil {
		return nil, errNoLandscape
	}
	return s.land.NewPlane()
}

func removeString(list []string, v string) []string {
	out := list[:0:0]
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

func insertSorted(list []string, v string) []string {
	out := append(removeString(list, v), v)
	sort.Strings(out)
	return out
}
