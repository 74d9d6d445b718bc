package terraindata

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/exr"
)

// tgaFile encodes img as TGA: kind 2/3 plain or 10/11 run-length (every pixel its own raw packet
// or, for a run of equal pixels, one repeat packet), bottom-up unless topDown.
func tgaFile(img *image.NRGBA, kind byte, bpp int, topDown bool) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	hdr := make([]byte, 18)
	hdr[2] = kind
	binary.LittleEndian.PutUint16(hdr[12:], uint16(w))
	binary.LittleEndian.PutUint16(hdr[14:], uint16(h))
	hdr[16] = byte(bpp)
	if topDown {
		hdr[17] = 0x20
	}
	var px [][]byte
	for y := 0; y < h; y++ {
		row := h - 1 - y
		if topDown {
			row = y
		}
		for x := 0; x < w; x++ {
			c := img.NRGBAAt(x, row)
			switch bpp {
			case 8:
				px = append(px, []byte{c.R})
			case 24:
				px = append(px, []byte{c.B, c.G, c.R})
			default:
				px = append(px, []byte{c.B, c.G, c.R, c.A})
			}
		}
	}
	out := bytes.NewBuffer(hdr)
	rle := kind >= 10
	for i := 0; i < len(px); {
		if !rle {
			out.Write(px[i])
			i++
			continue
		}
		j := i + 1
		for j < len(px) && j-i < 128 && bytes.Equal(px[j], px[i]) {
			j++
		}
		if j-i > 1 {
			out.WriteByte(0x80 | byte(j-i-1))
			out.Write(px[i])
			i = j
			continue
		}
		out.WriteByte(0)
		out.Write(px[i])
		i++
	}
	return out.Bytes()
}

func testPicture() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 5, 3))
	for y := 0; y < 3; y++ {
		for x := 0; x < 5; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(40 * x), uint8(80 * y), 200, uint8(255 - 30*x)})
		}
	}
	img.SetNRGBA(1, 1, color.NRGBA{7, 7, 7, 255}) // breaks up the runs
	return img
}

func TestDecodeTGA(t *testing.T) {
	want := testPicture()
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		kind    byte
		bpp     int
		topDown bool
	}{
		{"rgb bottom-up", 2, 24, false},
		{"rgba top-down", 2, 32, true},
		{"rle rgba bottom-up", 10, 32, false},
		{"rle rgb top-down", 10, 24, true},
		{"gray", 3, 8, false},
		{"rle gray", 11, 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "m.tga")
			if err := os.WriteFile(p, tgaFile(want, tc.kind, tc.bpp, tc.topDown), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := DecodeImageFile(p, SRGB)
			if err != nil {
				t.Fatal(err)
			}
			for y := 0; y < 3; y++ {
				for x := 0; x < 5; x++ {
					w := want.NRGBAAt(x, y)
					switch tc.bpp {
					case 8:
						w = color.NRGBA{w.R, w.R, w.R, 255}
					case 24:
						w.A = 255
					}
					if g := got.(*image.NRGBA).NRGBAAt(x, y); g != w {
						t.Fatalf("(%d,%d) = %v, want %v", x, y, g, w)
					}
				}
			}
		})
	}
}

// Broken TGA files are errors, never panics: every truncation and a few header lies.
func TestDecodeTGARejects(t *testing.T) {
	good := tgaFile(testPicture(), 10, 32, false)
	for n := 0; n < len(good); n++ {
		if _, err := decodeTGA(good[:n]); err == nil && n < len(good) {
			t.Errorf("truncated to %d bytes: no error", n)
		}
	}
	for _, mut := range []func(b []byte){
		func(b []byte) { b[1] = 1 },                                   // colour map
		func(b []byte) { b[2] = 1 },                                   // colour-mapped kind
		func(b []byte) { b[16] = 16 },                                 // 16-bit
		func(b []byte) { binary.LittleEndian.PutUint16(b[12:], 0) },   // empty
		func(b []byte) { binary.LittleEndian.PutUint16(b[14:], 900) }, // taller than the data
	} {
		b := append([]byte(nil), good...)
		mut(b)
		if _, err := decodeTGA(b); err == nil {
			t.Errorf("mutated header %v: no error", b[:18])
		}
	}
}

