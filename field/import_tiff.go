package field

import (
	"bufio"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"golang.org/x/image/tiff"
	"golang.org/x/image/tiff/lzw"
)

// Streaming TIFF import. A TIFF is routed as it always was (decodeTIFF's checks, in its order);
// then a 32-bit float TIFF is read strictly (uncompressed strips) in bands of rows on every core,
// straight into the grid where the byte order allows, and an 8/16-bit grayscale TIFF is decoded
// strip by strip (or tile by tile) on every core, each block's rows streamed from its
// decompressor through a band buffer into the grid. The integer decoder accepts exactly what
// x/image/tiff accepted and gives the same codes: its header checks are x/image/tiff's own
// (DecodeConfig), its layout rules (tiles, strips, offsets) and per-block checks (sizes, "not
// enough pixel data", decompression errors up to the same limit) are written here the way
// x/image/tiff applies them (TestStreamMatchesOldPath, FuzzImportTIFF's corpus).

// newTIFFSource reads a TIFF's first directory and refuses, with decodeTIFF's messages, what the
// import does not read.
func newTIFFSource(r io.ReaderAt, size int64, role string) (source, error) {
	d, err := parseTIFFAt(r, size)
	if err != nil {
		return nil, err
	}
	float, err := d.readable(role)
	if err != nil {
		return nil, err
	}
	if float {
		return newFloatTIFF(r, size, d)
	}
	if err := checkBacked(d.w, d.h, d.bps/8, int(size), lzwRatio); err != nil {
		return nil, fmt.Errorf("TIFF %w", err)
	}
	if _, err := tiff.DecodeConfig(io.NewSectionReader(r, 0, size)); err != nil {
		return nil, fmt.Errorf("decoding TIFF: %w", err)
	}
	t, err := newIntTIFF(r, size, d)
	if err != nil {
		return nil, fmt.Errorf("decoding TIFF: %w", err)
	}
	return t, nil
}

// floatTIFF is a one-channel 32-bit float TIFF in uncompressed strips — what GDAL, World Machine
// and Gaea write for float heightmaps — read in bands of rows of at most rawBandBytes.
type floatTIFF struct {
	r        io.ReaderAt
	order    binary.ByteOrder
	w, h     int
	rps      int
	bandRows int
	bands    []tiffBand
}

// tiffBand is rows [j0, j1) of the grid, stored from byte off of the file.
type tiffBand struct {
	j0, j1 int
	off    int64
}

// newFloatTIFF checks what readFloatTIFF checks, with its messages, strip by strip in order.
func newFloatTIFF(r io.ReaderAt, size int64, d *tiffIFD) (*floatTIFF, error) {
	if c := d.get(tagCompression, 1); c != 1 {
		return nil, fmt.Errorf("compressed float TIFF (compression %d): save it uncompressed", c)
	}
	if p := d.get(tagPredictor, 1); p != 1 {
		return nil, fmt.Errorf("float TIFF with predictor %d: save it without a predictor", p)
	}
	if _, tiled := d.tags[tagTileWidth]; tiled {
		return nil, errors.New("tiled float TIFF: save it in strips")
	}
	if err := checkBacked(d.w, d.h, 4, int(size), 1); err != nil {
		return nil, fmt.Errorf("float TIFF %w", err)
	}
	rps := d.get(tagRowsPerStrip, d.h)
	if rps <= 0 || rps > d.h {
		rps = d.h
	}
	offsets, counts := d.tags[tagStripOffsets], d.tags[tagStripBytes]
	nStrips := (d.h + rps - 1) / rps
	if len(offsets) < nStrips {
		return nil, fmt.Errorf("float TIFF has %d strip offsets for %d strips", len(offsets), nStrips)
	}
	rowBytes := d.w * 4
	bandRows := max(1, min(d.h, rawBandBytes/rowBytes))
	t := &floatTIFF{r: r, order: d.order, w: d.w, h: d.h, rps: rps, bandRows: bandRows}
	for s := range nStrips {
		rows := min(rps, d.h-s*rps)
		need := rows * rowBytes
		off := offsets[s]
		if s < len(counts) && counts[s] < need {
			return nil, fmt.Errorf("float TIFF strip %d holds %d bytes, want %d", s, counts[s], need)
		}
		if off < 0 || int64(off) > size || int64(need) > size-int64(off) {
			return nil, fmt.Errorf("float TIFF strip %d (%d bytes at %d) runs past the end of the %d-byte file", s, need, off, size)
		}
		for j := 0; j < rows; j += bandRows {
			t.bands = append(t.bands, tiffBand{j0: s*rps + j, j1: s*rps + min(rows, j+bandRows), off: int64(off) + int64(j*rowBytes)})
		}
	}
	return t, nil
}

