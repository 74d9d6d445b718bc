package field

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	"strata/exr"
)

// topobathy is the real 120×91 float32 DEM the repository keeps (testdata/maps/README.md says where
// it is from).
const topobathy = "../testdata/maps/topobathy_120x91_f32le.raw"

// codeGrid is a w×h grid of 16-bit codes (row j, column i distinct) mapped onto rng, the values an
// integer format can hold exactly.
func codeGrid(w, h int, rng [2]float64, maxCode float64) *Grid {
	g := NewGrid(w, h)
	for k := range g.Data {
		c := float64((k*7919 + k/w*13) % int(maxCode+1))
		g.Data[k] = float32(rng[0] + c*(rng[1]-rng[0])/maxCode)
	}
	return g
}

// floatGrid is a w×h grid of arbitrary floats, negative ones included.
func floatGrid(w, h int) *Grid {
	g := NewGrid(w, h)
	r := rand.New(rand.NewPCG(5, 6))
	for k := range g.Data {
		g.Data[k] = float32(r.NormFloat64() * 1000)
	}
	return g
}

func writeFile(t *testing.T, name string, enc func(io.Writer) error) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var b bytes.Buffer
	if err := enc(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func encodeGray8(g *Grid, rng [2]float64) func(io.Writer) error {
	return func(w io.Writer) error {
		img := image.NewGray(image.Rect(0, 0, g.W, g.H))
		for k, v := range g.Data {
			img.Pix[k] = uint8(quantize(v, rng, 255))
		}
		return png.Encode(w, img)
	}
}

func encodeEXR(g *Grid, channels ...string) func(io.Writer) error {
	return func(w io.Writer) error {
		img := &exr.Image{Width: g.W, Height: g.H, Channels: channels}
		for range channels {
			img.Data = append(img.Data, g.Data)
		}
		return exr.Encode(w, img, exr.ZIP)
	}
}

func sameGrid(t *testing.T, desc string, got, want *Grid, tol float64) {
	t.Helper()
	if got.W != want.W || got.H != want.H || len(got.Data) != len(want.Data) {
		t.Fatalf("%s: got %d×%d, want %d×%d", desc, got.W, got.H, want.W, want.H)
	}
	for k := range want.Data {
		if d := math.Abs(float64(got.Data[k] - want.Data[k])); d > tol {
			t.Fatalf("%s: texel (%d, %d) = %v, want %v", desc, k%want.W, k/want.W, got.Data[k], want.Data[k])
		}
	}
}

func TestLoadHeightRoundTrip(t *testing.T) {
	rng := [2]float64{-120, 880}
	i16 := codeGrid(37, 23, rng, 65535)
	i8 := codeGrid(37, 23, rng, 255)
	sq := codeGrid(32, 32, rng, 65535)
	fl := floatGrid(29, 17)
	flsq := floatGrid(16, 16)
	tests := []struct {
		desc string
		name string
		enc  func(io.Writer) error
		opts ImportOptions
		want *Grid
	}{
		{"16-bit PNG", "h.png", func(w io.Writer) error { return EncodePNG16(w, i16, rng) }, ImportOptions{Range: rng}, i16},
		{"8-bit PNG", "h.png", encodeGray8(i8, rng), ImportOptions{Range: rng}, i8},
		{"16-bit PNG, default range", "h.png", func(w io.Writer) error { return EncodePNG16(w, codeGrid(32, 32, DefaultRange, 65535), DefaultRange) }, ImportOptions{}, codeGrid(32, 32, DefaultRange, 65535)},
		{"r16 square, size from the file", "h.r16", func(w io.Writer) error { return EncodeR16(w, sq, rng) }, ImportOptions{Range: rng}, sq},
		{"r16 non-square with size", "h.r16", func(w io.Writer) error { return EncodeR16(w, i16, rng) }, ImportOptions{Range: rng, Size: [2]int{37, 23}}, i16},
		{"raw 16-bit with size", "h.raw", func(w io.Writer) error { return EncodeR16(w, i16, rng) }, ImportOptions{Range: rng, Size: [2]int{37, 23}}, i16},
		{"f32 with size", "h.f32", func(w io.Writer) error { return EncodeF32(w, fl) }, ImportOptions{Size: [2]int{29, 17}}, fl},
		{"f32 square", "h.f32", func(w io.Writer) error { return EncodeF32(w, flsq) }, ImportOptions{}, flsq},
		{"raw float32 with size", "h.raw", func(w io.Writer) error { return EncodeF32(w, fl) }, ImportOptions{Size: [2]int{29, 17}}, fl},
		{"16-bit TIFF", "h.tif", func(w io.Writer) error { return EncodeTIFF16(w, i16, rng) }, ImportOptions{Range: rng}, i16},
		{"8-bit TIFF", "h.tiff", func(w io.Writer) error {
			img := image.NewGray(image.Rect(0, 0, i8.W, i8.H))
			for k, v := range i8.Data {
				img.Pix[k] = uint8(quantize(v, rng, 255))
			}
			return tiff.Encode(w, img, nil)
		}, ImportOptions{Range: rng}, i8},
		{"float TIFF keeps values, ignores range", "h.tif", func(w io.Writer) error { return EncodeTIFFFloat(w, fl) }, ImportOptions{Range: rng}, fl},
		{"EXR Y", "h.exr", encodeEXR(fl, "Y"), ImportOptions{}, fl},
		{"EXR RGB reads R", "h.exr", encodeEXR(fl, "R", "G", "B"), ImportOptions{}, fl},
		{"EXR single odd channel", "h.exr", encodeEXR(fl, "height"), ImportOptions{}, fl},
		{"PNG under another extension is sniffed", "h.img", func(w io.Writer) error { return EncodePNG16(w, i16, rng) }, ImportOptions{Range: rng}, i16},
	}
	for _, tc := range tests {
		path := writeFile(t, tc.name, tc.enc)
		got, err := LoadHeight(path, tc.opts)
		if err != nil {
			t.Errorf("%s: %v", tc.desc, err)
			continue
		}
		sameGrid(t, tc.desc, got, tc.want, 1e-3)
	}
}

// TestOrientation: image row 0 is the minimum Z row of the grid, image x is +X; nothing flips.
func TestOrientation(t *testing.T) {
	img := image.NewGray16(image.Rect(0, 0, 3, 2))
	img.SetGray16(0, 0, color.Gray16{Y: 65535}) // first pixel of the first row
	img.SetGray16(2, 1, color.Gray16{Y: 32768}) // last pixel of the last row
	path := writeFile(t, "o.png", func(w io.Writer) error { return png.Encode(w, img) })
	g, err := LoadHeight(path, ImportOptions{Range: [2]float64{0, 100}})
	if err != nil {
		t.Fatal(err)
	}
	if g.At(0, 0) != 100 || g.At(2, 1) < 50 || g.At(2, 1) > 50.01 || g.At(1, 0) != 0 {
		t.Errorf("grid %v: want 100 at (0,0) (min X, min Z) and ≈50 at (2,1)", g.Data)
	}
}

func TestTopobathy(t *testing.T) {
	raw, err := os.ReadFile(topobathy)
	if err != nil {
		t.Fatal(err)
	}
	g, err := LoadHeight(topobathy, ImportOptions{Size: [2]int{120, 91}})
	if err != nil {
		t.Fatal(err)
	}
	if g.W != 120 || g.H != 91 {
		t.Fatalf("size %d×%d, want 120×91", g.W, g.H)
	}
	lo, hi := g.MinMax()
	if lo > -1400 || lo < -1500 || hi < 2200 || hi > 2300 {
		t.Errorf("range %v..%v, want about -1437..2205", lo, hi)
	}
	// file order is grid order: texel k is the k-th float of the file
	for _, k := range []int{0, 119, 120, 5000, 120*91 - 1} {
		if want := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:])); g.Data[k] != want {
			t.Errorf("texel %d = %v, file holds %v", k, g.Data[k], want)
		}
	}
	for _, tc := range []struct {
		name string
		enc  func(io.Writer) error
		opts ImportOptions
		tol  float64
	}{
		{"t.f32", func(w io.Writer) error { return EncodeF32(w, g) }, ImportOptions{Size: [2]int{120, 91}}, 0},
		{"t.tif", func(w io.Writer) error { return EncodeTIFFFloat(w, g) }, ImportOptions{}, 0},
		{"t.exr", encodeEXR(g, "Y"), ImportOptions{}, 0},
		{"t.png", func(w io.Writer) error { return EncodePNG16(w, g, [2]float64{-1500, 2300}) }, ImportOptions{Range: [2]float64{-1500, 2300}}, 3800.0 / 65535},
		{"t.r16", func(w io.Writer) error { return EncodeR16(w, g, [2]float64{-1500, 2300}) }, ImportOptions{Range: [2]float64{-1500, 2300}, Size: [2]int{120, 91}}, 3800.0 / 65535},
	} {
		path := writeFile(t, tc.name, tc.enc)
		got, err := LoadHeight(path, tc.opts)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		sameGrid(t, "topobathy via "+tc.name, got, g, tc.tol)
	}
	f, err := New(Placement{Size: [2]float64{120 * 2400, 91 * 3700}}, g)
	if err != nil {
		t.Fatal(err)
	}
	if ts := f.TexelSize(); ts != [2]float64{2400, 3700} {
		t.Errorf("TexelSize = %v", ts)
	}
}

