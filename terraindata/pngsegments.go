package terraindata

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"strata/internal/pool"
)

// Decoding the control textures a save has just written on every core. encodeRGBA8 writes each
// segment of rows as one IDAT chunk, deflated on its own (no reference into an earlier segment)
// and ended with a sync flush, its first row unfiltered (None) and the others filter Up: a segment
// decodes with nothing of the segments before it. So the save's read back of a 16384² control
// texture — 1 GiB of pixels, 1.8 s one row at a time on the H200's host, the longest wait of the
// bake (docs/PERFORMANCE.md) — runs on every core while the densities encode.
//
// The layout is checked, never assumed: every chunk's CRC, the zlib header, each non-final
// segment ending in a sync flush at which a final empty block then ends the stream exactly, the
// last segment ending the stream exactly, whole rows only, the filter bytes, the rows adding up to
// the height, and the zlib stream's Adler-32 against the one combined from the segments. Anything
// else — another encoder's layout, or damage — returns false, and the payload is decoded in order
// (pngRows), which names the problem. Only Prevalidate takes this path, for payloads the saving
// wrote itself: a crafted file could end a segment mid-byte in a way this check would not see, so
// validating a file from elsewhere (strata validate) keeps the one decoder every reader uses.

// pngLayout is where a segmented payload's chunks are.
type pngLayout struct {
	f     *os.File
	w     int
	segs  []idatChunk // the image data, one segment each; the zlib header starts the first
	adler uint32      // the zlib stream's Adler-32: the last IDAT chunk, alone
}

// idatChunk is one chunk: its header's offset in the file and its data's length.
type idatChunk struct {
	off int64
	n   uint32
}

// syncFlush is how a non-final segment ends (an empty stored block's LEN and NLEN), and endBlock
// a final empty stored block: appended to a segment that ended at a block boundary, it ends the
// stream there and nowhere else.
var (
	syncFlush = []byte{0, 0, 0xff, 0xff}
	endBlock  = []byte{1, 0, 0, 0xff, 0xff}
)

// segmentedPNG reads the chunk layout of the payload f (size bytes), a w×h RGBA8 image:
// signature, IHDR, IDAT chunks (the last holding only the Adler-32) and IEND ending the file.
func segmentedPNG(f *os.File, size int64, w, h int) (*pngLayout, bool) {
	var sig [8 + 8 + 13 + 4]byte
	if _, err := f.ReadAt(sig[:], 0); err != nil || !bytes.Equal(sig[:8], pngSignature) {
		return nil, false
	}
	ihdr := sig[8:]
	if binary.BigEndian.Uint32(ihdr) != 13 || string(ihdr[4:8]) != "IHDR" ||
		binary.BigEndian.Uint32(ihdr[8:]) != uint32(w) || binary.BigEndian.Uint32(ihdr[12:]) != uint32(h) ||
		!bytes.Equal(ihdr[16:21], []byte{8, 6, 0, 0, 0}) || crc32.ChecksumIEEE(ihdr[4:21]) != binary.BigEndian.Uint32(ihdr[21:]) {
		return nil, false
	}
	l := &pngLayout{f: f, w: w}
	var idat []idatChunk
	for off := int64(len(sig)); ; {
		var head [12]byte
		if off+12 > size {
			return nil, false
		}
		if _, err := f.ReadAt(head[:8], off); err != nil {
			return nil, false
		}
		n, typ := binary.BigEndian.Uint32(head[:4]), string(head[4:8])
		switch {
		case typ == "IDAT" && off+12+int64(n) <= size && len(idat) <= h+1:
			idat = append(idat, idatChunk{off, n})
			off += 12 + int64(n)
			continue
		case typ == "IEND" && n == 0 && off+12 == size && len(idat) >= 2:
			if _, err := f.ReadAt(head[8:], off+8); err != nil || crc32.ChecksumIEEE(head[4:8]) != binary.BigEndian.Uint32(head[8:]) {
				return nil, false
			}
		default:
			return nil, false
		}
		break
	}
	last := idat[len(idat)-1]
	data, ok := readChunk(f, last, nil)
	if !ok || len(data) != 4 {
		return nil, false
	}
	l.segs, l.adler = idat[:len(idat)-1], binary.BigEndian.Uint32(data)
	return l, true
}

// readChunk reads chunk c's data into buf (grown as needed), checking its CRC.
func readChunk(f *os.File, c idatChunk, buf []byte) ([]byte, bool) {
	n := 8 + int(c.n) + 4
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.ReadAt(buf, c.off); err != nil {
		return nil, false
	}
	body := buf[4 : 8+c.n]
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(buf[8+c.n:]) {
		return nil, false
	}
	return buf[8 : 8+c.n], true
}

// segScratch is one goroutine's buffers for decoding a segment.
type segScratch struct {
	chunk, in, out []byte
	br             bytes.Reader
	fr             io.ReadCloser
}

