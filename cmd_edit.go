package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"strata/session"
	"strata/ui"
)

func init() {
	register(command{
		name:    "edit",
		summary: "open the editor (on a terrainData landscape or a heightmap; no path: the sample)",
		usage: `usage: strata edit [PATH.terrainData | HEIGHTMAP] [--cpu | --gpu]

  PATH.terrainData  reopen a saved landscape: its stack, painted masks and holes come back
  HEIGHTMAP         start a landscape on a heightmap (.png, .r16, .f32, .tif, .exr; one metre
                    per texel, integer codes over 0…1000 m; File → New → From a heightmap asks)
  --cpu, --gpu      evaluate with the Go reference or the GPU kernels (default: whichever is
                    faster on this machine, measured when a landscape opens)

Needs a display (DISPLAY or WAYLAND_DISPLAY). See docs/editor.md for the window, its shortcuts
and what is live.`,
		run: runEdit,
	})
}

func runEdit(args []string, stdout, stderr io.Writer) int {
	c := commands["edit"]
	fs := flag.NewFlagSet("edit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cpu := fs.Bool("cpu", false, "")
	gpu := fs.Bool("gpu", false, "")
	var path string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return usageError(c, stderr, "%v", err)
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if path != "" {
			return usageError(c, stderr, "unexpected argument %q", rest[0])
		}
		path, rest = rest[0], rest[1:]
	}
	if *cpu && *gpu {
		return usageError(c, stderr, "--cpu and --gpu exclude each other")
	}
	if path != "" {
		if _, err := os.Stat(strings.TrimRight(path, "/")); err != nil {
			fmt.Fprintf(stderr, "strata edit: %v\n", err)
			return exitFail
		}
	}
	if !hasDisplay() {
		fmt.Fprintln(stderr, "strata edit: no display (DISPLAY and WAYLAND_DISPLAY are unset): the editor needs a window. `strata render` draws a landscape headless.")
		return exitFail
	}
	ev := session.Auto
	switch {
	case *cpu:
		ev = session.CPU
	case *gpu:
		ev = session.GPU
	}
	return runEditorWith(path, ev, stdout, stderr)
}

func runEditor(path string, stdout, stderr io.Writer) int {
	return runEditorWith(path, session.Auto, stdout, stderr)
}

func runEditorWith(path string, ev session.Evaluator, _, stderr io.Writer) int {
	if err := ui.Run(ui.Options{Path: path, Log: stderr, Evaluator: ev}); err != nil {
		fmt.Fprintf(stderr, "strata: %v\n", err)
		return exitFail
	}
	return exitOK
}
