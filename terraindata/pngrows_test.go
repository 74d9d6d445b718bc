package terraindata

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// pngChunk appends one chunk with its CRC.
func pngChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// rawPNG builds a PNG by hand: colour type ct, 8-bit, rows of raw samples each stored with filter
// ft, plus extra chunks before the image data. It makes the files image/png's encoder never
// writes (gray+alpha, every filter, tRNS on true colour) for the differential tests and seeds.
func rawPNG(w, h int, ct byte, rows [][]byte, ft byte, before ...[2]string) []byte {
	b := append([]byte{}, pngSignature...)
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, ct, 0, 0, 0)
	b = pngChunk(b, "IHDR", ihdr)
	for _, c := range before {
		b = pngChunk(b, c[0], []byte(c[1]))
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	for _, r := range rows {
		zw.Write([]byte{0}) // filter 0 on raw data keeps the builder simple; ft recodes below
		zw.Write(r)
	}
	zw.Close()
	if ft != 0 {
		z.Reset()
		zw = zlib.NewWriter(&z)
		bpp := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ct]
		prev := make([]byte, len(rows[0]))
		for _, r := range rows {
			zw.Write([]byte{ft})
			zw.Write(filterRow(ft, r, prev, bpp))
			prev = r
		}
		zw.Close()
	}
	b = pngChunk(b, "IDAT", z.Bytes())
	return pngChunk(b, "IEND", nil)
}

// filterRow is the encoder's side of pngfilter.Row, written independently (from the PNG spec).
func filterRow(ft byte, cur, prev []byte, bpp int) []byte {
	out := make([]byte, len(cur))
	for i := range cur {
		var a, b, c int
		if i >= bpp {
			a, c = int(cur[i-bpp]), int(prev[i-bpp])
		}
		b = int(prev[i])
		var pred int
		switch ft {
		case 1:
			pred = a
		case 2:
			pred = b
		case 3:
			pred = (a + b) / 2
		case 4:
			p := a + b - c
			pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
			switch {
			case pa <= pb && pa <= pc:
				pred = a
			case pb <= pc:
				pred = b
			default:
				pred = c
			}
		}
		out[i] = cur[i] - byte(pred)
	}
	return out
}

