// Package export writes a landscape's payloads as the files engines import: the control
// textures as PNG, the heightmap as raw 16-bit, 16-bit PNG or float EXR, and the scatter
// instances as raw matrices with an index. `strata export` and the editor's File → Export run it.
package export

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"strata/exr"
	"strata/internal/safeio"
	"strata/landscape"
	"strata/progress"
	"strata/terraindata"
)

// Options name what to write; an empty field writes nothing of that kind.
type Options struct {
	Controls  string // a folder: control0.png, control1.png
	Heightmap string // a file: .r16, .png or .exr by extension
	Instances string // a folder: <population>.f32 and index.yaml
	// Maps is a folder: slope.exr, aspect.exr, curvature.exr, flow.exr (and the container's
	// erosion.* channels) on the weights grid, plus index.yaml (maps.go).
	Maps string
	// Force lets Maps write into a folder that already holds files.
	Force bool
	// Progress receives the maps' stages (may be nil).
	Progress progress.Func
}

// Check refuses options that name nothing or a heightmap format there is no writer for.
func (o Options) Check() error {
	if o.Controls == "" && o.Heightmap == "" && o.Instances == "" && o.Maps == "" {
		return fmt.Errorf("export: nothing to export: give controls, a heightmap, instances and/or maps")
	}
	if o.Heightmap != "" {
		switch strings.ToLower(filepath.Ext(o.Heightmap)) {
		case ".r16", ".png", ".exr":
		default:
			return fmt.Errorf("export: heightmap %q: the extension must be .r16, .png or .exr", o.Heightmap)
		}
	}
	return nil
}

// Run is RunContext without a way to stop it.
func Run(path string, o Options, out io.Writer) error {
	return RunContext(context.Background(), path, o, out)
}

// RunContext exports the container at path: it refuses an output inside the container (and a
// maps folder that is no folder, or not empty without Force), checks the container as every
// reader does, and writes each file whole or not at all. Progress lines ("wrote F …") go to out;
// a cancelled ctx stops the maps between tiles and blocks.
func RunContext(ctx context.Context, path string, o Options, out io.Writer) error {
	if err := o.Check(); err != nil {
		return err
	}
	ct, err := terraindata.Open(path)
	if err != nil {
		return err
	}
	for _, p := range [][2]string{{o.Controls, "controls"}, {o.Heightmap, "heightmap"}, {o.Instances, "instances"}, {o.Maps, "maps"}} {
		if p[0] == "" {
			continue
		}
		if err := safeio.RefuseInside(path, p[0], p[1]); err != nil {
			return err
		}
	}
	if probs := landscape.CheckContainer(ct); len(probs) > 0 {
		return fmt.Errorf("%s cannot be exported:\n%v", path, probs)
	}
	if o.Maps != "" {
		if err := checkMapsDir(o.Maps, o.Force); err != nil {
			return err
		}
	}
	if err := distinctOutputs(ct, o); err != nil {
		return err
	}
	if err := export(ct, o, out); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if o.Maps != "" {
		if err := exportMaps(ctx, path, o.Maps, o.Progress, out); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// distinctOutputs refuses an export two of whose outputs are one file (after symlinks): a
// heightmap named like a control file (--controls ctl --heightmap ctl/control0.png), a file where a
// folder goes. One folder for controls and instances is fine: their files differ. The second write would replace the first, and exit 0 would hide it.
func distinctOutputs(ct *terraindata.Container, o Options) error {
	type output struct{ path, what string }
	var outs []output
	if o.Controls != "" {
		outs = append(outs, output{o.Controls, "--controls (the folder)"})
		for i := range ct.Controls() {
			outs = append(outs, output{filepath.Join(o.Controls, fmt.Sprintf("control%d.png", i)), fmt.Sprintf("control %d", i)})
		}
	}
	if o.Heightmap != "" {
		outs = append(outs, output{o.Heightmap, "--heightmap"})
	}
	if o.Instances != "" {
		outs = append(outs, output{o.Instances, "--instances (the folder)"}, output{filepath.Join(o.Instances, "index.yaml"), "the instances' index.yaml"})
		sc := ct.Manifest().Scatter
		names := make([]string, len(sc))
		for i, p := range sc {
			names[i] = p.Name
		}
		for i, f := range landscape.InstanceFileNames(names) {
			outs = append(outs, output{filepath.Join(o.Instances, f), fmt.Sprintf("population %q", names[i])})
		}
	}
	if o.Maps != "" {
		outs = append(outs, output{o.Maps, "--maps (the folder)"})
		var chans []string
		for n := range ct.Manifest().Channels {
			chans = append(chans, n)
		}
		for _, f := range mapsOutputs(o.Maps, chans) {
			outs = append(outs, output{f[0], f[1]})
		}
	}
	seen := map[string]output{}
	for _, out := range outs {
		real, err := safeio.Real(out.path)
		if err != nil {
			return fmt.Errorf("export: %s %s: %w", out.what, out.path, err)
		}
		if first, ok := seen[real]; ok && !(strings.HasSuffix(first.what, "(the folder)") && strings.HasSuffix(out.what, "(the folder)")) {
			return fmt.Errorf("export: %s %s and %s %s are one file (%s): each output must have its own", first.what, first.path, out.what, out.path, real)
		}
		seen[real] = out
	}
	return nil
}

func export(ct *terraindata.Container, o Options, stdout io.Writer) error {
	if o.Controls != "" {
		if err := exportControls(ct, o.Controls, stdout); err != nil {
			return err
		}
	}
	if o.Heightmap != "" {
		if err := exportHeightmap(ct, o.Heightmap, stdout); err != nil {
			return err
		}
	}
	if o.Instances != "" {
		if err := exportInstances(ct, o.Instances, stdout); err != nil {
			return err
		}
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