func TestDecodeEXRMap(t *testing.T) {
	img := &exr.Image{Width: 2, Height: 1, Channels: []string{"R", "G", "B"},
		Data: [][]float32{{0, 1}, {0.5, 2}, {0.0031308, -1}}}
	var buf bytes.Buffer
	if err := exr.Encode(&buf, img, exr.None); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "m.exr")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lin, err := DecodeImageFile(p, Linear)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lin.(*image.NRGBA).NRGBAAt(0, 0), (color.NRGBA{0, 128, 1, 255}); got != want {
		t.Errorf("linear (0,0) = %v, want %v", got, want)
	}
	srgb, err := DecodeImageFile(p, SRGB)
	if err != nil {
		t.Fatal(err)
	}
	// 0.5 linear is 188 in sRGB; 0.0031308 is the curve's knee, 0.04045 → 10; above 1 clamps.
	if got, want := srgb.(*image.NRGBA).NRGBAAt(0, 0), (color.NRGBA{0, 188, 10, 255}); got != want {
		t.Errorf("sRGB (0,0) = %v, want %v", got, want)
	}
	if got, want := srgb.(*image.NRGBA).NRGBAAt(1, 0), (color.NRGBA{255, 255, 0, 255}); got != want {
		t.Errorf("sRGB (1,0) = %v, want %v", got, want)
	}
}

// CheckSourceImage reads a TGA's or EXR's header alone, with the checks decoding makes before the
// pixels: the size of a good map, and an error for a short file or a header DecodeImageFile
// refuses.
func TestCheckSourceImageHeaders(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pic := testPicture()
	w, h := pic.Rect.Dx(), pic.Rect.Dy()
	for _, kind := range []byte{2, 10} {
		good := tgaFile(pic, kind, 32, false)
		cfg, format, err := CheckSourceImage(write("good.tga", good))
		if err != nil || cfg.Width != w || cfg.Height != h || format != "tga" {
			t.Errorf("type %d TGA: %+v %q %v", kind, cfg, format, err)
		}
		for _, n := range []int{0, 17} {
			if _, _, err := CheckSourceImage(write("short.tga", good[:n])); err == nil || !strings.Contains(err.Error(), "tga: truncated header") {
				t.Errorf("type %d TGA of %d bytes: %v", kind, n, err)
			}
		}
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint16(b[14:], 3000) // taller than the data, even at RLE's densest
		if _, _, err := CheckSourceImage(write("tall.tga", b)); err == nil || !strings.Contains(err.Error(), "tga: truncated") {
			t.Errorf("type %d TGA taller than its data: %v", kind, err)
		}
		b[14], b[16] = good[14], 16
		if _, _, err := CheckSourceImage(write("16.tga", b)); err == nil || !strings.Contains(err.Error(), "16 bits per pixel") {
			t.Errorf("16-bit TGA: %v", err)
		}
	}
	if _, _, err := CheckSourceImage(write("cut.tga", tgaFile(pic, 2, 24, false)[:18+3*w*h-1])); err == nil || !strings.Contains(err.Error(), "tga: truncated pixel data") {
		t.Errorf("TGA one byte short: %v", err)
	}
	for _, tc := range []struct {
		channels []string
		want     string
	}{{[]string{"R", "G", "B"}, ""}, {[]string{"Y"}, ""}, {[]string{"R", "G"}, "want R, G, B or Y"}} {
		img := &exr.Image{Width: 3, Height: 2, Channels: tc.channels}
		for range tc.channels {
			img.Data = append(img.Data, make([]float32, 6))
		}
		var buf bytes.Buffer
		if err := exr.Encode(&buf, img, exr.None); err != nil {
			t.Fatal(err)
		}
		cfg, format, err := CheckSourceImage(write("m.exr", buf.Bytes()))
		if tc.want == "" && (err != nil || cfg.Width != 3 || cfg.Height != 2 || format != "exr") {
			t.Errorf("EXR %v: %+v %q %v", tc.channels, cfg, format, err)
		}
		if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("EXR %v: %v, want %q", tc.channels, err, tc.want)
		}
	}
}
