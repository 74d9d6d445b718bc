package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"strata/field"
	"strata/progress"
	"strata/world"
)

func init() {
	register(command{
		name:    "world",
		summary: "plan, bake (one cell per array task), check and follow a world of seam-exact containers",
		usage: `usage: strata world plan (bake's source flags) --cells NxM --out NAME.world [--spacing measured|declared]
                        [--cpu] [--emit k8s|slurm]... [emit options]
       strata world bake NAME.world (--cell I | --all [-j K]) [--cpu] [--root DIR]
       strata world status NAME.world
       strata world validate NAME.world

A world is a grid of N×M terrainData containers (NAME.world/x{i}_z{j}.terrainData) whose shared
edges are the bytes one whole bake would write: each cell is baked alone, from its window of the
sources, with the whole world's geometry and scatter sites. docs/worlds.md is the guide.

plan      writes NAME.world/world.yaml. Source flags as strata bake: --stack, --height,
          --height-range, --height-size (up to 1048576 a side), --sample dunes, --size WxD,
          --origin X,Z, --resolution M, --channel NAME=FILE, --tile N. Then:
  --cells NxM        N cells along X, M along Z (required)
  --out NAME.world   the world folder (required; re-planning keeps its identity)
  --spacing measured each population's site spacing from the densest texel of the whole world
                     (a density pass, cell by cell: the cells' instances are then exactly one
                     whole bake's); declared: from its declared density (no pass)
  --cpu              measure with the Go reference
  --emit k8s         also write NAME.world/bake-job.yaml, a Kubernetes Indexed Job, one pod
                     per cell: kubectl apply -f NAME.world/bake-job.yaml
  --emit slurm       also write NAME.world/bake.sbatch, a Slurm array: sbatch NAME.world/bake.sbatch
  --image IMG        container image with strata on its PATH (k8s; default strata:latest)
  --claim NAME       PersistentVolumeClaim holding the world and its sources (k8s; default
                     strata-world), mounted at --mount (default /data); --volume-root DIR is the
                     local folder that is the claim's root (default: the world folder's parent)
  --parallel P       at most P cells at once (default: all)
  --cpus C           CPU cores per task (default 1: every node has one; a request larger than
                     every node's pends forever on Slurm)
  --time D           each Slurm task's time limit, e.g. 2h (default: 4× the estimate for the
                     largest cell on one core, at least 15m)
  --gpu              one GPU per task (without it the tasks bake with --cpu)
  --strata PATH      the strata binary the Slurm script runs (default: this one; checked to be
                     an executable file, made absolute; go run's temporary binary is refused)

bake      bakes one cell: --cell I, or the array index from JOB_COMPLETION_INDEX (Kubernetes)
          or SLURM_ARRAY_TASK_ID (Slurm) when --cell is left out; sources that disagree are
          refused. Atomic and idempotent: a
          retried, killed or duplicated task leaves the cell valid. --all bakes every cell as
          local processes through the same entry point, -j K at a time (default 1). --cpu:
          the Go reference instead of the GPU. --root DIR: refuse a plan naming a source
          outside DIR (after symlinks); the emitted job files pass it.

status    lists every cell as baked, missing or stale (the stack, a texture, the heightmap, a
          channel or world.yaml changed after the cell was baked); exit 0 when all are baked and
          none is stale, else 1.

validate  checks every cell (as strata validate, and against the plan) and every seam between
          two cells (heights and weights across it as one bake has them); exit 0 when valid, else
          every problem on stderr and exit 1.`,
		run: runWorld,
	})
}

func runWorld(args []string, stdout, stderr io.Writer) int {
	c := commands["world"]
	if len(args) == 0 {
		return usageError(c, stderr, "missing subcommand (plan, bake, status, validate)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch args[0] {
	case "plan":
		err = worldPlan(ctx, args[1:], stdout, stderr)
	case "bake":
		err = worldBake(ctx, args[1:], stdout, stderr)
	case "status":
		err = worldStatus(args[1:], stdout)
	case "validate":
		err = worldValidate(ctx, args[1:], stdout, stderr)
	default:
		return usageError(c, stderr, "unknown subcommand %q (plan, bake, status, validate)", args[0])
	}
	var ue usageErr
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return usageError(c, stderr, "%s: %v", args[0], err)
	case errors.Is(err, errReported):
		return exitFail
	}
	fmt.Fprintf(stderr, "strata world %s: %v\n", args[0], err)
	return exitFail
}

// errReported is a failure whose details are already on stderr or stdout.
var errReported = errors.New("reported")

func worldPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := bakeOptions{maxSide: field.MaxWorldSide}
	var cells, spacing, out string
	var emit multiFlag
	var eo world.EmitOptions
	fs := flag.NewFlagSet("world plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.sourceFlags(fs)
	fs.StringVar(&cells, "cells", "", "")
	fs.StringVar(&out, "out", "", "")
	fs.StringVar(&spacing, "spacing", world.SpacingMeasured, "")
	fs.Var(&emit, "emit", "")
	fs.StringVar(&eo.Image, "image", "", "")
	fs.StringVar(&eo.Claim, "claim", "", "")
	fs.StringVar(&eo.Mount, "mount", "", "")
	fs.StringVar(&eo.VolumeRoot, "volume-root", "", "")
	fs.IntVar(&eo.Parallel, "parallel", 0, "")
	fs.IntVar(&eo.CPUs, "cpus", 0, "")
	fs.DurationVar(&eo.Time, "time", 0, "")
	fs.BoolVar(&eo.GPU, "gpu", false, "")
	fs.StringVar(&eo.Strata, "strata", "", "")
	if err := fs.Parse(args); err != nil {
		return usageErr{err}
	}
	var kinds []string
	for _, e := range emit {
		for _, k := range strings.Split(e, ",") {
			if k != "k8s" && k != "slurm" {
				return usageErr{fmt.Errorf("--emit %q: want k8s or slurm", k)}
			}
			kinds = append(kinds, k)
		}
	}
	switch {
	case fs.NArg() > 0:
		return usageErr{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	case out == "":
		return usageErr{errors.New("missing --out NAME.world")}
	case cells == "":
		return usageErr{errors.New("missing --cells NxM")}
	case eo.Parallel < 0 || eo.CPUs < 0 || eo.Time < 0:
		return usageErr{errors.New("--parallel, --cpus and --time must be positive")}
	case spacing != world.SpacingMeasured && spacing != world.SpacingDeclared:
		return usageErr{fmt.Errorf("--spacing %q: want measured or declared", spacing)}
	}
	if err := o.checkSources(); err != nil {
		return err
	}
	if len(kinds) > 0 {
		// Before the plan runs: a value the job files cannot hold is refused up front.
		if err := world.CheckEmit(out, eo, kinds...); err != nil {
			return err
		}
	}
	n, m, err := parseCells(cells)
	if err != nil {
		return err
	}
	src, err := o.sources()
	if err != nil {
		return err
	}
	bar := progress.NewBar(stderr)
	defer bar.Finish()
	w, err := world.Plan(ctx, world.PlanOptions{Sources: src, Resolution: o.resolution, Tile: o.tile, Cells: [2]int{n, m},
		Out: out, Spacing: spacing, Options: world.Options{CPU: o.cpu, Progress: bar.Func(), Warn: warner(stderr, "plan")}})
	if err != nil {
		return err
	}
	bar.Finish()
	fmt.Fprintf(stdout, "wrote %s: %d×%d cells of a %d×%d height grid (%g×%g m)\n", filepath.Join(w.Dir, world.FileName),
		w.Cells[0], w.Cells[1], w.HeightGrid[0], w.HeightGrid[1], w.Size[0], w.Size[1])
	for _, p := range w.Populations {
		fmt.Fprintf(stdout, "  %s: spacing %.4g m (%s, density %g/m²)\n", p.Name, p.Spacing, w.Spacing, p.MaxDensity)
	}
	for _, k := range kinds {
		if k == "k8s" {
			path, err := w.EmitK8s(eo)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s: submit with `kubectl apply -f %s`\n", path, world.ShellArg(path))
			continue
		}
		job, err := w.EmitSlurm(eo)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: submit with `%s`\n", job.Path, job.Submit())
		fmt.Fprintf(stdout, "  each task asks for %s (--cpus, --time; or at submission: sbatch -c C --mem M --time T)\n", job.Request)
		fmt.Fprintf(stdout, "  and runs %s (checked: an executable file; the nodes must see it at that path)\n", job.Strata)
		fmt.Fprintf(stdout, "  logs: %s\n", job.Log)
	}
	if len(kinds) == 0 {
		d := world.ShellArg(w.Dir) // quoted, and ./-x for a world named -x: runs as printed
		fmt.Fprintf(stdout, "bake with `strata world bake %s --all` or one task per cell: `strata world bake %s --cell I`\n", d, d)
	}
	return nil
}

// parseCells reads --cells NxM.
func parseCells(v string) (int, int, error) {
	a, b, ok := strings.Cut(strings.ToLower(v), "x")
	n, err1 := strconv.Atoi(a)
	m, err2 := strconv.Atoi(b)
	// Each side first: n·m of two large sides overflows (4294967296x4294967296 is 0).
	if !ok || err1 != nil || err2 != nil || n < 1 || m < 1 || n > world.MaxCells || m > world.MaxCells || n*m > world.MaxCells {
		return 0, 0, usageErr{fmt.Errorf("--cells %q: want NxM, at least 1x1 and at most %d cells", v, world.MaxCells)}
	}
	return n, m, nil
}

func warner(stderr io.Writer, sub string) func(string) {
	return func(msg string) { fmt.Fprintf(stderr, "strata world %s: warning: %s\n", sub, msg) }
}

func worldBake(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("world bake", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cell := fs.Int("cell", -1, "")
	all := fs.Bool("all", false, "")
	jobs := fs.Int("j", 1, "")
	cpu := fs.Bool("cpu", false, "")
	root := fs.String("root", "", "")
	path, err := parseWithPath(fs, args, "NAME.world")
	if err != nil {
		return usageErr{err}
	}
	cellGiven := false
	fs.Visit(func(f *flag.Flag) { cellGiven = cellGiven || f.Name == "cell" })
	switch {
	case *all && cellGiven:
		return usageErr{errors.New("give --cell I or --all, not both")}
	case *jobs < 1:
		return usageErr{fmt.Errorf("-j %d: want at least 1", *jobs)}
	case cellGiven && *cell < 0:
		return usageErr{fmt.Errorf("--cell %d: want a cell index 0 … N·M-1", *cell)}
	}
	w, err := world.Open(path)
	if err != nil {
		return err
	}
	if *root != "" {
		if err := w.Contain(*root); err != nil {
			return err
		}
	}
	if *all {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("the strata binary to run the cells with: %w", err)
		}
		var extra []string
		if *cpu {
			extra = append(extra, "--cpu")
		}
		bar := progress.NewBar(stderr)
		defer bar.Finish()
		err = w.RunAll(ctx, world.RunOptions{Exe: exe, Jobs: *jobs, Args: extra, Log: stdout, Progress: bar.Func()})
		bar.Finish()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "baked %d cells of %s\n", w.NumCells(), w.Dir)
		return nil
	}
	i, from, ok, err := world.CellIndex(*cell, cellGiven)
	switch {
	case err != nil:
		return err
	case !ok:
		return usageErr{fmt.Errorf("no cell: give --cell I, --all, or run as an array task (%s)", strings.Join(world.IndexEnv, " or "))}
	}
	*cell = i
	fmt.Fprintf(stderr, "strata world bake: cell %d from %s\n", i, from)
	if *cell >= w.NumCells() {
		return fmt.Errorf("%s: cell %d: the world has cells 0 … %d", w.Dir, *cell, w.NumCells()-1)
	}
	bar := newBakeBar(stderr) // the write's stages in MiB, as strata bake shows them
	defer bar.Finish()
	res, err := w.BakeCell(ctx, *cell, world.Options{CPU: *cpu, Progress: bar.Func(), Warn: warner(stderr, "bake")})
	bar.Finish()
	if err != nil {
		return err
	}
	for _, p := range res.Warnings {
		fmt.Fprintf(stderr, "strata world bake: %s\n", p)
	}
	fmt.Fprintf(stdout, "baked cell %d: %s: %d×%d weights, %s\n", res.Index, res.Path, res.Weights[0], res.Weights[1], res.Backend)
	for k, n := range res.Instances {
		fmt.Fprintf(stdout, "  %s: %d instances\n", w.Populations[k].Name, n)
	}
	var ph []string
	for _, p := range res.Phases {
		ph = append(ph, fmt.Sprintf("%s %.2fs", p.Name, p.D.Seconds()))
	}
	fmt.Fprintf(stdout, "  %s\n", strings.Join(ph, ", "))
	return nil
}

