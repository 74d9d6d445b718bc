package field

import (
	"bufio"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"sync"

	"strata/internal/pngfilter"
)

// pngSource decodes a grayscale PNG (1, 2, 4, 8 or 16 bits, interlaced or not) row by row
// straight into the grid, holding a few batches of rows: one goroutine inflates the image data
// (compress/zlib over the IDAT chunks), one unfilters the rows (each needs the one before it),
// and one converts them into the grid through the code table. Inflating and unfiltering cannot
// be split further (the deflate stream and the filters are sequential), so on two cores the two
// of them bound the decode.
//
// It accepts exactly the grayscale files image/png accepts and gives the codes image/png gives
// (TestPNGMatchesImagePNG, FuzzDecodePNG): chunks are checked in image/png's order with its
// rules (CRCs, chunk order, unknown chunks skipped, trailing IDATs ignored, the zlib checksum,
// no data left over, IEND), and the image data is read through the same kind of reader, so even
// where image/png is lenient (bytes after the zlib stream that its buffered reader swallowed) the
// answer is the same. A grayscale PNG with a transparent colour (tRNS) is refused: image/png
// decodes it as colour+alpha, which a heightmap must not be.
type pngSource struct {
	r          *bufio.Reader // the file after the chunks read so far
	file       io.ReaderAt   // the whole file, and its size: the whole-buffer inflate reads it
	size       int64
	taken      *countReader // what r has taken from the file after its signature
	crc        hash.Hash32  // of the current chunk
	w, h       int
	depth      int // bits per sample: 1, 2, 4, 8 or 16
	interlaced bool
	idatLeft   uint32 // bytes of the current IDAT chunk not read yet
	tmp        [13]byte
}

// pngPass is one pass of an image: the whole image, or one of Adam7's seven sub-images.
type pngPass struct {
	x0, y0, dx, dy int // grid position of the pass's pixel (0, 0) and the step between pixels
	w, h           int
}

// adam7 is PNG's interlacing: pass p holds the pixels at (x0 + i·dx, y0 + j·dy).
var adam7 = [7]pngPass{{0, 0, 8, 8, 0, 0}, {4, 0, 8, 8, 0, 0}, {0, 4, 4, 8, 0, 0}, {2, 0, 4, 4, 0, 0}, {0, 2, 2, 4, 0, 0}, {1, 0, 2, 2, 0, 0}, {0, 1, 1, 2, 0, 0}}

var errPNGData = errors.New("decoding PNG")

// pngErr is an error of the PNG's structure or data; every one starts "decoding PNG: ".
func pngErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errPNGData}, a...)...)
}

// pngHeader checks what both PNG readers check before decoding: the signature and IHDR in place
// (b is at least the file's first 33 bytes, size the file's), colour refused, CheckSize, a size
// the file can hold. It returns the image's size and bit depth.
func pngHeader(b []byte, size int64, role string) (w, h, depth int, err error) {
	if len(b) < 33 || string(b[:8]) != "\x89PNG\r\n\x1a\n" || string(b[12:16]) != "IHDR" {
		return 0, 0, 0, errors.New("not a PNG file (no PNG signature and IHDR)")
	}
	w = int(binary.BigEndian.Uint32(b[16:20]))
	h = int(binary.BigEndian.Uint32(b[20:24]))
	depth, ctype := int(b[24]), b[25]
	colour := map[byte]string{2: "RGB", 3: "paletted", 4: "grayscale+alpha", 6: "RGBA"}
	if name, ok := colour[ctype]; ok {
		return 0, 0, 0, fmt.Errorf("%d-bit %s image: a %s must be grayscale", depth, name, role)
	}
	if err := CheckSize(w, h); err != nil {
		return 0, 0, 0, err
	}
	if err := checkBacked(w, h, max(depth, 8)/8, int(size), deflateRatio); err != nil {
		return 0, 0, 0, err
	}
	return w, h, depth, nil
}

// newPNGSource checks what the import always checked before decoding (the signature and IHDR in
// place, colour refused, CheckSize, a size the file can hold) and reads the chunks up to the
// image data.
func newPNGSource(r io.ReaderAt, size int64, role string) (*pngSource, error) {
	var b [33]byte
	n, _ := r.ReadAt(b[:], 0)
	if _, _, _, err := pngHeader(b[:n], size, role); err != nil {
		return nil, err
	}
	p := &pngSource{file: r, size: size, taken: &countReader{r: io.NewSectionReader(r, 8, size-8)}, crc: crc32.NewIEEE()}
	p.r = bufio.NewReaderSize(p.taken, 1<<16)
	if err := p.header(role); err != nil {
		return nil, err
	}
	return p, nil
}

