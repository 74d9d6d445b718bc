package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"strata/export"
)

func init() {
	register(command{
		name:    "export",
		summary: "write a landscape's controls and heightmap as files engines import",
		usage: `usage: strata export PATH.terrainData [--controls DIR] [--heightmap F.r16|F.png|F.exr] [--instances DIR]

  --controls DIR    control0.png, control1.png, …: the rgba8 weights, one layer a channel
                    (strata info shows which layer is which channel), copied byte for byte
  --heightmap F     by extension: .r16 raw 16-bit little-endian, .png 16-bit grayscale — both map
                    the manifest's heightRange linearly onto 0..65535 (holes clamp) — or .exr
                    one FLOAT channel Y in metres. Row 0 is the field's minimum Z.
  --instances DIR   each scatter population's instances as <population>.f32 (the pool layout:
                    column-major 4×4 float32 matrices, 64 bytes each, little-endian) plus
                    index.yaml with each population's file, count, mesh and scale

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
	path, err := parseWithPath(fs, args, "PATH.terrainData")
	if err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if err := o.Check(); err != nil {
		return usageError(c, stderr, "%v", strings.TrimPrefix(err.Error(), "export: "))
	}
	if err := export.Run(path, o, stdout); err != nil {
		fmt.Fprintf(stderr, "strata export: %v\n", err)
		return exitFail
	}
	return exitOK
}
