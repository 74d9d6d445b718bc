package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"strata/recovery"
	"strata/session"
	"strata/ui"
	"strata/world"
)

func init() {
	register(command{
		name:    "edit",
		summary: "open the editor (on a terrainData landscape, a heightmap or a world's cell; no path: the sample)",
		usage: `usage: strata edit [PATH.terrainData | HEIGHTMAP | NAME.world --cell I] [--cpu | --gpu]

  PATH.terrainData  reopen a saved landscape: its stack, painted masks and holes come back
  HEIGHTMAP         start a landscape on a heightmap (.png, .r16, .f32, .tif, .exr; one metre
                    per texel, integer codes over 0…1000 m; File → New → From a heightmap asks)
  NAME.world --cell I  cell I of a world (strata world plan; the cell must be baked): the live
                    pipeline works on the cell alone, and the first edit says which neighbouring
                    cells need a re-bake (docs/worlds.md)
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
	cell := fs.Int("cell", -1, "")
	path, err := parseWithPath(fs, args, "")
	if err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if *cpu && *gpu {
		return usageError(c, stderr, "--cpu and --gpu exclude each other")
	}
	o := ui.Options{Path: path, Log: stderr, Cell: *cell}
	if path != "" {
		if _, err := os.Stat(strings.TrimRight(path, "/")); err != nil {
			fmt.Fprintf(stderr, "strata edit: %v\n", err)
			return exitFail
		}
	}
	if path != "" && world.IsWorld(path) {
		w, err := world.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "strata edit: %v\n", err)
			return exitFail
		}
		if *cell < 0 {
			return usageError(c, stderr, "%s is a world of %d cells: say which to open with --cell I (0 … %d)", path, w.NumCells(), w.NumCells()-1)
		}
		if _, err := w.Cell(*cell); err != nil {
			return usageError(c, stderr, "%v", err) // no such cell
		}
		if _, err := w.BakedCell(*cell); err != nil {
			fmt.Fprintf(stderr, "strata edit: %v\n", err)
			return exitFail
		}
	} else if *cell >= 0 {
		return usageError(c, stderr, "--cell opens a cell of a world; %q is not a world", path)
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
	o.Evaluator = ev
	return runEditorWith(o, stderr)
}

func runEditor(path string, _, stderr io.Writer) int {
	return runEditorWith(ui.Options{Path: path, Log: stderr}, stderr)
}

func runEditorWith(o ui.Options, stderr io.Writer) int {
	// STRATA_TRACE=frames: one stderr line per settled frame; recovery: one per write of the
	// recovery copy, offer and restore (docs/editor.md).
	for _, w := range strings.Split(os.Getenv("STRATA_TRACE"), ",") {
		o.TraceFrames = o.TraceFrames || strings.TrimSpace(w) == "frames"
		o.TraceRecovery = o.TraceRecovery || strings.TrimSpace(w) == "recovery"
	}
	if root, err := recovery.Root(); err == nil {
		o.Recovery = root
	} else {
		fmt.Fprintf(stderr, "strata: %v: no recovery copy will be kept\n", err)
	}
	if err := ui.Run(o); err != nil {
		fmt.Fprintf(stderr, "strata: %v\n", err)
		return exitFail
	}
	return exitOK
}
