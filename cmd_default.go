package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func init() { defaultCommand = runDefault }

// defaultOut is where `strata` with no command writes the sample when there is no display:
// ./out, beside the README.
const defaultOut = "out"

// runDefault is `strata` with no arguments: the editor on the built-in sample. On a machine
// without a display it does what it can headless: bake the sample, render it from the default
// orbit camera and from above, and say where everything went.
func runDefault(stdout, stderr io.Writer) int {
	if hasDisplay() {
		return runEditor("", stdout, stderr)
	}
	fmt.Fprintln(stdout, "strata: no display (DISPLAY and WAYLAND_DISPLAY are unset), so no editor window; baking and rendering the built-in sample headless.")
	if err := os.MkdirAll(defaultOut, 0o755); err != nil {
		fmt.Fprintf(stderr, "strata: %v\n", err)
		return exitFail
	}
	container := filepath.Join(defaultOut, "dunes.terrainData")
	if rc := runBake([]string{"--sample", "dunes", "--out", container}, stdout, stderr); rc != exitOK {
		return rc
	}
	for _, v := range []struct{ view, file string }{{"orbit", "dunes.png"}, {"top", "dunes_top.png"}} {
		png := filepath.Join(defaultOut, v.file)
		if rc := runRender([]string{container, "--out", png, "--size", "1280x720", "--view", v.view}, stdout, stderr); rc != exitOK {
			return rc
		}
	}
	abs, _ := filepath.Abs(defaultOut)
	fmt.Fprintf(stdout, "strata: wrote %s (the landscape), %s and %s (renders)\n",
		filepath.Join(abs, "dunes.terrainData"), filepath.Join(abs, "dunes.png"), filepath.Join(abs, "dunes_top.png"))
	return exitOK
}

// hasDisplay reports whether a window can be opened: an X11 or Wayland display is named.
func hasDisplay() bool {
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}
