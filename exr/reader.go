package exr

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Reader decodes a file block by block, so a validator or an exporter can walk an 8192² float
// payload holding only sixteen scanlines of it (Next), or a few per core (Blocks). Blocks are read in file order, which for files
// written by Strata and by the OpenEXR library is the order of the line offset table; each block
// names its own rows, so decreasing or random line order is handled too.
type Reader struct {
	h        *Header
	r        *countingReader
	names    []string // canonical order
	fileIdx  []int    // canonical channel k is file channel fileIdx[k]
	left     int      // blocks still to read
	done     []bool   // per block: already read
	raw, buf []byte
	rows     [][]float32
	dec      blockDecoder
}

// NewReader reads the header and the line offset table.
func NewReader(r io.Reader) (*Reader, error) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 1<<16)}
	h, err := readHeader(cr)
	if err != nil {
		return nil, err
	}
	n := h.chunkCount()
	// The offset table is skipped rather than stored: blocks are read in file order. Reading it
	// through bounds the declared height by the file's real size before anything is allocated.
	if _, err := io.CopyN(io.Discard, cr, int64(n)*8); err != nil {
		return nil, formatErr("truncated line offset table (%d blocks for %d scanlines)", n, h.Height)
	}
	rd := &Reader{h: h, r: cr, left: n, done: make([]bool, n)}
	names := make([]string, len(h.Channels))
	for i, c := range h.Channels {
		names[i] = c.Name
	}
	rd.names = canonicalOrder(names)
	for _, want := range rd.names {
		for i, n := range names {
			if n == want {
				rd.fileIdx = append(rd.fileIdx, i)
			}
		}
	}
	return rd, nil
}

// Header returns the file's header.
func (r *Reader) Header() Header { return *r.h }

// Channels returns the channel names in the order Next fills rows: R, G, B, A, then the rest.
func (r *Reader) Channels() []string { return append([]string(nil), r.names...) }

// Next decodes the next block. It returns the first row (0-based, in Image coordinates), the
// number of rows, and one slice of rows*Width values per channel (Channels order). The slices
// are reused by the following call. At the end it returns io.EOF.
func (r *Reader) Next() (y0, n int, rows [][]float32, err error) {
	row, n, packed, err := r.readNext(&r.buf)
	if err != nil {
		return 0, 0, nil, err
	}
	rows, err = r.decode(row, n, packed, &r.raw, &r.rows, &r.dec)
	return row, n, rows, err
}

