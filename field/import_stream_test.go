package field

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/image/tiff"

	"strata/exr"
)

// The streaming import is held to the import it replaced, the obviously correct one: the whole
// file decoded (image/png, x/image/tiff, exr.Reader.Next, the raw file read whole) into a raster
// of codes or floats, then mapped (oldImport). Same bits for every file both accept, a refusal
// for every file either refuses, and the range it returns is Grid.MinMax's.

// oldImport is the whole-file path: decodeBytes (or, for raw files, readRaw's decode) and
// raster.grid, with LoadChannel's size check.
func oldImport(path string, b []byte, ext string, spec loadSpec) (*Grid, error) {
	var rs *raster
	var err error
	if isRaw(ext) { // readRaw's decode, from memory
		w, h, bps, err := rawLayout(ext, int64(len(b)), spec.size, CheckSize)
		if err != nil {
			return nil, err
		}
		rs = &raster{w: w, h: h, kind: rawKind(bps), maxCode: 65535}
		for k := range w * h {
			if bps == 2 {
				rs.codes = append(rs.codes, binary.LittleEndian.Uint16(b[2*k:]))
			} else {
				rs.floats = append(rs.floats, math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
			}
		}
	} else if rs, err = decodeBytes(b, ext, spec.role); err != nil {
		return nil, err
	}
	if spec.must != [2]int{} && (rs.w != spec.must[0] || rs.h != spec.must[1]) {
		return nil, errors.New("size mismatch")
	}
	return rs.grid(path, spec.lo, spec.hi)
}

// sameImport imports b (a file named path, read as ext) both ways and reports any difference.
// skip, when it returns true for the new path's error, excuses a refusal the new path makes on
// purpose.
func sameImport(path string, b []byte, ext string, spec loadSpec) error {
	want, werr := oldImport(path, b, ext, spec)
	// A PNG is read both ways: inflated whole (libdeflate) where it can be, and streamed.
	defer func(w bool) { pngWhole = w }(pngWhole)
	for _, whole := range []bool{true, false} {
		pngWhole = whole
		if err := sameAs(path, b, ext, spec, want, werr); err != nil {
			return fmt.Errorf("whole-buffer inflate %v: %w", whole, err)
		}
	}
	return nil
}

// sameAs imports b and compares it with the old path's grid or refusal.
func sameAs(path string, b []byte, ext string, spec loadSpec, want *Grid, werr error) error {
	got, rng, err := importFrom(context.Background(), path, bytes.NewReader(b), int64(len(b)), ext, spec, nil)
	switch {
	case err != nil && strings.Contains(err.Error(), "CCITT"):
		return nil // refused on purpose: x/image/tiff read 1-bit fax data as 8/16-bit samples
	case err != nil && werr != nil:
		return nil
	case err != nil:
		return fmt.Errorf("new path refuses what the old one read: %v", err)
	case werr != nil:
		return fmt.Errorf("new path reads what the old one refused (%v)", werr)
	}
	if err := CheckSize(got.W, got.H); err != nil || len(got.Data) != got.W*got.H {
		return fmt.Errorf("accepted an invalid grid %d×%d (%d samples)", got.W, got.H, len(got.Data))
	}
	if got.W != want.W || got.H != want.H {
		return fmt.Errorf("%d×%d, old path %d×%d", got.W, got.H, want.W, want.H)
	}
	for k := range want.Data {
		if math.Float32bits(got.Data[k]) != math.Float32bits(want.Data[k]) {
			return fmt.Errorf("texel (%d, %d) = %v, old path %v", k%want.W, k/want.W, got.Data[k], want.Data[k])
		}
	}
	if lo, hi := want.MinMax(); math.Float32bits(lo) != math.Float32bits(rng.Min) || math.Float32bits(hi) != math.Float32bits(rng.Max) {
		return fmt.Errorf("range %v, MinMax %v..%v", rng, lo, hi)
	}
	return nil
}

func heightSpec(size [2]int, rng [2]float64) loadSpec {
	return loadSpec{size: size, role: "heightmap", lo: rng[0], hi: rng[1]}
}

// smallPieces cuts files into many bands, batches and blocks for the duration of a test, so
// small files take the paths (several workers, carried rows) big ones take.
func smallPieces(t testing.TB) {
	raw, batch, band := rawBandBytes, pngBatchBytes, tiffBandBytes
	rawBandBytes, pngBatchBytes, tiffBandBytes = 200, 100, 150
	t.Cleanup(func() { rawBandBytes, pngBatchBytes, tiffBandBytes = raw, batch, band })
}

// streamCases are files of every kind the import reads: written by the project's encoders here,
// and by ImageMagick (testdata/import: 1/2/4-bit and interlaced PNG, LZW with predictor,
// PackBits, tiled, big-endian, min-is-white TIFF, big-endian float TIFF, half EXR).
func streamCases(t testing.TB) map[string][]byte {
	rng := [2]float64{-120, 880}
	i16 := codeGrid(37, 23, rng, 65535)
	i8 := codeGrid(37, 23, rng, 255)
	fl := floatGrid(29, 17)
	fl.Data[3] = float32(math.Copysign(0, -1)) // -0 and +0 both: the range takes -0 as MinMax does
	fl.Data[4] = 0
	enc := func(f func(io.Writer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	gray := func(g *Grid, depth int) image.Image {
		if depth == 8 {
			img := image.NewGray(image.Rect(0, 0, g.W, g.H))
			for k, v := range g.Data {
				img.Pix[k] = uint8(quantize(v, rng, 255))
			}
			return img
		}
		img := image.NewGray16(image.Rect(0, 0, g.W, g.H))
		for k, v := range g.Data {
			c := quantize(v, rng, 65535)
			img.Pix[2*k], img.Pix[2*k+1] = byte(c>>8), byte(c)
		}
		return img
	}
	cases := map[string][]byte{
		"h16.png":       enc(func(w io.Writer) error { return EncodePNG16(w, i16, rng) }),
		"h8.png":        enc(encodeGray8(i8, rng)),
		"h.r16":         enc(func(w io.Writer) error { return EncodeR16(w, i16, rng) }),
		"h16.raw":       enc(func(w io.Writer) error { return EncodeR16(w, i16, rng) }),
		"h.f32":         enc(func(w io.Writer) error { return EncodeF32(w, fl) }),
		"h32.raw":       enc(func(w io.Writer) error { return EncodeF32(w, fl) }),
		"deflate16.tif": enc(func(w io.Writer) error { return EncodeTIFF16(w, i16, rng) }),
		"none16.tif":    enc(func(w io.Writer) error { return tiff.Encode(w, gray(i16, 16), nil) }),
		"none8.tif":     enc(func(w io.Writer) error { return tiff.Encode(w, gray(i8, 8), nil) }),
		"deflatepred.tif": enc(func(w io.Writer) error {
			return tiff.Encode(w, gray(i16, 16), &tiff.Options{Compression: tiff.Deflate, Predictor: true})
		}),
		"float.tif": enc(func(w io.Writer) error { return EncodeTIFFFloat(w, fl) }),
		"y.exr":     enc(encodeEXR(fl, "Y")),
		"rgba.exr":  enc(encodeEXR(fl, "R", "G", "B", "A")),
		"none.exr": enc(func(w io.Writer) error {
			return exr.Encode(w, &exr.Image{Width: fl.W, Height: fl.H, Channels: []string{"Y"}, Data: [][]float32{fl.Data}}, exr.None)
		}),
	}
	files, err := filepath.Glob("testdata/import/*")
	if err != nil || len(files) < 10 {
		t.Fatalf("testdata/import: %d files, %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases[filepath.Base(f)] = b
	}
	return cases
}

// rawSizes are the sizes the headerless cases are read at.
var rawSizes = map[string][2]int{"h.r16": {37, 23}, "h16.raw": {37, 23}, "h.f32": {29, 17}, "h32.raw": {29, 17}}

// TestStreamMatchesOldPath: every kind of file, as a heightmap and as a channel, whole and cut
// into many small pieces, gives the old path's bits and MinMax's range.
func TestStreamMatchesOldPath(t *testing.T) {
	cases := streamCases(t)
	for _, pieces := range []bool{false, true} {
		if pieces {
			smallPieces(t)
		}
		for name, b := range cases {
			ext := filepath.Ext(name)
			size := rawSizes[name]
			for _, spec := range []loadSpec{heightSpec(size, [2]float64{-120, 880}), heightSpec(size, DefaultRange)} {
				if err := sameImport(name, b, ext, spec); err != nil {
					t.Errorf("%s (small pieces %v): %v", name, pieces, err)
				}
			}
			got, _, err := importFrom(context.Background(), name, bytes.NewReader(b), int64(len(b)), ext, heightSpec(size, DefaultRange), nil)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			ch := loadSpec{size: [2]int{got.W, got.H}, role: "channel", lo: 0, hi: 1, must: [2]int{got.W, got.H}}
			if err := sameImport(name, b, ext, ch); err != nil {
				t.Errorf("%s as a channel: %v", name, err)
			}
		}
	}
}

// TestStreamMutations flips bytes and cuts files of every kind: the two paths refuse the same
// files and read the rest to the same bits (FuzzImport* and FuzzDecodePNG search further).
func TestStreamMutations(t *testing.T) {
	smallPieces(t)
	r := rand.New(rand.NewPCG(15, 15))
	for name, b := range streamCases(t) {
		ext := filepath.Ext(name)
		for k := 0; k < 150; k++ {
			m := append([]byte(nil), b...)
			for n := 1 + r.IntN(3); n > 0; n-- {
				m[r.IntN(len(m))] = byte(r.Uint32())
			}
			if r.IntN(4) == 0 {
				m = m[:r.IntN(len(m))]
			}
			if err := sameImport(name, m, ext, heightSpec(rawSizes[name], [2]float64{-1, 1})); err != nil {
				t.Fatalf("%s, mutation %d: %v", name, k, err)
			}
		}
	}
}

// TestLoadContext: progress counts rows from (0, total) to (total, total), one call at a time;
// cancelling stops the load with ctx's error naming the file, for every format.
func TestLoadContext(t *testing.T) {
	smallPieces(t)
	dir := t.TempDir()
	g := floatGrid(300, 200)
	rng := [2]float64{-4000, 4000}
	files := map[string]func(io.Writer) error{
		"p.png": func(w io.Writer) error { return EncodePNG16(w, g, rng) },
		"p.r16": func(w io.Writer) error { return EncodeR16(w, g, rng) },
		"p.f32": func(w io.Writer) error { return EncodeF32(w, g) },
		"p.tif": func(w io.Writer) error { return EncodeTIFF16(w, g, rng) },
		"f.tif": func(w io.Writer) error { return EncodeTIFFFloat(w, g) },
		"p.exr": encodeEXR(g, "Y"),
	}
	opts := ImportOptions{Range: rng, Size: [2]int{300, 200}}
	for name, enc := range files {
		path := filepath.Join(dir, name)
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			var active atomic.Int32
			var calls [][2]int
			_, _, err := LoadHeightContext(context.Background(), path, opts, func(done, total int) {
				if active.Add(1) != 1 {
					t.Error("progress called from two goroutines at once")
				}
				calls = append(calls, [2]int{done, total})
				active.Add(-1)
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) < 3 || calls[0] != [2]int{0, 200} || calls[len(calls)-1] != [2]int{200, 200} {
				t.Errorf("progress calls %v: want (0, 200) first, (200, 200) last, some between", calls)
			}
			for k := 1; k < len(calls); k++ {
				if calls[k][0] <= calls[k-1][0] {
					t.Errorf("progress went %v → %v", calls[k-1], calls[k])
				}
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			got, _, err := LoadHeightContext(ctx, path, opts, func(done, total int) {
				if done > 0 {
					cancel()
				}
			})
			if got != nil || !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "field: "+path+": ") {
				t.Errorf("cancelled mid-load: grid %v, err %v", got != nil, err)
			}
			if _, _, err := LoadHeightContext(ctx, path, opts, nil); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled before: %v", err)
			}
			if _, _, err := LoadChannelContext(ctx, path, 300, 200, nil); !errors.Is(err, context.Canceled) {
				t.Errorf("channel cancelled before: %v", err)
			}
		})
	}
}

// TestFirstNonFinite: with bad texels in several bands decoded at once, the error still names the
// first in row order, as the whole-file check did.
func TestFirstNonFinite(t *testing.T) {
	smallPieces(t)
	g := floatGrid(40, 60)
	g.Data[55*40+3] = float32(math.NaN())
	g.Data[31*40+7] = float32(math.Inf(-1))
	g.Data[48*40+1] = float32(math.Inf(1))
	for name, enc := range map[string]func(io.Writer) error{
		"n.f32": func(w io.Writer) error { return EncodeF32(w, g) },
		"n.tif": func(w io.Writer) error { return EncodeTIFFFloat(w, g) },
		"n.exr": encodeEXR(g, "Y"),
	} {
		path := writeFile(t, name, enc)
		_, _, err := LoadHeightContext(context.Background(), path, ImportOptions{Size: [2]int{40, 60}}, nil)
		if err == nil || !strings.Contains(err.Error(), "texel (7, 31)") || !strings.Contains(err.Error(), "-Inf") {
			t.Errorf("%s: %v, want texel (7, 31) named", name, err)
		}
	}
}

// TestFloatKey: the range found with integer keys is the builtin min and max's, ±0 included.
func TestFloatKey(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, 3.5, -2.25}
	for _, a := range vals {
		if keyFloat(floatKey(math.Float32bits(a))) != a || math.Signbit(float64(keyFloat(floatKey(math.Float32bits(a))))) != math.Signbit(float64(a)) {
			t.Errorf("%v does not round-trip", a)
		}
		for _, b := range vals {
			ka, kb := floatKey(math.Float32bits(a)), floatKey(math.Float32bits(b))
			if m := keyFloat(min(ka, kb)); math.Float32bits(m) != math.Float32bits(min(a, b)) {
				t.Errorf("min(%v, %v): keys give %v", a, b, m)
			}
			if m := keyFloat(max(ka, kb)); math.Float32bits(m) != math.Float32bits(max(a, b)) {
				t.Errorf("max(%v, %v): keys give %v", a, b, m)
			}
		}
	}
}

// encodeTIFF16Strips writes g as a little-endian 16-bit grayscale TIFF in strips of rps rows,
// each deflated with the horizontal predictor: the layout GDAL and libtiff write by default
// (x/image/tiff writes one strip), which the import decodes strip by strip on every core.
func encodeTIFF16Strips(w io.Writer, g *Grid, rng [2]float64, rps int) error {
	nStrips := (g.H + rps - 1) / rps
	var strips [][]byte
	row := make([]byte, 2*g.W)
	for s := range nStrips {
		var b bytes.Buffer
		z := zlib.NewWriter(&b)
		for j := s * rps; j < min(g.H, (s+1)*rps); j++ {
			prev := uint16(0)
			for i := range g.W {
				c := quantize(g.Data[j*g.W+i], rng, 65535)
				binary.LittleEndian.PutUint16(row[2*i:], c-prev)
				prev = c
			}
			if _, err := z.Write(row); err != nil {
				return err
			}
		}
		if err := z.Close(); err != nil {
			return err
		}
		strips = append(strips, b.Bytes())
	}
	type entry struct {
		tag, typ uint16
		count    uint32
		val      uint32
	}
	const nEntries = 10
	offsets := uint32(8 + 2 + nEntries*12 + 4)
	counts := offsets + 4*uint32(nStrips)
	data := counts + 4*uint32(nStrips)
	entries := []entry{
		{tagWidth, 4, 1, uint32(g.W)}, {tagHeight, 4, 1, uint32(g.H)}, {tagBitsPer, 3, 1, 16},
		{tagCompression, 3, 1, 8}, {tagPhotometric, 3, 1, 1}, {tagStripOffsets, 4, uint32(nStrips), offsets},
		{tagSamplesPer, 3, 1, 1}, {tagRowsPerStrip, 4, 1, uint32(rps)}, {tagStripBytes, 4, uint32(nStrips), counts},
		{tagPredictor, 3, 1, 2},
	}
	hdr := make([]byte, data)
	copy(hdr, "II*\x00")
	binary.LittleEndian.PutUint32(hdr[4:], 8)
	binary.LittleEndian.PutUint16(hdr[8:], nEntries)
	for k, e := range entries {
		p := hdr[10+12*k:]
		binary.LittleEndian.PutUint16(p, e.tag)
		binary.LittleEndian.PutUint16(p[2:], e.typ)
		binary.LittleEndian.PutUint32(p[4:], e.count)
		if e.typ == 3 {
			binary.LittleEndian.PutUint16(p[8:], uint16(e.val))
		} else {
			binary.LittleEndian.PutUint32(p[8:], e.val)
		}
	}
	if nStrips == 1 { // one value fits in the entry itself
		binary.LittleEndian.PutUint32(hdr[10+12*5+8:], data)
		binary.LittleEndian.PutUint32(hdr[10+12*8+8:], uint32(len(strips[0])))
	}
	at := data
	for s, st := range strips {
		binary.LittleEndian.PutUint32(hdr[offsets+4*uint32(s):], at)
		binary.LittleEndian.PutUint32(hdr[counts+4*uint32(s):], uint32(len(st)))
		at += uint32(len(st))
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	for _, st := range strips {
		if _, err := w.Write(st); err != nil {
			return err
		}
	}
	return nil
}
