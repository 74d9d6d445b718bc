package world

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"strata/field"
	"strata/landscape"
	"strata/stack"
	"strata/terraindata"
)

// PlanOptions are `strata world plan`'s: bake's sources, the grid of cells and where the plan
// goes.
type PlanOptions struct {
	Sources landscape.Sources
	// Resolution is metres per weights texel (0 = the height grid); Tile the tile side cells are
	// evaluated in (0 = default).
	Resolution float64
	Tile       int
	// Cells is N cells along X by M along Z.
	Cells [2]int
	// Out is the world folder (NAME.world), created.
	Out string
	// Spacing is SpacingMeasured (default) or SpacingDeclared.
	Spacing string
	Options
}

// Plan writes Out/world.yaml: the world's placement and grids from the sources, the partition
// into cells, and each population's spacing — measured by a density pass over the whole world
// (cell by cell, each reading only its window; what one whole bake would use, so the cells'
// instances together are that bake's) or, with SpacingDeclared, from each population's declared
// density (no pass; the finest grid the population could need). Re-planning a world keeps its
// guid (and so every cell's). It reads the sources' headers and, to measure, their windows; it
// bakes nothing.
func Plan(ctx context.Context, o PlanOptions) (*World, error) {
	src := o.Sources
	if err := src.Check(); err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	if o.Spacing == "" {
		o.Spacing = SpacingMeasured
	}
	if o.Spacing != SpacingMeasured && o.Spacing != SpacingDeclared {
		return nil, fmt.Errorf("world: spacing %q: want %s or %s", o.Spacing, SpacingMeasured, SpacingDeclared)
	}
	guid, err := existingGUID(o.Out)
	if err != nil {
		return nil, err
	}
	w := &World{Dir: o.Out, Spec: Spec{Version: Version, GUID: guid, Cells: o.Cells, Resolution: o.Resolution, Tile: o.Tile,
		Sample: src.Sample, Spacing: o.Spacing}}
	rel := func(p string) (string, error) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		dir, err := filepath.Abs(o.Out)
		if err != nil {
			return "", err
		}
		r, err := filepath.Rel(dir, abs)
		if err != nil {
			return "", err
		}
		return filepath.ToSlash(r), nil
	}
	if src.StackPath != "" {
		if w.Stack, err = rel(src.StackPath); err != nil {
			return nil, fmt.Errorf("world: stack: %w", err)
		}
	}
	for _, c := range src.Channels {
		r, err := rel(c.File)
		if err != nil {
			return nil, fmt.Errorf("world: channel %s: %w", c.Name, err)
		}
		w.Channels = append(w.Channels, ChannelSource{Name: c.Name, File: r})
	}
	if src.Height != "" {
		r, err := rel(src.Height)
		if err != nil {
			return nil, fmt.Errorf("world: height: %w", err)
		}
		w.Height = &HeightSource{File: r, Range: src.Import.Range, Size: src.Import.Size}
		hw, hh, err := field.ProbeHeight(src.Height, src.Import)
		if err != nil {
			return nil, err
		}
		w.HeightGrid = [2]int{hw, hh}
	} else {
		w.HeightGrid = [2]int{field.DunesTexels, field.DunesTexels}
		w.Size = [2]float64{field.DunesSize, field.DunesSize}
	}
	if src.Size != nil {
		w.Size = *src.Size
	} else if src.Height != "" {
		w.Size = [2]float64{float64(w.HeightGrid[0]), float64(w.HeightGrid[1])}
	}
	if src.Origin != nil {
		w.Origin = *src.Origin
	}
	if err := w.Placement().Validate(); err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	if w.WeightsGrid[0], w.WeightsGrid[1], err = field.WorldWeightsGrid(w.Placement(), w.HeightGrid[0], w.HeightGrid[1], o.Resolution); err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	if w.CellList, err = layout(&w.Spec); err != nil {
		return nil, fmt.Errorf("world: --cells: %w", err)
	}
	for _, c := range src.Channels {
		cw, ch, err := field.ProbeHeight(c.File, field.ImportOptions{Size: w.HeightGrid})
		if err != nil {
			return nil, fmt.Errorf("channel %s: %w", c.Name, err)
		}
		if cw != w.HeightGrid[0] || ch != w.HeightGrid[1] {
			return nil, fmt.Errorf("field: %s: channel %s is %d×%d but the height is %d×%d: a channel's grid must match the height's",
				c.File, c.Name, cw, ch, w.HeightGrid[0], w.HeightGrid[1])
		}
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	s, _, _, err := w.LoadStack()
	if err != nil {
		return nil, err
	}
	if w.Populations, err = w.planPopulations(ctx, s, &o.Options); err != nil {
		return nil, err
	}
	if err := w.check(); err != nil {
		return nil, fmt.Errorf("world: %w", err)
	}
	return w, w.save()
}

