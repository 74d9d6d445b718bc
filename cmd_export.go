package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"strata/export"
	"strata/progress"
)

func init() {
	register(command{
		name:    "export",
		summary: "write a landscape's controls and heightmap as files engines import",
		usage: `usage: strata export PATH.terrainData [--controls DIR] [--heightmap F.r16|F.png|F.exr] [--instances DIR]
                     [--maps DIR [--force]]

  --controls DIR    control0.png, control1.png, …: the rgba8 weights, one layer a channel
                    (strata info shows which layer is which channel), copied byte for byte
  --heightmap F     by extension: .r16 raw 16-bit little-endian, .png 16-bit grayscale — both map
                    the manifest's heightRange linearly onto 0..65535 (holes clamp) — or .exr
                    one FLOAT channel Y in metres. Row 0 is the field's minimum Z.
  --instances DIR   each scatter population's instances as <population>.f32 (the pool layout:
                    column-major 4×4 float32 matrices, 64 bytes each, little-endian) plus
                    index.yaml with each population's file, count, mesh and scale
  --maps DIR        the rule inputs on the weights grid, each a single-channel float EXR (channel
                    Y, row 0 at the field's minimum Z): slope.exr (degrees), aspect.exr (degrees
                    clockwise from north = +Z; -1 on flat ground), curvature.exr (1/m, + gully),
                    flow.exr (log10 m² of upslope area, routed over the height), and the
                    container's erosion.* channels as <name>.exr; the values a rule of that input
                    reads at each texel. DIR/index.yaml, written last, gives
                    each map's file, quantity, unit, size, placement and flat value
  --force           write the maps into a DIR that already holds files (refused otherwise)

Every file is written whole or not at all (beside its destination, then renamed), never inside
the container being exported. The container is checked as every reader checks it first; each
payload is decoded on the way, so a broken one is refused by file and field, not exported.`,
		run: runExport,
	})
}

func runExport(args []string, stdout, stderr io.Writer) int {
	c := commands["export"]
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o export.Options
	fs.StringVar(&o.Controls, "controls", "", "")
	fs.StringVar(&o.Heightmap, "heightmap", "", "")
	fs.StringVar(&o.Instances, "instances", "", "")
	fs.StringVar(&o.Maps, "maps", "", "")
	fs.BoolVar(&o.Force, "force", false, "")
	path, err := parseWithPath(fs, args, "PATH.terrainData")
	if err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if err := o.Check(); err != nil {
		return usageError(c, stderr, "%v", strings.TrimPrefix(err.Error(), "export: "))
	}
	if o.Force && o.Maps == "" {
		return usageError(c, stderr, "--force is for --maps (a folder of maps that already holds files)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := progress.NewBar(stderr)
	defer bar.Finish()
	o.Progress = bar.Func()
	if err := export.RunContext(ctx, path, o, stdout); err != nil {
		bar.Finish()
		fmt.Fprintf(stderr, "strata export: %v\n", err)
		return exitFail
	}
	return exitOK
}
