package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strata/erode"
	"strings"

	"gopkg.in/yaml.v3"

	"strata/bake"
	"strata/exr"
	"strata/field"
	"strata/internal/safeio"
	"strata/landscape"
	"strata/progress"
	"strata/stack"
)

// The derived maps (`strata export PATH --maps DIR`, issue 17): rule inputs over the weights grid,
// each a single-channel FLOAT OpenEXR, plus DIR/index.yaml saying what each file holds and where
// it lies. Every value is the one the Go reference evaluator reads for a rule of that input at
// that texel (bake.InputMap), so a map thresholded at 30 is the rule `slope ≥ 30`.

// MapsIndexFile is the index beside the maps.
const MapsIndexFile = "index.yaml"

// MapsFormat is index.yaml's description of the files.
const MapsFormat = "OpenEXR 2, single-part scanline, one FLOAT channel Y, ZIP; width × height texels on the weights grid, row 0 at the field's minimum Z"

// MapChannel is the EXR channel every map is written in.
const MapChannel = "Y"

// maxMapsIndexBytes bounds index.yaml when read back: a dozen lines per map.
const maxMapsIndexBytes = 256 << 10

// MapsIndex is DIR/index.yaml.
type MapsIndex struct {
	Format string `yaml:"format"`
	// Source is the container the maps were computed from, as it was named.
	Source string `yaml:"source"`
	// GradientStep is the tap distance (metres) slope, aspect and curvature were computed with: the
	// container's stack's gradientStep, or the field's texel size where the stack leaves it out.
	// Flow does not use it (it is routed between height texels).
	GradientStep float64    `yaml:"gradientStep"`
	Maps         []MapEntry `yaml:"maps"`
}

// MapEntry is one map of index.yaml.
type MapEntry struct {
	Name     string `yaml:"name"`     // slope, aspect, curvature, flow, or the channel's name
	File     string `yaml:"file"`     // relative to index.yaml
	Channel  string `yaml:"channel"`  // the EXR channel: Y
	Quantity string `yaml:"quantity"` // what the values are, in words
	Unit     string `yaml:"unit"`
	Width    int    `yaml:"width"`
	Height   int    `yaml:"height"`
	// Placement is where the texels lie in the world.
	Placement MapPlacement `yaml:"placement"`
	// Flat is the value written where the quantity is undefined because the ground is flat (the
	// gradient exactly 0): aspect's field.AspectFlat. Absent for a quantity defined everywhere.
	Flat *float64 `yaml:"flat,omitempty"`
	// Undefined says in words where the quantity is undefined and what is written there.
	Undefined string `yaml:"undefined,omitempty"`
}

// MapPlacement is a map's grid in the world: the container's placement and the weights grid.
type MapPlacement struct {
	Origin [2]float64 `yaml:"origin,flow"` // world (X, Z) of the field's centre, metres
	Size   [2]float64 `yaml:"size,flow"`   // the field's extent along X and Z, metres
	Min    [2]float64 `yaml:"min,flow"`    // origin − size/2: the field's minimum corner
	Texel  [2]float64 `yaml:"texel,flow"`  // size / (width, height): one texel, metres
	// Samples says where texel (i, j) stands: "texel centres", min + ((i + 0.5)·texel.x,
	// (j + 0.5)·texel.z).
	Samples string `yaml:"samples"`
	// Row0 names the edge row 0 lies on: "minimum Z" (x runs along +X).
	Row0 string `yaml:"row0"`
}

// mapSpec is one map to write: a rule input, or a stored channel read as a channel rule reads it.
// The derived maps are a table, one entry per rule input.
type mapSpec struct {
	name      string
	input     stack.Input
	channel   string // input channel: the field channel
	quantity  string
	unit      string
	flat      *float64
	undefined string
}

var aspectFlat = float64(field.AspectFlat)

