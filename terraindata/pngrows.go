package terraindata

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"strata/internal/pngfilter"
)

// pngRows decodes an rgba8 payload (data.png) one row at a time into straight RGBA bytes, holding
// two rows of the image, so `validate` decodes every byte of an 8192² control without holding the
// 256 MiB image, and a reader fills its image from the same rows. It is deliberately narrower and
// stricter than image/png: 8-bit samples (gray, RGB, paletted, gray+alpha, RGBA; tRNS honoured),
// no interlacing, every chunk's CRC checked, the zlib stream's end and checksum checked, chunks in
// order through IEND, palette indices in range. What it accepts, image/png decodes to the same
// pixels (FuzzPNGRows); what it refuses says why.
type pngRows struct {
	br         *bufio.Reader
	w, h       int
	ct         byte // colour type: 0 gray, 2 RGB, 3 paletted, 4 gray+alpha, 6 RGBA
	bpp        int  // bytes per pixel
	plte, trns []byte
	idat       *idatReader
	z          io.ReadCloser
	cur, prev  []byte // filtered scanlines without the filter byte
	out        []byte // 4·w straight RGBA
	y          int
	crc        hash.Hash32
}

// errPNG marks a malformed or unsupported PNG payload.
var errPNG = errors.New("png")

func pngErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errPNG}, a...)...)
}

// newPNGRows reads the signature and every chunk before the image data.
func newPNGRows(r io.Reader) (*pngRows, error) {
	p := &pngRows{br: bufio.NewReaderSize(r, 1<<16), crc: crc32.NewIEEE()}
	var sig [8]byte
	if _, err := io.ReadFull(p.br, sig[:]); err != nil || !bytes.Equal(sig[:], pngSignature) {
		return nil, pngErr("not a PNG file (no PNG signature)")
	}
	length, typ, err := p.chunkHeader()
	if err != nil {
		return nil, err
	}
	if typ != "IHDR" || length != 13 {
		return nil, pngErr("the first chunk is %q of %d bytes, want IHDR of 13", typ, length)
	}
	ihdr, err := p.chunkData(length)
	if err != nil {
		return nil, err
	}
	if err := p.header(ihdr); err != nil {
		return nil, err
	}
	for {
		length, typ, err := p.chunkHeader()
		if err != nil {
			return nil, err
		}
		switch typ {
		case "IDAT":
			if p.ct == 3 && p.plte == nil {
				return nil, pngErr("paletted image without a PLTE chunk before its data")
			}
			p.idat = &idatReader{p: p, left: length}
			z, err := zlib.NewReader(p.idat)
			if err != nil {
				return nil, p.dataErr(err)
			}
			p.z = z
			row := p.w * p.bpp
			p.cur, p.prev, p.out = make([]byte, row), make([]byte, row), make([]byte, 4*p.w)
			return p, nil
		case "PLTE":
			if p.plte != nil || p.trns != nil {
				return nil, pngErr("PLTE chunk out of order")
			}
			b, err := p.chunkData(length)
			if err != nil {
				return nil, err
			}
			if len(b)%3 != 0 || len(b) == 0 || len(b) > 3*256 {
				return nil, pngErr("PLTE of %d bytes", len(b))
			}
			switch p.ct {
			case 3:
				p.plte = b
			case 2, 6: // a suggested palette; true colour ignores it
				p.plte = []byte{}
			default:
				return nil, pngErr("PLTE chunk in a grayscale image")
			}
		case "tRNS":
			if p.trns != nil || (p.ct == 3 && p.plte == nil) {
				return nil, pngErr("tRNS chunk out of order")
			}
			b, err := p.chunkData(length)
			if err != nil {
				return nil, err
			}
			switch {
			case p.ct == 0 && len(b) == 2, p.ct == 2 && len(b) == 6, p.ct == 3 && len(b) <= len(p.plte)/3:
				p.trns = b
			default:
				return nil, pngErr("tRNS of %d bytes for colour type %d", len(b), p.ct)
			}
		case "IEND":
			return nil, pngErr("no image data (IEND before IDAT)")
		default:
			if err := p.skipChunk(typ, length); err != nil {
				return nil, err
			}
		}
	}
}