func (t *floatTIFF) dims() (int, int) { return t.w, t.h }
func (t *floatTIFF) kind() string     { return "32-bit float TIFF" }
func (t *floatTIFF) rows() int        { return t.h }
func (t *floatTIFF) maxCode() int     { return 0 }

func (t *floatTIFF) memory() (uint64, string) {
	var buf uint64
	if t.order != binary.LittleEndian || !isLittleEndian {
		buf = uint64(workerCount(len(t.bands))) * uint64(4*t.w*t.bandRows)
	}
	return buf, fmt.Sprintf("decoding a %d×%d 32-bit float TIFF", t.w, t.h)
}

func (t *floatTIFF) decode(ctx context.Context, out *gridOut, p *progress) error {
	direct := t.order == binary.LittleEndian && isLittleEndian
	bufs := make([][]byte, workerCount(len(t.bands)))
	return eachTask(ctx, len(t.bands), func(worker, k int) error {
		b := t.bands[k]
		dst := out.g.Data[b.j0*t.w : b.j1*t.w]
		st := newStats()
		if direct {
			view := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst))
			if _, err := t.r.ReadAt(view, b.off); err != nil {
				return fmt.Errorf("reading float TIFF rows %d…%d: %w", b.j0, b.j1-1, eofUnexpected(err))
			}
			st.floats(dst, b.j0*t.w)
		} else {
			if bufs[worker] == nil {
				bufs[worker] = make([]byte, 4*t.w*t.bandRows)
			}
			buf := bufs[worker][:4*len(dst)]
			if _, err := t.r.ReadAt(buf, b.off); err != nil {
				return fmt.Errorf("reading float TIFF rows %d…%d: %w", b.j0, b.j1-1, eofUnexpected(err))
			}
			st.floats32(dst, buf, t.order, b.j0*t.w)
		}
		out.add(st, b.j1-b.j0)
		out.rowsDone(b.j0, b.j1)
		p.add(b.j1 - b.j0)
		return nil
	})
}

// x/image/tiff's tag numbers and values the integer decoder needs beyond tiff.go's.
const (
	tagTileLength   = 323
	tagTileOffsets  = 324
	tagTileBytes    = 325
	tiffNone        = 1
	tiffLZW         = 5
	tiffDeflate     = 8
	tiffDeflateOld  = 32946
	tiffPackBits    = 32773
	tiffG3, tiffG4  = 3, 4
	tiffMaxPixBytes = 8 // x/image/tiff's bound on a pixel's bytes, which sizes its block limit
)

// tiffBandBytes is about what the band of rows a worker streams a block through holds (a
// variable so tests can cut small files into many bands).
var tiffBandBytes = 256 << 10

// intTIFF is an 8/16-bit grayscale TIFF laid out the way x/image/tiff lays it out.
type intTIFF struct {
	r                    io.ReaderAt
	size                 int64
	order                binary.ByteOrder
	w, h, bps            int
	invert, predictor    bool
	compression          uint
	blockW, blockH       int
	across, down         int
	padding              bool
	offsets, counts      []uint
	bandRows, maxRowSize int
}

