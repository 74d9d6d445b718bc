package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"strata/world"
)

// WorldCell says the open landscape is one cell of a world (strata edit NAME.world --cell I).
type WorldCell struct {
	// World is the world's folder; Cell the open cell's index of Cells.
	World       string
	Cell, Cells int
	// Neighbours are the cells whose seams read this cell's ground and sites (world.Neighbours).
	Neighbours []int
}

// Name is how the window names the world ("valley.world").
func (c *WorldCell) Name() string { return filepath.Base(c.World) }

// OpenWorldCell opens cell i of the world at path (its folder or its world.yaml) for editing:
// the cell's container, as OpenContainer opens it. The cell must be baked. The live pipeline
// works on the cell alone; the first edit brings a notice (EventNotice) that the neighbours'
// seams, and with a rule change every cell, need a re-bake.
func (s *Session) OpenWorldCell(ctx context.Context, path string, i int) error {
	w, err := world.Open(path)
	if err != nil {
		return err
	}
	cell, err := w.BakedCell(i)
	if err != nil {
		return err
	}
	if err := s.OpenContainer(ctx, cell); err != nil {
		return err
	}
	s.mu.Lock()
	s.doc.world = &WorldCell{World: w.Dir, Cell: i, Cells: w.NumCells(), Neighbours: w.Neighbours(i)}
	s.doc.name = fmt.Sprintf("cell %d of %s", i, filepath.Base(w.Dir))
	s.mu.Unlock()
	s.emit(Event{Kind: EventDocument, Message: "Opened " + s.Name()})
	return nil
}

// World is the world cell the open landscape is, or nil.
func (s *Session) World() *WorldCell {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.world
}

// worldNotice is the notice the first edit of a world cell brings (once per open or save), or
// "". s.mu is held.
func (s *Session) worldNotice() string {
	c := s.doc.world
	if c == nil || s.doc.worldWarned {
		return ""
	}
	s.doc.worldWarned = true
	nb := make([]string, len(c.Neighbours))
	for k, n := range c.Neighbours {
		nb[k] = fmt.Sprint(n)
	}
	return fmt.Sprintf("This is cell %d of %s: the neighbouring cells %s read its ground and rules at their seams "+
		"and need a re-bake once it changes (a rule change makes every cell stale). Saving writes this cell alone, "+
		"as an ordinary container; the world is re-baked from its sources (strata world bake %s --all).",
		c.Cell, c.Name(), strings.Join(nb, ", "), c.World)
}
