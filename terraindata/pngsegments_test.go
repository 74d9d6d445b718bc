package terraindata

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeControlPNG encodes img as a control payload with segments of about seg raw bytes and
// returns the file's path.
func writeControlPNG(t *testing.T, dir, name string, img *image.NRGBA, seg int) string {
	t.Helper()
	defer func(n int) { pngSegmentBytes = n }(pngSegmentBytes)
	pngSegmentBytes = seg
	var buf bytes.Buffer
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if err := encodeRGBA8(context.Background(), &buf, w, h, func(y int) []byte { return img.Pix[y*img.Stride : y*img.Stride+4*w] }, 3, nil); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// segmentedOf decodes the payload files at paths side by side (segmentedPNG, segmentedControls).
func segmentedOf(t *testing.T, paths []string, keep []uint32, w, h int) (bad, x, y, sum int, ok bool) {
	t.Helper()
	ls := make([]*pngLayout, len(paths))
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		l, ok := segmentedPNG(f, fi.Size(), w, h)
		if !ok {
			return 0, 0, 0, 0, false
		}
		ls[i] = l
	}
	return segmentedControls(ls, keep, w, h)
}

// controlsOf is a random control pair for layers layers (weights summing to 255 over them), with
// bad texels made not to sum.
func controlsOf(r *rand.Rand, w, h, layers int, bad [][2]int) []*image.NRGBA {
	imgs := []*image.NRGBA{image.NewNRGBA(image.Rect(0, 0, w, h)), image.NewNRGBA(image.Rect(0, 0, w, h))}[:(layers+3)/4]
	for i := 0; i < w*h; i++ {
		left := 255
		for k := 0; k < layers; k++ {
			v := left
			if k < layers-1 && r.IntN(3) > 0 { // runs of whole texels, as weights have
				v = r.IntN(left + 1)
			}
			imgs[k/4].Pix[4*i+k%4] = uint8(v)
			left -= v
		}
	}
	for _, b := range bad {
		imgs[0].Pix[4*(b[1]*w+b[0])]++
	}
	return imgs
}

// The controls a save writes decode segment by segment, on every core, to what the decoding in
// order finds: sound, or the same bad texels (count, first, sum) — in one segment and in many,
// for one control and for two.
func TestSegmentedControlsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for _, tc := range []struct {
		w, h, seg, layers int
		bad               [][2]int
	}{
		{7, 5, 1 << 20, 3, nil},
		{33, 200, 500, 2, nil},
		{33, 200, 500, 6, nil},
		{64, 130, 1000, 4, [][2]int{{5, 97}, {60, 129}, {0, 98}}},
		{17, 300, 70, 7, [][2]int{{16, 0}}},
		{1, 64, 8, 1, nil},
	} {
		imgs := controlsOf(r, tc.w, tc.h, tc.layers, tc.bad)
		var paths []string
		keep := make([]uint32, len(imgs))
		for i, img := range imgs {
			paths = append(paths, writeControlPNG(t, dir, "c"+string(rune('0'+i))+".png", img, tc.seg))
			for ch := range 4 {
				if 4*i+ch < tc.layers {
					keep[i] |= 0xff << (8 * ch)
				}
			}
		}
		bad, x, y, sum, ok := segmentedOf(t, paths, keep, tc.w, tc.h)
		if !ok {
			t.Fatalf("%dx%d, segments of %d: our own payload is not decoded side by side", tc.w, tc.h, tc.seg)
		}
		// In order, from the pixels.
		wantBad, wantX, wantY, wantSum := 0, 0, 0, 0
		rows := make([][]byte, len(imgs))
		for yy := range tc.h {
			for i, img := range imgs {
				rows[i] = img.Pix[yy*img.Stride:]
			}
			if n, xx := badTexels(rows, keep, tc.w); n > 0 {
				if wantBad == 0 {
					wantX, wantY = xx, yy
					for _, rr := range rows {
						for _, b := range rr[4*xx : 4*xx+4] {
							wantSum += int(b)
						}
					}
				}
				wantBad += n
			}
		}
		if bad != wantBad || (bad > 0 && (x != wantX || y != wantY || sum != wantSum)) {
			t.Errorf("%dx%d, segments of %d: %d bad, first (%d,%d) summing %d; want %d, (%d,%d), %d",
				tc.w, tc.h, tc.seg, bad, x, y, sum, wantBad, wantX, wantY, wantSum)
		}
	}
}