// header reads the chunks before the image data, as image/png's parseChunk does for a
// grayscale image, and stops at the first IDAT.
func (p *pngSource) header(role string) error {
	seenIHDR := false
	for {
		length, typ, err := p.chunkHeader()
		if err != nil {
			return err
		}
		switch typ {
		case "IHDR":
			if seenIHDR {
				return pngErr("chunk out of order (a second IHDR)")
			}
			seenIHDR = true
			if err := p.ihdr(length); err != nil {
				return err
			}
		case "PLTE":
			return pngErr("PLTE chunk in a grayscale image")
		case "tRNS":
			return fmt.Errorf("%d-bit grayscale PNG with a transparent colour (tRNS): a %s must be plain grayscale", p.depth, role)
		case "IDAT":
			p.idatLeft = length
			return nil
		case "IEND":
			return pngErr("chunk out of order (IEND before the image data)")
		default:
			if err := p.skip(length); err != nil {
				return err
			}
		}
	}
}

// ihdr checks the header chunk as image/png does; colour types were refused before.
func (p *pngSource) ihdr(length uint32) error {
	if length != 13 {
		return pngErr("bad IHDR length %d", length)
	}
	b := p.tmp[:13]
	if err := p.read(b); err != nil {
		return err
	}
	p.crc.Write(b)
	switch {
	case b[10] != 0:
		return pngErr("unknown compression method %d", b[10])
	case b[11] != 0:
		return pngErr("unknown filter method %d", b[11])
	case b[12] > 1:
		return pngErr("invalid interlace method %d", b[12])
	}
	p.interlaced = b[12] == 1
	p.w, p.h = int(int32(binary.BigEndian.Uint32(b[0:4]))), int(int32(binary.BigEndian.Uint32(b[4:8])))
	if p.w <= 0 || p.h <= 0 {
		return pngErr("non-positive dimension %d×%d", p.w, p.h)
	}
	p.depth = int(b[8])
	if b[9] != 0 || (p.depth != 1 && p.depth != 2 && p.depth != 4 && p.depth != 8 && p.depth != 16) {
		return pngErr("unsupported bit depth %d, colour type %d", b[8], b[9])
	}
	return p.checkCRC()
}

// read fills b from the file; running out is a truncated file.
func (p *pngSource) read(b []byte) error {
	if _, err := io.ReadFull(p.r, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return pngErr("truncated file")
		}
		return pngErr("%v", err)
	}
	return nil
}

// chunkHeader reads a chunk's length and type and starts its CRC.
func (p *pngSource) chunkHeader() (uint32, string, error) {
	b := p.tmp[:8]
	if err := p.read(b); err != nil {
		return 0, "", err
	}
	p.crc.Reset()
	p.crc.Write(b[4:8])
	return binary.BigEndian.Uint32(b[:4]), string(b[4:8]), nil
}

func (p *pngSource) checkCRC() error {
	b := p.tmp[:4]
	if err := p.read(b); err != nil {
		return err
	}
	if binary.BigEndian.Uint32(b) != p.crc.Sum32() {
		return pngErr("invalid checksum (CRC) of a chunk: the file is corrupt")
	}
	return nil
}

// skip passes over a chunk the decoder does not use, checking its CRC.
func (p *pngSource) skip(length uint32) error {
	if length > 0x7fffffff {
		return pngErr("bad chunk length %d", length)
	}
	if _, err := io.CopyN(p.crc, p.r, int64(length)); err != nil {
		if err == io.EOF {
			return pngErr("truncated file")
		}
		return pngErr("%v", err)
	}
	return p.checkCRC()
}

// Read is the image data: the payload of consecutive IDAT chunks, each CRC-checked at its end,
// read as image/png reads it (every request filled from the file as far as the chunk goes), so
// the zlib reader's buffering sees the same bytes.
func (p *pngSource) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for p.idatLeft == 0 {
		if err := p.checkCRC(); err != nil {
			return 0, err
		}
		length, typ, err := p.chunkHeader()
		if err != nil {
			return 0, err
		}
		if typ != "IDAT" {
			return 0, pngErr("not enough pixel data (the image data ends before row %d)", p.h)
		}
		p.idatLeft = length
	}
	n, err := io.ReadFull(p.r, b[:min(len(b), int(p.idatLeft))])
	p.crc.Write(b[:n])
	p.idatLeft -= uint32(n)
	if err == io.ErrUnexpectedEOF {
		err = nil // as a bytes.Reader: what there is now, io.EOF on the next call
	}
	return n, err
}

func (p *pngSource) dims() (int, int) { return p.w, p.h }
func (p *pngSource) kind() string     { return fmt.Sprintf("%d-bit grayscale PNG", p.depth) }
func (p *pngSource) maxCode() int {
	if p.depth == 16 {
		return 65535
	}
	return 255
}

