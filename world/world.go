// Package world is a landscape larger than one container or one machine: a grid of ordinary
// terrainData containers (cells) whose shared edges agree byte for byte with one whole bake, each
// baked by one task of an array job (Kubernetes Indexed Job, Slurm array, or local processes).
//
// NAME.world/world.yaml is the plan: the world's placement and grids, the sources (stack,
// heightmap, channels) every cell reads its window of, the cells' rectangles and containers, and
// each population's site spacing — fixed for the whole world, since a cell alone cannot know the
// densest place in the world. A cell bake reads only its window of the sources (plus the apron its
// taps and its sites reach), evaluates it with the whole world's geometry (every read placed from
// the world's minimum corner with the world's texel sizes; sites on the world's grid, each owned
// by the cell its centre falls in), and writes its container atomically under a lock, so a
// retried or duplicated task is harmless. docs/worlds.md is the user's guide.
package world

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"strata/field"
	"strata/internal/safeio"
	"strata/landscape"
	"strata/terraindata"
)

// Version is the world.yaml version this package writes and reads.
const Version = 1

// FileName is the plan inside a world folder.
const FileName = "world.yaml"

// maxPlanBytes bounds world.yaml: a few lines per cell, MaxCells cells.
const maxPlanBytes = 16 << 20

// MaxCells is the most cells a world may have: Kubernetes caps an Indexed Job's completions at
// 100 000; 65 536 cells of 16K² are a world of 4M² texels, four times field.MaxWorldSide.
const MaxCells = 1 << 16

// Spec is world.yaml: what every cell task needs to bake its cell, and what a reader needs to find
// and place the cells. Paths are relative to the world folder (so the folder and its sources can
// move together, onto a shared volume), written with '/'.
type Spec struct {
	Version int    `yaml:"version"`
	GUID    string `yaml:"guid"`
	// Size is the world's extent in metres along X and Z; Origin the world position of its centre.
	Size   [2]float64 `yaml:"size,flow"`
	Origin [2]float64 `yaml:"origin,flow"`
	// Cells is the grid: N cells along X, M along Z. Cell index I = j·N + i (x{i}_z{j}).
	Cells [2]int `yaml:"cells,flow"`
	// HeightGrid and WeightsGrid are the world's grids in texels.
	HeightGrid  [2]int `yaml:"heightGrid,flow"`
	WeightsGrid [2]int `yaml:"weightsGrid,flow"`
	// Resolution is metres per weights texel; 0 = the height grid.
	Resolution float64 `yaml:"resolution,omitempty"`
	// Tile is the tile side a cell bake cuts its evaluation into (0 = the default); any tiling
	// gives the same bytes.
	Tile int `yaml:"tile,omitempty"`
	// Stack is the stack.yaml every cell is baked with ("" with Sample: the sample's own stack).
	Stack string `yaml:"stack,omitempty"`
	// Sample is "dunes" for the built-in sample instead of Height.
	Sample string `yaml:"sample,omitempty"`
	// Height is the heightmap and how to read it.
	Height *HeightSource `yaml:"height,omitempty"`
	// Channels are the field channels, each a file on the height's grid.
	Channels []ChannelSource `yaml:"channels,omitempty"`
	// Spacing says where the populations' spacing came from: "measured" (the densest texel of a
	// whole-world density pass, what one whole bake would use) or "declared" (each population's
	// declared density, an upper bound).
	Spacing string `yaml:"spacing"`
	// Populations holds each population's world-wide placement.
	Populations []PopulationPlan `yaml:"populations,omitempty"`
	// CellList is every cell: its container and rectangles (derived from the grids and Cells;
	// Open checks they agree).
	CellList []Cell `yaml:"cellList"`
}

// HeightSource is the heightmap a world is read from (bake's --height, --height-range,
// --height-size).
type HeightSource struct {
	File  string     `yaml:"file"`
	Range [2]float64 `yaml:"range,flow,omitempty"`
	Size  [2]int     `yaml:"size,flow,omitempty"`
}

// ChannelSource is one field channel (bake's --channel NAME=FILE).
type ChannelSource struct {
	Name string `yaml:"name"`
	File string `yaml:"file"`
}