// segment decodes segment k: its rows unfiltered into out (4·w bytes each), the number of rows,
// and the Adler-32 of its decompressed (filtered) bytes.
func (l *pngLayout) segment(k, maxRows int, sc *segScratch) (pix []byte, rows int, adler uint32, ok bool) {
	data, ok := readChunk(l.f, l.segs[k], sc.chunk)
	if !ok {
		return nil, 0, 0, false
	}
	sc.chunk = data[:cap(data)]
	if k == 0 { // the zlib header: deflate, no preset dictionary
		if len(data) < 2 || data[0]&0x0f != 8 || data[1]&0x20 != 0 || (int(data[0])<<8|int(data[1]))%31 != 0 {
			return nil, 0, 0, false
		}
		data = data[2:]
	}
	in := data
	if k < len(l.segs)-1 {
		if !bytes.HasSuffix(data, syncFlush) {
			return nil, 0, 0, false
		}
		in = append(append(sc.in[:0], data...), endBlock...)
		sc.in = in
	}
	sc.br.Reset(in)
	if sc.fr == nil {
		sc.fr = flate.NewReader(&sc.br)
	} else if err := sc.fr.(flate.Resetter).Reset(&sc.br, nil); err != nil {
		return nil, 0, 0, false
	}
	stride := 1 + 4*l.w
	limit := maxRows*stride + 1
	out := sc.out[:0]
	for {
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)]
		}
		n, err := sc.fr.Read(out[len(out):min(cap(out), limit)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil || len(out) >= limit {
			return nil, 0, 0, false
		}
	}
	sc.out = out
	// The stream ended exactly at the end of the input (a ByteReader: flate reads no further).
	if sc.br.Len() != 0 || len(out) == 0 || len(out)%stride != 0 {
		return nil, 0, 0, false
	}
	rows = len(out) / stride
	adler = adler32.Checksum(out)
	// Unfilter in place, dropping the filter bytes: row r moves to r·4w, ahead of where it is
	// read (r·stride+1), so each byte is read before anything is written over it.
	w4 := 4 * l.w
	for r := range rows {
		f := out[r*stride]
		if (r == 0) != (f == 0) || (r > 0 && f != 2) {
			return nil, 0, 0, false
		}
		src := out[r*stride+1 : (r+1)*stride]
		cur := out[r*w4 : (r+1)*w4]
		if r == 0 {
			copy(cur, src)
			continue
		}
		prev := out[(r-1)*w4 : r*w4]
		for i := range cur {
			cur[i] = src[i] + prev[i]
		}
	}
	return out[:rows*w4], rows, adler, true
}

// segmentedControls checks the control textures laid out by encodeRGBA8 (layouts, one per
// control, of one size w×h) on every core: every segment decoded, the weights of the layers kept
// by keep summing to 255 at every texel. It returns false when a payload is not so laid out or
// does not decode (the caller then decodes in order and says why), and otherwise the texels that
// do not sum (how many, the first in row order and its sum).
func segmentedControls(ls []*pngLayout, keep []uint32, w, h int) (bad int, firstX, firstY, firstSum int, ok bool) {
	n := len(ls[0].segs)
	for _, l := range ls {
		if len(l.segs) != n {
			return 0, 0, 0, 0, false
		}
	}
	type result struct {
		rows        int
		adler       []uint32
		bad, fx, fy int
		fsum        int
		ok          bool
	}
	res := make([]result, n)
	var scratch sync.Pool
	pool.Each(context.Background(), n, 0, func(k int) {
		scs, _ := scratch.Get().([]*segScratch)
		if scs == nil {
			for range ls {
				scs = append(scs, &segScratch{})
			}
		}
		defer scratch.Put(scs)
		r := result{adler: make([]uint32, len(ls))}
		pix := make([][]byte, len(ls))
		for i, l := range ls {
			p, rows, a, ok := l.segment(k, h, scs[i])
			if !ok || (i > 0 && rows != r.rows) {
				return
			}
			pix[i], r.rows, r.adler[i] = p, rows, a
		}
		row := make([][]byte, len(ls))
		for y := range r.rows {
			for i := range ls {
				row[i] = pix[i][y*4*w : (y+1)*4*w]
			}
			if nb, x := badTexels(row, keep, w); nb > 0 {
				if r.bad == 0 {
					r.fx, r.fy = x, y
					for _, p := range row {
						for _, b := range p[4*x : 4*x+4] {
							r.fsum += int(b)
						}
					}
				}
				r.bad += nb
			}
		}
		r.ok = true
		res[k] = r
	}, nil)
	y := 0
	sums := make([]uint32, len(ls))
	for i := range sums {
		sums[i] = 1
	}
	bad, firstY = 0, -1
	for _, r := range res {
		if !r.ok {
			return 0, 0, 0, 0, false
		}
		for i := range ls {
			sums[i] = adler32Combine(sums[i], r.adler[i], int64(r.rows)*int64(1+4*w))
		}
		if r.bad > 0 && bad == 0 {
			firstX, firstY, firstSum = r.fx, y+r.fy, r.fsum
		}
		bad += r.bad
		y += r.rows
	}
	if y != h {
		return 0, 0, 0, 0, false
	}
	for i, l := range ls {
		if sums[i] != l.adler {
			return 0, 0, 0, 0, false
		}
	}
	return bad, firstX, firstY, firstSum, true
}

// controlsSegmented is controls' path for the payloads a save just wrote (Prevalidate): the
// streams' files decoded on every core when each is laid out by encodeRGBA8. It says whether it
// settled them; false leaves them to the decoding in order.
func (v *validator) controlsSegmented(c *Container, streams []*Stream, keep []uint32, layers int, got map[string]TextureInfo) bool {
	w, h := streams[0].Info.Width, streams[0].Info.Height
	ls := make([]*pngLayout, len(streams))
	for i, s := range streams {
		l, ok := segmentedPNG(s.f, s.size, w, h)
		if !ok {
			return false
		}
		ls[i] = l
	}
	bad, x, y, sum, ok := segmentedControls(ls, keep, w, h)
	if !ok {
		return false
	}
	for _, s := range streams {
		got[s.field] = s.Info
	}
	if bad > 0 {
		v.add(streams[0].File, "controls", "%d texel(s) whose layer weights do not sum to 255 (or that weigh channels no layer uses), first at (%d,%d): %d", bad, x, y, sum)
		return true
	}
	return v.recordControls(c, streams, layers)
}