// decodeAllRows runs pngRows over b and returns the straight RGBA image.
func decodeAllRows(b []byte) (*image.NRGBA, error) {
	p, err := newPNGRows(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	img := image.NewNRGBA(image.Rect(0, 0, p.w, p.h))
	for y := 0; ; y++ {
		row, err := p.next()
		if err == io.EOF {
			return img, nil
		}
		if err != nil {
			return nil, err
		}
		copy(img.Pix[y*img.Stride:], row)
	}
}

// stdNRGBA decodes with image/png and converts exactly as the old ReadTexture did.
func stdNRGBA(b []byte) (*image.NRGBA, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	n, ok := img.(*image.NRGBA)
	if !ok {
		n = image.NewNRGBA(img.Bounds())
		draw.Draw(n, n.Bounds(), img, img.Bounds().Min, draw.Src)
	}
	return n, nil
}

// differsFromStd returns the first byte where pngRows' straight RGBA disagrees with image/png's,
// -1 when none. Where the alpha is neither 0 nor 255 the old path (a paletted or tRNS image drawn
// into NRGBA through premultiplied colour) rounds, so those texels are compared premultiplied
// within one step; fully transparent texels compare by alpha only (premultiplying drops their
// colour). pngRows keeps the file's exact bytes in both cases.
func differsFromStd(got, want *image.NRGBA) int {
	if got.Rect != want.Rect {
		return 0
	}
	for i := 0; i < len(got.Pix); i += 4 {
		g, w := got.Pix[i:i+4], want.Pix[i:i+4]
		if g[3] != w[3] {
			return i + 3
		}
		for c := 0; c < 3; c++ {
			switch a := int(g[3]); a {
			case 0:
			case 255:
				if g[c] != w[c] {
					return i + c
				}
			default:
				if d := int(g[c])*a/255 - int(w[c])*a/255; d < -1 || d > 1 {
					return i + c
				}
			}
		}
	}
	return -1
}

func randomRows(r *rand.Rand, w, h, bpp int, limit int) [][]byte {
	rows := make([][]byte, h)
	for y := range rows {
		rows[y] = make([]byte, w*bpp)
		for i := range rows[y] {
			rows[y][i] = byte(r.IntN(limit))
		}
	}
	return rows
}

// TestPNGRowsMatchesImagePNG: every colour type and filter pngRows reads gives image/png's pixels.
func TestPNGRowsMatchesImagePNG(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var cases []struct {
		desc string
		b    []byte
	}
	add := func(desc string, b []byte) {
		cases = append(cases, struct {
			desc string
			b    []byte
		}{desc, b})
	}
	for _, ct := range []byte{0, 2, 4, 6} {
		bpp := map[byte]int{0: 1, 2: 3, 4: 2, 6: 4}[ct]
		for ft := byte(0); ft <= 4; ft++ {
			add(strings.Repeat("x", 0)+"ct"+string('0'+ct)+" filter "+string('0'+ft), rawPNG(7, 5, ct, randomRows(r, 7, 5, bpp, 256), ft))
		}
	}
	add("gray tRNS", rawPNG(6, 4, 0, randomRows(r, 6, 4, 1, 3), 2, [2]string{"tRNS", "\x00\x01"}))
	add("rgb tRNS", rawPNG(6, 4, 2, randomRows(r, 6, 4, 3, 2), 4, [2]string{"tRNS", "\x00\x01\x00\x00\x00\x01"}))
	add("paletted with tRNS", rawPNG(6, 4, 3, randomRows(r, 6, 4, 1, 3), 1, [2]string{"PLTE", "\x10\x20\x30\x40\x50\x60\x70\x80\x90"}, [2]string{"tRNS", "\x00\x80"}))
	add("ancillary chunk", rawPNG(3, 3, 6, randomRows(r, 3, 3, 4, 256), 0, [2]string{"tEXt", "Comment\x00hi"}))
	// What image/png writes for the images Strata stores.
	var buf bytes.Buffer
	png.Encode(&buf, controlImage(33, 17, 3))
	add("encoder NRGBA", append([]byte{}, buf.Bytes()...))
	buf.Reset()
	opaque := image.NewNRGBA(image.Rect(0, 0, 40, 9))
	for i := range opaque.Pix {
		opaque.Pix[i] = byte(i*31) | 0
		if i%4 == 3 {
			opaque.Pix[i] = 255
		}
	}
	png.Encode(&buf, opaque)
	add("encoder opaque (RGB)", append([]byte{}, buf.Bytes()...))
	buf.Reset()
	palette := color.Palette{color.NRGBA{1, 2, 3, 255}, color.NRGBA{200, 100, 0, 128}}
	for len(palette) < 17 { // more than 16 colours: the encoder writes 8-bit indices
		palette = append(palette, color.NRGBA{byte(len(palette)), 9, 9, 255})
	}
	pal := image.NewPaletted(image.Rect(0, 0, 9, 9), palette)
	pal.Pix[5], pal.Pix[7] = 1, 16
	png.Encode(&buf, pal)
	add("encoder paletted", append([]byte{}, buf.Bytes()...))
	buf.Reset()
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 4, 4)))
	add("encoder gray", append([]byte{}, buf.Bytes()...))

	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			want, err := stdNRGBA(tc.b)
			if err != nil {
				t.Fatalf("image/png: %v", err)
			}
			got, err := decodeAllRows(tc.b)
			if err != nil {
				t.Fatalf("pngRows: %v", err)
			}
			if i := differsFromStd(got, want); i >= 0 {
				t.Errorf("pixels differ at byte %d: %v, image/png %v", i, got.Pix[i&^3:i&^3+4], want.Pix[i&^3:i&^3+4])
			}
		})
	}
}