func TestLoadChannel(t *testing.T) {
	mask := codeGrid(20, 10, [2]float64{0, 1}, 255)
	mask16 := codeGrid(20, 10, [2]float64{0, 1}, 65535)
	depth := floatGrid(20, 10)
	tests := []struct {
		desc string
		name string
		enc  func(io.Writer) error
		want *Grid
	}{
		{"8-bit PNG → 0..1", "m.png", encodeGray8(mask, [2]float64{0, 1}), mask},
		{"16-bit PNG → 0..1", "m.png", func(w io.Writer) error { return EncodePNG16(w, mask16, [2]float64{0, 1}) }, mask16},
		{"f32 at the height's size keeps values", "d.f32", func(w io.Writer) error { return EncodeF32(w, depth) }, depth},
		{"EXR keeps values", "d.exr", encodeEXR(depth, "Y"), depth},
		{"float TIFF keeps values", "d.tif", func(w io.Writer) error { return EncodeTIFFFloat(w, depth) }, depth},
	}
	for _, tc := range tests {
		path := writeFile(t, tc.name, tc.enc)
		got, err := LoadChannel(path, 20, 10)
		if err != nil {
			t.Errorf("%s: %v", tc.desc, err)
			continue
		}
		sameGrid(t, tc.desc, got, tc.want, 1e-6)
	}
	path := writeFile(t, "small.png", encodeGray8(mask, [2]float64{0, 1}))
	if _, err := LoadChannel(path, 40, 20); err == nil || !strings.Contains(err.Error(), "must match the height") || !strings.Contains(err.Error(), path) {
		t.Errorf("mismatched channel: err = %v", err)
	}
}

