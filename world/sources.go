package world

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"strata/bake"
	"strata/erode"
	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// A world's sources, read a window at a time.

// LoadStack reads and validates the world's stack (the sample's own with a sample world and no
// stack), refusing one whose rules read a channel the world lacks or whose textures cannot be
// read. Warnings come back for the caller to show.
func (w *World) LoadStack() (*stack.Stack, string, []stack.Problem, error) {
	if w.Stack == "" {
		return stack.SampleDunes(), "", nil, nil
	}
	p := w.Abs(w.Stack)
	s, err := stack.Load(p)
	if err != nil {
		return nil, "", nil, err
	}
	warnings, err := landscape.CheckStack(s, p)
	if err != nil {
		return nil, "", nil, err
	}
	if uses := s.FlowUses(); len(uses) > 0 {
		return nil, "", nil, fmt.Errorf("world: %s: %s reads flow: flow is routed over a whole field's height and a world's cells are baked apart, so a world takes no flow rule (bake the landscape as one field)", p, uses[0])
	}
	if err := w.checkErosionChannels(s, p); err != nil {
		return nil, "", nil, err
	}
	if err := landscape.CheckSources(s, filepath.Dir(p), p, w.channelNames()); err != nil {
		return nil, "", nil, err
	}
	return s, filepath.Dir(p), warnings, nil
}

// checkErosionChannels refuses a stack that reads an erosion channel (erosion.flow,
// erosion.deposit, erosion.wear) the world does not give as a channel file: those channels are
// made by eroding a whole field (strata erode, terrain.erode, Field → Erode…), and a world's cells
// are never eroded (water and sediment cross a cell's edge, and the cells are baked apart). A
// world whose channels list a file under that name reads it as any channel — cut from one file
// for the whole world, so the cells agree at their seams.
func (w *World) checkErosionChannels(s *stack.Stack, path string) error {
	have := map[string]bool{}
	for _, c := range w.Channels {
		have[c.Name] = true
	}
	for _, u := range s.ChannelUses() {
		if strings.HasPrefix(u.Channel, erode.ChannelPrefix) && !have[u.Channel] {
			return fmt.Errorf("world: %s: %s reads %s: the erosion channels come from eroding a whole field, and a world's cells are not eroded (water and sediment cross a cell's edge, and cells are baked apart); give world.yaml a channel file %s eroded over the whole world, or bake the landscape as one field and erode it (strata erode)",
				path, u.Where, u.Channel, u.Channel)
		}
	}
	return nil
}

// channelNames is the world's channel names, sorted.
func (w *World) channelNames() []string {
	var out []string
	for _, c := range w.Channels {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// importOptions is how the heightmap is read.
func (w *World) importOptions() field.ImportOptions {
	if w.Height == nil {
		return field.ImportOptions{}
	}
	return field.ImportOptions{Range: w.Height.Range, Size: w.Height.Size}
}

// windows reads block r of the world's height grid (clamped to it) from the sources: the
// heightmap (or the sample) and every channel.
func (w *World) windows(r field.Rect) (*bake.Windows, error) {
	r = r.Intersect(field.Rect{I1: w.HeightGrid[0], J1: w.HeightGrid[1]})
	out := &bake.Windows{Channels: map[string]*field.Window{}}
	if w.Sample != "" {
		if w.sample == nil {
			w.sample = field.SampleDunes()
		}
		f := w.sample
		if f.Height.W != w.HeightGrid[0] || f.Height.H != w.HeightGrid[1] {
			return nil, fmt.Errorf("world: %s: the sample is %d×%d, the plan says %v", w.Dir, f.Height.W, f.Height.H, w.HeightGrid)
		}
		whole := &field.Window{Grid: f.Height}
		g, err := whole.Crop(r)
		if err != nil {
			return nil, err
		}
		out.Height = &field.Window{Grid: g, I0: r.I0, J0: r.J0}
	} else {
		hw, hh, err := field.ProbeHeight(w.Abs(w.Height.File), w.importOptions())
		if err != nil {
			return nil, err
		}
		if hw != w.HeightGrid[0] || hh != w.HeightGrid[1] {
			return nil, fmt.Errorf("world: %s: the heightmap %s is %d×%d, the plan's grid %d×%d: re-run strata world plan",
				w.Dir, w.Height.File, hw, hh, w.HeightGrid[0], w.HeightGrid[1])
		}
		h, err := field.LoadHeightWindow(w.Abs(w.Height.File), w.importOptions(), r)
		if err != nil {
			return nil, err
		}
		out.Height = h
	}
	for _, c := range w.Channels {
		win, err := field.LoadChannelWindow(w.Abs(c.File), w.HeightGrid[0], w.HeightGrid[1], r)
		if err != nil {
			return nil, fmt.Errorf("channel %s: %w", c.Name, err)
		}
		if err := (&field.Field{Height: win.Grid}).AddChannel(c.Name, win.Grid); err != nil {
			return nil, fmt.Errorf("channel %s (%s): %w", c.Name, c.File, err)
		}
		out.Channels[c.Name] = win
	}
	return out, nil
}
