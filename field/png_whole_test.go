package field

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// pngChunk is one chunk: length, type, data, CRC.
func pngChunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}

// craftedPNG16 is a w×h 16-bit grayscale PNG whose rows (random filters) are zlib-compressed, the
// stream followed by extra bytes of junk, the whole cut into IDAT chunks of split bytes (the last
// one takes the rest), then trailing IDATs.
func craftedPNG16(r *rand.Rand, w, h, extra, split, trailing int) []byte {
	rows := make([]byte, 0, h*(1+2*w))
	for range h {
		rows = append(rows, byte(r.IntN(5)))
		for range 2 * w {
			rows = append(rows, byte(r.IntN(4)))
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(rows)
	zw.Close()
	data := z.Bytes()
	for range extra {
		data = append(data, byte(r.Uint32()))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 16, 0, 0, 0, 0)
	b := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
	for len(data) > split {
		b = append(b, pngChunk("IDAT", data[:split])...)
		data = data[split:]
	}
	b = append(b, pngChunk("IDAT", data)...)
	for range trailing {
		b = append(b, pngChunk("IDAT", []byte{1, 2, 3})...)
	}
	return append(b, pngChunk("IEND", nil)...)
}

// TestPNGWholeInflate: around every edge the whole-buffer inflate decides on — junk after the
// stream that the streaming reader's 4096-byte requests swallow or leave ("too much pixel data"),
// chunks of 1 byte to all of it, trailing IDATs — both paths agree with image/png, and a clean
// file is inflated whole.
func TestPNGWholeInflate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	spec := heightSpec([2]int{}, [2]float64{-10, 10})
	for _, split := range []int{1, 7, 4095, 4096, 4097, 9000, 1 << 20} {
		for _, extra := range []int{0, 1, 2, 100, 3000, 4095, 4096, 5000} {
			for _, trailing := range []int{0, 2} {
				name := fmt.Sprintf("split %d, %d bytes after the stream, %d trailing IDATs", split, extra, trailing)
				b := craftedPNG16(r, 61, 97, extra, split, trailing)
				before := pngWholeReads.Load()
				if err := sameImport("crafted.png", b, ".png", spec); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if extra == 0 && pngWholeReads.Load() == before {
					t.Errorf("%s: a clean file was not inflated whole", name)
				}
			}
		}
	}
}