// openWorldArg opens the one NAME.world argument of status and validate.
func openWorldArg(args []string) (*world.World, error) {
	if len(args) != 1 || args[0] == "" || args[0][0] == '-' {
		return nil, usageErr{errors.New("want exactly one NAME.world")}
	}
	return world.Open(args[0])
}

func worldStatus(args []string, stdout io.Writer) error {
	w, err := openWorldArg(args)
	if err != nil {
		return err
	}
	st, err := w.Status()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d cells (%d×%d): %d baked, %d missing, %d stale\n", w.Dir, w.NumCells(), w.Cells[0], w.Cells[1],
		st.Count(world.StateBaked), st.Count(world.StateMissing), st.Count(world.StateStale))
	if st.PlanStale != "" {
		fmt.Fprintf(stdout, "plan: %s\n", st.PlanStale)
	}
	for _, c := range st.Cells {
		line := fmt.Sprintf("%5d  %-24s %s", c.Index, filepath.Base(c.Path), c.State)
		if c.Why != "" {
			line += ": " + c.Why
		}
		fmt.Fprintln(stdout, line)
	}
	if st.Count(world.StateBaked) != w.NumCells() || st.PlanStale != "" {
		return errReported
	}
	return nil
}

func worldValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	w, err := openWorldArg(args)
	if err != nil {
		return err
	}
	probs, err := w.Validate(ctx)
	if err != nil {
		return err
	}
	if len(probs) == 0 {
		fmt.Fprintf(stdout, "%s: valid (%d cells and their seams)\n", w.Dir, w.NumCells())
		return nil
	}
	for _, p := range probs {
		fmt.Fprintln(stderr, p.String())
	}
	fmt.Fprintf(stderr, "strata world validate: %s: %d problem(s)\n", w.Dir, len(probs))
	return errReported
}