// tiffField is x/image/tiff's ifdUint: the values of a BYTE, SHORT or LONG entry, at most
// maxCount of them, with its errors.
func tiffField(r io.ReaderAt, order binary.ByteOrder, p []byte, maxCount int) ([]uint, error) {
	lengths := [...]uint32{0, 1, 1, 2, 4, 8}
	dt := order.Uint16(p[2:4])
	if dt == 0 || int(dt) >= len(lengths) {
		return nil, errors.New("tiff: unsupported feature: IFD entry datatype")
	}
	count := order.Uint32(p[4:8])
	if count > math.MaxInt32/lengths[dt] {
		return nil, errors.New("tiff: invalid format: IFD data too large")
	}
	n := min(int(count), maxCount)
	raw := p[8:min(12, 8+lengths[dt]*count)] // within the entry when its values fit there
	if lengths[dt]*count > 4 {
		raw = make([]byte, uint64(lengths[dt])*uint64(n))
		if _, err := r.ReadAt(raw, int64(order.Uint32(p[8:12]))); err != nil && !(err == io.EOF && n == 0) {
			return nil, err
		}
	}
	if dt != 1 && dt != 3 && dt != 4 {
		return nil, errors.New("tiff: unsupported feature: data type")
	}
	u := make([]uint, n)
	for i := range u {
		switch dt {
		case 1:
			u[i] = uint(raw[i])
		case 3:
			u[i] = uint(order.Uint16(raw[2*i:]))
		case 4:
			u[i] = uint(order.Uint32(raw[4*i:]))
		}
	}
	return u, nil
}

// newIntTIFF reads the layout of a TIFF x/image/tiff's DecodeConfig has accepted: the features
// it reads (first values) and the strip or tile offsets, as its Decode does before any pixel.
func newIntTIFF(r io.ReaderAt, size int64, d *tiffIFD) (*intTIFF, error) {
	var hdr [8]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, eofUnexpected(err)
	}
	t := &intTIFF{r: r, size: size, order: binary.LittleEndian}
	if string(hdr[:4]) == "MM\x00*" {
		t.order = binary.BigEndian
	}
	ifd := int64(t.order.Uint32(hdr[4:]))
	var nb [2]byte
	if _, err := r.ReadAt(nb[:], ifd); err != nil {
		return nil, eofUnexpected(err)
	}
	dir := make([]byte, 12*int(t.order.Uint16(nb[:])))
	if _, err := r.ReadAt(dir, ifd+2); err != nil && len(dir) > 0 {
		return nil, eofUnexpected(err)
	}
	first := map[uint16]uint{}
	entries := map[uint16][]byte{}
	for e := 0; e < len(dir); e += 12 {
		p := dir[e : e+12]
		switch tag := t.order.Uint16(p); tag {
		case tagWidth, tagHeight, tagBitsPer, tagCompression, tagPhotometric, tagPredictor, tagRowsPerStrip, tagTileWidth, tagTileLength:
			v, err := tiffField(r, t.order, p, 16)
			if err != nil {
				return nil, err
			}
			if len(v) > 0 {
				first[tag] = v[0]
			} else {
				first[tag] = 0
			}
		case tagStripOffsets, tagStripBytes, tagTileOffsets, tagTileBytes:
			entries[tag] = p
		}
	}
	t.w, t.h, t.bps = int(first[tagWidth]), int(first[tagHeight]), int(first[tagBitsPer])
	t.invert = first[tagPhotometric] == 0 // WhiteIsZero, x/image/tiff's default
	t.predictor = first[tagPredictor] == 2
	t.compression = first[tagCompression]
	if t.bps != d.bps || t.w != d.w || t.h != d.h {
		return nil, fmt.Errorf("TIFF directory read two ways: %d-bit %d×%d and %d-bit %d×%d", t.bps, t.w, t.h, d.bps, d.w, d.h)
	}
	t.blockW, t.blockH, t.across, t.down = t.w, t.h, 1, 1
	offTag, cntTag := uint16(tagStripOffsets), uint16(tagStripBytes)
	if first[tagTileWidth] != 0 {
		t.padding = true
		t.blockW, t.blockH = int(first[tagTileWidth]), int(first[tagTileLength])
		if t.blockW < 8 || t.blockH < 8 {
			return nil, errors.New("tiff: invalid format: tile size is too small")
		}
		if hi, lo := bits.Mul64(uint64(t.blockW), uint64(t.blockH)); hi != 0 || lo > math.MaxInt64/tiffMaxPixBytes {
			return nil, errors.New("tiff: invalid format: tile size is too large")
		}
		if (t.blockW-t.w > 16 || t.blockH-t.h > 16) && (t.blockW > 1024 || t.blockH > 1024) {
			return nil, errors.New("tiff: invalid format: tile size exceeds image size")
		}
		t.across, t.down = (t.w+t.blockW-1)/t.blockW, (t.h+t.blockH-1)/t.blockH
		offTag, cntTag = tagTileOffsets, tagTileBytes
	} else {
		if v := first[tagRowsPerStrip]; v > 0 && v < uint(t.blockH) {
			t.blockH = int(v)
		}
		t.down = (t.h + t.blockH - 1) / t.blockH
	}
	n := t.across * t.down
	for _, f := range []struct {
		tag uint16
		dst *[]uint
	}{{offTag, &t.offsets}, {cntTag, &t.counts}} {
		if p, ok := entries[f.tag]; ok {
			v, err := tiffField(r, t.order, p, n)
			if err != nil {
				return nil, err
			}
			*f.dst = v
		}
	}
	if len(t.offsets) < n || len(t.counts) < n {
		return nil, errors.New("tiff: invalid format: inconsistent header")
	}
	switch t.compression {
	case 0, tiffNone, tiffLZW, tiffDeflate, tiffDeflateOld, tiffPackBits:
	case tiffG3, tiffG4:
		return nil, fmt.Errorf("%d-bit TIFF in CCITT fax compression, which holds 1-bit images: save it uncompressed, LZW or deflate", t.bps)
	default:
		return nil, fmt.Errorf("tiff: unsupported feature: compression value %d", t.compression)
	}
	t.maxRowSize = t.blockW * t.bps / 8
	t.bandRows = max(1, min(t.blockH, tiffBandBytes/t.maxRowSize))
	return t, nil
}