// planPopulations fixes each population's spacing: from its declared density, or the densest
// texel a density pass over every cell finds (each cell's own texels; a cell's window of the
// sources at a time).
func (w *World) planPopulations(ctx context.Context, s *stack.Stack, o *Options) ([]PopulationPlan, error) {
	out := make([]PopulationPlan, len(s.Populations))
	for p := range s.Populations {
		out[p].Name = s.Populations[p].Name
		out[p].MaxDensity = short32(float32(s.Populations[p].Density))
	}
	if w.Spacing == SpacingMeasured && len(s.Populations) > 0 {
		geo, err := w.geometry(s)
		if err != nil {
			return nil, err
		}
		maxes := make([]float32, len(s.Populations))
		report := o.report()
		dev, err := o.newEvaluator(ctx)
		if err != nil {
			return nil, err
		}
		defer dev.Release()
		for i := range w.CellList {
			report("measure density", i, len(w.CellList))
			r := w.CellList[i].WeightsRect()
			co := *o
			co.Progress = nil
			ev, err := w.evaluate(ctx, dev, nil, s, geo, r, geo.Field.ApronRect(r, geo.Stack.GradientStep), true, &co)
			if err != nil {
				return nil, fmt.Errorf("world: measuring the density of cell %d: %w", i, err)
			}
			for p := range maxes {
				maxes[p] = max(maxes[p], ev.maxOver(p, r))
			}
		}
		report("measure density", len(w.CellList), len(w.CellList))
		for p := range out {
			out[p].MaxDensity = short32(maxes[p])
		}
	}
	for p := range out {
		out[p].Spacing = float64(spacingOf(out[p].MaxDensity))
	}
	return out, nil
}

// short32 is v as the float64 with float32 v's shortest decimal form (exact back to v).
func short32(v float32) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	return f
}

// existingGUID is the guid of the world already at dir (kept by a re-plan), a new random one
// when there is none; a folder that holds something else is refused.
func existingGUID(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("world: no output folder (--out NAME.world)")
	}
	if w, err := Open(dir); err == nil {
		return w.GUID, nil
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("world: %w", err)
	case !fi.IsDir():
		return "", fmt.Errorf("world: %s exists and is not a world folder", dir)
	default:
		if _, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
			break // an unreadable old plan: replaced, with a new identity
		}
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			return "", fmt.Errorf("world: %s is a folder with no %s: not writing a world into it", dir, FileName)
		}
	}
	return terraindata.NewGUID(), nil
}

// memoryPerCell estimates a cell task's peak memory in bytes (the largest cell), calibrated on
// measured cell bakes (docs/PERFORMANCE.md, "World cells": 34 B per texel with one population,
// 37 MB of process): 26 B per weights texel for the windows, the weights and the payloads being
// written, 8 more per population (its density), 8 per height texel per channel, a seventh more
// for margin, and 128 MiB for the process and a GPU driver's host side.
func (w *World) memoryPerCell() uint64 {
	var worst uint64
	for i := range w.CellList {
		c := &w.CellList[i]
		h, wt := uint64(c.HeightRect().Texels()), uint64(c.WeightsRect().Texels())
		worst = max(worst, wt*26+wt*8*uint64(len(w.Populations))+h*8*uint64(len(w.Channels)))
	}
	return worst + worst/7 + 128<<20
}
