package terraindata

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"io"
	"runtime"
	"sync"

	"strata/internal/ordered"
)

// The rgba8 payload writer. image/png deflates on one core, which made a 16384² control texture
// (1 GiB of pixels) the longest part of a bake. Here the rows are cut into segments that are
// filtered and deflated on every core at once and stitched into the one zlib stream PNG requires:
// each segment is compressed on its own and ended with a sync flush (an empty stored block, byte
// aligned, not final), so the segments concatenate into a valid deflate stream; only the last one
// is closed with a final block. The zlib checksum (Adler-32) of the whole is combined from the
// segments' own. Each segment becomes one IDAT chunk. Every reader sees an ordinary PNG: 8-bit
// RGBA, no interlace, filter Up on every row (the smallest and fastest of the filters measured on
// control weights, docs/PERFORMANCE.md) but a segment's first, which is None, deflate at
// BestSpeed.

// pngSegmentBytes is the raw (filtered) size a segment aims at (a variable for the tests): large enough that a sync flush and
// the lost dictionary at its start cost nothing measurable, small enough that every core gets
// work and only a few MiB are in flight per worker.
var pngSegmentBytes = 1 << 20

var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// encodeRGBA8 writes a w×h 8-bit RGBA PNG to out. row(y) returns the 4·w bytes of row y (straight
// alpha) and may be called from several goroutines at once. workers ≤ 0 means every core;
// progress (may be nil) receives the raw bytes of each segment as it is written.
func encodeRGBA8(ctx context.Context, out io.Writer, w, h int, row func(y int) []byte, workers int, progress func(n int64)) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	stride := 1 + 4*w
	rows := max(1, pngSegmentBytes/stride)
	segs := (h + rows - 1) / rows

	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(w))
	binary.BigEndian.PutUint32(hdr[4:], uint32(h))
	hdr[8], hdr[9] = 8, 6 // 8 bits, RGBA; compression, filter, interlace 0
	if _, err := out.Write(pngSignature); err != nil {
		return err
	}
	if err := writeChunk(out, "IHDR", hdr[:]); err != nil {
		return err
	}

	type segment struct {
		data  *[]byte
		adler uint32
		n     int // raw (filtered) bytes
	}
	type scratch struct {
		raw []byte
		buf bytes.Buffer
		fw  *flate.Writer
	}
	scr := make([]scratch, max(1, min(workers, segs)))
	adler := uint32(1)
	var free sync.Pool // *[]byte: written segments' buffers, for the next ones
	err := ordered.Run(ctx, segs, workers, func(wk, s int) (segment, error) {
		sc := &scr[wk]
		y0, y1 := s*rows, min(h, (s+1)*rows)
		raw := sc.raw[:0]
		var prev []byte
		for y := y0; y < y1; y++ {
			cur := row(y)[:4*w]
			if prev == nil {
				// A segment's first row is unfiltered (None): the segment then decodes with
				// nothing of the one before it, so a save reads its controls back on every core
				// (pngsegments.go). One row in a segment; the size does not move measurably.
				raw = append(append(raw, 0), cur...)
				prev = cur
				continue
			}
			raw = append(raw, 2) // filter Up: the byte above subtracted
			o := len(raw)
			raw = append(raw, cur...)
			up := raw[o:]
			for i := range up {
				up[i] -= prev[i]
			}
			prev = cur
		}
		sc.raw = raw
		sc.buf.Reset()
		if sc.fw == nil {
			sc.fw, _ = flate.NewWriter(&sc.buf, flate.BestSpeed)
		} else {
			sc.fw.Reset(&sc.buf)
		}
		if s == 0 {
			sc.buf.Write([]byte{0x78, 0x01}) // zlib header: deflate, 32 KiB window, fastest
		}
		_, err := sc.fw.Write(raw)
		if err == nil && s == segs-1 {
			err = sc.fw.Close()
		} else if err == nil {
			err = sc.fw.Flush()
		}
		// sc.buf is reused for this worker's next segment before this one is written: copy it
		// into a buffer the writer hands back, so segments leave no garbage.
		data, _ := free.Get().(*[]byte)
		if data == nil {
			data = new([]byte)
		}
		*data = append((*data)[:0], sc.buf.Bytes()...)
		return segment{data, adler32.Checksum(raw), len(raw)}, err
	}, func(_ int, sg segment) error {
		defer free.Put(sg.data)
		adler = adler32Combine(adler, sg.adler, int64(sg.n))
		if err := writeChunk(out, "IDAT", *sg.data); err != nil {
			return err
		}
		if progress != nil {
			progress(int64(sg.n))
		}
		return nil
	})
	if err != nil {
		return err
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], adler)
	if err := writeChunk(out, "IDAT", sum[:]); err != nil {
		return err
	}
	return writeChunk(out, "IEND", nil)
}

// writeChunk writes one PNG chunk: length, type, data, CRC-32 of type and data.
func writeChunk(w io.Writer, typ string, data []byte) error {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	crc.Write(data)
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], crc.Sum32())
	for _, b := range [][]byte{head[:], data, tail[:]} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// adler32Combine is the Adler-32 of a followed by b, from adler32(a), adler32(b) and len(b)
// (zlib's adler32_combine).
func adler32Combine(a, b uint32, lenB int64) uint32 {
	const base = 65521
	rem := uint64(lenB % base)
	sum1 := uint64(a & 0xffff)
	sum2 := rem * sum1 % base
	sum1 += uint64(b&0xffff) + base - 1
	sum2 += uint64(a>>16) + uint64(b>>16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return uint32(sum1 | sum2<<16)
}
