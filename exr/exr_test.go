package exr

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata seeds")

// testImage fills channels with values that exercise sign, exponent and mantissa bytes.
func testImage(w, h int, channels []string) *Image {
	img := &Image{Width: w, Height: h, Channels: channels, Data: make([][]float32, len(channels))}
	for c := range channels {
		d := make([]float32, w*h)
		for i := range d {
			x, y := i%w, i/w
			d[i] = float32(math.Sin(float64(x*7+y*13+c*29)))*float32(c+1)*100 + float32(y)*0.25
		}
		img.Data[c] = d
	}
	return img
}

func equalImages(t *testing.T, got, want *Image) {
	t.Helper()
	if got.Width != want.Width || got.Height != want.Height {
		t.Fatalf("size %dx%d, want %dx%d", got.Width, got.Height, want.Width, want.Height)
	}
	for wc, name := range want.Channels {
		gc := -1
		for i, n := range got.Channels {
			if n == name {
				gc = i
			}
		}
		if gc < 0 {
			t.Fatalf("channel %q missing from %v", name, got.Channels)
		}
		for i, v := range want.Data[wc] {
			if math.Float32bits(got.Data[gc][i]) != math.Float32bits(v) {
				t.Fatalf("channel %s texel %d = %v, want %v", name, i, got.Data[gc][i], v)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		w, h     int
		channels []string
		comp     Compression
	}{
		{"1x1 R none", 1, 1, []string{"R"}, None},
		{"1x1 R zip", 1, 1, []string{"R"}, ZIP},
		{"rgba zip 16 rows", 8, 16, []string{"R", "G", "B", "A"}, ZIP},
		{"rgba zip 17 rows", 5, 17, []string{"R", "G", "B", "A"}, ZIP},
		{"rgba none odd", 37, 23, []string{"R", "G", "B", "A"}, None},
		{"named channels zip", 19, 40, []string{"height", "mask.snow", "Y"}, ZIP},
		{"wide zip", 300, 3, []string{"Y"}, ZIP},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img := testImage(tc.w, tc.h, tc.channels)
			var buf bytes.Buffer // not a seeker: Encode assembles in memory
			if err := Encode(&buf, img, tc.comp); err != nil {
				t.Fatal(err)
			}
			got, err := Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			equalImages(t, got, img)
			// Via a real file (seeker path) the bytes are identical.
			p := filepath.Join(t.TempDir(), "x.exr")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := Encode(f, img, tc.comp); err != nil {
				t.Fatal(err)
			}
			f.Close()
			onDisk, _ := os.ReadFile(p)
			if !bytes.Equal(onDisk, buf.Bytes()) {
				t.Errorf("file and buffer encodings differ")
			}
			// Decode from a plain io.Reader (no Seek).
			got2, err := Decode(strings.NewReader(string(onDisk)))
			if err != nil {
				t.Fatal(err)
			}
			equalImages(t, got2, img)
		})
	}
}

func TestDecodeCanonicalOrder(t *testing.T) {
	img := testImage(3, 2, []string{"A", "B", "G", "R", "Z", "C"})
	var buf bytes.Buffer
	if err := Encode(&buf, img, ZIP); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Channels, ",") != "R,G,B,A,C,Z" {
		t.Errorf("channels %v, want R,G,B,A,C,Z", got.Channels)
	}
}

// TestWriterStreaming writes rows a few at a time, crossing block boundaries, and expects the
// same bytes as a one-shot Encode.
func TestWriterStreaming(t *testing.T) {
	for _, comp := range []Compression{None, ZIP} {
		img := testImage(11, 45, []string{"R", "G", "B", "A"})
		var want bytes.Buffer
		if err := Encode(&want, img, comp); err != nil {
			t.Fatal(err)
		}
		mf := &memFile{}
		w, err := NewWriter(mf, 11, 45, img.Channels, comp)
		if err != nil {
			t.Fatal(err)
		}
		for y := 0; y < 45; y += 7 {
			n := min(7, 45-y)
			rows := make([][]float32, 4)
			for c := range rows {
				rows[c] = img.Data[c][y*11 : (y+n)*11]
			}
			if err := w.WriteRows(rows); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mf.b, want.Bytes()) {
			t.Errorf("%v: streamed bytes differ from Encode", comp)
		}
	}
}

