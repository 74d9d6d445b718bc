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

	"strata/exr"
	"strata/terraindata"
)

func init() {
	register(command{
		name:    "export",
		summary: "write a landscape's controls and heightmap as files engines import",
		usage: `usage: strata export PATH.terrainData [--controls DIR] [--heightmap F.r16|F.png|F.exr] [--instances DIR]

  --controls DIR    control0.png, control1.png, …: the rgba8 weights, one layer a channel
                    (strata info shows which layer is which channel)
  --heightmap F     by extension: .r16 raw 16-bit little-endian, .png 16-bit grayscale — both map
                    the manifest's heightRange linearly onto 0..65535 (holes clamp) — or .exr
                    one FLOAT channel Y in metres. Row 0 is the field's minimum Z.
  --instances DIR   each scatter population's instances as <population>.f32 (the pool layout:
                    column-major 4×4 float32 matrices, 64 bytes each, little-endian) plus
                    index.yaml with each population's file, count, mesh and scale`,
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
	path, err := parseWithPath(fs, args, "PATH.terrainData")
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

// exportControls copies each control payload: it already is an ordinary PNG with exact bytes.
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
		if err := copyFile(filepath.Join(r.Dir, info.Format.DataFile()), dst); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%dx%d rgba8)\n", dst, info.Width, info.Height)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return out.Close()
}

// exportHeightmap streams the height payload block by block, so exporting an 8192² field holds
// sixteen rows of floats (plus the 16-bit image for PNG, which the encoder needs whole).
func exportHeightmap(ct *terraindata.Container, dst string, stdout io.Writer) error {
	ref := ct.Height()
	if ref == nil {
		return fmt.Errorf("heightmap: the container names no height")
	}
	info, err := ref.Info()
	if err != nil {
		return err
	}
	if info.Format != terraindata.RGBA32F {
		return fmt.Errorf("height: format %s, want rgba32f", info.Format)
	}
	f, err := os.Open(filepath.Join(ref.Dir, info.Format.DataFile()))
	if err != nil {
		return err
	}
	defer f.Close()
	rd, err := exr.NewReader(f)
	if err != nil {
		return fmt.Errorf("height: %w", err)
	}
	w, h := rd.Header().Width, rd.Header().Height
	hr := ct.Placement().HeightRange
	code := func(v float32) uint16 {
		if hr[1] <= hr[0] || math.IsNaN(float64(v)) {
			return 0
		}
		c := math.Round((float64(v) - hr[0]) / (hr[1] - hr[0]) * 65535)
		return uint16(math.Max(0, math.Min(65535, c)))
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer out.Close()
	ext := strings.ToLower(filepath.Ext(dst))
	var (
		gray *image.Gray16
		ew   *exr.Writer
		next int // rows written, for the in-order EXR writer
		buf  []byte
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
		y0, n, rows, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("height: %w", err)
		}
		r := rows[0] // R: metres
		switch ext {
		case ".r16":
			buf = buf[:0]
			for _, v := range r {
				buf = binary.LittleEndian.AppendUint16(buf, code(v))
			}
			if _, err := out.WriteAt(buf, int64(y0*w*2)); err != nil {
				return fmt.Errorf("writing %s: %w", dst, err)
			}
		case ".png":
			for i, v := range r {
				binary.BigEndian.PutUint16(gray.Pix[(y0*w+i)*2:], code(v))
			}
		case ".exr":
			if y0 != next {
				return fmt.Errorf("height: payload blocks are not in increasing row order; cannot stream to EXR")
			}
			if err := ew.WriteRows([][]float32{r}); err != nil {
				return err
			}
			next += n
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
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	if ext == ".exr" {
		fmt.Fprintf(stdout, "wrote %s (%dx%d, float metres)\n", dst, w, h)
	} else {
		fmt.Fprintf(stdout, "wrote %s (%dx%d, 16-bit: 0 = %g m, 65535 = %g m)\n", dst, w, h, hr[0], hr[1])
	}
	return nil
}