func (t *intTIFF) dims() (int, int) { return t.w, t.h }
func (t *intTIFF) kind() string     { return fmt.Sprintf("%d-bit grayscale TIFF", t.bps) }
func (t *intTIFF) rows() int        { return t.h * t.across } // a tiled TIFF counts each tile's rows
func (t *intTIFF) maxCode() int     { return 1<<t.bps - 1 }

func (t *intTIFF) memory() (uint64, string) {
	// a band buffer and a decompressor (zlib's window, LZW's table, their read buffers) per worker
	per := uint64(t.bandRows*t.maxRowSize) + 96<<10
	return uint64(workerCount(t.across*t.down)) * per, fmt.Sprintf("decoding a %d×%d %s", t.w, t.h, t.kind())
}

var errTIFFPixels = errors.New("tiff: invalid format: not enough pixel data")

func (t *intTIFF) decode(ctx context.Context, out *gridOut, p *progress) error {
	bufs := make([][]byte, workerCount(t.across*t.down))
	// A tile's rows are complete once every tile across them is decoded (a strip reports its
	// bands as it goes, in block).
	var tiles []atomic.Int32
	if t.padding {
		tiles = make([]atomic.Int32, t.down)
	}
	return eachTask(ctx, t.across*t.down, func(worker, k int) error {
		if bufs[worker] == nil {
			bufs[worker] = make([]byte, t.bandRows*t.maxRowSize)
		}
		i, j := k%t.across, k/t.across
		err := t.block(ctx, i, j, bufs[worker], out, p)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("decoding TIFF: %s %d: %w", map[bool]string{false: "strip", true: "tile"}[t.padding], k, err)
		}
		if t.padding && int(tiles[j].Add(1)) == t.across {
			out.rowsDone(j*t.blockH, min((j+1)*t.blockH, t.h))
		}
		return nil
	})
}