// TestPNGRowsRefuses: broken and unsupported payloads are refused with the reason; each is a
// file image/png either refuses too or decodes to something we cannot stand behind (truncated
// data decoding without error past a flush point, palette indices beyond the palette).
func TestPNGRowsRefuses(t *testing.T) {
	good := rawPNG(4, 3, 6, randomRows(rand.New(rand.NewPCG(3, 4)), 4, 3, 4, 256), 0)
	idat := bytes.Index(good, []byte("IDAT"))
	idatCRC := idat + 4 + int(binary.BigEndian.Uint32(good[idat-4:]))
	withIHDR := func(ihdr []byte) []byte {
		b := pngChunk(append([]byte{}, pngSignature...), "IHDR", ihdr)
		return append(b, good[33:]...)
	}
	flip := func(i int) []byte { b := append([]byte{}, good...); b[i] ^= 0x40; return b }
	var interlaced bytes.Buffer
	interlaced.Write(pngSignature)
	tests := []struct {
		desc, want string
		b          []byte
	}{
		{"empty", "no PNG signature", nil},
		{"not png", "no PNG signature", []byte("GIF89a....")},
		{"truncated in IHDR", "truncated", good[:20]},
		{"truncated data", "truncated", good[:idat+10]},
		{"no IEND", "truncated", good[:len(good)-12]},
		{"IHDR CRC", "CRC", flip(29)},
		{"IDAT CRC", "CRC", flip(idatCRC)},
		{"corrupt image data", "corrupt input", flip(idat + 8)},
		{"16-bit", "16-bit samples", withIHDR([]byte{0, 0, 0, 4, 0, 0, 0, 3, 16, 6, 0, 0, 0})},
		{"interlaced", "interlaced", withIHDR([]byte{0, 0, 0, 4, 0, 0, 0, 3, 8, 6, 0, 0, 1})},
		{"zero width", "size 0x3", withIHDR([]byte{0, 0, 0, 0, 0, 0, 0, 3, 8, 6, 0, 0, 0})},
		{"palette index out of range", "palette index 5", rawPNG(3, 1, 3, [][]byte{{0, 5, 1}}, 0, [2]string{"PLTE", "abcdef"})},
		{"paletted without PLTE", "without a PLTE", rawPNG(3, 1, 3, [][]byte{{0, 0, 1}}, 0)},
		{"PLTE in gray", "grayscale", rawPNG(3, 1, 0, [][]byte{{0, 0, 1}}, 0, [2]string{"PLTE", "abc"})},
		{"unknown critical chunk", "critical", rawPNG(3, 1, 0, [][]byte{{0, 0, 1}}, 0, [2]string{"ABCD", ""})},
		{"bad filter", "filter type 9", func() []byte {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write([]byte{9, 1, 2, 3, 4})
			zw.Close()
			b := append([]byte{}, pngSignature...)
			b = pngChunk(b, "IHDR", []byte{0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0})
			b = pngChunk(b, "IDAT", z.Bytes())
			return pngChunk(b, "IEND", nil)
		}()},
		{"too much data", "more image data", rawPNG(2, 1, 0, [][]byte{{1, 2}, {3, 4}}, 0)},
	}
	// "too much data" says 1 row but holds 2: patch the height to 1.
	tm := tests[len(tests)-1].b
	tm = append(append([]byte{}, tm[:8]...), pngChunk(nil, "IHDR", []byte{0, 0, 0, 2, 0, 0, 0, 1, 8, 0, 0, 0, 0})...)
	tests[len(tests)-1].b = append(tm, tests[len(tests)-1].b[33:]...)
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := decodeAllRows(tc.b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// FuzzPNGRows: pngRows never panics, and whatever it accepts image/png decodes to the same pixels.
func FuzzPNGRows(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, ct := range []byte{0, 2, 4, 6} {
		bpp := map[byte]int{0: 1, 2: 3, 4: 2, 6: 4}[ct]
		f.Add(rawPNG(5, 3, ct, randomRows(r, 5, 3, bpp, 256), ct%5))
	}
	f.Add(rawPNG(6, 4, 3, randomRows(r, 6, 4, 1, 3), 1, [2]string{"PLTE", "\x10\x20\x30\x40\x50\x60\x70\x80\x90"}, [2]string{"tRNS", "\x00\x80"}))
	f.Add(rawPNG(6, 4, 2, randomRows(r, 6, 4, 3, 2), 4, [2]string{"tRNS", "\x00\x01\x00\x00\x00\x01"}))
	var buf bytes.Buffer
	png.Encode(&buf, controlImage(9, 4, 1))
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := newPNGRows(bytes.NewReader(b))
		if err != nil {
			return
		}
		if int64(p.w)*int64(p.h) > 1<<16 { // keep the fuzzer's images small
			return
		}
		got, err := decodeAllRows(b)
		if err != nil {
			return
		}
		want, err := stdNRGBA(b)
		if err != nil {
			t.Fatalf("pngRows accepted what image/png refuses: %v", err)
		}
		if i := differsFromStd(got, want); i >= 0 {
			t.Fatalf("pixels differ from image/png at byte %d", i)
		}
	})
}

// BenchmarkPNGPayload compares the row decoder validate and the readers use with image/png (plus
// the NRGBA conversion the old reader did) on a 2048² control written as the bake writes it:
// `go test ./terraindata -run '^$' -bench PNGPayload`.
func BenchmarkPNGPayload(b *testing.B) {
	const n = 2048
	img := controlImage(n, n, 5)
	for i := range img.Pix { // vary every byte a little so zlib has work, as real weights do
		if i%4 < 2 {
			img.Pix[i] ^= byte(i * 7919 >> 9 & 7)
		}
	}
	var enc bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&enc, img); err != nil {
		b.Fatal(err)
	}
	data := enc.Bytes()
	b.Run("pngRows stream", func(b *testing.B) {
		b.SetBytes(int64(n * n * 4))
		for range b.N {
			p, err := newPNGRows(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := p.next(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("image/png whole", func(b *testing.B) {
		b.SetBytes(int64(n * n * 4))
		for range b.N {
			if _, err := stdNRGBA(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
