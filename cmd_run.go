package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"strata/procgen"
	"strata/progress"
)

func init() {
	register(command{
		name:    "run",
		summary: "run a procgen script (Lua graph of terrain.* nodes) and write the containers it makes",
		usage: `usage: strata run SCRIPT.lua [--out DIR] [--assets DIR]... [--cpu] [--timeout D]

Runs the script, then evaluates every terrain.write node of the graphs it built and writes each
as DIR/<name>.terrainData (replaced atomically; a re-written name keeps its guid). The reference
is docs/procgen.md.

  --out DIR       folder the containers are written below (default: the current folder)
  --assets DIR    another folder asset references (textures.sand_albedo, maps/h.png) resolve
                  below, after the script's own folder; may be repeated
  --cpu           evaluate with the Go reference instead of the GPU
  --timeout D     stop a script still running after D (default 10m; e.g. 30s, 2h)

The script runs in a sandbox: no os, io, require, load*, dofile or debug; it reads files only
below its folder and --assets and writes only below --out. Ctrl+C stops it; a container being
evaluated when it is stopped is not written, those already written stay.`,
		run: runRun,
	})
}

func runRun(args []string, stdout, stderr io.Writer) int {
	c := commands["run"]
	var opt procgen.Options
	var assets multiFlag
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&opt.Out, "out", "", "")
	fs.Var(&assets, "assets", "")
	fs.BoolVar(&opt.CPU, "cpu", false, "")
	fs.DurationVar(&opt.Timeout, "timeout", procgen.DefaultTimeout, "")
	script, err := parseWithPath(fs, args, "SCRIPT.lua")
	switch {
	case err != nil:
		return usageError(c, stderr, "%v", err)
	case opt.Timeout <= 0:
		return usageError(c, stderr, "--timeout %v: must be positive", opt.Timeout)
	}
	opt.Assets = assets
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := progress.NewBar(stderr)
	opt.Progress = bar.Func()
	opt.Warn = func(msg string) { bar.Finish(); fmt.Fprintf(stderr, "strata run: warning: %s\n", msg) }
	opt.Print = func(line string) { fmt.Fprintln(stdout, line) }
	start := time.Now()
	res, err := procgen.RunFile(ctx, script, opt)
	bar.Finish()
	for _, p := range res.Written {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "strata run: interrupted: %v; nothing is half-written (%d container(s) written, complete)\n", err, len(res.Written))
		} else {
			fmt.Fprintf(stderr, "strata run: %v\n", err)
		}
		return exitFail
	}
	if len(res.Written) > 0 {
		fmt.Fprintf(stdout, "%d container(s) in %v, %s\n", len(res.Written), time.Since(start).Round(time.Millisecond), res.Backend)
	}
	return exitOK
}
