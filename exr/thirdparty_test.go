package exr

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// These tests read our files with the reference OpenEXR tools and ImageMagick (both are set-up
// dependencies, SPEC "Dependencies"), so "valid OpenEXR" is checked by someone else's reader.

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not installed (scripts/setup.sh installs openexr and imagemagick): %v", name, err)
	}
	return p
}

func writeFile(t *testing.T, img *Image, c Compression) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.exr")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Encode(f, img, c); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExrheaderReadsOurFiles(t *testing.T) {
	tests := []struct {
		comp     Compression
		channels []string
		want     []string
	}{
		{ZIP, []string{"R", "G", "B", "A"}, []string{
			"file format version: 2, flags 0x0",
			"    A, 32-bit floating-point, sampling 1 1\n    B, 32-bit floating-point, sampling 1 1\n    G, 32-bit floating-point, sampling 1 1\n    R, 32-bit floating-point, sampling 1 1",
			"compression (type compression): zip, multi-scanline blocks",
			"dataWindow (type box2i): (0 0) - (12 33)",
			"lineOrder (type lineOrder): increasing y",
		}},
		{None, []string{"R"}, []string{
			"    R, 32-bit floating-point, sampling 1 1",
			"compression (type compression): none",
		}},
	}
	for _, tc := range tests {
		p := writeFile(t, testImage(13, 34, tc.channels), tc.comp)
		out, err := exec.Command(tool(t, "exrheader"), p).CombinedOutput()
		if err != nil {
			t.Fatalf("exrheader: %v\n%s", err, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%v: exrheader output lacks %q:\n%s", tc.comp, w, out)
			}
		}
	}
}

// TestExrmaketiledAcceptsOurFiles has the OpenEXR library read every pixel of our file (it
// re-tiles it), and checks that we refuse its tiled output with ErrUnsupported.
func TestExrmaketiledAcceptsOurFiles(t *testing.T) {
	for _, comp := range []Compression{None, ZIP} {
		p := writeFile(t, testImage(40, 37, []string{"R", "G", "B", "A"}), comp)
		tiled := p + ".tiled.exr"
		if out, err := exec.Command(tool(t, "exrmaketiled"), p, tiled).CombinedOutput(); err != nil {
			t.Fatalf("exrmaketiled rejects our %v file: %v\n%s", comp, err, out)
		}
		f, err := os.Open(tiled)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Decode(f)
		f.Close()
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "tiled") {
			t.Errorf("decoding a tiled file: err = %v, want ErrUnsupported naming tiles", err)
		}
	}
}

// imagemagickPixels returns the 16-bit quantum values ImageMagick reads for each texel
// ("x,y: (r,g,b,a)" lines of `convert F txt:-`).
func imagemagickPixels(t *testing.T, p string) map[[2]int][]float64 {
	t.Helper()
	out, err := exec.Command(tool(t, "convert"), p, "-depth", "16", "txt:-").Output()
	if err != nil {
		t.Fatalf("convert %s txt:- : %v", p, err)
	}
	px := map[[2]int][]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var x, y int
		colon := strings.Index(line, ":")
		if colon < 0 {
			continue
		}
		if _, err := fmt.Sscanf(line[:colon], "%d,%d", &x, &y); err != nil {
			t.Fatalf("unparsed line %q", line)
		}
		open, closing := strings.Index(line, "("), strings.Index(line, ")")
		var vals []float64
		for _, f := range strings.Split(line[open+1:closing], ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				t.Fatalf("unparsed value in %q", line)
			}
			vals = append(vals, v)
		}
		px[[2]int{x, y}] = vals
	}
	return px
}

func TestImageMagickReadsOurValues(t *testing.T) {
	w, h := 9, 21
	img := &Image{Width: w, Height: h, Channels: []string{"R", "G", "B", "A"}, Data: make([][]float32, 4)}
	for c := range img.Data {
		img.Data[c] = make([]float32, w*h)
		for i := range img.Data[c] {
			img.Data[c][i] = float32((i*(c+3)+c*17)%97) / 96 // in [0,1]: ImageMagick Q16 clamps
		}
	}
	for _, comp := range []Compression{None, ZIP} {
		px := imagemagickPixels(t, writeFile(t, img, comp))
		if len(px) != w*h {
			t.Fatalf("ImageMagick read %d texels, want %d", len(px), w*h)
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				got := px[[2]int{x, y}]
				for c := 0; c < 4; c++ {
					// ImageMagick reads through OpenEXR's half-float RGBA interface: allow
					// half precision (2⁻¹¹ relative) plus one 16-bit step.
					want := float64(img.Data[c][y*w+x]) * 65535
					tol := want/1024 + 1.01
					if d := got[c] - want; d > tol || d < -tol {
						t.Fatalf("%v texel (%d,%d) channel %d: ImageMagick %v, want %v", comp, x, y, c, got[c], want)
					}
				}
			}
		}
	}
}

// TestDecodeImageMagickFiles decodes HALF files that ImageMagick writes (none, ZIP, ZIPS) and
// compares with what ImageMagick itself reads back, and refuses its PIZ file as unsupported.
func TestDecodeImageMagickFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		compress    string
		unsupported bool
	}{{"None", false}, {"Zip", false}, {"ZipS", false}, {"Piz", true}} {
		p := filepath.Join(dir, tc.compress+".exr")
		if out, err := exec.Command(tool(t, "convert"), "-size", "7x19", "gradient:red-blue", "-compress", tc.compress, p).CombinedOutput(); err != nil {
			t.Fatalf("convert: %v\n%s", err, out)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := Decode(f)
		f.Close()
		if tc.unsupported {
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: err = %v, want ErrUnsupported", tc.compress, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.compress, err)
		}
		px := imagemagickPixels(t, p)
		for y := 0; y < img.Height; y++ {
			for x := 0; x < img.Width; x++ {
				for c := 0; c < 3; c++ {
					want := px[[2]int{x, y}][c] / 65535
					if d := float64(img.Data[c][y*img.Width+x]) - want; d > 2e-3 || d < -2e-3 {
						t.Fatalf("%s texel (%d,%d) channel %s = %v, ImageMagick %v", tc.compress, x, y, img.Channels[c], img.Data[c][y*img.Width+x], want)
					}
				}
			}
		}
	}
}
