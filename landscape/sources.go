package landscape

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"strata/field"
	"strata/stack"
	"strata/terraindata"
)

// Sources names what a landscape is baked from: a stack.yaml, and either the built-in sample or
// a heightmap with the options its file does not carry itself, plus extra field channels. It is
// what `strata bake`'s flags say, parsed; the editor's File → New fills the same struct.
type Sources struct {
	// StackPath is the stack.yaml; "" only with Sample (the sample's own stack).
	StackPath string
	// Sample is "dunes" for the built-in sample, else "".
	Sample string
	// Height is the heightmap file (field.LoadHeight's formats) when Sample is "".
	Height string
	// Import says how to read Height (integer range, raw size).
	Import field.ImportOptions
	// Size is the field's extent in metres; nil = one metre per height texel.
	Size *[2]float64
	// Origin is the world position of the field's centre; nil = (0, 0).
	Origin *[2]float64
	// Channels are extra field channels, each read with field.LoadChannel.
	Channels []ChannelSource
}

// ChannelSource is one `--channel NAME=FILE`.
type ChannelSource struct{ Name, File string }

// Samples lists the built-in samples by name.
var Samples = []string{"dunes"}

// Check is the rule every reader of sources applies before reading anything (strata bake's flags,
// world plan, a world's world.yaml): exactly one of a heightmap and a sample, the sample one of
// Samples, and a stack with a heightmap (only a sample has a stack of its own).
func (src Sources) Check() error {
	switch {
	case (src.Height == "") == (src.Sample == ""):
		return errors.New("give exactly one of a heightmap and a sample")
	case src.Sample != "" && !slices.Contains(Samples, src.Sample):
		names := make([]string, len(Samples))
		for i, n := range Samples {
			names[i] = strconv.Quote(n)
		}
		return fmt.Errorf("sample %q: the built-in sample is %s", src.Sample, strings.Join(names, " or "))
	case src.Sample == "" && src.StackPath == "":
		return errors.New("a heightmap needs a stack (only the sample has a stack of its own)")
	}
	return nil
}

// Load reads the stack and the field the sources name and refuses a stack with errors. Warnings
// (rules on layer 0) come back for the caller to show. Errors name the file and the field.
func Load(src Sources) (*Landscape, []stack.Problem, error) {
	if err := src.Check(); err != nil {
		return nil, nil, fmt.Errorf("bake: %w", err)
	}
	l := &Landscape{}
	if src.StackPath != "" {
		s, err := stack.Load(src.StackPath)
		if err != nil {
			return nil, nil, err
		}
		l.Stack, l.StackDir = s, filepath.Dir(src.StackPath)
	}
	if src.Sample != "" {
		l.Field = field.SampleDunes()
		if l.Stack == nil {
			l.Stack = stack.SampleDunes()
		}
	} else {
		f, err := LoadField(src.Height, src.Import, src.Size)
		if err != nil {
			return nil, nil, err
		}
		l.Field = f
	}
	if src.Origin != nil {
		l.Field.Placement.Origin = *src.Origin
		if err := l.Field.Placement.Validate(); err != nil {
			return nil, nil, fmt.Errorf("bake: origin: %w", err)
		}
	}
	given := map[string]string{}
	for _, ch := range src.Channels {
		if first, dup := given[ch.Name]; dup {
			return nil, nil, fmt.Errorf("bake: channel %q is given twice (%s and %s): one channel, one file", ch.Name, first, ch.File)
		}
		given[ch.Name] = ch.File
		if err := AddChannelFile(l.Field, ch.Name, ch.File); err != nil {
			return nil, nil, err
		}
	}
	name := src.StackPath
	if name == "" {
		name = "the sample stack"
	}
	warnings, err := CheckStack(l.Stack, name)
	if err != nil {
		return nil, nil, err
	}
	if err := checkSources(l, name); err != nil {
		return nil, nil, err
	}
	return l, warnings, nil
}

// checkSources is CheckSources for what l holds.
func checkSources(l *Landscape, stackName string) error {
	return CheckSources(l.Stack, l.StackDir, stackName, slices.Collect(maps.Keys(l.Field.Channels)))
}

// CheckSources refuses, before any evaluation, what would fail or go wrong later: a rule of s
// reading a channel not among channels (named by stack file and rule), a layer texture (relative
// to stackDir) that is not a readable PNG or JPEG within the limits, and channels or populations
// whose children would share one folder in the container.
func CheckSources(s *stack.Stack, stackDir, stackName string, channels []string) error {
	have := map[string]bool{}
	for _, c := range channels {
		have[c] = true
	}
	for _, u := range s.ChannelUses() {
		if !have[u.Channel] {
			list := "no channels"
			if len(channels) > 0 {
				names := append([]string(nil), channels...)
				sort.Strings(names)
				list = "channels " + strings.Join(names, ", ")
			}
			return &stack.ValidationError{File: stackName, Problems: []stack.Problem{{Severity: stack.Error, Where: u.Where,
				Message: fmt.Sprintf("reads channel %q, which the field does not have (give --channel %s=FILE; the field has %s)", u.Channel, u.Channel, list)}}}
		}
	}
	for i := range s.Layers {
		L := &s.Layers[i]
		for _, t := range []struct{ role, path string }{{"albedo", L.Albedo}, {"normal", L.Normal}, {"mask", L.Mask}} {
			if t.path == "" {
				continue
			}
			p := t.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(stackDir, p)
			}
			if _, _, err := terraindata.CheckSourceImage(p); err != nil {
				return &stack.ValidationError{File: stackName, Problems: []stack.Problem{{Severity: stack.Error,
					Where: fmt.Sprintf("layers[%d] %q %s", i, L.Name, t.role), Message: err.Error()}}}
			}
		}
	}
	pops := make([]string, len(s.Populations))
	for i := range s.Populations {
		pops[i] = s.Populations[i].Name
	}
	_, _, err := childNames(append([]string(nil), channels...), pops)
	return err
}