// derivedMaps are the maps of every landscape, in the order they are written.
var derivedMaps = []mapSpec{
	{name: "slope", input: stack.InputSlope, unit: "degrees",
		quantity: "slope: the ground's angle from horizontal (0 flat, 90 vertical), as input: slope reads it"},
	{name: "aspect", input: stack.InputAspect, unit: "degrees",
		quantity:  "aspect: the compass direction the downhill faces, clockwise from +Z seen from above (0 = +Z north, 90 = +X east, 180 = −Z, 270 = −X), in [0, 360], as input: aspect reads it",
		flat:      &aspectFlat,
		undefined: "flat ground (the gradient exactly 0) has no aspect: -1 is written there, a value no aspect band passes"},
	{name: "curvature", input: stack.InputCurvature, unit: "1/m",
		quantity: "curvature: the Laplacian of the height over gradientStep, + in a gully, − on a ridge, as input: curvature reads it"},
	{name: "flow", input: stack.InputFlow, unit: "log10(m²)",
		quantity: "flow: log10 of the upslope contributing area in m² (Quinn multiple-flow-direction routing over the height; 5 is 10⁵ m²), at least log10 of one height texel's area, as input: flow reads it (its bands are written in log10 m²)"},
}

// channelMap reports whether a stored field channel is exported with the maps: the erosion
// channels (`erosion.flow`, `erosion.deposit`, `erosion.wear`, any `erosion.*`). A stored channel
// named `flow` is not: flow.exr is the flow input computed from the height (derivedMaps), the
// plane a flow rule reads.
func channelMap(name string) bool {
	return strings.HasPrefix(name, "erosion.") && len(name) > len("erosion.")
}

// mapSpecs is every map of a container whose stored channels are channels.
func mapSpecs(channels []string) []mapSpec {
	specs := append([]mapSpec(nil), derivedMaps...)
	var names []string
	for _, n := range channels {
		if channelMap(n) && field.CheckChannelName(n) == nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		q := fmt.Sprintf("the stored field channel %s, sampled at each texel's centre as input: channel reads it", n)
		unit := erosionUnits[n]
		if unit == "" {
			unit = "as stored"
		}
		specs = append(specs, mapSpec{name: n, input: stack.InputChannel, channel: n, quantity: q, unit: unit})
	}
	return specs
}

// erosionUnits are the units of the channels strata erode stores (docs/design.md "Erosion"); any
// other erosion.* channel is written "as stored".
var erosionUnits = map[string]string{
	erode.ChannelFlow:    "m (the water that ran out of the texel over the run, volume over the texel's area)",
	erode.ChannelDeposit: "m (ground laid down, net)",
	erode.ChannelWear:    "m (ground carried away, net)",
}

// file is the map's file name in DIR.
func (m *mapSpec) file() string { return m.name + ".exr" }

// mapsOutputs lists the files --maps writes in dir, for distinctOutputs.
func mapsOutputs(dir string, channels []string) [][2]string {
	out := [][2]string{{filepath.Join(dir, MapsIndexFile), "the maps' index.yaml"}}
	for _, m := range mapSpecs(channels) {
		out = append(out, [2]string{filepath.Join(dir, m.file()), fmt.Sprintf("map %s", m.name)})
	}
	return out
}

// checkMapsDir refuses a maps folder that is no folder, or that holds anything while force is
// off (a second export into a folder of maps would leave the first's files beside the second's),
// before anything is computed.
func checkMapsDir(dir string, force bool) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("maps %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("maps %s is a %s, not a folder: name a new or empty folder", dir, fileKind(fi))
	}
	if force {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("maps %s: %w", dir, err)
	}
	if len(ents) > 0 {
		return fmt.Errorf("maps %s is not empty (it holds %s%s): name a new or empty folder, or give --force to write the maps into it",
			dir, ents[0].Name(), map[bool]string{true: " and more", false: ""}[len(ents) > 1])
	}
	return nil
}

func fileKind(fi fs.FileInfo) string {
	if fi.Mode().IsRegular() {
		return "file"
	}
	return "special file (" + fi.Mode().Type().String() + ")"
}