// PopulationPlan is one population's site grid for the whole world.
type PopulationPlan struct {
	Name string `yaml:"name"`
	// MaxDensity is the density the spacing serves (instances/m², float32): the densest texel of
	// the world when measured, the declared density otherwise. A cell reaching more refuses to
	// bake (its sites would saturate): the plan is stale.
	MaxDensity float64 `yaml:"maxDensity"`
	// Spacing is 1/sqrt(MaxDensity) in metres (float32; 0: the population places nothing).
	Spacing float64 `yaml:"spacing"`
}

// Cell is one container of the world.
type Cell struct {
	Index int `yaml:"index"`
	// Container is the cell's terrainData folder, relative to the world folder.
	Container string `yaml:"container"`
	// Height and Weights are the cell's texels of the world's grids: [i0, j0, i1, j1).
	Height  [4]int `yaml:"height,flow"`
	Weights [4]int `yaml:"weights,flow"`
	// Size and Origin are the cell container's placement.
	Size   [2]float64 `yaml:"size,flow"`
	Origin [2]float64 `yaml:"origin,flow"`
}

// HeightRect is the cell's block of the world's height grid.
func (c *Cell) HeightRect() field.Rect {
	return field.Rect{I0: c.Height[0], J0: c.Height[1], I1: c.Height[2], J1: c.Height[3]}
}

// WeightsRect is the cell's block of the world's weights grid.
func (c *Cell) WeightsRect() field.Rect {
	return field.Rect{I0: c.Weights[0], J0: c.Weights[1], I1: c.Weights[2], J1: c.Weights[3]}
}

// World is an opened world: its plan and where it is.
type World struct {
	// Dir is the world folder (NAME.world).
	Dir string
	Spec

	sample *field.Field // the built-in sample, generated once for all the windows read of it
}

// CellName is the container folder name of cell (i, j): x{i}_z{j}.terrainData.
func CellName(i, j int) string { return fmt.Sprintf("x%d_z%d.terrainData", i, j) }

// Open reads and checks NAME.world/world.yaml. A path to world.yaml itself is accepted too.
func Open(path string) (*World, error) {
	dir := path
	if filepath.Base(path) == FileName {
		dir = filepath.Dir(path)
	}
	file := filepath.Join(dir, FileName)
	b, err := safeio.ReadFile(file, maxPlanBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("world: %s: no %s: not a world folder (strata world plan writes one)", dir, FileName)
		}
		return nil, fmt.Errorf("world: %w", err)
	}
	return decodePlan(dir, file, b)
}