// block decodes block (i, j) into the grid, telling p as each band of rows is done.
func (t *intTIFF) block(ctx context.Context, i, j int, buf []byte, out *gridOut, p *progress) error {
	blkW, blkH := t.blockW, t.blockH
	if !t.padding && i == t.across-1 && t.w%t.blockW != 0 {
		blkW = t.w % t.blockW
	}
	if !t.padding && j == t.down-1 && t.h%t.blockH != 0 {
		blkH = t.h % t.blockH
	}
	xmin, ymin := i*t.blockW, j*t.blockH
	rMaxX, rMaxY := min(xmin+blkW, t.w), min(ymin+blkH, t.h)
	bpp := t.bps / 8
	rowBytes := blkW * bpp
	// What x/image/tiff's decode reads of the block's bytes: every row of the block when a
	// predictor runs over it, else through the last pixel inside the image.
	need := (rMaxY-1-ymin)*rowBytes + (rMaxX-xmin)*bpp
	if t.predictor && blkW > 1 {
		need = blkH * rowBytes
	}
	src, drain, err := t.open(j*t.across + i)
	if err != nil {
		return err
	}
	if t.compression != 0 && t.compression != tiffNone && t.across*t.down < workerCount(math.MaxInt) {
		// Fewer blocks than cores (x/image/tiff writes one strip): decompress on a goroutine of
		// its own, a few chunks ahead of the rows being converted here.
		a := readAhead(src)
		defer a.close()
		src = a
		drain = func() error { _, err := io.Copy(io.Discard, a); return err }
	}
	st := newStats()
	be := t.order == binary.BigEndian
	band := max(1, len(buf)/rowBytes)
	for r0 := 0; r0*rowBytes < need; r0 += band {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(need-r0*rowBytes, band*rowBytes)
		b := buf[:n]
		if _, err := io.ReadFull(src, b); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return errTIFFPixels
			}
			return err
		}
		r := 0
		for ; r*rowBytes < n && ymin+r0+r < rMaxY; r++ {
			row := b[r*rowBytes : min(n, (r+1)*rowBytes)]
			if t.predictor {
				unpredict(row, bpp, be)
			}
			y := ymin + r0 + r
			dst := out.g.Data[y*t.w+xmin : y*t.w+rMaxX]
			if bpp == 2 {
				st.codes16(dst, row, be, t.invert, out.lut)
			} else {
				st.codes8(dst, row, t.invert, out.lut)
			}
		}
		if !t.padding {
			out.rowsDone(ymin+r0, ymin+r0+r) // a strip's rows are whole: complete
		}
		p.add(r)
	}
	if err := drain(); err != nil {
		return err
	}
	out.add(st, rMaxY-ymin)
	return nil
}

// unpredict undoes TIFF's horizontal differencing on one row of one-sample pixels, the running
// sum kept in a register (each pixel is the one before it plus its difference).
func unpredict(row []byte, bpp int, be bool) {
	switch {
	case bpp == 1:
		var v byte
		for x, d := range row {
			v += d
			row[x] = v
		}
	case be:
		var v uint16
		for x := 0; x+1 < len(row); x += 2 {
			v += binary.BigEndian.Uint16(row[x:])
			binary.BigEndian.PutUint16(row[x:], v)
		}
	default:
		var v uint16
		for x := 0; x+1 < len(row); x += 2 {
			v += binary.LittleEndian.Uint16(row[x:])
			binary.LittleEndian.PutUint16(row[x:], v)
		}
	}
}

// open returns block k's decompressed bytes and a drain that reads the rest of them, up to the
// limit x/image/tiff reads, and reports the decompressor's error the way x/image/tiff would have
// met it.
func (t *intTIFF) open(k int) (io.Reader, func() error, error) {
	off, n := int64(t.offsets[k]), int64(t.counts[k])
	lim := int64(t.blockW) * int64(t.blockH) * tiffMaxPixBytes
	sec := io.NewSectionReader(t.r, off, n)
	none := func() error { return nil }
	switch t.compression {
	case 0, tiffNone:
		if n > lim {
			return nil, nil, errors.New("tiff: invalid format: block data size too large")
		}
		if n > 0 && (off > t.size || n > t.size-off) {
			return nil, nil, io.ErrUnexpectedEOF
		}
		return sec, none, nil
	case tiffLZW:
		return limited(lzw.NewReader(sec, lzw.MSB, 8), lim)
	case tiffDeflate, tiffDeflateOld:
		z, err := zlib.NewReader(sec)
		if err != nil {
			return nil, nil, err
		}
		return limited(z, lim)
	case tiffPackBits:
		pb := &packBits{br: bufio.NewReader(sec), lim: lim}
		return pb, func() error { _, err := io.Copy(io.Discard, pb); return err }, nil
	}
	return nil, nil, fmt.Errorf("tiff: unsupported feature: compression value %d", t.compression)
}

