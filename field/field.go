// Package field is the ground a layer stack is evaluated over: a float32 height grid and named
// channels placed in the world, the bilinear/slope/curvature taps the weights kernel reads, the
// tiles (with aprons) the bake is cut into, the dirty-tile set an edit marks, heightmap and channel
// import, and the built-in "dunes" sample.
//
// The numbers here are the contract of docs/design.md ("Field geometry"): grids are cell-centred,
// row 0 is the field's minimum Z, and every read position is computed in float32 from the field
// minimum and the texel size, never from a tile's origin, so any tiling gives identical weights.
// The taps in sampler.go are the Go twins of the WGSL functions of the same names.
package field

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"strata/internal/sysmem"
)

// MaxSide is the largest grid side accepted anywhere (import, validation). It bounds what a
// malformed file header can make us allocate.
const MaxSide = 1 << 16

// MaxTexels is the largest grid (W·H) accepted: 1 GiB of float32.
const MaxTexels = 1 << 28

// World extent limits (docs/limits.md): positions are float32 in the kernels and the payloads, so
// a size or origin beyond MaxExtent metres (10 000 km) no longer resolves a metre, and a size
// under MinSize (1 mm) gives texel sizes the float32 geometry cannot invert. terraindata refuses
// the same (a test binds them).
const (
	MaxExtent = 1e7
	MinSize   = 1e-3
)

// MaskPrefix starts the name of a channel that holds a 0..1 painted mask (SPEC "Inputs").
const MaskPrefix = "mask."

// Placement puts a field in the world. Size is the extent in metres along X and Z; Origin is the
// world position of the field's centre, so a field can be moved without touching its grids.
type Placement struct {
	Size   [2]float64
	Origin [2]float64
}

// Min is the world (X, Z) of the field's minimum corner: every read position is measured from it.
func (p Placement) Min() [2]float64 {
	return [2]float64{p.Origin[0] - p.Size[0]/2, p.Origin[1] - p.Size[1]/2}
}

// Max is the world (X, Z) of the field's maximum corner.
func (p Placement) Max() [2]float64 {
	return [2]float64{p.Origin[0] + p.Size[0]/2, p.Origin[1] + p.Size[1]/2}
}

// Validate reports a placement a bake cannot use: a size outside MinSize … MaxExtent metres or an
// origin beyond ±MaxExtent (or not a number).
func (p Placement) Validate() error {
	for k, axis := range [2]string{"X", "Z"} {
		if s := p.Size[k]; !(s >= MinSize && s <= MaxExtent) {
			return fmt.Errorf("field: size %s = %v: must be %g … %g metres", axis, s, MinSize, MaxExtent)
		}
		if o := p.Origin[k]; !(math.Abs(o) <= MaxExtent) {
			return fmt.Errorf("field: origin %s = %v: must be finite, within ±%g metres", axis, o, MaxExtent)
		}
	}
	return nil
}

// Grid is a W×H raster of float32 samples, row-major, row 0 at the field's minimum Z and x along
// +X. Samples are cell-centred: sample (i, j) stands at the centre of cell (i, j) of the placement.
type Grid struct {
	W, H int
	Data []float32

	// mem is the mapping Data lies in for a plane on disk (NewPlane, plane.go); nil on the heap.
	mem *sysmem.Mapping
}

// NewGrid returns a zeroed w×h grid. It returns nil when the size is out of range, so a caller
// holding user-supplied sizes must check with CheckSize first.
func NewGrid(w, h int) *Grid {
	if CheckSize(w, h) != nil {
		return nil
	}
	return &Grid{W: w, H: h, Data: make([]float32, w*h)}
}

// CheckSize reports a grid size that is empty or beyond MaxSide/MaxTexels.
func CheckSize(w, h int) error {
	if w < 1 || h < 1 {
		return fmt.Errorf("field: grid %d×%d is empty", w, h)
	}
	if w > MaxSide || h > MaxSide || w*h > MaxTexels {
		return fmt.Errorf("field: grid %d×%d is larger than the supported %d per side, %d texels", w, h, MaxSide, MaxTexels)
	}
	return nil
}

// At returns sample (i, j). It is for tests and tools; the hot paths index Data directly.
func (g *Grid) At(i, j int) float32 { return g.Data[j*g.W+i] }

// Set sets sample (i, j).
func (g *Grid) Set(i, j int, v float32) { g.Data[j*g.W+i] = v }

// Validate reports a grid whose size does not match its data or that holds NaN or ±Inf; the
// error names the first bad texel so an artist can find it.
func (g *Grid) Validate() error {
	if g == nil {
		return errors.New("field: grid is missing")
	}
	if err := CheckSize(g.W, g.H); err != nil {
		return err
	}
	if len(g.Data) != g.W*g.H {
		return fmt.Errorf("field: grid %d×%d holds %d samples, want %d", g.W, g.H, len(g.Data), g.W*g.H)
	}
	for k, v := range g.Data {
		if v != v || v > math.MaxFloat32 || v < -math.MaxFloat32 {
			return fmt.Errorf("field: texel (%d, %d) is %v: samples must be finite", k%g.W, k/g.W, v)
		}
	}
	return nil
}

