package field

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"strata/exr"
)

// A window of a heightmap (or channel) file is the same block of the whole import, value for
// value, in every format: raw files read row by row at their offsets, EXR streamed, PNG and TIFF
// decoded whole and cropped.
func TestLoadHeightWindowEqualsWholeImport(t *testing.T) {
	dir := t.TempDir()
	g := SampleDunesSized(70).Height
	g.H = 53 // not square: the raw formats need their size
	g.Data = g.Data[:70*53]
	rng := [2]float64{-2, 25}
	write := func(name string, enc func(io.Writer) error) string {
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	size := [2]int{70, 53}
	files := []struct {
		path string
		opt  ImportOptions
	}{
		{write("h.f32", func(w io.Writer) error { return EncodeF32(w, g) }), ImportOptions{Size: size}},
		{write("h.r16", func(w io.Writer) error { return EncodeR16(w, g, rng) }), ImportOptions{Size: size, Range: rng}},
		{write("h16.raw", func(w io.Writer) error { return EncodeR16(w, g, rng) }), ImportOptions{Size: size, Range: rng}},
		{write("h32.raw", func(w io.Writer) error { return EncodeF32(w, g) }), ImportOptions{Size: size}},
		{write("h.png", func(w io.Writer) error { return EncodePNG16(w, g, rng) }), ImportOptions{Range: rng}},
		{write("h.tif", func(w io.Writer) error { return EncodeTIFF16(w, g, rng) }), ImportOptions{Range: rng}},
		{write("hf.tif", func(w io.Writer) error { return EncodeTIFFFloat(w, g) }), ImportOptions{}},
		{write("h.exr", func(w io.Writer) error {
			return exr.Encode(w, &exr.Image{Width: 70, Height: 53, Channels: []string{"Y"}, Data: [][]float32{g.Data}}, exr.ZIP)
		}), ImportOptions{}},
	}
	for _, f := range files {
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			whole, err := LoadHeight(f.path, f.opt)
			if err != nil {
				t.Fatal(err)
			}
			w, h, err := ProbeHeight(f.path, f.opt)
			if err != nil || w != 70 || h != 53 {
				t.Fatalf("probe: %dx%d, %v", w, h, err)
			}
			for _, r := range []Rect{{0, 0, 70, 53}, {3, 17, 41, 52}, {69, 0, 70, 1}, {10, 20, 11, 53}} {
				win, err := LoadHeightWindow(f.path, f.opt, r)
				if err != nil {
					t.Fatal(err)
				}
				if win.Rect() != r {
					t.Fatalf("window %v holds %v", r, win.Rect())
				}
				want := &Window{Grid: whole}
				crop, _ := want.Crop(r)
				for k, v := range win.Data {
					if math.Float32bits(v) != math.Float32bits(crop.Data[k]) {
						t.Fatalf("%v texel %d: %v, whole import %v", r, k, v, crop.Data[k])
					}
				}
			}
			if _, err := LoadHeightWindow(f.path, f.opt, Rect{60, 40, 71, 50}); err == nil || !strings.Contains(err.Error(), "outside") {
				t.Errorf("a window past the grid: %v", err)
			}
			ch, err := LoadChannelWindow(f.path, 70, 53, Rect{5, 5, 9, 9})
			if err != nil {
				t.Fatal(err)
			}
			if ch.W != 4 || ch.H != 4 {
				t.Errorf("channel window %dx%d", ch.W, ch.H)
			}
			if _, err := LoadChannelWindow(f.path, 71, 53, Rect{5, 5, 9, 9}); err == nil {
				t.Error("a channel of another grid than the height's was read")
			}
		})
	}
}