// decodePlan decodes world.yaml's bytes b (file names it in errors) for the world folder dir and
// checks the plan: the one parser of a plan file, which FuzzPlanFile drives.
func decodePlan(dir, file string, b []byte) (w *World, err error) {
	defer func() {
		if r := recover(); r != nil { // yaml.v3 is not known to panic; this keeps the promise anyway
			w, err = nil, fmt.Errorf("world: %s: unreadable YAML (%s)", file, safeio.Cap(fmt.Sprint(r), maxPlanMessage))
		}
	}()
	var p Spec
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("world: %s: %s", file, planError(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, fmt.Errorf("world: %s: a second YAML document (---): world.yaml holds one plan", file)
	}
	w = &World{Dir: dir, Spec: p}
	if err := w.check(); err != nil {
		return nil, fmt.Errorf("world: %s: %s", file, planError(err))
	}
	return w, nil
}

// maxPlanMessage bounds what an error about world.yaml says of it: the decoder's and check's
// messages quote keys and values of the file, and world.yaml is a file anyone with the shared
// volume may have edited.
const maxPlanMessage = 200

// planError is err's message on one line, at most maxPlanMessage bytes.
func planError(err error) string {
	return safeio.Cap(strings.Join(strings.Fields(err.Error()), " "), maxPlanMessage)
}

// check is what Open refuses: a plan whose numbers a cell bake could not use, or whose cell list
// disagrees with the partition its grids and Cells define.
func (w *World) check() error {
	p := &w.Spec
	if p.Version != Version {
		return fmt.Errorf("version: %d, this build reads version %d", p.Version, Version)
	}
	if err := (field.Placement{Size: p.Size, Origin: p.Origin}).Validate(); err != nil {
		return fmt.Errorf("size/origin: %w", err)
	}
	for k, g := range [][2]int{p.HeightGrid, p.WeightsGrid} {
		if g[0] < 2 || g[1] < 2 || g[0] > field.MaxWorldSide || g[1] > field.MaxWorldSide {
			return fmt.Errorf("%s: %v: want 2 … %d texels per side", [2]string{"heightGrid", "weightsGrid"}[k], g, field.MaxWorldSide)
		}
	}
	if ww, wh, err := field.WorldWeightsGrid(field.Placement{Size: p.Size, Origin: p.Origin}, p.HeightGrid[0], p.HeightGrid[1], p.Resolution); err != nil || ww != p.WeightsGrid[0] || wh != p.WeightsGrid[1] {
		return fmt.Errorf("weightsGrid: %v is not the weights grid of resolution %v over %v m with a %v height grid", p.WeightsGrid, p.Resolution, p.Size, p.HeightGrid)
	}
	if p.Tile < 0 {
		return fmt.Errorf("tile: %d: must be positive", p.Tile)
	}
	src := landscape.Sources{StackPath: p.Stack, Sample: p.Sample}
	if p.Height != nil {
		src.Height = p.Height.File
	}
	if err := src.Check(); err != nil {
		return err
	}
	for _, f := range w.sourcePaths() {
		if err := checkSourcePath(f.rel); err != nil {
			return fmt.Errorf("%s: %s: %w", f.field, safeio.Excerpt(f.rel), err)
		}
	}
	if p.Spacing != SpacingMeasured && p.Spacing != SpacingDeclared {
		return fmt.Errorf("spacing: %q: want %s or %s", p.Spacing, SpacingMeasured, SpacingDeclared)
	}
	for i, pp := range p.Populations {
		if pp.Name == "" || !(pp.MaxDensity >= 0) || math.IsInf(pp.MaxDensity, 0) || pp.Spacing != float64(spacingOf(pp.MaxDensity)) {
			return fmt.Errorf("populations[%d] %q: maxDensity %v, spacing %v: want a density ≥ 0 and its spacing 1/sqrt(density)", i, pp.Name, pp.MaxDensity, pp.Spacing)
		}
	}
	want, err := layout(p)
	if err != nil {
		return fmt.Errorf("cells: %w", err)
	}
	if len(want) != len(p.CellList) {
		return fmt.Errorf("cellList: %d cells, the grid %dx%d has %d", len(p.CellList), p.Cells[0], p.Cells[1], len(want))
	}
	for i := range want {
		if want[i] != p.CellList[i] {
			return fmt.Errorf("cellList[%d]: %+v disagrees with the partition of the grids (%+v)", i, p.CellList[i], want[i])
		}
	}
	return nil
}

// checkSourcePath refuses a source path plan would not write: plan writes each source relative
// to the world folder, clean, with '/' (the folder and its sources move together); an absolute
// path, a '.' or an inner '..' step, a backslash or a control character is a hand-edited plan.
func checkSourcePath(rel string) error {
	switch {
	case rel == "":
		return errors.New("empty: want a path relative to the world folder")
	case strings.HasPrefix(rel, "/") || filepath.IsAbs(filepath.FromSlash(rel)) || strings.ContainsAny(rel, "\\:"):
		return errors.New("want a path relative to the world folder, with '/' (plan writes no other)")
	case path.Clean(rel) != rel || rel == "." || rel == ".." || strings.HasSuffix(rel, "/.."):
		return errors.New("not a clean path to a file: plan writes no '.' steps and no '..' after a name")
	}
	for _, r := range rel {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("a control character (U+%04X)", r)
		}
	}
	return nil
}

// Contain refuses a world whose sources do not lie inside root once resolved through symlinks
// (`strata world bake --root DIR`, which the emitted job files pass: the claim's mount on
// Kubernetes, the folder holding the world and its sources at plan time on Slurm). world.yaml is
// a file on a shared volume; a plan edited to name a service-account token or a key elsewhere on
// the node is refused before a byte of it is read, as plan refused such a source for the job.
func (w *World) Contain(root string) error {
	for _, f := range w.sourcePaths() {
		in, err := safeio.Within(root, w.Abs(f.rel))
		if err != nil {
			return fmt.Errorf("world: %s: %s %s: %w", filepath.Join(w.Dir, FileName), f.field, safeio.Excerpt(f.rel), err)
		}
		if !in {
			return fmt.Errorf("world: %s: %s %s lies outside %s (--root): a cell reads only sources inside it",
				filepath.Join(w.Dir, FileName), f.field, safeio.Excerpt(f.rel), root)
		}
	}
	return nil
}

