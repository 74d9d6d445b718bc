package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func init() { defaultCommand = runDefault }

// defaultOut is where `strata` with no command writes the sample: ./out, beside the README.
const defaultOut = "out"

// runDefault is `strata` with no arguments. The interactive editor is not part of this build, so
// it does what the editor does on a machine without a display: bake the built-in sample headless,
// render it from the default orbit camera and from above, and say where everything went.
func runDefault(stdout, stderr io.Writer) int {
	fmt.Fprintln(stdout, "strata: the interactive editor is not in this build; baking and rendering the built-in sample headless.")
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