func TestWriterMisuse(t *testing.T) {
	tests := []struct {
		name string
		do   func() error
	}{
		{"zero size", func() error { _, err := NewWriter(&memFile{}, 0, 4, []string{"R"}, ZIP); return err }},
		{"piz", func() error { _, err := NewWriter(&memFile{}, 4, 4, []string{"R"}, PIZ); return err }},
		{"repeated channel", func() error { _, err := NewWriter(&memFile{}, 4, 4, []string{"R", "R"}, ZIP); return err }},
		{"short close", func() error {
			w, _ := NewWriter(&memFile{}, 2, 4, []string{"R"}, ZIP)
			w.WriteRows([][]float32{{1, 2}})
			return w.Close()
		}},
		{"too many rows", func() error {
			w, _ := NewWriter(&memFile{}, 1, 1, []string{"R"}, ZIP)
			return w.WriteRows([][]float32{{1, 2}})
		}},
		{"ragged rows", func() error {
			w, _ := NewWriter(&memFile{}, 2, 2, []string{"R"}, ZIP)
			return w.WriteRows([][]float32{{1, 2, 3}})
		}},
	}
	for _, tc := range tests {
		if err := tc.do(); err == nil || !strings.HasPrefix(err.Error(), "exr: ") {
			t.Errorf("%s: err = %v, want an exr: error", tc.name, err)
		}
	}
}

// rleEncode is ImfRle.cpp's encoder over the predicted, interleaved bytes, kept in the test to
// check the RLE decoder (no tool here writes RLE).
func rleEncode(raw []byte) []byte {
	tmp := make([]byte, len(raw))
	predictInterleave(tmp, raw)
	var out []byte
	for i := 0; i < len(tmp); {
		j := i + 1
		for j < len(tmp) && tmp[j] == tmp[i] && j-i < 128 {
			j++
		}
		if j-i >= 3 {
			out = append(out, byte(j-i-1), tmp[i])
			i = j
			continue
		}
		k := i
		for k < len(tmp) && k-i < 127 && !(k+2 < len(tmp) && tmp[k] == tmp[k+1] && tmp[k] == tmp[k+2]) {
			k++
		}
		out = append(out, byte(int8(-(k - i))))
		out = append(out, tmp[i:k]...)
		i = k
	}
	if len(out) >= len(raw) {
		return raw // stored uncompressed, as OpenEXR does
	}
	return out
}

func TestDecodeRLE(t *testing.T) {
	img := testImage(6, 3, []string{"R"})
	for i := 0; i < 6; i++ {
		img.Data[0][i] = 1 // a run
	}
	hdr := headerBytes(6, 3, []string{"R"}, RLE)
	var blocks [][]byte
	for y := 0; y < 3; y++ {
		raw := make([]byte, 24)
		for x := 0; x < 6; x++ {
			binary.LittleEndian.PutUint32(raw[4*x:], math.Float32bits(img.Data[0][y*6+x]))
		}
		blocks = append(blocks, rleEncode(raw))
	}
	file := append([]byte(nil), hdr...)
	off := len(hdr) + 8*3
	for _, b := range blocks {
		file = binary.LittleEndian.AppendUint64(file, uint64(off))
		off += 8 + len(b)
	}
	for y, b := range blocks {
		file = binary.LittleEndian.AppendUint32(file, uint32(y))
		file = binary.LittleEndian.AppendUint32(file, uint32(len(b)))
		file = append(file, b...)
	}
	got, err := Decode(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	equalImages(t, got, img)
}

func TestHalfToFloat(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0001, 5.960464477539063e-08},
		{0x3555, 0.333251953125}, {0x7c00, float32(math.Inf(1))}, {0x0400, 6.103515625e-05},
	}
	for _, tc := range tests {
		if got := halfToFloat(tc.h); got != tc.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", tc.h, got, tc.want)
		}
	}
	if !math.IsNaN(float64(halfToFloat(0x7e00))) {
		t.Errorf("0x7e00 is not NaN")
	}
}