// Region copies the w×h block of samples whose first sample is (i0, j0), e.g. a tile's
// apron-inclusive buffer (Tile.BufI0, BufJ0, BufW, BufH). The block is intersected with the grid,
// so a request that hangs over an edge returns only the samples that exist; a block that misses
// the grid entirely returns nil.
func (g *Grid) Region(i0, j0, w, h int) *Grid {
	i1, j1 := min(i0+w, g.W), min(j0+h, g.H)
	i0, j0 = max(i0, 0), max(j0, 0)
	if i1 <= i0 || j1 <= j0 {
		return nil
	}
	r := &Grid{W: i1 - i0, H: j1 - j0, Data: make([]float32, (i1-i0)*(j1-j0))}
	for j := j0; j < j1; j++ {
		copy(r.Data[(j-j0)*r.W:(j-j0+1)*r.W], g.Data[j*g.W+i0:j*g.W+i1])
	}
	return r
}

// Clone returns a deep copy of g.
func (g *Grid) Clone() *Grid {
	return &Grid{W: g.W, H: g.H, Data: append([]float32(nil), g.Data...)}
}

// MinMax returns the smallest and largest sample.
func (g *Grid) MinMax() (lo, hi float32) {
	if len(g.Data) == 0 {
		return 0, 0
	}
	lo, hi = g.Data[0], g.Data[0]
	for _, v := range g.Data[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// Field is a height grid and its named channels, placed in the world. Every channel has the
// height's size, so one texel index means one place on the ground for all of them.
type Field struct {
	Placement
	Height   *Grid
	Channels map[string]*Grid

	// The flow plane (FlowPlane, flow.go): derived from the height, kept while flowOf is the
	// height grid it was routed over and nobody called InvalidateFlow.
	flowMu sync.Mutex
	flow   *Grid
	flowOf *Grid
	// flowRouter routes the plane instead of Flow when set (SetFlowRouter).
	flowRouter FlowRouter
}

// New returns a field of the given placement and height, validated.
func New(p Placement, height *Grid) (*Field, error) {
	f := &Field{Placement: p, Height: height, Channels: map[string]*Grid{}}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// TexelSize is the size in metres of one height texel along X and Z (the default gradientStep
// and the default weights resolution follow from it).
func (f *Field) TexelSize() [2]float64 {
	return [2]float64{f.Size[0] / float64(f.Height.W), f.Size[1] / float64(f.Height.H)}
}

// AddChannel adds (or replaces) a named channel. The grid must be the height's size and finite;
// a mask.<name> channel must hold 0..1 because its rules' bands are written in that range, while a
// free-form channel keeps its stored unit.
func (f *Field) AddChannel(name string, g *Grid) error {
	if err := CheckChannelName(name); err != nil {
		return err
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("field: channel %q: %w", name, err)
	}
	if f.Height != nil && (g.W != f.Height.W || g.H != f.Height.H) {
		return fmt.Errorf("field: channel %q is %d×%d but the height is %d×%d: a channel's grid must match the height's",
			name, g.W, g.H, f.Height.W, f.Height.H)
	}
	if strings.HasPrefix(name, MaskPrefix) {
		for k, v := range g.Data {
			if v < 0 || v > 1 {
				return fmt.Errorf("field: channel %q: texel (%d, %d) is %v: a mask holds 0..1", name, k%g.W, k/g.W, v)
			}
		}
	}
	if f.Channels == nil {
		f.Channels = map[string]*Grid{}
	}
	f.Channels[name] = g
	return nil
}

// CheckChannelName reports a channel name that a stack.yaml or a container could not carry:
// empty, "height" (reserved for the height grid), a bare "mask." prefix, or characters other than
// letters, digits, '_', '-' and '.'.
func CheckChannelName(name string) error {
	switch {
	case name == "":
		return errors.New("field: channel name is empty")
	case name == "height":
		return errors.New(`field: channel name "height" is reserved for the height grid`)
	case name == MaskPrefix:
		return fmt.Errorf("field: channel name %q names no mask: write mask.<name>", name)
	}
	for _, r := range name {
		ok := r == '_' || r == '-' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return fmt.Errorf("field: channel name %q: character %q is not allowed (letters, digits, _ - .)", name, r)
		}
	}
	return nil
}

// Validate reports every reason a bake could not use the field: placement, height and channel
// sizes, NaN/Inf samples, mask ranges. All problems are joined into one error.
func (f *Field) Validate() error {
	var errs []error
	if err := f.Placement.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := f.Height.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("field: height: %w", err))
	}
	for _, name := range slices.Sorted(maps.Keys(f.Channels)) {
		g := f.Channels[name]
		if err := CheckChannelName(name); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := g.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("field: channel %q: %w", name, err))
			continue
		}
		if f.Height != nil && (g.W != f.Height.W || g.H != f.Height.H) {
			errs = append(errs, fmt.Errorf("field: channel %q is %d×%d but the height is %d×%d", name, g.W, g.H, f.Height.W, f.Height.H))
			continue
		}
		if strings.HasPrefix(name, MaskPrefix) {
			lo, hi := g.MinMax()
			if lo < 0 || hi > 1 {
				errs = append(errs, fmt.Errorf("field: channel %q holds %v..%v: a mask holds 0..1", name, lo, hi))
			}
		}
	}
	return errors.Join(errs...)
}