// Blocks decodes every block not read yet, on workers goroutines (≤ 0: every core): the file is
// read in order, one block at a time, and the blocks are decompressed and converted at once.
// fn receives each block as Next returns it, from several goroutines at once and in no particular
// order; its rows are the calling goroutine's own until fn returns. The first error stops it.
func (r *Reader) Blocks(ctx context.Context, workers int, fn func(y0, n int, rows [][]float32) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		mu      sync.Mutex // the file: one block read at a time
		errOnce sync.Once
		first   error
		failed  atomic.Bool
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { first = err })
		failed.Store(true)
	}
	for range min(workers, max(r.left, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf, raw []byte
			var rows [][]float32
			var dec blockDecoder
			for !failed.Load() {
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				mu.Lock()
				row, n, packed, err := r.readNext(&buf)
				mu.Unlock()
				if err == io.EOF {
					return
				}
				if err == nil {
					var out [][]float32
					if out, err = r.decode(row, n, packed, &raw, &rows, &dec); err == nil {
						err = fn(row, n, out)
					}
				}
				if err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// readNext reads the next block's header and stored bytes (into *buf when small). It returns the
// block's first row, its row count and the stored bytes, or io.EOF after the last block.
func (r *Reader) readNext(buf *[]byte) (row, n int, packed []byte, err error) {
	if r.left == 0 {
		return 0, 0, nil, io.EOF
	}
	h := r.h
	var pre [8]byte
	if err := readFull(r.r, pre[:], "block header"); err != nil {
		return 0, 0, nil, err
	}
	y := int64(int32(binary.LittleEndian.Uint32(pre[0:])))
	size := int64(int32(binary.LittleEndian.Uint32(pre[4:])))
	lines := h.Compression.linesPerBlock()
	rel := y - int64(h.MinY)
	if rel < 0 || rel >= int64(h.Height) || rel%int64(lines) != 0 {
		return 0, 0, nil, formatErr("block at scanline %d is outside the data window or misaligned", y)
	}
	blk := int(rel) / lines
	if r.done[blk] {
		return 0, 0, nil, formatErr("block at scanline %d appears twice", y)
	}
	r.done[blk] = true
	r.left--
	n = min(lines, h.Height-int(rel))
	rawSize := n * h.bytesPerLine()
	if size <= 0 || size > int64(rawSize) || (h.Compression == None && size != int64(rawSize)) {
		return 0, 0, nil, formatErr("block at scanline %d has size %d for %d raw bytes", y, size, rawSize)
	}
	if ratio := int64(h.Compression.maxRatio()); int64(rawSize) > size*ratio+(1<<16) {
		return 0, 0, nil, formatErr("block at scanline %d: %d bytes cannot expand to %d", y, size, rawSize)
	}
	packed, err = r.readPacked(size, buf)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("%w (block at scanline %d)", err, y)
	}
	return int(rel), n, packed, nil
}

// decode decompresses a block's stored bytes (into *rawBuf, with dec) and converts them into rows
// (*rowsBuf, reused), one slice per channel in Channels order.
func (r *Reader) decode(row, n int, packed []byte, rawBuf *[]byte, rowsBuf *[][]float32, dec *blockDecoder) ([][]float32, error) {
	h := r.h
	y := row + h.MinY
	rawSize := n * h.bytesPerLine()
	raw := packed
	if len(packed) < rawSize {
		if cap(*rawBuf) < rawSize {
			*rawBuf = make([]byte, rawSize)
		}
		raw = (*rawBuf)[:rawSize]
		var err error
		switch h.Compression {
		case ZIP, ZIPS:
			err = dec.unzip(raw, packed)
		case RLE:
			err = unrleBlock(raw, packed)
		}
		if err != nil {
			return nil, fmt.Errorf("%w (block at scanline %d)", err, y)
		}
	}
	if *rowsBuf == nil {
		*rowsBuf = make([][]float32, len(r.names))
	}
	rows := *rowsBuf
	for k := range rows {
		if cap(rows[k]) < n*h.Width {
			rows[k] = make([]float32, n*h.Width)
		}
		rows[k] = rows[k][:n*h.Width]
	}
	// Within a block: for each scanline, each channel (file order), Width values.
	off := 0
	for l := 0; l < n; l++ {
		for fi, c := range h.Channels {
			k := r.canonical(fi)
			dst := rows[k][l*h.Width : (l+1)*h.Width]
			switch c.Type {
			case Float:
				for x := range dst {
					dst[x] = math.Float32frombits(binary.LittleEndian.Uint32(raw[off:]))
					off += 4
				}
			case Half:
				for x := range dst {
					dst[x] = halfToFloat(binary.LittleEndian.Uint16(raw[off:]))
					off += 2
				}
			case Uint:
				for x := range dst {
					dst[x] = float32(binary.LittleEndian.Uint32(raw[off:]))
					off += 4
				}
			}
		}
	}
	return rows, nil
}

// readPacked reads a block's stored bytes into *buf (grown when needed, kept for the next block).
// A large claimed size that *buf cannot hold yet is read through a growing buffer, so a corrupt
// size field costs what the file really holds, not what it claims.
func (r *Reader) readPacked(size int64, buf *[]byte) ([]byte, error) {
	if int64(cap(*buf)) >= size || size <= 1<<20 {
		if int64(cap(*buf)) < size {
			*buf = make([]byte, size)
		}
		b := (*buf)[:size]
		return b, readFull(r.r, b, "block")
	}
	bb := bytes.NewBuffer((*buf)[:0])
	if _, err := io.Copy(bb, io.LimitReader(r.r, size)); err != nil {
		return nil, fmt.Errorf("exr: reading block: %w", err)
	}
	if int64(bb.Len()) != size {
		return nil, formatErr("truncated file reading block")
	}
	*buf = bb.Bytes()
	return *buf, nil
}

func (r *Reader) canonical(fileIndex int) int {
	for k, f := range r.fileIdx {
		if f == fileIndex {
			return k
		}
	}
	return 0 // unreachable: fileIdx is a permutation
}

// maxSamples caps what Decode allocates: 2³⁰ values (4 GiB) is far above any payload Strata
// writes (8192² × 4 channels is 2²⁸).
const maxSamples = 1 << 30

// maxStreamBytes bounds what Decode holds of a reader it cannot seek: maxSamples FLOAT values
// stored uncompressed, plus room for headers and offset tables.
const maxStreamBytes = 4*maxSamples + 1<<24

// Decode reads a whole image. Before allocating it checks the declared size against the bytes
// the file can hold (when r is an io.Seeker, as files are), so a corrupt header claiming a huge
// window fails with an error instead of exhausting memory.
func Decode(r io.Reader) (*Image, error) {
	var remaining int64 = -1
	if _, ok := r.(io.Seeker); !ok {
		// Without a size to check the header against, hold the file: its length bounds what a
		// lying header can make Decode allocate. The file itself is bounded by the largest image
		// Decode returns (an endless stream is refused, not held).
		b, err := io.ReadAll(io.LimitReader(r, maxStreamBytes+1))
		if err != nil {
			return nil, fmt.Errorf("exr: reading: %w", err)
		}
		if len(b) > maxStreamBytes {
			return nil, formatErr("stream longer than %d bytes, the most an image Decode returns can need", int64(maxStreamBytes))
		}
		r = bytes.NewReader(b)
	}
	if s, ok := r.(io.Seeker); ok {
		cur, err1 := s.Seek(0, io.SeekCurrent)
		end, err2 := s.Seek(0, io.SeekEnd)
		if err1 == nil && err2 == nil {
			remaining = end - cur
			if _, err := s.Seek(cur, io.SeekStart); err != nil {
				return nil, fmt.Errorf("exr: seek: %w", err)
			}
		}
	}
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	h := rd.h
	samples := int64(h.Width) * int64(h.Height) * int64(len(h.Channels))
	if samples > maxSamples {
		return nil, formatErr("%dx%d with %d channels is too large to decode whole", h.Width, h.Height, len(h.Channels))
	}
	if remaining >= 0 {
		ratio := int64(h.Compression.maxRatio())
		if int64(h.Height)*int64(h.bytesPerLine()) > remaining*ratio+(1<<16) {
			return nil, formatErr("%dx%d image with %d channels cannot fit in %d bytes", h.Width, h.Height, len(h.Channels), remaining)
		}
	}
	img := &Image{Width: h.Width, Height: h.Height, Channels: rd.Channels(), Data: make([][]float32, len(h.Channels))}
	for k := range img.Data {
		img.Data[k] = make([]float32, h.Width*h.Height)
	}
	err = rd.Blocks(context.Background(), 0, func(y0, n int, rows [][]float32) error {
		for k := range rows {
			copy(img.Data[k][y0*h.Width:(y0+n)*h.Width], rows[k])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return img, nil
}
