package field

import (
	"bufio"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync/atomic"
	"unsafe"

	"strata/internal/sysmem"
	"strata/internal/zinflate"
)

// The whole-buffer inflate: compress/zlib inflates about 150 MB of image data a second on one
// core here, which made an 8192² PNG16's read (134 MB of rows) most of the editor's first frame.
// libdeflate (internal/zinflate) inflates the same stream four to five times faster, but only
// whole: the IDAT payloads are gathered into one buffer and inflated into one buffer of every
// row, which the unfilter and convert stages then take batch by batch as before.
//
// It is a shortcut, never a second set of rules: it is taken only when everything about the
// image data is clean — every IDAT's CRC right, the stream valid with its checksum, exactly the
// rows' bytes, and nothing after the stream that the streaming reader would call "too much pixel
// data" — and only when its two buffers fit in a quarter of the memory budget. Anything else
// goes to the streaming inflate from the same place in the file, which then gives exactly the
// error (or the leniency) it always gave (TestPNGMatchesImagePNG, FuzzDecodePNG run both).

// pngWhole lets tests turn the whole-buffer inflate off, to run the streaming path on the same
// files; pngWholeReads counts the images it inflated (a test's witness that it was taken).
var (
	pngWhole      = true
	pngWholeReads atomic.Int64
)

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// rawBytes is every row of every pass with its filter byte: what the zlib stream inflates to.
func (p *pngSource) rawBytes(passes []pngPass) int64 {
	var n int64
	for _, a := range passes {
		n += int64(a.h) * int64(1+p.rowBytes(a.w))
	}
	return n
}

// inflateWhole returns the image data inflated, or nil (and no error) when the streaming inflate
// must read it: the buffers do not fit, or anything about the data is not clean. On success the
// reader is left where the streaming inflate would have left it (after the CRC of the IDAT the
// stream ends in), for the trailer. An error is only the context's. grid is what the rows will be
// converted into: while libdeflate inflates on one core, another faults in the back half of the
// rows' buffer and then the grid (fresh memory, whose page faults would otherwise land in the
// inflate and the conversion), which writes nothing and so races with nothing.
func (p *pngSource) inflateWhole(ctx context.Context, passes []pngPass, grid []float32) ([]byte, error) {
	rawLen := p.rawBytes(passes)
	if !pngWhole {
		return nil, nil
	}
	if b, err := sysmem.Available(); err != nil || (b.Known && uint64(rawLen+p.size) > b.Bytes/4) {
		return nil, nil
	}
	// The first IDAT's payload starts where the reader is: what it took less what it holds.
	off := 8 + p.taken.n - int64(p.r.Buffered())
	type chunk struct{ at, n int64 } // payload offset in the file, payload bytes
	var chunks []chunk
	data := make([]byte, 0, min(p.size, 1<<30))
	length := int64(p.idatLeft)
	var hdr [8]byte
	for {
		if length > 0x7fffffff || off+length+4 > p.size {
			return nil, nil
		}
		start := len(data)
		data = append(data, make([]byte, length)...)
		if _, err := p.file.ReadAt(data[start:], off); err != nil {
			return nil, nil
		}
		if _, err := p.file.ReadAt(hdr[:4], off+length); err != nil {
			return nil, nil
		}
		crc := crc32.Update(crc32.ChecksumIEEE([]byte("IDAT")), crc32.IEEETable, data[start:])
		if binary.BigEndian.Uint32(hdr[:4]) != crc {
			return nil, nil
		}
		chunks = append(chunks, chunk{off, length})
		next := off + length + 4
		if n, _ := p.file.ReadAt(hdr[:], next); n < 8 || string(hdr[4:8]) != "IDAT" {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		off, length = next+8, int64(binary.BigEndian.Uint32(hdr[:4]))
	}
	raw := make([]byte, rawLen)
	go func() {
		sysmem.Populate(raw[len(raw)/2:])
		if len(grid) > 0 {
			sysmem.Populate(unsafe.Slice((*byte)(unsafe.Pointer(&grid[0])), 4*len(grid)))
		}
	}()
	in, err := zinflate.Zlib(raw, data)
	if err != nil {
		return nil, nil
	}
	// Find the IDAT the stream ends in, and whether the streaming reader would have read that
	// chunk to its end: it reads each chunk in requests of 4096 bytes (compress/zlib's bufio
	// buffer, each request bounded by the chunk), and whatever of the last request follows the
	// stream is swallowed; a chunk left with bytes unread is "too much pixel data".
	at := int64(0)
	for _, c := range chunks {
		if c.n == 0 || int64(in) > at+c.n {
			at += c.n
			continue
		}
		last := int64(in) - at // bytes of this chunk the stream took, 1 … c.n
		if (last-1)/4096 != (c.n-1)/4096 {
			return nil, nil
		}
		end := c.at + c.n + 4
		p.taken = &countReader{r: io.NewSectionReader(p.file, end, p.size-end)}
		p.taken.n = end - 8
		p.r = bufio.NewReaderSize(p.taken, 1<<16)
		p.idatLeft = 0
		pngWholeReads.Add(1)
		return raw, nil
	}
	return nil, nil
}

// wholeBatches is how many batches slice hands out.
func (p *pngSource) wholeBatches(passes []pngPass) int {
	rows, n := p.batchRows(), 0
	for _, a := range passes {
		n += (a.h + rows - 1) / rows
	}
	return n
}

// slice is stage one for an image inflated whole: batches of rows as the streaming inflate cuts
// them, each a window of raw, sent at once (filtered holds them all).
func (p *pngSource) slice(passes []pngPass, raw []byte, filtered chan<- *pngBatch) {
	rows, at := p.batchRows(), 0
	for k, a := range passes {
		stride := 1 + p.rowBytes(a.w)
		for y0 := 0; y0 < a.h; y0 += rows {
			n := min(rows, a.h-y0)
			filtered <- &pngBatch{pass: k, y0: y0, n: n, stride: stride, buf: raw[at : at+n*stride]}
			at += n * stride
		}
	}
}
