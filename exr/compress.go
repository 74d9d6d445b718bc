package exr

import (
	"bytes"
	"compress/zlib"
	"io"
)

// The ZIP and RLE codecs of OpenEXR do not compress the raw scanline bytes directly: they first
// split even and odd bytes into two halves (so the high bytes of floats sit together) and then
// replace each byte by its difference to the previous one plus 128. These two helpers are that
// transform and its inverse, exactly as ImfZip.cpp does them.

// predictInterleave transforms raw into dst (len(dst) == len(raw)).
func predictInterleave(dst, raw []byte) {
	half := (len(raw) + 1) / 2
	t1, t2 := dst[:half], dst[half:]
	for i := 0; i < len(raw); i++ {
		if i%2 == 0 {
			t1[i/2] = raw[i]
		} else {
			t2[i/2] = raw[i]
		}
	}
	p := byte(0)
	if len(dst) > 0 {
		p = dst[0]
	}
	for i := 1; i < len(dst); i++ {
		d := dst[i] - p + 128
		p = dst[i]
		dst[i] = d
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

// zipBlock compresses one block. It returns raw itself when compression would not make it
// smaller, which is how OpenEXR stores incompressible blocks (readers compare sizes).
func zipBlock(raw []byte, scratch *[]byte) []byte {
	if cap(*scratch) < len(raw) {
		*scratch = make([]byte, len(raw))
	}
	tmp := (*scratch)[:len(raw)]
	predictInterleave(tmp, raw)
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.DefaultCompression)
	zw.Write(tmp) // writes to a bytes.Buffer cannot fail
	zw.Close()
	if buf.Len() >= len(raw) {
		return raw
	}
	return buf.Bytes()
}

// unzipBlock decompresses a ZIP/ZIPS block into out, which has the exact expected size.
func unzipBlock(out, packed []byte) error {
	zr, err := zlib.NewReader(bytes.NewReader(packed))
	if err != nil {
		return formatErr("zip block: %v", err)
	}
	tmp := make([]byte, len(out)+1)
	n, err := io.ReadFull(zr, tmp)
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