// header checks IHDR: size, 8-bit depth, a known colour type, no interlacing.
func (p *pngRows) header(b []byte) error {
	w, h := binary.BigEndian.Uint32(b[0:]), binary.BigEndian.Uint32(b[4:])
	depth, ct := b[8], b[9]
	if w == 0 || h == 0 || w > 1<<31-1 || h > 1<<31-1 {
		return pngErr("size %dx%d", w, h)
	}
	if b[10] != 0 || b[11] != 0 {
		return pngErr("unknown compression or filter method")
	}
	if b[12] != 0 {
		return pngErr("interlaced: an rgba8 payload is stored without interlacing (re-save it non-interlaced)")
	}
	bpp := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ct]
	if bpp == 0 {
		return pngErr("unknown colour type %d", ct)
	}
	if depth != 8 {
		return pngErr("%d-bit samples: an rgba8 payload has 8-bit samples", depth)
	}
	p.w, p.h, p.ct, p.bpp = int(w), int(h), ct, bpp
	return nil
}

// chunkHeader reads a chunk's length and type and starts its CRC.
func (p *pngRows) chunkHeader() (uint32, string, error) {
	var b [8]byte
	if _, err := io.ReadFull(p.br, b[:]); err != nil {
		return 0, "", pngErr("truncated file (a chunk header is missing)")
	}
	length := binary.BigEndian.Uint32(b[:4])
	if length > 1<<31-1 {
		return 0, "", pngErr("chunk length %d", length)
	}
	p.crc.Reset()
	p.crc.Write(b[4:8])
	return length, string(b[4:8]), nil
}

// chunkData reads a small chunk's data (IHDR, PLTE, tRNS) and checks its CRC.
func (p *pngRows) chunkData(length uint32) ([]byte, error) {
	if length > 3*256 {
		return nil, pngErr("chunk of %d bytes where at most 768 belong", length)
	}
	b := make([]byte, length)
	if _, err := io.ReadFull(p.br, b); err != nil {
		return nil, pngErr("truncated file inside a chunk")
	}
	p.crc.Write(b)
	return b, p.checkCRC()
}

func (p *pngRows) checkCRC() error {
	var b [4]byte
	if _, err := io.ReadFull(p.br, b[:]); err != nil {
		return pngErr("truncated file (a chunk's CRC is missing)")
	}
	if binary.BigEndian.Uint32(b[:]) != p.crc.Sum32() {
		return pngErr("chunk CRC mismatch: the file is corrupt")
	}
	return nil
}

// skipChunk passes over an ancillary chunk (checking its CRC) and refuses an unknown critical one.
func (p *pngRows) skipChunk(typ string, length uint32) error {
	if typ[0]&0x20 == 0 {
		return pngErr("unknown critical chunk %q", typ)
	}
	if _, err := io.CopyN(p.crc, p.br, int64(length)); err != nil {
		return pngErr("truncated file inside chunk %q", typ)
	}
	return p.checkCRC()
}

// next decodes the next row into 4·w straight RGBA bytes (reused by the following call). After
// the last row it checks that the image data ends exactly there and that the chunks that follow
// are well formed through IEND; then it returns io.EOF.
func (p *pngRows) next() ([]byte, error) {
	if p.y == p.h {
		if err := p.finish(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	var f [1]byte
	if _, err := io.ReadFull(p.z, f[:]); err != nil {
		return nil, p.dataErr(err)
	}
	p.prev, p.cur = p.cur, p.prev
	if _, err := io.ReadFull(p.z, p.cur); err != nil {
		return nil, p.dataErr(err)
	}
	if err := pngfilter.Row(f[0], p.cur, p.prev, p.bpp); err != nil {
		return nil, pngErr("row %d: %v", p.y, err)
	}
	if err := p.convert(); err != nil {
		return nil, pngErr("row %d: %v", p.y, err)
	}
	p.y++
	return p.out, nil
}

func (p *pngRows) dataErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return pngErr("image data ends at row %d of %d (truncated payload)", p.y, p.h)
	}
	if errors.Is(err, errPNG) {
		return err
	}
	return pngErr("image data at row %d: %v", p.y, err)
}

