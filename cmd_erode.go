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
	"path/filepath"

	"strata/bake"
	"strata/erode"
	"strata/landscape"
)

func init() {
	register(command{
		name:    "erode",
		summary: "erode a saved landscape's ground (hydraulic and thermal) and re-evaluate its stack",
		usage: `usage: strata erode IN.terrainData --out OUT.terrainData [--preset P] [--iterations N] [--seed S]
                    [--tile N] [--cpu]

  --out PATH        the container to write (replaced atomically; may be IN itself; the guid is kept)
  --preset P        "default" (the default), "light rain", "old mountains" or "desert wash"
                    (docs/design.md "Erosion": the parameters of each)
  --iterations N    hydraulic iterations instead of the preset's (0 … 100000; the thermal
                    settle after them keeps the preset's bound)
  --seed S          varies the rain (0 … 4294967295, default 1); the same seed, the same bytes
  --tile N          tile side in weights texels for the re-evaluation (as strata bake --from)
  --cpu             erode and re-evaluate with the Go reference instead of the GPU

The ground is eroded by the GPU's erosion kernels (the Go reference's twin in f32: docs/design.md
"Erosion" gives how far the two may differ), or in Go on every core with --cpu; the new height
and the channels erosion.flow (water that ran out of each texel, m), erosion.deposit and
erosion.wear (net metres laid down / taken away) are saved in the container, and its stack,
populations and holes are evaluated again over the eroded ground, as strata bake --from does.
The container's stack may read the erosion channels once they are stored (erode, then add the
rule; a second erode replaces them). A container with no stack and a world's cell are refused.`,
		run: runErode,
	})
}

type erodeOptions struct {
	out, preset string
	iterations  int
	seed        uint64
	tile        int
	cpu         bool
}

func runErode(args []string, stdout, stderr io.Writer) int {
	c := commands["erode"]
	var o erodeOptions
	fs := flag.NewFlagSet("erode", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.out, "out", "", "")
	fs.StringVar(&o.preset, "preset", erode.DefaultPreset, "")
	fs.IntVar(&o.iterations, "iterations", -1, "")
	fs.Uint64Var(&o.seed, "seed", 1, "")
	fs.IntVar(&o.tile, "tile", 0, "")
	fs.BoolVar(&o.cpu, "cpu", false, "")
	in, err := parseWithPath(fs, args, "IN.terrainData")
	if err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if o.out == "" {
		return usageError(c, stderr, "missing --out OUT.terrainData")
	}
	if _, err := o.params(fs); err != nil {
		return usageError(c, stderr, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := erodeCommand(ctx, in, &o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "strata erode: %v\n", err)
		return exitFail
	}
	return exitOK
}

// params are the preset's parameters with the flags' overrides; a bad flag value is an error
// naming the flag (a usage error). fs nil: the options are taken as they are.
func (o *erodeOptions) params(fs *flag.FlagSet) (erode.Params, error) {
	p, err := erode.Preset(o.preset)
	if err != nil {
		return p, fmt.Errorf("--preset: %w", err)
	}
	set := map[string]bool{}
	if fs != nil {
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	}
	switch {
	case o.iterations >= 0:
		if o.iterations > erode.MaxIterations {
			return p, fmt.Errorf("--iterations %d: want 0 … %d", o.iterations, erode.MaxIterations)
		}
		p.Iterations = o.iterations
	case set["iterations"]:
		return p, fmt.Errorf("--iterations %d: want 0 … %d", o.iterations, erode.MaxIterations)
	}
	if o.seed > math.MaxUint32 {
		return p, fmt.Errorf("--seed %d: want 0 … %d", o.seed, uint64(math.MaxUint32))
	}
	if o.tile < 0 {
		return p, fmt.Errorf("--tile %d: must be positive", o.tile)
	}
	return p, p.Validate()
}

// erodeCommand is `strata erode`: the container at in opened as bake --from opens it, its ground
// eroded, and the landscape re-evaluated and saved at o.out as bake --from saves it.
func erodeCommand(ctx context.Context, in string, o *erodeOptions, stdout, stderr io.Writer) error {
	p, err := o.params(nil)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(in), "world.yaml")); err == nil {
		return fmt.Errorf("%s: the container is a cell of the world %s: erosion is global (water and sediment cross a cell's edge), so a world's cells are not eroded one by one and this build does not erode worlds", in, filepath.Dir(in))
	}
	bar := newBakeBar(stderr)
	defer bar.Finish()
	warn := func(msg string) { fmt.Fprintf(stderr, "strata erode: warning: %s\n", msg) }
	// One evaluator erodes and re-evaluates: the GPU's kernels (opened while the container is
	// read), or the Go reference with --cpu.
	choice := bake.Choice{Mode: bake.ModeCPU, Warn: warn}
	if !o.cpu {
		choice = bake.Choice{Start: bake.StartGPU(ctx), Warn: warn}
		defer choice.Start.Release()
	}
	ev, err := bake.NewEvaluator(ctx, choice)
	if err != nil {
		return err
	}
	defer ev.Release()
	var res *erode.Result
	var eroder string
	r, err := bake.BakeFrom(ctx, bake.FromJob{
		From: in,
		Out:  o.out,
		EvalOptions: bake.EvalOptions{
			Options:   bake.Options{TileSize: o.tile, Progress: bar.Func(), Warn: warn},
			Evaluator: ev,
		},
		Prepare: func(ctx context.Context, l *landscape.Landscape) error {
			var err error
			res, eroder, err = erode.ErodeWith(ctx, l.Field, erode.Options{Params: p, Seed: uint32(o.seed), Progress: bar.Func()}, ev.Erode)
			return err
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; %s is as it was: %w", o.out, err)
		}
		if errors.Is(err, bake.ErrNothingToEvaluate) {
			return fmt.Errorf("%s: %w (strata erode re-evaluates the stack on the eroded ground; a script erodes with its terrain.erode node)", in, err)
		}
		return fmt.Errorf("%s: %w", in, err)
	}
	bar.Finish()
	settle := "no settle"
	if p.Talus > 0 && p.SettleIterations > 0 {
		settle = fmt.Sprintf("settled to %g° in %d steps", p.Talus, res.SettleIterations)
		if !res.Settled {
			settle = fmt.Sprintf("settle stopped after %d steps above %g°", res.SettleIterations, p.Talus)
		}
	}
	preset := o.preset
	if preset == "" {
		preset = erode.DefaultPreset
	}
	fmt.Fprintf(stdout, "eroded %s: preset %q, %d iterations, %s; %.4g m³ worn, %.4g m³ deposited (at most %.3g m, %.3g m); %s\n",
		in, preset, res.Iterations, settle, res.Worn, res.Deposited, res.MaxWear, res.MaxDeposit, eroder)
	printBaked(stdout, o.out, r)
	return nil
}