// sourceRoot is the deepest folder holding the world folder's parent and every source (after
// symlinks): the --root the Slurm script passes.
func (w *World) sourceRoot() (string, error) {
	abs, err := filepath.Abs(w.Dir)
	if err != nil {
		return "", err
	}
	root := filepath.Dir(filepath.Clean(abs))
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	for _, f := range w.sourcePaths() {
		for {
			in, err := safeio.Within(root, w.Abs(f.rel))
			if err != nil {
				return "", fmt.Errorf("world: %s: %w", f.field, err)
			}
			if in || filepath.Dir(root) == root {
				break
			}
			root = filepath.Dir(root)
		}
	}
	return root, nil
}

// sourcePath is one file a plan names, for messages.
type sourcePath struct{ field, rel string }

// sourcePaths lists the files the plan names (stack, height, channels).
func (w *World) sourcePaths() []sourcePath {
	var out []sourcePath
	if w.Stack != "" {
		out = append(out, sourcePath{"stack", w.Stack})
	}
	if w.Height != nil {
		out = append(out, sourcePath{"height.file", w.Height.File})
	}
	for i, c := range w.Channels {
		out = append(out, sourcePath{fmt.Sprintf("channels[%d]", i), c.File})
	}
	return out
}

// Abs resolves a path of the plan (relative to the world folder) on this machine.
func (w *World) Abs(rel string) string {
	if filepath.IsAbs(filepath.FromSlash(rel)) {
		return filepath.FromSlash(rel)
	}
	return filepath.Join(w.Dir, filepath.FromSlash(rel))
}

// Placement is the world's placement.
func (w *World) Placement() field.Placement { return field.Placement{Size: w.Size, Origin: w.Origin} }

// NumCells is the number of cells (N·M).
func (w *World) NumCells() int { return len(w.CellList) }

// Cell returns the container path of cell i (the editor opens it with landscape.Open). The container
// may not exist yet: Status says which cells are baked.
func (w *World) Cell(i int) (string, error) {
	if i < 0 || i >= len(w.CellList) {
		return "", fmt.Errorf("world: %s: cell %d: the world has cells 0 … %d", w.Dir, i, len(w.CellList)-1)
	}
	return w.Abs(w.CellList[i].Container), nil
}

// Neighbours is the cells sharing an edge or a corner with cell i, in index order. Their seam
// texels read cell i's ground (taps reach across the edge, sites jitter across it), so an edit of
// cell i's ground near an edge, or of the stack, makes them stale too.
func (w *World) Neighbours(i int) []int {
	n, m := w.Cells[0], w.Cells[1]
	if i < 0 || i >= n*m {
		return nil
	}
	ci, cj := i%n, i/n
	var out []int
	for j := max(cj-1, 0); j <= min(cj+1, m-1); j++ {
		for k := max(ci-1, 0); k <= min(ci+1, n-1); k++ {
			if k != ci || j != cj {
				out = append(out, j*n+k)
			}
		}
	}
	return out
}

// save writes the plan to dir/world.yaml atomically.
func (w *World) save() error {
	b, err := yaml.Marshal(&w.Spec)
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	return writeFile(filepath.Join(w.Dir, FileName), string(b), 0o644)
}

// cellGUID is cell i's landscape guid, derived from the world's and the cell's name (a name-based
// UUID), so every bake of the cell — the first by two tasks at once included — writes the same
// bytes, and a re-plan that keeps the world's guid keeps every cell's.
func (w *World) cellGUID(i int) string {
	return terraindata.ChildGUID(w.GUID, w.CellList[i].Container)
}

// lockPath is the lock file serializing saves of cell i's container (terraindata.LockPath).
func (w *World) lockPath(i int) string { return terraindata.LockPath(w.Abs(w.CellList[i].Container)) }

// openCell opens cell i's container while holding its lock shared, so no save of it is half way
// (terraindata.Open alone may find a save between its renames). It returns nil and no error when
// the cell has never been baked.
func (w *World) openCell(i int) (*terraindata.Container, error) {
	path, err := w.Cell(i)
	if err != nil {
		return nil, err
	}
	// A reader on a read-only copy of the world cannot create the lock file; nobody saves there.
	if l, err := safeio.LockShared(w.lockPath(i)); err == nil {
		defer l.Unlock()
	}
	c, err := terraindata.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return c, err
}

// IsWorld reports whether path is a world folder (it holds world.yaml) or world.yaml itself.
func IsWorld(path string) bool {
	if filepath.Base(path) == FileName {
		return true
	}
	fi, err := os.Stat(filepath.Join(path, FileName))
	return err == nil && fi.Mode().IsRegular()
}
