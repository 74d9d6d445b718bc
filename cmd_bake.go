package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/progress"
	"strata/stack"
)

func init() {
	register(command{
		name:    "bake",
		summary: "evaluate a layer stack over a heightmap (or the sample) into a terrainData container",
		usage: `usage: strata bake [--stack S.yaml] (--height H | --sample dunes) [--size WxD] [--origin X,Z]
                  [--resolution M] [--channel NAME=FILE]... [--tile N] [--cpu] --out PATH.terrainData
       strata bake --from PATH.terrainData [--stack S.yaml] [--tile N] [--cpu] --out NEW.terrainData

  --stack S.yaml      the layer stack (may be left out with --sample: the sample's own stack)
  --height H          heightmap: 8/16-bit grayscale PNG, .r16, 16/32-bit TIFF, .exr, .f32 (or .raw
                      with --height-size)
  --height-range LO,HI  metres that integer codes 0 … max map onto (default 0,1000)
  --height-size WxH   the grid of a .r16/.f32/.raw file that is not square
  --sample dunes      the built-in sample: 4000 m × 4000 m, 2 m texels
  --size WxD          the field's extent in metres along X and Z (default: one metre per texel)
  --origin X,Z        the world position of the field's centre (default 0,0)
  --resolution M      metres per weights texel (default: the height grid's texel)
  --channel NAME=FILE a field channel: mask.<name> or any name; 8/16-bit PNG maps onto 0..1, EXR,
                      float TIFF and .f32 keep their values; the grid must match the height's
  --tile N            tile side in weights texels (default 256 on the Go reference, 1024 on the
                      GPU: the same bytes either way)
  --cpu               evaluate with the Go reference instead of the GPU
  --out PATH          the container to write (replaced atomically; its guid is kept)
  --from PATH         re-evaluate a saved landscape instead: its stack over its own height,
                      channels, holes and placement, at its weights resolution, with its
                      populations, exactly as the editor's Save does (the landscape's guid is
                      kept, as Save As keeps it), so the controls equal those of the container
                      the editor saved (with the same evaluator: byte for byte). --out may be
                      PATH itself. Takes none of the source flags but --stack, which evaluates
                      S.yaml in place of the container's stack (its rules may read the
                      container's channels, e.g. erosion.deposit after strata erode); without
                      it a container with no stack (baked elsewhere, or by a procgen script) is
                      refused; a world's cell always is`,
		run: runBake,
	})
}

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

type bakeOptions struct {
	stackPath, height, sample, out string
	heightRange, heightSize        string
	size, origin                   string
	resolution                     float64
	channels                       multiFlag
	tile                           int
	cpu                            bool
	// maxSide bounds --height-size (0: field.MaxSide; a world's sources may be larger).
	maxSide int
}

func runBake(args []string, stdout, stderr io.Writer) int {
	c := commands["bake"]
	var o bakeOptions
	var from string
	fs := flag.NewFlagSet("bake", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.sourceFlags(fs)
	fs.StringVar(&o.out, "out", "", "")
	fs.StringVar(&from, "from", "", "")
	if err := fs.Parse(args); err != nil {
		return usageError(c, stderr, "%v", err)
	}
	switch {
	case fs.NArg() > 0:
		return usageError(c, stderr, "unexpected argument %q", fs.Arg(0))
	case o.out == "":
		return usageError(c, stderr, "missing --out PATH.terrainData")
	}
	run := bakeCommand
	if from != "" {
		if err := fromFlags(fs); err != nil {
			return usageError(c, stderr, "%v", err)
		}
		run = func(ctx context.Context, o *bakeOptions, stdout, stderr io.Writer) error {
			return bakeFromCommand(ctx, from, o, stdout, stderr)
		}
	} else if err := o.checkSources(); err != nil {
		return usageError(c, stderr, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, &o, stdout, stderr); err != nil {
		var ue usageErr
		if errors.As(err, &ue) {
			return usageError(c, stderr, "%v", err)
		}
		fmt.Fprintf(stderr, "strata bake: %v\n", err)
		return exitFail
	}
	return exitOK
}

// sourceFlags registers the flags that name a bake's sources and how it is evaluated (bake's
// and world plan's): --stack, --height, --sample, --height-range, --height-size, --size,
// --origin, --resolution, --channel, --tile, --cpu.
func (o *bakeOptions) sourceFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.stackPath, "stack", "", "")
	fs.StringVar(&o.height, "height", "", "")
	fs.StringVar(&o.sample, "sample", "", "")
	fs.StringVar(&o.heightRange, "height-range", "", "")
	fs.StringVar(&o.heightSize, "height-size", "", "")
	fs.StringVar(&o.size, "size", "", "")
	fs.StringVar(&o.origin, "origin", "", "")
	fs.Float64Var(&o.resolution, "resolution", 0, "")
	fs.Var(&o.channels, "channel", "")
	fs.IntVar(&o.tile, "tile", 0, "")
	fs.BoolVar(&o.cpu, "cpu", false, "")
}

// checkSources reports a combination of source flags no bake can use (a usage error).
func (o *bakeOptions) checkSources() error {
	if err := (landscape.Sources{StackPath: o.stackPath, Sample: o.sample, Height: o.height}).Check(); err != nil {
		return usageErr{err}
	}
	switch {
	case o.sample != "" && (o.size != "" || o.heightRange != "" || o.heightSize != ""):
		return usageErr{errors.New("--size, --height-range and --height-size describe a --height file, not the sample")}
	case o.tile < 0:
		return usageErr{fmt.Errorf("--tile %d: must be positive", o.tile)}
	case o.resolution < 0:
		return usageErr{fmt.Errorf("--resolution %v: must be positive", o.resolution)}
	}
	return nil
}

