package terraindata

import (
	"bytes"
	"context"
	"errors"
	"hash/adler32"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestAdler32Combine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		a := make([]byte, r.IntN(200000))
		b := make([]byte, r.IntN(200000))
		for i := range a {
			a[i] = byte(r.IntN(256))
		}
		for i := range b {
			b[i] = byte(r.IntN(3)) // long runs push the sums past the modulus
		}
		want := adler32.Checksum(append(append([]byte(nil), a...), b...))
		if got := adler32Combine(adler32.Checksum(a), adler32.Checksum(b), int64(len(b))); got != want {
			t.Fatalf("len %d + %d: combined %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

// weightsLike is a control-like image: smooth regions, sharp edges, noise, a varying alpha.
func weightsLike(w, h int, seed uint64) *image.NRGBA {
	r := rand.New(rand.NewPCG(seed, 7))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			o := img.PixOffset(x, y)
			v := byte((x*3 + y*5) / 7)
			if (x/9+y/5)%3 == 0 {
				v = byte(r.IntN(256))
			}
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = v, 255-v, byte(x), byte(200+y%56)
		}
	}
	return img
}

// The parallel PNG decodes to the very pixels with Go's decoder and with ImageMagick, in one
// segment and in many (the segment size is lowered so a small image spans dozens).
func TestEncodeRGBA8ReadBack(t *testing.T) {
	defer func(n int) { pngSegmentBytes = n }(pngSegmentBytes)
	for _, tc := range []struct {
		w, h, seg, workers int
	}{
		{1, 1, 1 << 20, 0}, {7, 300, 1 << 20, 0}, {7, 300, 64, 3}, {129, 77, 1000, 8}, {333, 41, 5000, 1},
	} {
		pngSegmentBytes = tc.seg
		img := weightsLike(tc.w, tc.h, uint64(tc.w))
		var buf bytes.Buffer
		var raw int64
		row := func(y int) []byte { return img.Pix[y*img.Stride : y*img.Stride+4*tc.w] }
		if err := encodeRGBA8(context.Background(), &buf, tc.w, tc.h, row, tc.workers, func(n int64) { raw += n }); err != nil {
			t.Fatal(err)
		}
		if want := int64(tc.h * (1 + 4*tc.w)); raw != want {
			t.Errorf("%dx%d: progress reported %d raw bytes, want %d", tc.w, tc.h, raw, want)
		}
		got, err := png.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%dx%d segments of %d: %v", tc.w, tc.h, tc.seg, err)
		}
		n, ok := got.(*image.NRGBA)
		if !ok || !bytes.Equal(n.Pix, img.Pix) {
			t.Fatalf("%dx%d segments of %d: Go's decoder reads other pixels (%T)", tc.w, tc.h, tc.seg, got)
		}
		p := filepath.Join(t.TempDir(), "x.png")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("convert", p, "-depth", "8", "rgba:-").Output()
		if err != nil {
			t.Fatalf("ImageMagick cannot read our %dx%d PNG: %v", tc.w, tc.h, err)
		}
		if !bytes.Equal(out, img.Pix) {
			t.Fatalf("%dx%d segments of %d: ImageMagick reads other pixels", tc.w, tc.h, tc.seg)
		}
	}
}

func TestEncodeRGBA8Cancelled(t *testing.T) {
	defer func(n int) { pngSegmentBytes = n }(pngSegmentBytes)
	pngSegmentBytes = 256
	img := weightsLike(64, 256, 3)
	ctx, cancel := context.WithCancel(context.Background())
	segs := 0
	err := encodeRGBA8(ctx, &bytes.Buffer{}, 64, 256, func(y int) []byte { return img.Pix[y*img.Stride:] }, 2, func(int64) {
		if segs++; segs == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
