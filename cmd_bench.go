package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"strata/bake"
	"strata/erode"
	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/noise"
	"strata/session"
	"strata/stack"
)

func init() {
	register(command{
		name:    "bench",
		summary: "time the GPU and the Go reference side by side (weights, scatter, edit, live, bake, erode)",
		usage: `usage: strata bench [weights|scatter|edit|live|bake] [--size N] [--tile N] [--strokes N] [--cpu]
                    [--steps N] [--frame WxH] [--case C] [--out PATH] [--compare PATH]
       strata bench erode [--size N] [--preset P] [--iterations N] [--cpu | --gpu]
       strata bench sculpt [--size N] [--cpu|--gpu] [--strokes K] [--frame WxH] [--case C] [--heightmap FILE]
                          [--out PATH] [--cpuprofile PATH] [--blockprofile PATH]
       strata bench open PATH [--cpu] [--steps N] [--frame WxH] [--height-range LO,HI] [--size-m WxD]

  weights    the whole field and one tile on the GPU (resident and with upload) and on the Go
             reference, for the sample stack, the 16-rule stress stack and the flow stack (rules
             reading flow; the routing itself timed on its own line); texels/s and ratios
  scatter    density + placement of the stress stack's population: candidate sites/s
  edit       brush strokes, each re-evaluating only the tiles it dirtied: ms per stroke
  live       the editor's loop, headless, through the same session the window runs, for the dunes
             sample and the stress stack over an N×N field: open → first frame and → settled
             view, a stack edit → settled, a slider drag of a rule with each step timed to the
             first viewport frame that shows it (median, p95; a draft where the machine needs
             one) and each release to the settled frame; peak RSS and device memory.
             --case sample|stress16|aspect runs one case; aspect is the sample with a layer
             reading aspect (a north-facing band) on top, the same drag
  open PATH  the same figures for a heightmap (.png .r16 .f32 .tif .exr; the starter stack, one
             metre per texel unless --size-m, integer codes over 0…1000 m unless --height-range)
             or a .terrainData container, opened as the editor opens it, timed from the read
             (no argument: weights, scatter and edit)
  bake       a whole bake of the sample with an N×N weights grid, exactly as strata bake does it
             (GPU, or the Go reference with --cpu): wall time by phase, peak memory, size on disk
  erode      an erosion of an N×N mountain ground (terrain_fbm, 4 m texels, about 600 m of
             relief) with the preset (default "default"): time per iteration (mean, median,
             p95), the hydraulic iterations' total and cells/s, the thermal settle, the total.
             On the evaluator strata erode chooses (the GPU's erosion kernels on a hardware
             adapter; the Go reference on every core on a software one such as lavapipe, where
             it is the faster, or without a GPU), the Go reference with --cpu, the kernels on
             any adapter with --gpu; --iterations N replaces the preset's
  sculpt     K strokes (default 12) of raise, smooth and flatten in turn, 8 dabs each, with the
             editor's brush (a fiftieth of the field, strength 0.6, falloff 0.6), through the
             session the window runs, headless, over the dunes field at N×N height texels
             (default 2000, the editor's sample) with the stress stack (stress16: its layers and
             populations) and with the sample's own stack: each dab to the first frame showing
             it and to the frame with the touched tiles' weights and instances final (median,
             p95), each release to the settled frame; the viewport 968x704 unless --frame (the
             editor's in a 1600×1000 window). --case sample|stress16 runs one of the two;
             --heightmap FILE sculpts that heightmap instead, read as File → New → From a
             heightmap reads it (the starter stack, one metre per texel; its planes on disk
             when they would pass half the memory budget, docs/field.md)
             --out PATH saves the stress16 landscape (with --case, that case's) after the
             strokes (--strokes 0: as opened) as the editor's Save does. --gpu evaluates
             with the GPU kernels even on a software adapter (whose automatic choice is the Go
             reference). A dab's work is reported part by part: the worker's passes (apply,
             sync, view, full, density, place), the frames, the device's submissions and waits;
             --cpuprofile PATH writes the process's CPU profile of the strokes (go tool pprof),
             --blockprofile PATH its waits on locks and channels of 10 µs or more
  --size N   the field is the dunes shape at N×N texels (default 1024; bake: the weights grid)
  --tile N   tile side in weights texels (default 256)
  --strokes N  strokes for edit (default 20)
  --steps N  drag steps for live (default 40)
  --frame WxH  the viewport for live (default 1280x720)
  --cpu      measure the Go reference only (live: the Go evaluator)
  --case C   live: run case C alone (sample, stress16 or aspect); sculpt: sample or stress16
  --out PATH   bake: keep the container at PATH (default: a temporary folder, removed);
             sculpt: save the sculpted stress16 landscape there
  --compare PATH  bake: afterwards, compare the controls with those of the container at PATH`,
		run: runBench,
	})
}