// corrupt returns a valid small ZIP file with edit applied.
func corrupt(t *testing.T, edit func(b []byte) []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	img := testImage(4, 20, []string{"R", "G"})
	for i := range img.Data[0] {
		img.Data[0][i], img.Data[1][i] = 0, 0 // compressible, so blocks really are zlib streams
	}
	if err := Encode(&buf, img, ZIP); err != nil {
		t.Fatal(err)
	}
	return edit(buf.Bytes())
}

func TestDecodeRejects(t *testing.T) {
	setVersion := func(flags uint32) func(b []byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[4:], 2|flags); return b }
	}
	dataWindowAt := func(b []byte) int {
		return bytes.Index(b, []byte("dataWindow\x00box2i\x00")) + len("dataWindow\x00box2i\x00") + 4
	}
	tests := []struct {
		name, want  string
		edit        func(b []byte) []byte
		unsupported bool
	}{
		{"empty", "truncated", func(b []byte) []byte { return nil }, false},
		{"bad magic", "bad magic", func(b []byte) []byte { b[0] = 'P'; return b }, false},
		{"version 1", "version 1", func(b []byte) []byte { b[4] = 1; return b }, true},
		{"tiled", "tiled", setVersion(flagTiled), true},
		{"multipart", "multi-part", setVersion(flagMultipart), true},
		{"deep", "deep", setVersion(flagDeep), true},
		{"truncated header", "truncated", func(b []byte) []byte { return b[:40] }, false},
		{"truncated block", "truncated", func(b []byte) []byte { return b[:len(b)-3] }, false},
		{"huge window", "cannot fit", func(b []byte) []byte {
			o := dataWindowAt(b)
			binary.LittleEndian.PutUint32(b[o+8:], 1<<23)
			return b
		}, false},
		{"inverted window", "dataWindow", func(b []byte) []byte {
			o := dataWindowAt(b)
			binary.LittleEndian.PutUint32(b[o+8:], 0xffffff00)
			return b
		}, false},
		{"piz", "compression piz", func(b []byte) []byte {
			i := bytes.Index(b, []byte("compression\x00compression\x00")) + 24 + 4
			b[i] = byte(PIZ)
			return b
		}, true},
		{"garbled zip", "zip block", func(b []byte) []byte {
			p := len(headerBytes(4, 20, []string{"G", "R"}, ZIP)) + 16 + 8
			b[p], b[p+1] = 0xff, 0xff
			return b
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(corrupt(t, tc.edit)))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "exr: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want exr: … %q", err, tc.want)
			}
			if errors.Is(err, ErrUnsupported) != tc.unsupported {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v", !tc.unsupported, tc.unsupported)
			}
		})
	}
}

// TestWriteSeeds (with -update) regenerates the fuzz seeds in testdata.
func TestWriteSeeds(t *testing.T) {
	if !*update {
		return
	}
	for name, comp := range map[string]Compression{"rgba_zip.exr": ZIP, "rgba_none.exr": None} {
		var buf bytes.Buffer
		if err := Encode(&buf, testImage(5, 18, []string{"R", "G", "B", "A"}), comp); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.exr"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := Decode(bytes.NewReader(b))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "exr: ") {
				t.Errorf("error without exr: prefix: %v", err)
			}
			return
		}
		for k, d := range img.Data {
			if len(d) != img.Width*img.Height {
				t.Fatalf("channel %d has %d values for %dx%d", k, len(d), img.Width, img.Height)
			}
		}
		if _, err := DecodeConfig(bytes.NewReader(b)); err != nil {
			t.Errorf("Decode accepted what DecodeConfig refuses: %v", err)
		}
	})
}