// TestLoadRejects: malformed input gives an error that starts with "field: <path>:" and says why;
// nothing panics.
func TestLoadRejects(t *testing.T) {
	good := codeGrid(16, 16, [2]float64{0, 1}, 65535)
	var png16 bytes.Buffer
	if err := EncodePNG16(&png16, good, [2]float64{0, 1}); err != nil {
		t.Fatal(err)
	}
	var ftiff bytes.Buffer
	if err := EncodeTIFFFloat(&ftiff, good); err != nil {
		t.Fatal(err)
	}
	rgb := func(w io.Writer) error {
		img := image.NewRGBA64(image.Rect(0, 0, 4, 4))
		for k := 6; k < len(img.Pix); k += 8 {
			img.Pix[k], img.Pix[k+1] = 0xff, 0xff // opaque: the encoder writes 16-bit RGB
		}
		return png.Encode(w, img)
	}
	pal := func(w io.Writer) error {
		return png.Encode(w, image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White}))
	}
	bytesOf := func(b []byte) func(io.Writer) error {
		return func(w io.Writer) error { _, err := w.Write(b); return err }
	}
	nanF32 := make([]byte, 16)
	binary.LittleEndian.PutUint32(nanF32[8:], math.Float32bits(float32(math.NaN())))
	hugePNG := append([]byte(nil), png16.Bytes()...)
	binary.BigEndian.PutUint32(hugePNG[16:], 100000)
	binary.BigEndian.PutUint32(hugePNG[20:], 100000)
	bigPNG := append([]byte(nil), png16.Bytes()...)
	binary.BigEndian.PutUint32(bigPNG[16:], 16000)
	binary.BigEndian.PutUint32(bigPNG[20:], 16000)
	bigTIFF := append([]byte(nil), ftiff.Bytes()...)
	binary.LittleEndian.PutUint32(bigTIFF[4:], 1<<30)
	hugeTIFF := append([]byte(nil), ftiff.Bytes()...)
	binary.LittleEndian.PutUint32(hugeTIFF[10+8:], 60000) // width
	compTIFF := append([]byte(nil), ftiff.Bytes()...)
	binary.LittleEndian.PutUint16(compTIFF[10+3*12+8:], 5) // compression LZW
	rgbTIFF := func(w io.Writer) error { return tiff.Encode(w, image.NewRGBA(image.Rect(0, 0, 4, 4)), nil) }
	tests := []struct {
		desc string
		name string
		enc  func(io.Writer) error
		opts ImportOptions
		want string
	}{
		{"truncated PNG", "t.png", bytesOf(png16.Bytes()[:png16.Len()/2]), ImportOptions{}, "decoding PNG"},
		{"colour PNG", "dunes.png", rgb, ImportOptions{}, "16-bit RGB image: a heightmap must be grayscale"},
		{"paletted PNG", "p.png", pal, ImportOptions{}, "paletted image"},
		{"PNG header claims 100000²", "huge.png", bytesOf(hugePNG), ImportOptions{}, "larger than"},
		{"PNG header claims more than the file holds", "big.png", bytesOf(bigPNG), ImportOptions{}, "more than the"},
		{"not a PNG", "x.png", bytesOf([]byte("hello, world, this is not a png file at all")), ImportOptions{}, "not a PNG"},
		{"raw of the wrong size", "h.r16", bytesOf(make([]byte, 2*15)), ImportOptions{}, "not a square grid"},
		{"raw of the wrong given size", "h.r16", bytesOf(make([]byte, 2*16)), ImportOptions{Size: [2]int{5, 5}}, "does not hold 5×5"},
		{"odd-length r16", "h.r16", bytesOf(make([]byte, 33)), ImportOptions{}, "not a square grid"},
		{".raw without size", "h.raw", bytesOf(make([]byte, 32)), ImportOptions{}, "size must be given"},
		{".raw of neither size", "h.raw", bytesOf(make([]byte, 30)), ImportOptions{Size: [2]int{2, 2}}, "neither"},
		{"NaN in f32", "n.f32", bytesOf(nanF32), ImportOptions{Size: [2]int{2, 2}}, "texel (0, 1)"},
		{"empty f32", "e.f32", bytesOf(nil), ImportOptions{}, "not a square grid"},
		{"negative size", "h.f32", bytesOf(make([]byte, 16)), ImportOptions{Size: [2]int{-2, -2}}, "empty"},
		{"truncated float TIFF", "t.tif", bytesOf(ftiff.Bytes()[:ftiff.Len()-10]), ImportOptions{}, "runs past the end"},
		{"TIFF directory outside the file", "t.tif", bytesOf(bigTIFF), ImportOptions{}, "outside"},
		{"TIFF width beyond its data", "t.tif", bytesOf(hugeTIFF), ImportOptions{}, "more than the"},
		{"compressed float TIFF", "t.tif", bytesOf(compTIFF), ImportOptions{}, "save it uncompressed"},
		{"RGB TIFF", "c.tif", rgbTIFF, ImportOptions{}, "RGBA TIFF: a heightmap must be grayscale"},
		{"garbage EXR", "g.exr", bytesOf([]byte{0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0, 1, 2, 3}), ImportOptions{}, "decoding EXR"},
		{"EXR without a height channel", "c.exr", encodeEXR(good, "U", "V"), ImportOptions{}, "want Y, R, G"},
		{"unknown extension", "h.bmp", bytesOf([]byte("BM not a heightmap")), ImportOptions{}, "unknown format"},
		{"inverted range", "h.png", bytesOf(png16.Bytes()), ImportOptions{Range: [2]float64{10, -10}}, "height range"},
		{"NaN range", "h.png", bytesOf(png16.Bytes()), ImportOptions{Range: [2]float64{math.NaN(), 1}}, "height range"},
	}
	for _, tc := range tests {
		path := writeFile(t, tc.name, tc.enc)
		_, err := LoadHeight(path, tc.opts)
		if err == nil {
			t.Errorf("%s: no error", tc.desc)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "field: "+path+": ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want prefix %q and %q", tc.desc, msg, "field: "+path+": ", tc.want)
		}
	}
	if _, err := LoadHeight(filepath.Join(t.TempDir(), "missing.png"), ImportOptions{}); err == nil || !strings.Contains(err.Error(), "missing.png") {
		t.Errorf("missing file: err = %v", err)
	}
	if _, err := LoadHeight(t.TempDir(), ImportOptions{}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: err = %v", err)
	}
}

// TestLoadMutations flips bytes of valid files of every format: the loader may reject them or
// read them, but must never panic.
func TestLoadMutations(t *testing.T) {
	g := floatGrid(12, 9)
	rng := [2]float64{-3000, 3000}
	seeds := map[string]func(io.Writer) error{
		"m.png": func(w io.Writer) error { return EncodePNG16(w, g, rng) },
		"m.tif": func(w io.Writer) error { return EncodeTIFF16(w, g, rng) },
		"f.tif": func(w io.Writer) error { return EncodeTIFFFloat(w, g) },
		"m.exr": encodeEXR(g, "Y"),
	}
	r := rand.New(rand.NewPCG(9, 9))
	dir := t.TempDir()
	for name, enc := range seeds {
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 300; k++ {
			m := append([]byte(nil), b.Bytes()...)
			for n := 1 + r.IntN(4); n > 0; n-- {
				m[r.IntN(len(m))] = byte(r.Uint32())
			}
			if r.IntN(4) == 0 {
				m = m[:r.IntN(len(m))]
			}
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, m, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _ = LoadHeight(path, ImportOptions{Range: rng})
			_, _ = LoadChannel(path, 12, 9)
		}
	}
}