// passes are the image's passes with pixels.
func (p *pngSource) passes() []pngPass {
	if !p.interlaced {
		return []pngPass{{0, 0, 1, 1, p.w, p.h}}
	}
	var out []pngPass
	for _, a := range adam7 {
		a.w, a.h = (p.w-a.x0+a.dx-1)/a.dx, (p.h-a.y0+a.dy-1)/a.dy
		if a.w > 0 && a.h > 0 {
			out = append(out, a)
		}
	}
	return out
}

func (p *pngSource) rows() int {
	n := 0
	for _, a := range p.passes() {
		n += a.h
	}
	return n
}

// rowBytes is a row of a pass without its filter byte.
func (p *pngSource) rowBytes(w int) int { return (w*p.depth + 7) / 8 }

// pngBatchBytes is about what one batch of rows holds (a variable so tests can cut small images
// into many batches); pngBatches batches are in flight.
var pngBatchBytes = 256 << 10

const pngBatches = 6

// batchRows is how many rows a batch holds: about pngBatchBytes, no more than the image has.
func (p *pngSource) batchRows() int { return max(1, min(p.h, pngBatchBytes/(1+p.rowBytes(p.w)))) }

func (p *pngSource) memory() (uint64, string) {
	batch := p.batchRows() * (1 + p.rowBytes(p.w))
	// the batches, the unfilter's carried row and the converter's row, zlib's window and buffer
	return uint64(pngBatches*batch+2*p.rowBytes(p.w)+4*p.w) + 64<<10, fmt.Sprintf("decoding a %d×%d %s", p.w, p.h, p.kind())
}

// pngBatch is consecutive rows of one pass, each with its filter byte.
type pngBatch struct {
	pass   int // index into passes
	y0, n  int // first row within the pass, and how many
	stride int // 1 + rowBytes
	buf    []byte
}

// decode runs the three stages and, once the image data is read, the chunks after it through
// IEND.
func (p *pngSource) decode(ctx context.Context, out *gridOut, prog *progress) error {
	passes := p.passes()
	raw, err := p.inflateWhole(ctx, passes, out.g.Data)
	if err != nil {
		return err
	}
	n := pngBatches // batches in flight: the streaming inflate's, recycled
	if raw != nil {
		n = p.wholeBatches(passes) // every batch at once, each a window of raw
	}
	free := make(chan *pngBatch, n)
	filtered := make(chan *pngBatch, n)
	unfiltered := make(chan *pngBatch, n)
	if raw == nil {
		size := p.batchRows() * (1 + p.rowBytes(p.w))
		for range pngBatches {
			free <- &pngBatch{buf: make([]byte, size)}
		}
	}
	stop := make(chan struct{})
	var once sync.Once
	var first error
	fail := func(err error) {
		once.Do(func() { first = err; close(stop) })
	}
	// Every stage returns once stop is closed (sends never block: each channel holds every
	// batch), so waiting for all three ends the decode with nothing of it left running.
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // inflate, or hand out the rows inflated already
		defer wg.Done()
		defer close(filtered)
		if raw != nil {
			p.slice(passes, raw, filtered)
		} else if err := p.inflate(ctx, passes, free, filtered, stop); err != nil {
			fail(err)
		}
	}()
	go func() { // unfilter
		defer wg.Done()
		defer close(unfiltered)
		if err := p.unfilter(filtered, unfiltered, stop); err != nil {
			fail(err)
		}
	}()
	go func() { // convert
		defer wg.Done()
		if err := p.convert(ctx, passes, unfiltered, free, stop, out, prog); err != nil {
			fail(err)
		}
	}()
	wg.Wait()
	if first != nil {
		return first
	}
	if p.interlaced {
		out.rowsDone(0, p.h) // every pass wrote into every band of rows: complete only now
	}
	return p.trailer()
}