// usageErr marks a malformed flag value (exit 2) as opposed to bad input data (exit 1).
type usageErr struct{ error }

func parsePair(flagName, v, sep string) ([2]float64, error) {
	a, b, ok := strings.Cut(v, sep)
	if !ok {
		return [2]float64{}, usageErr{fmt.Errorf("--%s %q: want two numbers separated by %q", flagName, v, sep)}
	}
	x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err1 != nil || err2 != nil {
		return [2]float64{}, usageErr{fmt.Errorf("--%s %q: want two numbers separated by %q", flagName, v, sep)}
	}
	return [2]float64{x, y}, nil
}

// sources turns the flags into landscape.Sources (malformed numbers are usage errors).
func (o *bakeOptions) sources() (landscape.Sources, error) {
	src := landscape.Sources{StackPath: o.stackPath, Sample: o.sample, Height: o.height}
	if o.heightRange != "" {
		r, err := parsePair("height-range", o.heightRange, ",")
		if err != nil {
			return src, err
		}
		src.Import.Range = r
	}
	if o.heightSize != "" {
		sz, err := parsePair("height-size", o.heightSize, "x")
		if err != nil {
			return src, err
		}
		maxSide := o.maxSide
		if maxSide == 0 {
			maxSide = field.MaxSide
		}
		for _, v := range sz { // before converting: 1e19 used to wrap to a negative grid
			if v != math.Trunc(v) || v < 1 || v > float64(maxSide) {
				return src, usageErr{fmt.Errorf("--height-size %q: want whole texel counts 1..%d per side", o.heightSize, maxSide)}
			}
		}
		src.Import.Size = [2]int{int(sz[0]), int(sz[1])}
	}
	if o.size != "" {
		sz, err := parsePair("size", o.size, "x")
		if err != nil {
			return src, err
		}
		src.Size = &sz
	}
	if o.origin != "" {
		org, err := parsePair("origin", o.origin, ",")
		if err != nil {
			return src, err
		}
		src.Origin = &org
	}
	for _, ch := range o.channels {
		name, file, ok := strings.Cut(ch, "=")
		if !ok || name == "" || file == "" {
			return src, usageErr{fmt.Errorf("--channel %q: want NAME=FILE", ch)}
		}
		src.Channels = append(src.Channels, landscape.ChannelSource{Name: name, File: file})
	}
	return src, nil
}

func bakeCommand(ctx context.Context, o *bakeOptions, stdout, stderr io.Writer) error {
	src, err := o.sources()
	if err != nil {
		return err
	}
	bar := newBakeBar(stderr)
	defer bar.Finish()
	r, err := bake.Run(ctx, bake.Job{
		Sources: src,
		Out:     o.out,
		EvalOptions: bake.EvalOptions{
			Options: bake.Options{TileSize: o.tile, Resolution: o.resolution, Progress: bar.Func(),
				Warn: func(msg string) { fmt.Fprintf(stderr, "strata bake: warning: %s\n", msg) }},
			CPU: o.cpu,
		},
		StackWarning: func(p stack.Problem) { fmt.Fprintf(stderr, "strata bake: %s\n", p) },
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; %s is as it was: %w", o.out, err)
		}
		return err
	}
	bar.Finish()
	printBaked(stdout, o.out, r)
	return nil
}

// printBaked says what a bake wrote: the weights grid, the layers, the evaluator and each
// population's instances.
func printBaked(stdout io.Writer, out string, r *bake.Result) {
	l := r.Landscape
	fmt.Fprintf(stdout, "wrote %s: %d×%d weights, %d layers, %s\n", out, l.Weights.W, l.Weights.H, len(l.Stack.Layers), r.Backend)
	for _, p := range l.Scatter {
		fmt.Fprintf(stdout, "  %s: %d instances (spacing %.3g m)\n", p.Name, p.Count, p.Spacing)
	}
}

// fromFlags refuses, with --from, the flags that name or place a bake's sources: the container
// is its own source (its stack, field, placement and weights resolution).
func fromFlags(fs *flag.FlagSet) error {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "from", "out", "cpu", "tile", "stack":
		default:
			set = append(set, "--"+f.Name)
		}
	})
	if len(set) > 0 {
		return usageErr{fmt.Errorf("--from takes its field, placement and resolution (and, without --stack, its stack) from the container: %s cannot be given with it", strings.Join(set, ", "))}
	}
	return nil
}

// bakeFromCommand is `strata bake --from`: the saved landscape re-evaluated into o.out.
func bakeFromCommand(ctx context.Context, from string, o *bakeOptions, stdout, stderr io.Writer) error {
	bar := newBakeBar(stderr)
	defer bar.Finish()
	r, err := bake.BakeFrom(ctx, bake.FromJob{
		From:  from,
		Out:   o.out,
		Stack: o.stackPath,
		Warn:  func(msg string) { fmt.Fprintf(stderr, "strata bake: warning: %s\n", msg) },
		EvalOptions: bake.EvalOptions{
			Options: bake.Options{TileSize: o.tile, Progress: bar.Func(),
				Warn: func(msg string) { fmt.Fprintf(stderr, "strata bake: warning: %s\n", msg) }},
			CPU: o.cpu,
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; %s is as it was: %w", o.out, err)
		}
		return fmt.Errorf("--from %s: %w", from, err)
	}
	bar.Finish()
	printBaked(stdout, o.out, r)
	return nil
}

// newBakeBar is the terminal progress of a bake: one line per stage, MiB where a stage counts
// bytes.
func newBakeBar(w io.Writer) *progress.Bar {
	bar := progress.NewBar(w)
	bar.SetUnit(bake.StageReadBack, "MiB")
	bar.SetUnit(landscape.StageEncode, "MiB")
	bar.SetUnit(landscape.StageEncodeHeight, "MiB")
	return bar
}