// WriteBlocks (parallel, blocks filled and compressed out of order) writes the very bytes the
// sequential WriteRows does, for both compressions, images of one and of many blocks, and any
// number of workers.
func TestWriteBlocksMatchesWriteRows(t *testing.T) {
	for _, comp := range []Compression{None, ZIP} {
		for _, sz := range [][2]int{{1, 1}, {37, 15}, {64, 161}} {
			img := testImage(sz[0], sz[1], []string{"R", "G", "B", "A"})
			var seq memFile
			w, err := NewWriter(&seq, img.Width, img.Height, img.Channels, comp)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRows(img.Data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 3, 16} {
				var par memFile
				w, err := NewWriter(&par, img.Width, img.Height, img.Channels, comp)
				if err != nil {
					t.Fatal(err)
				}
				rows := 0
				err = w.WriteBlocks(context.Background(), workers, func(y0, n int, planes [][]float32) error {
					for c, p := range planes {
						copy(p, img.Data[c][y0*img.Width:(y0+n)*img.Width])
					}
					return nil
				}, func(n int) { rows += n })
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(seq.b, par.b) || rows != img.Height {
					t.Errorf("%v %v, %d workers: %d bytes (%d rows reported), sequential %d; files differ", comp, sz, workers, len(par.b), rows, len(seq.b))
				}
			}
		}
	}
}

// A failing fill and a cancelled context stop WriteBlocks with their error.
func TestWriteBlocksStops(t *testing.T) {
	img := testImage(8, 200, []string{"R"})
	boom := errors.New("boom")
	var f memFile
	w, _ := NewWriter(&f, img.Width, img.Height, img.Channels, ZIP)
	err := w.WriteBlocks(context.Background(), 4, func(y0, n int, planes [][]float32) error {
		if y0 >= 64 {
			return boom
		}
		return nil
	}, nil)
	if !errors.Is(err, boom) || w.Close() == nil {
		t.Errorf("err %v; want boom, and Close to refuse", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w, _ = NewWriter(&memFile{}, img.Width, img.Height, img.Channels, ZIP)
	if err := w.WriteBlocks(ctx, 4, func(int, int, [][]float32) error { return nil }, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
}

// unpredictDeinterleave inverts predictInterleave for every length, odd and even.
func TestUnpredictDeinterleaveInverts(t *testing.T) {
	for n := 0; n < 70; n++ {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(i*i*31 + 7*i)
		}
		tmp := make([]byte, n)
		predictInterleave(tmp, raw)
		out := make([]byte, n)
		unpredictDeinterleave(out, tmp)
		if !bytes.Equal(out, raw) {
			t.Fatalf("length %d: %v, want %v", n, out, raw)
		}
	}
}

func BenchmarkUnpredictDeinterleave(b *testing.B) {
	raw := make([]byte, 1<<20)
	for i := range raw {
		raw[i] = byte(i * 2654435761 >> 13)
	}
	tmp := make([]byte, len(raw))
	predictInterleave(tmp, raw)
	out := make([]byte, len(raw))
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		unpredictDeinterleave(out, tmp)
	}
}

// predictInterleave is OpenEXR's transform: even bytes then odd, each the difference to the one
// before plus 128 (ImfZip.cpp), checked against that definition written out plainly.
func TestPredictInterleaveDefinition(t *testing.T) {
	for n := 0; n < 70; n++ {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(i*i*13 + 5*i + 3)
		}
		var inter []byte
		for i := 0; i < n; i += 2 {
			inter = append(inter, raw[i])
		}
		for i := 1; i < n; i += 2 {
			inter = append(inter, raw[i])
		}
		want := make([]byte, n)
		for i := range inter {
			want[i] = inter[i]
			if i > 0 {
				want[i] = inter[i] - inter[i-1] + 128
			}
		}
		got := make([]byte, n)
		predictInterleave(got, raw)
		if !bytes.Equal(got, want) {
			t.Fatalf("length %d: %v, want %v", n, got, want)
		}
	}
}