// inflate is stage one: the image data through zlib, in batches of whole rows of one pass; after
// the last row, image/png's end checks (the zlib stream ends there, its checksum, no data left in
// the chunk) and the last IDAT's CRC.
func (p *pngSource) inflate(ctx context.Context, passes []pngPass, free <-chan *pngBatch, filtered chan<- *pngBatch, stop <-chan struct{}) error {
	z, err := zlib.NewReader(p)
	if err != nil {
		return p.dataErr(err, 0, 0)
	}
	defer z.Close()
	rows := p.batchRows()
	for k, a := range passes {
		stride := 1 + p.rowBytes(a.w)
		for y0 := 0; y0 < a.h; y0 += rows {
			var b *pngBatch
			select {
			case b = <-free:
			case <-stop:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
			b.pass, b.y0, b.n, b.stride = k, y0, min(rows, a.h-y0), stride
			if _, err := io.ReadFull(z, b.buf[:b.n*stride]); err != nil {
				return p.dataErr(err, k, y0)
			}
			filtered <- b
		}
	}
	var one [1]byte
	n := 0
	for i := 0; n == 0 && err == nil; i++ {
		if i == 100 {
			return pngErr("%v", io.ErrNoProgress)
		}
		n, err = z.Read(one[:])
	}
	if err != nil && err != io.EOF {
		return pngErr("%v", err)
	}
	if n != 0 || p.idatLeft != 0 {
		return pngErr("too much pixel data")
	}
	return p.checkCRC()
}

// dataErr words an error met reading pass k's rows from y0.
func (p *pngSource) dataErr(err error, k, y0 int) error {
	switch {
	case errors.Is(err, errPNGData):
		return err
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return pngErr("not enough pixel data (the image data ends in pass %d before row %d)", k, y0)
	}
	return pngErr("image data: %v", err)
}

// unfilter is stage two: each row's filter undone in place, with the row before it (of the same
// pass; zeros before a pass's first row) carried from batch to batch.
func (p *pngSource) unfilter(filtered <-chan *pngBatch, unfiltered chan<- *pngBatch, stop <-chan struct{}) error {
	bpp := max(1, p.depth/8)
	prev := make([]byte, p.rowBytes(p.w))
	for b := range filtered {
		select {
		case <-stop: // another stage failed; nothing waits on what is left
			return nil
		default:
		}
		rb := b.stride - 1
		if b.y0 == 0 {
			clear(prev[:rb])
		}
		last := prev[:rb]
		for r := range b.n {
			row := b.buf[r*b.stride : (r+1)*b.stride]
			if err := pngfilter.Row(row[0], row[1:], last, bpp); err != nil {
				return pngErr("pass %d row %d: %v", b.pass, b.y0+r, err)
			}
			last = row[1:]
		}
		copy(prev, last)
		unfiltered <- b
	}
	return nil
}

// convert is stage three: rows into the grid (a pass's pixels at their interlaced places), with
// progress and cancellation per batch.
func (p *pngSource) convert(ctx context.Context, passes []pngPass, unfiltered <-chan *pngBatch, free chan<- *pngBatch, stop <-chan struct{}, out *gridOut, prog *progress) error {
	var wide []byte      // a sub-byte row widened to one byte a pixel
	var spread []float32 // an interlaced row before it is spread over the grid
	for b := range unfiltered {
		select {
		case <-stop:
			return nil
		default:
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		a := passes[b.pass]
		st := newStats()
		for r := range b.n {
			row := b.buf[r*b.stride+1 : (r+1)*b.stride]
			y := a.y0 + (b.y0+r)*a.dy
			line := out.g.Data[y*p.w : (y+1)*p.w]
			dst := line
			if a.dx != 1 {
				if spread == nil {
					spread = make([]float32, p.w)
				}
				dst = spread[:a.w]
			}
			switch p.depth {
			case 16:
				st.codes16(dst, row, true, false, out.lut)
			case 8:
				st.codes8(dst, row, false, out.lut)
			default:
				if wide == nil {
					wide = make([]byte, p.w)
				}
				widen(wide[:a.w], row, p.depth)
				st.codes8(dst, wide[:a.w], false, out.lut)
			}
			if a.dx != 1 {
				for i, v := range dst {
					line[a.x0+i*a.dx] = v
				}
			}
		}
		out.add(st, b.n)
		if !p.interlaced {
			out.rowsDone(b.y0, b.y0+b.n) // pass 0 is the image, row for row
		}
		prog.add(b.n)
		free <- b
	}
	return nil
}

// widen spreads the 1, 2 or 4-bit samples of row over one byte each, scaled onto 0 … 255 as
// image/png scales them (·255, ·85, ·17).
func widen(dst, row []byte, depth int) {
	per := 8 / depth
	scale := byte(255 / (1<<depth - 1))
	mask := byte(1<<depth - 1)
	for i := range dst {
		b := row[i/per]
		shift := uint(8 - depth - (i%per)*depth)
		dst[i] = (b >> shift & mask) * scale
	}
}

// trailer reads the chunks after the image data through IEND, as image/png does: more IDATs
// and unknown chunks are skipped (CRC-checked), a header chunk is out of order.
func (p *pngSource) trailer() error {
	for {
		length, typ, err := p.chunkHeader()
		if err != nil {
			return err
		}
		switch typ {
		case "IHDR", "PLTE", "tRNS":
			return pngErr("chunk out of order (%s after the image data)", typ)
		case "IEND":
			if length != 0 {
				return pngErr("bad IEND length %d", length)
			}
			return p.checkCRC()
		}
		if err := p.skip(length); err != nil {
			return err
		}
	}
}
