package exr

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"math"
)

// The ZIP and RLE codecs of OpenEXR do not compress the raw scanline bytes directly: they first
// split even and odd bytes into two halves (so the high bytes of floats sit together) and then
// replace each byte by its difference to the previous one plus 128. These two helpers are that
// transform and its inverse, exactly as ImfZip.cpp does them.

// predictInterleave transforms raw into dst (len(dst) == len(raw)).
func predictInterleave(dst, raw []byte) {
	half := (len(raw) + 1) / 2
	t1, t2 := dst[:half], dst[half:]
	for i := range t2 {
		t1[i], t2[i] = raw[2*i], raw[2*i+1]
	}
	if len(t1) > len(t2) {
		t1[len(t1)-1] = raw[len(raw)-1]
	}
	for i := len(dst) - 1; i > 0; i-- {
		dst[i] = dst[i] - dst[i-1] + 128
	}
}

// unpredictDeinterleave undoes predictInterleave: tmp is modified in place and the result
// written to out (len(out) == len(tmp)).
func unpredictDeinterleave(out, tmp []byte) {
	for i := 1; i < len(tmp); i++ {
		tmp[i] = tmp[i-1] + tmp[i] - 128
	}
	half := (len(tmp) + 1) / 2
	for i := range out {
		if i%2 == 0 {
			out[i] = tmp[i/2]
		} else {
			out[i] = tmp[half+i/2]
		}
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

// unzip decompresses a ZIP/ZIPS block into out, which has the exact expected size.
func (d *blockDecoder) unzip(out, packed []byte) error {
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
	if cap(d.tmp) < len(out)+1 {
		d.tmp = make([]byte, len(out)+1)
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