// LoadField reads a heightmap into a field of the given extent (nil: one metre per texel),
// centred on the world origin: LoadFieldContext without cancellation or progress.
func LoadField(path string, opt field.ImportOptions, size *[2]float64) (*field.Field, error) {
	f, _, err := LoadFieldContext(context.Background(), path, opt, size, nil)
	return f, err
}

// LoadFieldContext reads a heightmap into a field of the given extent (nil: one metre per texel),
// centred on the world origin, and returns the height's range as the read found it (what
// Grid.MinMax would compute, without another pass over the grid). progress is told rows done of
// total as field.LoadHeightContext reads them; cancelling ctx stops the read, and the error then
// wraps ctx.Err().
func LoadFieldContext(ctx context.Context, path string, opt field.ImportOptions, size *[2]float64, progress func(done, total int)) (*field.Field, field.Range, error) {
	return LoadFieldRows(ctx, path, opt, size, progress, nil)
}

// LoadFieldRows is LoadFieldContext telling rows, when not nil, how many of the height's first
// rows are complete as the file is read (field.LoadHeightRows): the editor builds what its first
// frame needs from them while the rest is decoded. A heightmap refused after its rows were heard
// (too small, a bad placement) was never a field: the consumer drops what it built.
func LoadFieldRows(ctx context.Context, path string, opt field.ImportOptions, size *[2]float64, progress func(done, total int), rows field.RowsFunc) (*field.Field, field.Range, error) {
	g, rng, err := field.LoadHeightRows(ctx, path, opt, progress, rows)
	if err != nil {
		return nil, field.Range{}, err
	}
	if g.W < terraindata.MinHeightSide || g.H < terraindata.MinHeightSide {
		return nil, field.Range{}, fmt.Errorf("field: %s: %d×%d: a heightmap has at least %d×%d texels (one quad of ground)", path, g.W, g.H, terraindata.MinHeightSide, terraindata.MinHeightSide)
	}
	p := field.Placement{Size: [2]float64{float64(g.W), float64(g.H)}}
	if size != nil {
		p.Size = *size
	}
	// field.New would validate the height again, a pass over every texel (50 ms at 8192² on two
	// cores): the import has checked each one finite, so only the placement is left to check.
	if err := p.Validate(); err != nil {
		return nil, field.Range{}, fmt.Errorf("%s: %w", path, err)
	}
	return &field.Field{Placement: p, Height: g, Channels: map[string]*field.Grid{}}, rng, nil
}

// AddChannelFile reads file as channel name of f (the grid must match the height's).
func AddChannelFile(f *field.Field, name, file string) error {
	g, err := field.LoadChannel(file, f.Height.W, f.Height.H)
	if err != nil {
		return err
	}
	if err := f.AddChannel(name, g); err != nil {
		return fmt.Errorf("channel %s (%s): %w", name, file, err)
	}
	return nil
}

// CheckStack validates s: errors come back as one *stack.ValidationError naming file, warnings
// are returned for the caller to show.
func CheckStack(s *stack.Stack, file string) ([]stack.Problem, error) {
	problems := stack.Validate(s)
	if ps := stack.Errors(problems); len(ps) > 0 {
		return nil, &stack.ValidationError{File: file, Problems: ps}
	}
	var warnings []stack.Problem
	for _, p := range problems {
		if p.Severity == stack.Warning {
			warnings = append(warnings, p)
		}
	}
	return warnings, nil
}

// ReplaceStack puts the stack at path in place of l's (what `strata bake --from X --stack S`
// does): the stack is loaded and checked as a bake's is — its errors name path, a rule reading a
// channel the field lacks is refused, its textures resolve relative to path — and only then
// replaces l's. Warnings come back for the caller to show; on an error l is unchanged. The
// populations' instances are placed again by the bake that follows.
func ReplaceStack(l *Landscape, path string) ([]stack.Problem, error) {
	if l.Field == nil {
		return nil, fmt.Errorf("bake: --stack %s: the landscape has no field to evaluate it on", path)
	}
	s, err := stack.Load(path)
	if err != nil {
		return nil, err
	}
	warnings, err := CheckStack(s, path)
	if err != nil {
		return nil, err
	}
	if err := CheckSources(s, filepath.Dir(path), path, slices.Collect(maps.Keys(l.Field.Channels))); err != nil {
		return nil, err
	}
	l.Stack, l.StackDir, l.Baked, l.Script, l.Scatter = s, filepath.Dir(path), nil, nil, nil
	return warnings, nil
}