// limited reads at most lim bytes of r; its drain reads what is left of them.
func limited(r io.Reader, lim int64) (io.Reader, func() error, error) {
	l := io.LimitReader(r, lim)
	return l, func() error { _, err := io.Copy(io.Discard, l); return err }, nil
}

// aheadReader reads a stream on a goroutine of its own, up to aheadChunks chunks ahead of its
// reader, and hands on the stream's bytes and then its error exactly as the stream gave them.
type aheadReader struct {
	full  chan aheadChunk
	free  chan []byte
	stop  chan struct{}
	done  chan struct{}
	cur   aheadChunk
	ended bool
}

type aheadChunk struct {
	buf []byte // the whole buffer, handed back when read
	b   []byte // what is left to read of it
	err error  // the stream's error after b (io.EOF at its end)
}

const (
	aheadChunks    = 3
	aheadChunkSize = 256 << 10
)

func readAhead(r io.Reader) *aheadReader {
	a := &aheadReader{full: make(chan aheadChunk, aheadChunks), free: make(chan []byte, aheadChunks), stop: make(chan struct{}), done: make(chan struct{})}
	for range aheadChunks {
		a.free <- make([]byte, aheadChunkSize)
	}
	go func() {
		defer close(a.done)
		defer close(a.full)
		for {
			var b []byte
			select {
			case b = <-a.free:
			case <-a.stop:
				return
			}
			n := 0
			var err error
			for n < len(b) && err == nil {
				var k int
				k, err = r.Read(b[n:])
				n += k
			}
			a.full <- aheadChunk{b, b[:n], err}
			if err != nil {
				return
			}
		}
	}()
	return a
}

func (a *aheadReader) Read(p []byte) (int, error) {
	for len(a.cur.b) == 0 {
		if a.cur.err != nil {
			return 0, a.cur.err
		}
		if a.cur.buf != nil {
			a.free <- a.cur.buf
			a.cur.buf = nil
		}
		c, ok := <-a.full
		if !ok {
			return 0, io.EOF
		}
		a.cur = c
	}
	n := copy(p, a.cur.b)
	a.cur.b = a.cur.b[n:]
	return n, nil
}

// close stops the goroutine and waits for it.
func (a *aheadReader) close() {
	close(a.stop)
	for range a.full {
	}
	<-a.done
}

// packBits streams TIFF PackBits data as x/image/tiff's unpackBits decodes it whole: a run cut
// short is an error, and so is more than lim bytes of output.
type packBits struct {
	br      *bufio.Reader
	lim, n  int64
	pending []byte
	buf     [128]byte
}

func (p *packBits) Read(b []byte) (int, error) {
	for len(p.pending) == 0 {
		c, err := p.br.ReadByte()
		if err != nil {
			return 0, err // io.EOF: the data ends here
		}
		code := int(int8(c))
		switch {
		case code >= 0:
			if _, err := io.ReadFull(p.br, p.buf[:code+1]); err != nil {
				return 0, eofUnexpected(err)
			}
			p.pending = p.buf[:code+1]
		case code == -128:
		default:
			v, err := p.br.ReadByte()
			if err != nil {
				return 0, eofUnexpected(err)
			}
			for k := range 1 - code {
				p.buf[k] = v
			}
			p.pending = p.buf[:1-code]
		}
		if p.n += int64(len(p.pending)); p.n > p.lim {
			return 0, errors.New("tiff: invalid format: PackBits: decompressed data too large")
		}
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}
