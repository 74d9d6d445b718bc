package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"strata/bake"
	"strata/exr"
	"strata/internal/safeio"
	"strata/terraindata"
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

// exportOptions are the parsed flags. A new export (scatter instances, once the container
// carries them) adds its field here, its flag in runExport and one step in export.
type exportOptions struct {
	controls  string
	heightmap string
	instances string
}

func runExport(args []string, stdout, stderr io.Writer) int {
	c := commands["export"]
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o exportOptions
	fs.StringVar(&o.controls, "controls", "", "")
	fs.StringVar(&o.heightmap, "heightmap", "", "")
	fs.StringVar(&o.instances, "instances", "", "")
	path, err := parseWithPath(fs, args)
	if err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if o.controls == "" && o.heightmap == "" && o.instances == "" {
		return usageError(c, stderr, "nothing to export: give --controls, --heightmap and/or --instances")
	}
	if o.heightmap != "" {
		switch strings.ToLower(filepath.Ext(o.heightmap)) {
		case ".r16", ".png", ".exr":
		default:
			return usageError(c, stderr, "--heightmap %q: the extension must be .r16, .png or .exr", o.heightmap)
		}
	}
	ct, err := terraindata.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "strata export: %v\n", err)
		return exitFail
	}
	for _, out := range [][2]string{{o.controls, "--controls"}, {o.heightmap, "--heightmap"}, {o.instances, "--instances"}} {
		if out[0] == "" {
			continue
		}
		if err := checkOutput(path, out[0], out[1]); err != nil {
			fmt.Fprintf(stderr, "strata export: %v\n", err)
			return exitFail
		}
	}
	if probs := bake.CheckContainer(ct); len(probs) > 0 {
		fmt.Fprintf(stderr, "strata export: %s cannot be exported:\n%v\n", path, probs)
		return exitFail
	}
	if err := export(ct, o, stdout); err != nil {
		fmt.Fprintf(stderr, "strata export: %s: %v\n", path, err)
		return exitFail
	}
	return exitOK
}

func export(ct *terraindata.Container, o exportOptions, stdout io.Writer) error {
	if o.controls != "" {
		if err := exportControls(ct, o.controls, stdout); err != nil {
			return err
		}
	}
	if o.heightmap != "" {
		if err := exportHeightmap(ct, o.heightmap, stdout); err != nil {
			return err
		}
	}
	if o.instances != "" {
		if err := exportInstances(ct, o.instances, stdout); err != nil {
			return err
		}
	}
	return nil
}

// checkOutput refuses an output path inside the container being read: exporting the heightmap
// over the container's own height payload, or a controls folder inside it, would destroy the
// source while reading it.
func checkOutput(container, out, flag string) error {
	in, err := safeio.Within(container, out)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, out, err)
	}
	if in {
		return fmt.Errorf("%s %s is inside the container %s: write outputs elsewhere", flag, out, container)
	}
	return nil
}

// exportControls copies each control payload: it already is an ordinary PNG with exact bytes. The
// copy streams through the payload's checks, so only a payload a reader loads is exported.
func exportControls(ct *terraindata.Container, dir string, stdout io.Writer) error {
	refs := ct.Controls()
	if len(refs) == 0 {
		return fmt.Errorf("controls: the container has no control textures")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, r := range refs {
		info, err := r.Info()
		if err != nil {
			return err
		}
		if info.Format != terraindata.RGBA8 {
			return fmt.Errorf("controls[%d]: format %s, want rgba8", i, info.Format)
		}
		dst := filepath.Join(dir, fmt.Sprintf("control%d.png", i))
		f, err := safeio.Create(dst)
		if err != nil {
			return err
		}
		if _, err := r.Copy(f); err != nil {
			f.Abort()
			return err
		}
		if err := f.Commit(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%dx%d rgba8)\n", dst, info.Width, info.Height)
	}
	return nil
}

// exportHeightmap streams the height payload block by block (through the container's checks: a
// NaN is refused, not written as code 0), so exporting an 8192² field holds sixteen rows of floats
// (plus the 16-bit image for PNG, which the encoder needs whole). A ground height outside the
// manifest's heightRange is refused rather than clamped: the integer codes would not mean what
// the range says.
func exportHeightmap(ct *terraindata.Container, dst string, stdout io.Writer) error {
	ref := ct.Height()
	if ref == nil {
		return fmt.Errorf("heightmap: the container names no height")
	}
	s, err := ref.Stream()
	if err != nil {
		return err
	}
	defer s.Close()
	if s.Info.Format != terraindata.RGBA32F {
		return fmt.Errorf("height: format %s, want rgba32f", s.Info.Format)
	}
	w, h := s.Info.Width, s.Info.Height
	hr := ct.Placement().HeightRange
	ext := strings.ToLower(filepath.Ext(dst))
	code := func(v float32) uint16 {
		if hr[1] <= hr[0] {
			return 0 // a flat landscape: every code is the one height
		}
		c := math.Round((float64(v) - hr[0]) / (hr[1] - hr[0]) * 65535)
		return uint16(math.Max(0, math.Min(65535, c))) // only holes reach past the range
	}
	out, err := safeio.Create(dst)
	if err != nil {
		return err
	}
	defer out.Abort()
	var (
		gray *image.Gray16
		ew   *exr.Writer
		next int // rows written, for the in-order EXR writer
		buf  []byte
		row  []float32
	)
	switch ext {
	case ".png":
		gray = image.NewGray16(image.Rect(0, 0, w, h))
	case ".exr":
		if ew, err = exr.NewWriter(out, w, h, []string{"Y"}, exr.ZIP); err != nil {
			return err
		}
	}
	for {
		b, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		row = row[:0]
		for i := 0; i < len(b.Float); i += 4 {
			v := b.Float[i]
			if b.Float[i+3] > 0 && (float64(v) < float64(float32(hr[0])) || float64(v) > float64(float32(hr[1]))) {
				t := i / 4
				return fmt.Errorf("%s: height: texel (%d,%d) is %g m, outside heightRange %v: the manifest's range is wrong (strata validate)", s.File, t%w, b.Y0+t/w, v, hr)
			}
			row = append(row, v)
		}
		switch ext {
		case ".r16":
			buf = buf[:0]
			for _, v := range row {
				buf = binary.LittleEndian.AppendUint16(buf, code(v))
			}
			if _, err := out.WriteAt(buf, int64(b.Y0*w*2)); err != nil {
				return fmt.Errorf("writing %s: %w", dst, err)
			}
		case ".png":
			for i, v := range row {
				binary.BigEndian.PutUint16(gray.Pix[(b.Y0*w+i)*2:], code(v))
			}
		case ".exr":
			if b.Y0 != next {
				return fmt.Errorf("height: payload blocks are not in increasing row order; cannot stream to EXR")
			}
			if err := ew.WriteRows([][]float32{row}); err != nil {
				return err
			}
			next += b.N
		}
	}
	switch ext {
	case ".png":
		bw := bufio.NewWriter(out)
		if err := png.Encode(bw, gray); err != nil {
			return fmt.Errorf("writing %s: %w", dst, err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("writing %s: %w", dst, err)
		}
	case ".exr":
		if err := ew.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", dst, err)
		}
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if ext == ".exr" {
		fmt.Fprintf(stdout, "wrote %s (%dx%d, float metres)\n", dst, w, h)
	} else {
		fmt.Fprintf(stdout, "wrote %s (%dx%d, 16-bit: 0 = %g m, 65535 = %g m)\n", dst, w, h, hr[0], hr[1])
	}
	return nil
}