// A raw source larger than one container may be (MaxSide) is read in windows without reading the
// rest; a NaN in the window is named by its texel in the whole grid.
func TestLoadHeightWindowLargeRaw(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.f32")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	const w, h = 70000, 4 // wider than MaxSide; sparse on disk
	if err := f.Truncate(int64(w) * h * 4); err != nil {
		t.Fatal(err)
	}
	var nan [4]byte
	bits := math.Float32bits(float32(math.NaN()))
	nan[0], nan[1], nan[2], nan[3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
	if _, err := f.WriteAt(nan[:], (2*w+69000)*4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	opt := ImportOptions{Size: [2]int{w, h}}
	if _, err := LoadHeight(p, opt); err == nil {
		t.Error("LoadHeight read a 70000-wide grid")
	}
	win, err := LoadHeightWindow(p, opt, Rect{68000, 0, 68100, 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(win.Data) != 400 {
		t.Fatalf("%d values", len(win.Data))
	}
	_, err = LoadHeightWindow(p, opt, Rect{68990, 1, 69010, 3})
	if err == nil || !strings.Contains(err.Error(), "(69000, 2)") {
		t.Errorf("NaN in the window: %v", err)
	}
}

// Window reads refuse what LoadHeight refuses: a FIFO, a file whose length is not the grid.
func TestLoadHeightWindowRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "h.f32")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHeightWindow(fifo, ImportOptions{Size: [2]int{4, 4}}, Rect{0, 0, 2, 2}); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("FIFO: %v", err)
	}
	short := filepath.Join(dir, "s.f32")
	os.WriteFile(short, make([]byte, 60), 0o644)
	if _, err := LoadHeightWindow(short, ImportOptions{Size: [2]int{4, 4}}, Rect{0, 0, 2, 2}); err == nil || !strings.Contains(err.Error(), "does not hold") {
		t.Errorf("short raw: %v", err)
	}
	if _, _, err := ProbeHeight(short, ImportOptions{}); err == nil {
		t.Error("a raw file of 15 floats probed as square")
	}
}

// A raw file whose length does not fit its size is refused by the whole import and by a window
// read in the same words (one layout rule, rawLayout, for both).
func TestRawLayoutErrorsAgree(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		bytes int
		size  [2]int
		want  string
	}{
		{"h.raw", 40, [2]int{4, 4}, "is neither 4×4 16-bit (32 bytes) nor float32 (64 bytes)"},
		{"h.raw", 32, [2]int{}, "the size must be given"},
		{"h.r16", 30, [2]int{}, "not a square grid"},
		{"h.f32", 60, [2]int{4, 4}, "does not hold 4×4 samples"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, make([]byte, tc.bytes), 0o644); err != nil {
			t.Fatal(err)
		}
		opts := ImportOptions{Size: tc.size}
		_, whole := LoadHeight(p, opts)
		_, win := LoadHeightWindow(p, opts, Rect{0, 0, 1, 1})
		_, _, probe := ProbeHeight(p, opts)
		if whole == nil || win == nil || probe == nil || !strings.Contains(whole.Error(), tc.want) ||
			win.Error() != whole.Error() || probe.Error() != whole.Error() {
			t.Errorf("%s of %d bytes, size %v:\n whole  %v\n window %v\n probe  %v", tc.name, tc.bytes, tc.size, whole, win, probe)
		}
	}
}

// WindowSampler over a window equals RegionSampler over the whole grid wherever the window
// holds the block, and RegionTiles' buffers lie inside ApronRect.
func TestWindowSamplerEqualsRegion(t *testing.T) {
	f := SampleDunesSized(64)
	geo, err := f.Geometry(0)
	if err != nil {
		t.Fatal(err)
	}
	r := Rect{20, 10, 45, 33}
	ap := geo.ApronRect(r, 3)
	whole := &Window{Grid: f.Height}
	g, _ := whole.Crop(ap)
	win := &Window{Grid: g, I0: ap.I0, J0: ap.J0}
	for _, tl := range RegionTiles(&geo, r, 8, 3) {
		buf := Rect{tl.BufI0, tl.BufJ0, tl.BufI0 + tl.BufW, tl.BufJ0 + tl.BufH}
		if !ap.Contains(buf) {
			t.Fatalf("tile %d buffer %v outside the apron %v", tl.Index, buf, ap)
		}
		a := geo.RegionSampler(f.Height, tl.BufI0, tl.BufJ0, tl.BufW, tl.BufH)
		b := geo.WindowSampler(win, tl.BufI0, tl.BufJ0, tl.BufW, tl.BufH)
		for j := tl.J0; j < tl.J0+tl.H; j++ {
			for i := tl.I0; i < tl.I0+tl.W; i++ {
				px, pz := geo.WeightPos(i, j)
				if a.Slope(px, pz, 3) != b.Slope(px, pz, 3) || a.Curvature(px, pz, 3) != b.Curvature(px, pz, 3) {
					t.Fatalf("texel (%d,%d): window and whole grid disagree", i, j)
				}
			}
		}
	}
}