func runBench(args []string, stdout, stderr io.Writer) int {
	c := commands["bench"]
	var which []string
	for len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		which, args = append(which, args[0]), args[1:]
	}
	if len(which) > 0 && which[0] == "open" {
		return runBenchOpen(which[1:], args, stdout, stderr)
	}
	if len(which) > 0 && which[0] == "erode" {
		return runBenchErode(which[1:], args, stdout, stderr)
	}
	if len(which) > 0 && which[0] == "sculpt" {
		return runBenchSculpt(which[1:], args, stdout, stderr)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	size := fs.Int("size", 1024, "")
	tile := fs.Int("tile", 256, "")
	strokes := fs.Int("strokes", 20, "")
	cpuOnly := fs.Bool("cpu", false, "")
	steps := fs.Int("steps", 40, "")
	frame := fs.String("frame", "1280x720", "")
	out := fs.String("out", "", "")
	compare := fs.String("compare", "", "")
	liveCase := fs.String("case", "", "")
	if err := fs.Parse(args); err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if fs.NArg() > 0 {
		return usageError(c, stderr, "unexpected argument %q", fs.Arg(0))
	}
	fw, fh, err := parseSize(*frame)
	if err != nil || *steps < 1 {
		return usageError(c, stderr, "--frame %q: want WxH; --steps ≥ 1", *frame)
	}
	if len(which) == 0 {
		which = []string{"weights", "scatter", "edit"}
	}
	onlyBake := true
	for _, w := range which {
		if _, ok := benches[w]; !ok && w != "bake" {
			return usageError(c, stderr, "unknown benchmark %q (weights, scatter, edit, live, bake, erode)", w)
		}
		onlyBake = onlyBake && w == "bake"
	}
	maxSize := 16384
	if onlyBake {
		maxSize = 65536
	}
	if *size < 16 || *size > maxSize || *tile < 8 || *strokes < 1 {
		return usageError(c, stderr, "--size must be 16…%d, --tile ≥ 8, --strokes ≥ 1", maxSize)
	}
	if (*out != "" || *compare != "") && !onlyBake {
		return usageError(c, stderr, "--out and --compare go with bench bake alone")
	}
	if *liveCase != "" {
		if !slices.Contains(which, "live") {
			return usageError(c, stderr, "--case goes with bench live (or bench sculpt)")
		}
		if _, err := session.LiveCaseNamed(*liveCase, *size); err != nil {
			return usageError(c, stderr, "--case: %v", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var g *bake.GPU
	gpuName := "(none: --cpu)"
	if !*cpuOnly && !onlyBake {
		g, gpuName = bake.OpenBenchGPU(ctx) // bench bake opens its own, as strata bake does
		defer g.Release()
	}
	if onlyBake {
		fmt.Fprintf(stdout, "strata bench: %d CPUs (%s/%s)\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	} else {
		fmt.Fprintf(stdout, "strata bench: %d CPUs (%s/%s), GPU %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, gpuName)
	}
	var cases []bake.BenchCase // weights and edit share one field; scatter builds its own
	for _, w := range which {
		if (w == "weights" || w == "edit") && cases == nil {
			fmt.Fprintf(stderr, "preparing a %d² field…\n", *size)
			cases = bake.BenchCases(*size)
		}
	}
	for _, w := range which {
		if w == "bake" {
			if err := benchBake(ctx, *size, *cpuOnly, *out, *compare, stdout); err != nil {
				fmt.Fprintf(stderr, "strata bench bake: %v\n", err)
				return exitFail
			}
			continue
		}
		if err := benches[w](ctx, g, gpuName, cases, benchArgs{tile: *tile, strokes: *strokes, size: *size, steps: *steps, frame: [2]int{fw, fh}, cpu: *cpuOnly, liveCase: *liveCase}, stdout); err != nil {
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
	liveCase                   string // live: the one case to run ("": LiveCases)
}

type benchFunc func(ctx context.Context, g *bake.GPU, gpuName string, cases []bake.BenchCase, a benchArgs, out io.Writer) error

var benches = map[string]benchFunc{
	"weights": func(ctx context.Context, g *bake.GPU, gpuName string, cases []bake.BenchCase, a benchArgs, out io.Writer) error {
		// The flow input is a weights case only: edit paints the height without routing again.
		for _, c := range append(cases[:len(cases):len(cases)], bake.FlowBenchCase(cases[0].Field)) {
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
		cases := session.LiveCases(a.size)
		if a.liveCase != "" {
			c, err := session.LiveCaseNamed(a.liveCase, a.size)
			if err != nil {
				return err
			}
			cases = []session.LiveCase{c}
		}
		for _, c := range cases {
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

// benchBake is `strata bench bake`: one bake, its figures, and the comparison when asked.
func benchBake(ctx context.Context, size int, cpu bool, out, compare string, stdout io.Writer) error {
	f, err := bake.BenchBake(ctx, size, cpu, out)
	if err != nil {
		return err
	}
	f.Print(stdout)
	if compare != "" {
		if out == "" {
			return fmt.Errorf("--compare needs --out (the container to compare stays there)")
		}
		eq, worst, err := bake.CompareControls(out, compare)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  controls vs %s: %.4f%% of bytes equal, worst difference %d\n", compare, 100*eq, worst)
	}
	return nil
}

// runBenchOpen is `strata bench open PATH`: a heightmap or container opened as the editor opens
// it, with the live loop's figures.
func runBenchOpen(paths, args []string, stdout, stderr io.Writer) int {
	c := commands["bench"]
	fs := flag.NewFlagSet("bench open", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cpuOnly := fs.Bool("cpu", false, "")
	steps := fs.Int("steps", 20, "")
	frame := fs.String("frame", "968x704", "")
	rng := fs.String("height-range", "", "")
	sizeM := fs.String("size-m", "", "")
	if err := fs.Parse(args); err != nil {
		return usageError(c, stderr, "%v", err)
	}
	paths = append(paths, fs.Args()...)
	if len(paths) != 1 {
		return usageError(c, stderr, "bench open takes one heightmap or .terrainData path")
	}
	fw, fh, err := parseSize(*frame)
	if err != nil || *steps < 0 {
		return usageError(c, stderr, "--frame %q: want WxH; --steps ≥ 0", *frame)
	}
	var hm session.HeightmapOptions
	if *rng != "" {
		r, err := parsePair("height-range", *rng, ",")
		if err != nil || !(r[1] > r[0]) {
			return usageError(c, stderr, "--height-range %q: want LO,HI metres with LO < HI", *rng)
		}
		hm.Import.Range = r
	}
	if *sizeM != "" {
		sz, err := parsePair("size-m", *sizeM, "x")
		if err != nil || !(sz[0] > 0 && sz[1] > 0) {
			return usageError(c, stderr, "--size-m %q: want WxD metres", *sizeM)
		}
		hm.Size = &sz
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ev := session.Auto
	if *cpuOnly {
		ev = session.CPU
	}
	// The viewport draws on the device whatever evaluates (the editor's way).
	dev, err := gpu.Open(ctx, gpu.Options{Label: "strata bench open"})
	if err != nil {
		fmt.Fprintf(stderr, "strata bench open: %v\n", err)
		return exitFail
	}
	defer dev.Release()
	gpuName := dev.Info.String()
	fmt.Fprintf(stdout, "strata bench: %d CPUs (%s/%s), GPU %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, gpuName)
	f, err := session.BenchOpen(ctx, dev, paths[0], hm, ev, *steps, fw, fh)
	if err != nil {
		fmt.Fprintf(stderr, "strata bench open: %v\n", err)
		return exitFail
	}
	f.Print(stdout, gpuName)
	return exitOK
}

// runBenchErode is `strata bench erode`: one erosion of a mountain ground, timed.
func runBenchErode(extra, args []string, stdout, stderr io.Writer) int {
	c := commands["bench"]
	fs := flag.NewFlagSet("bench erode", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	size := fs.Int("size", 1024, "")
	preset := fs.String("preset", erode.DefaultPreset, "")
	iterations := fs.Int("iterations", -1, "")
	cpu := fs.Bool("cpu", false, "")
	gpuOnly := fs.Bool("gpu", false, "")
	if err := fs.Parse(args); err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if extra = append(extra, fs.Args()...); len(extra) > 0 {
		return usageError(c, stderr, "unexpected argument %q", extra[0])
	}
	if *cpu && *gpuOnly {
		return usageError(c, stderr, "--cpu and --gpu: choose one")
	}
	if *size < 16 || *size > 16384 {
		return usageError(c, stderr, "--size %d: must be 16…16384", *size)
	}
	if _, err := erode.Preset(*preset); err != nil {
		return usageError(c, stderr, "--preset: %v", err)
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "iterations" })
	if set && (*iterations < 0 || *iterations > erode.MaxIterations) {
		return usageError(c, stderr, "--iterations %d: want 0 … %d", *iterations, erode.MaxIterations)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(stdout, "strata bench: %d CPUs (%s/%s)\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stderr, "preparing a %d² ground…\n", *size)
	g, texel := benchErodeGround(*size)
	// The evaluator every program erodes with (bake.Evaluator.Erode), chosen as they choose it
	// (ModeAuto: the GPU kernels on a hardware adapter, the Go reference on a software one —
	// lavapipe runs the kernels on the cores Go runs on, slower — or without any); --cpu the Go
	// reference, --gpu the kernels on any adapter (ModeGPU: lavapipe measured too). A first
	// erosion of a small ground opens the device and compiles the kernels before the timing,
	// and says which evaluator runs.
	warn := func(msg string) { fmt.Fprintf(stderr, "strata bench erode: warning: %s\n", msg) }
	choice := bake.Choice{Mode: bake.ModeAuto, Warn: warn}
	switch {
	case *cpu:
		choice.Mode = bake.ModeCPU
	case *gpuOnly:
		choice.Mode = bake.ModeGPU
	}
	ev, err := bake.NewEvaluator(ctx, choice)
	if err != nil {
		warn(bake.FallbackWarning(err))
		ev, _ = bake.NewEvaluator(ctx, bake.Choice{Mode: bake.ModeCPU})
	}
	defer ev.Release()
	warmP, _ := erode.Preset(*preset)
	warmP.Iterations = 1
	warm, _ := benchErodeGround(16)
	_, backend, err := ev.Erode(ctx, warm, texel, erode.Options{Params: warmP})
	if err != nil {
		fmt.Fprintf(stderr, "strata bench erode: %v\n", err)
		return exitFail
	}
	run := func(ctx context.Context, g *field.Grid, texel [2]float64, o erode.Options) (*erode.Result, error) {
		r, _, err := ev.Erode(ctx, g, texel, o)
		return r, err
	}
	f, err := erode.Bench(ctx, g, texel, *preset, *iterations, run, backend)
	if err != nil {
		fmt.Fprintf(stderr, "strata bench erode: %v\n", err)
		return exitFail
	}
	f.Print(stdout)
	// The flow routing of the same ground (the "@flow" input's), on the same evaluator: once to
	// warm up, then timed.
	if _, _, err := ev.Flow(ctx, warm, texel); err != nil {
		fmt.Fprintf(stderr, "strata bench erode: flow: %v\n", err)
		return exitFail
	}
	t0 := time.Now()
	_, flowBy, err := ev.Flow(ctx, g, texel)
	if err != nil {
		fmt.Fprintf(stderr, "strata bench erode: flow: %v\n", err)
		return exitFail
	}
	took := time.Since(t0)
	fmt.Fprintf(stdout, "flow %d×%d (the ground before erosion), %s: %v, %.1f M cells/s\n", g.W, g.H, flowBy,
		took.Round(10*time.Microsecond), float64(g.W)*float64(g.H)/took.Seconds()/1e6)
	// On the GPU, once more through the kernel itself, to say where the time goes.
	if gev, ok := ev.(*bake.GPUEvaluator); ok {
		t0 := time.Now()
		_, st, err := gev.GPU().Flow(ctx, g, texel)
		if err != nil {
			fmt.Fprintf(stderr, "strata bench erode: flow: %v\n", err)
			return exitFail
		}
		r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
		fmt.Fprintf(stdout, "flow again, its phases: %v = prepare %v, flats %v (%d passes), accumulate %v (%d steps, %d sub-waves on the critical path), plane read back %v\n",
			r(time.Since(t0)), r(st.Prepare), r(st.Flats), st.FlatPasses, r(st.Accumulate), st.Waves, st.SubWaves, r(st.Read))
	}
	return exitOK
}

// benchErodeGround is the N×N ground bench erode erodes: terrain_fbm mountains on 4 m texels,
// the feature a quarter of the field, 6 octaves, about 600 m of relief.
func benchErodeGround(n int) (*field.Grid, [2]float64) {
	const texel = 4.0
	g := field.NewGrid(n, n)
	fs := float32(float64(n) * texel / 4)
	for j := range n {
		for i := range n {
			v := noise.FBM(float32((float64(i)+0.5)*texel), float32((float64(j)+0.5)*texel), fs, 6, 11)
			g.Data[j*n+i] = 600 * v
		}
	}
	return g, [2]float64{texel, texel}
}

// runBenchSculpt is `strata bench sculpt`: strokes through the editor's session, timed.
func runBenchSculpt(extra, args []string, stdout, stderr io.Writer) int {
	c := commands["bench"]
	fs := flag.NewFlagSet("bench sculpt", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	size := fs.Int("size", field.DunesTexels, "")
	cpuOnly := fs.Bool("cpu", false, "")
	gpuOnly := fs.Bool("gpu", false, "")
	strokes := fs.Int("strokes", 12, "")
	frame := fs.String("frame", "968x704", "")
	out := fs.String("out", "", "")
	only := fs.String("case", "", "")
	heightmap := fs.String("heightmap", "", "")
	cpuProfile := fs.String("cpuprofile", "", "")
	blockProfile := fs.String("blockprofile", "", "")
	if err := fs.Parse(args); err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if extra = append(extra, fs.Args()...); len(extra) > 0 {
		return usageError(c, stderr, "unexpected argument %q", extra[0])
	}
	if *size < 16 || *size > 16384 {
		return usageError(c, stderr, "--size %d: must be 16…16384", *size)
	}
	var cases []session.SculptCase
	for _, sc := range session.SculptCases(*size) {
		if *heightmap == "" && (*only == "" || *only == sc.Name) {
			cases = append(cases, sc)
		}
	}
	if *heightmap != "" {
		f, _, err := landscape.LoadFieldContext(context.Background(), *heightmap, field.ImportOptions{}, nil, nil)
		if err != nil {
			fmt.Fprintf(stderr, "strata bench sculpt: %v\n", err)
			return exitFail
		}
		cases = []session.SculptCase{{Name: filepath.Base(*heightmap), Landscape: func() *landscape.Landscape {
			return &landscape.Landscape{Stack: stack.Starter(), Field: f}
		}}}
	}
	if len(cases) == 0 {
		return usageError(c, stderr, "--case %q: want sample or stress16", *only)
	}
	if *strokes < 0 || *strokes > 1000 {
		return usageError(c, stderr, "--strokes %d: want 0 … 1000", *strokes)
	}
	fw, fh, err := parseSize(*frame)
	if err != nil {
		return usageError(c, stderr, "--frame %q: want WxH", *frame)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *cpuOnly && *gpuOnly {
		return usageError(c, stderr, "--cpu and --gpu: choose one")
	}
	ev := session.Auto
	if *cpuOnly {
		ev = session.CPU
	} else if *gpuOnly {
		ev = session.GPU
	}
	// The viewport draws on the device whatever evaluates (the editor's way).
	dev, err := gpu.Open(ctx, gpu.Options{Label: "strata bench sculpt"})
	if err != nil {
		fmt.Fprintf(stderr, "strata bench sculpt: %v\n", err)
		return exitFail
	}
	defer dev.Release()
	gpuName := dev.Info.String()
	fmt.Fprintf(stdout, "strata bench: %d CPUs (%s/%s), GPU %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, gpuName)
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "strata bench sculpt: %v\n", err)
			return exitFail
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			fmt.Fprintf(stderr, "strata bench sculpt: %v\n", err)
			return exitFail
		}
		defer pprof.StopCPUProfile()
	}
	if *blockProfile != "" {
		// Every wait of 10 µs or more on a channel, a mutex or a condition (the off-CPU time a
		// CPU profile does not see).
		runtime.SetBlockProfileRate(10000)
		defer func() {
			if err := writeBlockProfile(*blockProfile); err != nil {
				fmt.Fprintf(stderr, "strata bench sculpt: %v\n", err)
			}
		}()
	}
	for _, sc := range cases {
		path := ""
		if sc.Name == "stress16" || len(cases) == 1 {
			path = *out
		}
		f, err := session.BenchSculpt(ctx, dev, sc, ev, *strokes, fw, fh, path)
		if err != nil {
			fmt.Fprintf(stderr, "strata bench sculpt: %v\n", err)
			return exitFail
		}
		f.Print(stdout, gpuName)
	}
	return exitOK
}

// writeBlockProfile writes the block profile gathered so far to path.
func writeBlockProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("block").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
