package world

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"strata/stack"
	"strata/terraindata"
)

// Cell states Status reports.
const (
	StateBaked   = "baked"   // the container exists and is newer than every source
	StateMissing = "missing" // never baked (or its task has not finished)
	StateStale   = "stale"   // a source, the stack or the plan changed after the cell was baked
)

// CellStatus is one cell's line of `strata world status`.
type CellStatus struct {
	Index int
	Path  string
	State string
	// Why says what made a stale cell stale ("stack.yaml changed 2024-… after the bake").
	Why string
}

// Status is a world's cells by state, and whether the plan itself is behind its sources.
type Status struct {
	Cells []CellStatus
	// PlanStale, when not empty, says why the plan's measured spacing may be wrong (the stack or
	// a source changed after it): re-run world plan before baking.
	PlanStale string
}

// Count is the number of cells in state.
func (s *Status) Count(state string) int {
	n := 0
	for _, c := range s.Cells {
		if c.State == state {
			n++
		}
	}
	return n
}

// source is one file a cell is baked from, and when it last changed.
type source struct {
	what string
	path string
	mod  time.Time
}

// sources lists every file the world's cells are baked from, with its modification time: the
// stack and the textures it names, the heightmap, the channels, and world.yaml itself (a re-plan
// may move every cell). A missing source is an error naming it.
func (w *World) sources() ([]source, error) {
	var out []source
	add := func(what, p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("world: %s: %s: %w", w.Dir, what, err)
		}
		out = append(out, source{what, p, fi.ModTime()})
		return nil
	}
	if err := add(FileName, filepath.Join(w.Dir, FileName)); err != nil {
		return nil, err
	}
	if w.Stack != "" {
		sp := w.Abs(w.Stack)
		if err := add("stack "+w.Stack, sp); err != nil {
			return nil, err
		}
		s, err := stack.Load(sp)
		if err != nil {
			return nil, err
		}
		for i := range s.Layers {
			for _, t := range []string{s.Layers[i].Albedo, s.Layers[i].Normal, s.Layers[i].Mask} {
				if t == "" {
					continue
				}
				p := t
				if !filepath.IsAbs(p) {
					p = filepath.Join(filepath.Dir(sp), p)
				}
				if err := add(fmt.Sprintf("layers[%d] %q texture %s", i, s.Layers[i].Name, t), p); err != nil {
					return nil, err
				}
			}
		}
	}
	if w.Height != nil {
		if err := add("heightmap "+w.Height.File, w.Abs(w.Height.File)); err != nil {
			return nil, err
		}
	}
	for _, c := range w.Channels {
		if err := add("channel "+c.Name+" "+c.File, w.Abs(c.File)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Status reports every cell as baked, missing or stale by modification times: a cell is stale
// when a source (the stack, its textures, the heightmap, a channel, world.yaml) changed after its
// container was written. With a measured spacing, a stack or source newer than world.yaml makes
// the plan stale too (its spacing came from the old ones).
func (w *World) Status() (*Status, error) {
	srcs, err := w.sources()
	if err != nil {
		return nil, err
	}
	st := &Status{}
	if w.Spacing == SpacingMeasured && len(w.Populations) > 0 {
		plan := srcs[0].mod
		for _, s := range srcs[1:] {
			if s.mod.After(plan) {
				st.PlanStale = fmt.Sprintf("%s changed after the plan measured the spacing: re-run strata world plan", s.what)
				break
			}
		}
	}
	for i := range w.CellList {
		path, _ := w.Cell(i)
		cs := CellStatus{Index: i, Path: path, State: StateBaked}
		baked, err := w.bakedAt(i)
		switch {
		case err != nil:
			return nil, err
		case baked.IsZero():
			cs.State = StateMissing
		default:
			for _, s := range srcs {
				if s.mod.After(baked) {
					cs.State = StateStale
					cs.Why = fmt.Sprintf("%s changed (%s) after the cell was baked (%s)", s.what,
						s.mod.Format(time.RFC3339), baked.Format(time.RFC3339))
					break
				}
			}
		}
		st.Cells = append(st.Cells, cs)
	}
	return st, nil
}

// bakedAt is when cell i's container was written (its manifest's modification time; a save's
// rename keeps it), zero when it has none.
func (w *World) bakedAt(i int) (time.Time, error) {
	c, err := w.openCell(i)
	if err != nil || c == nil {
		return time.Time{}, err
	}
	fi, err := os.Stat(filepath.Join(c.Path(), terraindata.ManifestFile))
	if errors.Is(err, fs.ErrNotExist) { // only a crashed save's backup is there: Open reads it
		_, oldDir := filepath.Split(c.Path())
		fi, err = os.Stat(filepath.Join(filepath.Dir(c.Path()), "."+oldDir+".old", terraindata.ManifestFile))
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("world: %w", err)
	}
	return fi.ModTime(), nil
}

// BakedCell returns the container path of cell i when it is baked, else an error saying how to
// bake it (the editor opens only baked cells).
func (w *World) BakedCell(i int) (string, error) {
	path, err := w.Cell(i)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("world: cell %d of %s is not baked yet (strata world bake %s --cell %d)", i, w.Dir, w.Dir, i)
	} else if err != nil {
		return "", fmt.Errorf("world: cell %d: %w", i, err)
	}
	return path, nil
}
