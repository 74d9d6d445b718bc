package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"

	"strata/bake"
	"strata/gpu"
	"strata/session"
)

func init() {
	register(command{
		name:    "bench",
		summary: "time the GPU and the Go reference side by side (weights, scatter, edit, live)",
		usage: `usage: strata bench [weights|scatter|edit|live] [--size N] [--tile N] [--strokes N] [--steps N] [--frame WxH] [--cpu]

  weights    the whole field and one tile on the GPU (resident and with upload) and on the Go
             reference, for the sample stack and the 16-rule stress stack; texels/s and ratios
  scatter    density + placement of the stress stack's population: candidate sites/s
  edit       brush strokes, each re-evaluating only the tiles it dirtied: ms per stroke
  live       the editor's loop, headless: a slider drag of a rule, each step timed to the first
             viewport frame that shows it (median, p95; a draft where the machine needs one) and
             each release to the refined full frame — for the dunes sample and the stress stack
             over an N×N field, through the same session the window runs
             (no argument: weights, scatter and edit)
  --size N   the field is the dunes shape at N×N texels (default 1024)
  --tile N   tile side in weights texels (default 256)
  --strokes N  strokes for edit (default 20)
  --steps N  drag steps for live (default 40)
  --frame WxH  the viewport for live (default 1280x720)
  --cpu      measure the Go reference only (live: the Go evaluator)`,
		run: runBench,
	})
}

func runBench(args []string, stdout, stderr io.Writer) int {
	c := commands["bench"]
	var which []string
	for len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		which, args = append(which, args[0]), args[1:]
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	size := fs.Int("size", 1024, "")
	tile := fs.Int("tile", 256, "")
	strokes := fs.Int("strokes", 20, "")
	cpuOnly := fs.Bool("cpu", false, "")
	steps := fs.Int("steps", 40, "")
	frame := fs.String("frame", "1280x720", "")
	if err := fs.Parse(args); err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if fs.NArg() > 0 {
		return usageError(c, stderr, "unexpected argument %q", fs.Arg(0))
	}
	if *size < 16 || *size > 16384 || *tile < 8 || *strokes < 1 {
		return usageError(c, stderr, "--size must be 16…16384, --tile ≥ 8, --strokes ≥ 1")
	}
	fw, fh, err := parseSize(*frame)
	if err != nil || *steps < 1 {
		return usageError(c, stderr, "--frame %q: want WxH; --steps ≥ 1", *frame)
	}
	if len(which) == 0 {
		which = []string{"weights", "scatter", "edit"}
	}
	for _, w := range which {
		if _, ok := benches[w]; !ok {
			return usageError(c, stderr, "unknown benchmark %q (weights, scatter, edit, live)", w)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var g *bake.GPU
	gpuName := "(none: --cpu)"
	if !*cpuOnly {
		g, gpuName = bake.OpenBenchGPU(ctx)
		defer g.Release()
	}
	fmt.Fprintf(stdout, "strata bench: %d CPUs (%s/%s), GPU %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, gpuName)
	var cases []bake.BenchCase // weights and edit share one field; scatter builds its own
	for _, w := range which {
		if (w == "weights" || w == "edit") && cases == nil {
			fmt.Fprintf(stderr, "preparing a %d² field…\n", *size)
			cases = bake.BenchCases(*size)
		}
	}
	for _, w := range which {
		if err := benches[w](ctx, g, gpuName, cases, benchArgs{tile: *tile, strokes: *strokes, size: *size, steps: *steps, frame: [2]int{fw, fh}, cpu: *cpuOnly}, stdout); err != nil {
			fmt.Fprintf(stderr, "strata bench %s: %v\n", w, err)
			return exitFail
		}
	}
	return exitOK
}

type benchArgs struct {
	tile, strokes, size, steps int
	frame                      [2]int
	cpu                        bool
}

type benchFunc func(ctx context.Context, g *bake.GPU, gpuName string, cases []bake.BenchCase, a benchArgs, out io.Writer) error

var benches = map[string]benchFunc{
	"weights": func(ctx context.Context, g *bake.GPU, gpuName string, cases []bake.BenchCase, a benchArgs, out io.Writer) error {
		for _, c := range cases {
			f, err := bake.BenchWeights(ctx, g, c, a.tile)
			if err != nil {
				return err
			}
			f.Print(out, gpuName)
		}
		return nil
	},
	"scatter": func(ctx context.Context, g *bake.GPU, gpuName string, cases []bake.BenchCase, a benchArgs, out io.Writer) error {
		f, err := bake.BenchScatter(ctx, g, a.size)
		if err != nil {
			return err
		}
		f.Print(out)
		return nil
	},
	"live": func(ctx context.Context, g *bake.GPU, gpuName string, _ []bake.BenchCase, a benchArgs, out io.Writer) error {
		ev, dev := session.Auto, (*gpu.Device)(nil)
		if a.cpu {
			ev = session.CPU
		}
		if g != nil {
			dev = g.Dev
		}
		for _, c := range session.LiveCases(a.size) {
			f, err := session.BenchLive(ctx, dev, c, ev, a.steps, a.frame[0], a.frame[1])
			if err != nil {
				return err
			}
			f.Print(out, gpuName)
		}
		return nil
	},
	"edit": func(ctx context.Context, g *bake.GPU, gpuName string, cases []bake.BenchCase, a benchArgs, out io.Writer) error {
		for _, c := range cases {
			f, err := bake.BenchEdit(ctx, g, c, a.tile, a.strokes)
			if err != nil {
				return err
			}
			f.Print(out, gpuName)
		}
		return nil
	},
}