// A payload not laid out as our encoder lays it out, or damaged, is not decoded side by side: the
// caller decodes it in order, which says what is wrong.
func TestSegmentedControlsRefuse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	const w, h = 40, 300
	img := controlsOf(r, w, h, 3, nil)[0]
	keep := []uint32{0xffffff}
	good := writeControlPNG(t, dir, "good.png", img, 2000)
	b, _ := os.ReadFile(good)
	var goPNG bytes.Buffer
	if err := png.Encode(&goPNG, img); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc string
		file func() []byte
	}{
		{"image/png's layout", func() []byte { return goPNG.Bytes() }},
		{"a byte of a segment flipped", func() []byte {
			c := bytes.Clone(b)
			c[len(c)/2] ^= 0x10
			return c
		}},
		{"cut short", func() []byte { return b[:len(b)-20] }},
		{"bytes after IEND", func() []byte { return append(bytes.Clone(b), 0, 0, 0, 0) }},
		{"a segment dropped", func() []byte {
			// The chunks: signature, IHDR, IDATs…; drop the second IDAT.
			off := 8 + 25
			first := off + 12 + int(beUint32(b[off:]))
			second := first + 12 + int(beUint32(b[first:]))
			return append(bytes.Clone(b[:first]), b[second:]...)
		}},
	} {
		p := filepath.Join(dir, "x.png")
		os.WriteFile(p, tc.file(), 0o644)
		if _, _, _, _, ok := segmentedOf(t, []string{p}, keep, w, h); ok {
			t.Errorf("%s: decoded side by side", tc.desc)
		}
	}
}

func beUint32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// Prevalidate reads back many-segment controls side by side and Commit trusts them; a control
// that does not sum is named as the decoding in order names it.
func TestPrevalidateSegmentedControls(t *testing.T) {
	defer func(n int) { pngSegmentBytes = n }(pngSegmentBytes)
	pngSegmentBytes = 300
	r := rand.New(rand.NewPCG(7, 8))
	for _, badTexel := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "seg.terrainData")
		s, c, g := beginHeight(t, path)
		var bad [][2]int
		if badTexel {
			bad = [][2]int{{6, 3}}
		}
		imgs := controlsOf(r, 64, 40, 6, bad) // a row a segment
		for i, img := range imgs {
			name := "control" + string(rune('0'+i))
			if _, err := WriteTextureRGBA8(filepath.Join(s.Dir(), name+".texture"), img, Linear); err != nil {
				t.Fatal(err)
			}
			c.SetChild(name, name+".texture")
			f, err := os.Open(filepath.Join(s.Dir(), name+".texture", "data.png"))
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			if l, ok := segmentedPNG(f, fi.Size(), 64, 40); !ok || len(l.segs) != 40 {
				t.Fatalf("%s is not laid out in 40 segments", name)
			}
			f.Close()
		}
		c.SetLayers([]Layer{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}, {Name: "f"}})
		c.SetPlacement(Placement{Size: [2]float64{14, 20}, HeightRange: g.Range()})
		err := s.Prevalidate("controls")
		if !badTexel {
			if err != nil {
				t.Fatalf("Prevalidate: %v", err)
			}
			if err := s.Commit(); err != nil {
				t.Fatalf("Commit: %v", err)
			}
			continue
		}
		sum := 0
		for _, img := range imgs {
			for _, v := range img.Pix[4*(3*64+6) : 4*(3*64+6)+4] {
				sum += int(v)
			}
		}
		want := fmt.Sprintf("1 texel(s) whose layer weights do not sum to 255 (or that weigh channels no layer uses), first at (6,3): %d", sum)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "control0.texture") {
			t.Errorf("Prevalidate of a control that does not sum: %v", err)
		}
		s.Abort()
	}
}