// finish checks the zlib stream's end (and so its Adler-32 checksum), that the last IDAT holds
// nothing after it, and the chunks after the image through IEND.
func (p *pngRows) finish() error {
	var b [1]byte
	n, err := p.z.Read(b[:])
	for i := 0; n == 0 && err == nil && i < 100; i++ {
		n, err = p.z.Read(b[:])
	}
	if n != 0 {
		return pngErr("more image data than %d rows hold", p.h)
	}
	if err != io.EOF {
		return p.dataErr(err)
	}
	if !p.idat.done {
		if p.idat.trailing() {
			return pngErr("more image data than %d rows hold", p.h)
		}
		if err := p.checkCRC(); err != nil {
			return err
		}
	}
	for {
		var length uint32
		var typ string
		if p.idat.pending != "" {
			length, typ, p.idat.pending = p.idat.pendingLen, p.idat.pending, ""
		} else if length, typ, err = p.chunkHeader(); err != nil {
			return err
		}
		switch typ {
		case "IEND":
			if length != 0 {
				return pngErr("IEND of %d bytes", length)
			}
			return p.checkCRC()
		case "IHDR", "PLTE", "tRNS", "IDAT":
			return pngErr("%s chunk after the image data", typ)
		}
		if err := p.skipChunk(typ, length); err != nil {
			return err
		}
	}
}

// convert turns the unfiltered row into straight RGBA.
func (p *pngRows) convert() error {
	c, o := p.cur, p.out
	switch p.ct {
	case 6:
		copy(o, c)
	case 2:
		for x := 0; x < p.w; x++ {
			r, g, b := c[3*x], c[3*x+1], c[3*x+2]
			a := byte(255)
			if t := p.trns; t != nil && r == t[1] && g == t[3] && b == t[5] {
				a = 0
			}
			o[4*x], o[4*x+1], o[4*x+2], o[4*x+3] = r, g, b, a
		}
	case 0:
		for x, v := range c {
			a := byte(255)
			if t := p.trns; t != nil && v == t[1] {
				a = 0
			}
			o[4*x], o[4*x+1], o[4*x+2], o[4*x+3] = v, v, v, a
		}
	case 4:
		for x := 0; x < p.w; x++ {
			v := c[2*x]
			o[4*x], o[4*x+1], o[4*x+2], o[4*x+3] = v, v, v, c[2*x+1]
		}
	case 3:
		n := len(p.plte) / 3
		for x, i := range c {
			if int(i) >= n {
				return fmt.Errorf("palette index %d at x=%d, the palette has %d entries", i, x, n)
			}
			a := byte(255)
			if int(i) < len(p.trns) {
				a = p.trns[i]
			}
			o[4*x], o[4*x+1], o[4*x+2], o[4*x+3] = p.plte[3*i], p.plte[3*i+1], p.plte[3*i+2], a
		}
	}
	return nil
}

// idatReader is the concatenated data of consecutive IDAT chunks, each CRC-checked at its end.
// It is an io.ByteReader, so zlib reads no byte past the end of its stream and finish can tell
// trailing data from none; it buffers a chunk at most 64 KiB at a time. The header of the first
// chunk after the run is kept for finish.
type idatReader struct {
	p          *pngRows
	left       uint32 // bytes of the current IDAT not yet buffered
	buf        []byte
	pos        int
	done       bool   // the IDAT run has ended
	pending    string // type of the chunk that ended it
	pendingLen uint32
}

// fill buffers the next bytes of the run; io.EOF when it has ended.
func (r *idatReader) fill() error {
	for r.left == 0 {
		if r.done {
			return io.EOF
		}
		if err := r.p.checkCRC(); err != nil {
			return err
		}
		length, typ, err := r.p.chunkHeader()
		if err != nil {
			return err
		}
		if typ != "IDAT" {
			r.done, r.pending, r.pendingLen = true, typ, length
			return io.EOF
		}
		r.left = length
	}
	n := min(int(r.left), 1<<16)
	if cap(r.buf) < n {
		r.buf = make([]byte, 1<<16)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.p.br, r.buf); err != nil {
		return io.ErrUnexpectedEOF
	}
	r.p.crc.Write(r.buf)
	r.left -= uint32(n)
	r.pos = 0
	return nil
}

func (r *idatReader) Read(b []byte) (int, error) {
	if r.pos == len(r.buf) {
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(b, r.buf[r.pos:])
	r.pos += n
	return n, nil
}

func (r *idatReader) ReadByte() (byte, error) {
	if r.pos == len(r.buf) {
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	c := r.buf[r.pos]
	r.pos++
	return c, nil
}

// trailing reports bytes of the current IDAT that the image stream did not use.
func (r *idatReader) trailing() bool { return r.pos < len(r.buf) || r.left > 0 }