// prepareMapsDir creates dir and proves a file can be made in it, and removes an index.yaml
// already there (--force), so an index in dir always describes a complete set written together:
// it is written last.
func prepareMapsDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("maps %s: cannot create the folder: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".strata-maps-probe-*")
	if err != nil {
		return fmt.Errorf("maps %s: cannot write in the folder: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	ip := filepath.Join(dir, MapsIndexFile)
	if err := os.Remove(ip); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("maps %s: removing the old index: %w", ip, err)
	}
	return nil
}

// exportMaps computes and writes every map of the container at path into dir, then index.yaml.
func exportMaps(ctx context.Context, path, dir string, report progress.Func, stdout io.Writer) error {
	if report == nil {
		report = progress.Nop
	}
	l, err := landscape.Open(path)
	if err != nil {
		return err
	}
	if err := prepareMapsDir(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(l.Field.Channels))
	for n := range l.Field.Channels {
		names = append(names, n)
	}
	geo := &l.Geometry
	fg := &geo.Field
	pl := l.Field.Placement
	mn := pl.Min()
	place := MapPlacement{
		Origin:  pl.Origin,
		Size:    pl.Size,
		Min:     mn,
		Texel:   [2]float64{pl.Size[0] / float64(fg.WeightsW), pl.Size[1] / float64(fg.WeightsH)},
		Samples: "texel centres: texel (i, j) stands at min + ((i + 0.5)·texel.x, (j + 0.5)·texel.z)",
		Row0:    "minimum Z",
	}
	idx := MapsIndex{Format: MapsFormat, Source: path, GradientStep: float64(geo.Stack.GradientStep)}
	for _, m := range mapSpecs(names) {
		stage := "compute " + m.name
		g, err := bake.InputMap(ctx, geo, l.Field, m.input, m.channel, func(done, total int) { report(stage, done, total) })
		if err != nil {
			return interrupted(ctx, dir, err)
		}
		dst := filepath.Join(dir, m.file())
		if err := writeMapEXR(ctx, dst, g, report); err != nil {
			return interrupted(ctx, dir, err)
		}
		fmt.Fprintf(stdout, "wrote %s (%dx%d float, %s)\n", dst, g.W, g.H, m.unit)
		idx.Maps = append(idx.Maps, MapEntry{Name: m.name, File: m.file(), Channel: MapChannel, Quantity: m.quantity, Unit: m.unit,
			Width: g.W, Height: g.H, Placement: place, Flat: m.flat, Undefined: m.undefined})
	}
	if err := WriteMapsIndex(filepath.Join(dir, MapsIndexFile), &idx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d maps)\n", filepath.Join(dir, MapsIndexFile), len(idx.Maps))
	return nil
}

// interrupted says, for a cancelled export, that the folder holds no index (so no complete set).
func interrupted(ctx context.Context, dir string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("maps %s: interrupted before index.yaml was written (the maps there are an incomplete set): %w", dir, err)
	}
	return err
}

// writeMapEXR writes grid g as dst, a single-channel FLOAT EXR (ZIP), whole or not at all.
func writeMapEXR(ctx context.Context, dst string, g *field.Grid, report progress.Func) error {
	f, err := safeio.Create(dst)
	if err != nil {
		return fmt.Errorf("maps: %w", err)
	}
	defer f.Abort()
	w, err := exr.NewWriter(f, g.W, g.H, []string{MapChannel}, exr.ZIP)
	if err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	stage, rows := "write "+filepath.Base(dst), 0
	err = w.WriteBlocks(ctx, 0, func(y0, n int, planes [][]float32) error {
		copy(planes[0], g.Data[y0*g.W:(y0+n)*g.W])
		return nil
	}, func(n int) {
		rows += n
		report(stage, rows, g.H)
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return f.Commit()
}

// WriteMapsIndex writes idx as path, whole or not at all, with a comment naming what it is.
func WriteMapsIndex(path string, idx *MapsIndex) error {
	b, err := yaml.Marshal(idx)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	f, err := safeio.Create(path)
	if err != nil {
		return fmt.Errorf("maps: %w", err)
	}
	defer f.Abort()
	head := "# strata export --maps: rule inputs on the weights grid (docs/cli.md \"strata export --maps\")\n"
	if _, err := f.Write(append([]byte(head), b...)); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}

// ReadMapsIndex reads an index.yaml written by WriteMapsIndex, refusing keys it does not know.
func ReadMapsIndex(path string) (*MapsIndex, error) {
	b, err := safeio.ReadFile(path, maxMapsIndexBytes)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	var idx MapsIndex
	if err := dec.Decode(&idx); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &idx, nil
}
