package exr

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"math"

	"strata/internal/zinflate"
)

// The ZIP and RLE codecs of OpenEXR do not compress the raw scanline bytes directly: they first
// split even and odd bytes into two halves (so the high bytes of floats sit together) and then
// replace each byte by its difference to the previous one plus 128. These two helpers are that
// transform and its inverse, exactly as ImfZip.cpp does them.

// predictInterleave transforms raw into dst (len(dst) == len(raw)), in one pass: each byte of
// the interleaved order is stored as its difference to the one before.
func predictInterleave(dst, raw []byte) {
	if len(raw) == 0 {
		return
	}
	half := (len(raw) + 1) / 2
	t1, t2 := dst[:half], dst[half:len(raw)]
	prev := raw[0]
	t1[0] = prev
	for i := 1; i < len(t1); i++ {
		v := raw[2*i]
		t1[i] = v - prev + 128
		prev = v
	}
	for i := range t2 {
		v := raw[2*i+1]
		t2[i] = v - prev + 128
		prev = v
	}
}

// unpredictDeinterleave undoes predictInterleave, reading tmp and writing out (len(out) ==
// len(tmp)): the running sum of the differences is kept in a register and written straight to
// its interleaved place, one pass instead of a prefix sum in place (each byte waiting on the
// store of the one before) and a deinterleave.
func unpredictDeinterleave(out, tmp []byte) {
	if len(tmp) == 0 {
		return
	}
	half := (len(tmp) + 1) / 2
	t1, t2 := tmp[:half], tmp[half:]
	out = out[:len(tmp)]
	p := t1[0]
	out[0] = p
	for i := 1; i < len(t1); i++ {
		p += t1[i] - 128
		out[2*i] = p
	}
	for i, d := range t2 {
		p += d - 128
		out[2*i+1] = p
	}
}

// blockEncoder turns a block of scanlines into the bytes a chunk stores, re-using its buffers and
// its zlib writer from block to block (a fresh zlib writer allocates ~1 MiB of tables). One per
// goroutine.
type blockEncoder struct {
	raw, tmp []byte
	buf      bytes.Buffer
	zw       *zlib.Writer
}

// encode lays out n rows of the planes (file channel i is planes[index[i]]) as OpenEXR stores a
// block — for each scanline, each channel's width little-endian floats — and compresses it. The
// result is valid until the next call.
func (e *blockEncoder) encode(planes [][]float32, index []int, width, n int, c Compression) []byte {
	size := n * width * 4 * len(index)
	if cap(e.raw) < size {
		e.raw = make([]byte, size)
	}
	raw := e.raw[:size]
	off := 0
	for l := 0; l < n; l++ {
		for _, k := range index {
			for _, v := range planes[k][l*width : (l+1)*width] {
				binary.LittleEndian.PutUint32(raw[off:], math.Float32bits(v))
				off += 4
			}
		}
	}
	if c != ZIP {
		return raw
	}
	return e.zip(raw)
}

// zip compresses one block (predictor, then zlib at BestSpeed: every level is a valid ZIP block,
// and the fastest costs ~1% in size on terrain payloads, docs/PERFORMANCE.md). It returns raw
// itself when compression would not make it smaller, which is how OpenEXR stores incompressible
// blocks (readers compare sizes).
func (e *blockEncoder) zip(raw []byte) []byte {
	if cap(e.tmp) < len(raw) {
		e.tmp = make([]byte, len(raw))
	}
	tmp := e.tmp[:len(raw)]
	predictInterleave(tmp, raw)
	e.buf.Reset()
	if e.zw == nil {
		e.zw, _ = zlib.NewWriterLevel(&e.buf, zlib.BestSpeed)
	} else {
		e.zw.Reset(&e.buf)
	}
	e.zw.Write(tmp) // writes to a bytes.Buffer cannot fail
	e.zw.Close()
	if e.buf.Len() >= len(raw) {
		return raw
	}
	return e.buf.Bytes()
}

// blockDecoder holds what decompressing a block needs, re-used from block to block (a fresh zlib
// reader and scratch per block were a block's size of garbage each: 256 MiB while validating a
// 4096² height). One per goroutine.
type blockDecoder struct {
	tmp []byte
	br  bytes.Reader
	zr  io.ReadCloser
}

// unzip decompresses a ZIP/ZIPS block into out, which has the exact expected size. libdeflate
// (internal/zinflate, whole buffers: a block is one) takes it first, four to five times faster
// than compress/zlib; a block it does not inflate cleanly to exactly out's size is read again by
// compress/zlib, which accepts and refuses what it always did and words the refusal.
func (d *blockDecoder) unzip(out, packed []byte) error {
	if cap(d.tmp) < len(out)+1 {
		d.tmp = make([]byte, len(out)+1)
	}
	if _, err := zinflate.Zlib(d.tmp[:len(out)], packed); err == nil {
		unpredictDeinterleave(out, d.tmp[:len(out)])
		return nil
	}
	d.br.Reset(packed)
	if d.zr == nil {
		zr, err := zlib.NewReader(&d.br)
		if err != nil {
			return formatErr("zip block: %v", err)
		}
		d.zr = zr
	} else if err := d.zr.(zlib.Resetter).Reset(&d.br, nil); err != nil {
		return formatErr("zip block: %v", err)
	}
	tmp := d.tmp[:len(out)+1]
	n, err := io.ReadFull(d.zr, tmp)
	if err != io.ErrUnexpectedEOF && err != nil && err != io.EOF {
		return formatErr("zip block: %v", err)
	}
	if n != len(out) {
		return formatErr("zip block decompresses to %d bytes, want %d", n, len(out))
	}
	unpredictDeinterleave(out, tmp[:n])
	return nil
}

// unrleBlock decodes an RLE block into out, which has the exact expected size.
func unrleBlock(out, packed []byte) error {
	tmp := make([]byte, 0, len(out))
	for len(packed) > 0 {
		n := int(int8(packed[0]))
		packed = packed[1:]
		if n < 0 {
			n = -n
			if n > len(packed) || len(tmp)+n > len(out) {
				return formatErr("rle block overruns its scanlines")
			}
			tmp = append(tmp, packed[:n]...)
			packed = packed[n:]
			continue
		}
		if len(packed) == 0 || len(tmp)+n+1 > len(out) {
			return formatErr("rle block overruns its scanlines")
		}
		for k := 0; k <= n; k++ {
			tmp = append(tmp, packed[0])
		}
		packed = packed[1:]
	}
	if len(tmp) != len(out) {
		return formatErr("rle block decodes to %d bytes, want %d", len(tmp), len(out))
	}
	unpredictDeinterleave(out, tmp)
	return nil
}
