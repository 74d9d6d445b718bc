package field

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"golang.org/x/image/tiff"
)

// TIFF tags this file reads (TIFF 6.0 numbering).
const (
	tagWidth        = 256
	tagHeight       = 257
	tagBitsPer      = 258
	tagCompression  = 259
	tagPhotometric  = 262
	tagStripOffsets = 273
	tagSamplesPer   = 277
	tagRowsPerStrip = 278
	tagStripBytes   = 279
	tagPlanar       = 284
	tagPredictor    = 317
	tagTileWidth    = 322
	tagSampleFormat = 339
)

// tiffIFD is the first image directory of a TIFF: enough to route the file and, for float32, to
// read it.
type tiffIFD struct {
	order                        binary.ByteOrder
	tags                         map[uint16][]int
	w, h, bps, spp, sampleFormat int
}

func (d *tiffIFD) get(tag uint16, def int) int {
	if v := d.tags[tag]; len(v) > 0 {
		return v[0]
	}
	return def
}

// parseTIFF reads the header and the first IFD of a TIFF held in memory (parseTIFFAt).
func parseTIFF(b []byte) (*tiffIFD, error) { return parseTIFFAt(bytes.NewReader(b), int64(len(b))) }

// parseTIFFAt reads the header and the first IFD of a TIFF of size bytes, bounds-checking every
// offset against the file before reading it.
func parseTIFFAt(r io.ReaderAt, size int64) (*tiffIFD, error) {
	if size < 8 {
		return nil, errors.New("TIFF header is truncated")
	}
	read := func(off int64, n int) ([]byte, error) {
		b := make([]byte, n)
		if _, err := r.ReadAt(b, off); err != nil && n > 0 {
			return nil, fmt.Errorf("reading the TIFF directory: %w", eofUnexpected(err))
		}
		return b, nil
	}
	hdr, err := read(0, 8)
	if err != nil {
		return nil, err
	}
	d := &tiffIFD{tags: map[uint16][]int{}}
	switch string(hdr[:4]) {
	case "II*\x00":
		d.order = binary.LittleEndian
	case "MM\x00*":
		d.order = binary.BigEndian
	default:
		return nil, errors.New("not a TIFF file (BigTIFF is not read)")
	}
	off := int64(d.order.Uint32(hdr[4:8]))
	if off < 8 || off > size-2 {
		return nil, fmt.Errorf("TIFF directory offset %d is outside the %d-byte file", off, size)
	}
	nb, err := read(off, 2)
	if err != nil {
		return nil, err
	}
	n := int64(d.order.Uint16(nb))
	if off+2+12*n > size {
		return nil, fmt.Errorf("TIFF directory of %d entries runs past the end of the file", n)
	}
	dir, err := read(off+2, int(12*n))
	if err != nil {
		return nil, err
	}
	for e := range int(n) {
		ent := dir[12*e : 12*e+12]
		tag, typ, count := d.order.Uint16(ent), d.order.Uint16(ent[2:]), int64(d.order.Uint32(ent[4:]))
		sz := map[uint16]int64{1: 1, 3: 2, 4: 4}[typ]
		if sz == 0 {
			continue // rationals, strings: nothing we route on
		}
		if count < 0 || count > size {
			return nil, fmt.Errorf("TIFF tag %d claims %d values", tag, count)
		}
		// Only the first values of a tag are kept (all a valid file's strips need): a tag's count
		// is bounded by the file, not by what holding it as ints would cost.
		keep := min(count, 16)
		if tag == tagStripOffsets || tag == tagStripBytes {
			keep = min(count, MaxSide)
		}
		data := ent[8:12]
		if count*sz > 4 {
			p := int64(d.order.Uint32(ent[8:]))
			if p < 0 || p > size || count*sz > size-p {
				return nil, fmt.Errorf("TIFF tag %d's values lie outside the file", tag)
			}
			if data, err = read(p, int(keep*sz)); err != nil {
				return nil, err
			}
		}
		vals := make([]int, keep)
		for k := range vals {
			switch sz {
			case 1:
				vals[k] = int(data[k])
			case 2:
				vals[k] = int(d.order.Uint16(data[2*k:]))
			case 4:
				vals[k] = int(d.order.Uint32(data[4*k:]))
			}
		}
		d.tags[tag] = vals
	}
	d.w, d.h = d.get(tagWidth, 0), d.get(tagHeight, 0)
	d.bps, d.spp = d.get(tagBitsPer, 1), d.get(tagSamplesPer, 1)
	d.sampleFormat = d.get(tagSampleFormat, 1)
	return d, nil
}

// decodeTIFF routes a TIFF: one-channel 32-bit float to readFloatTIFF (x/image/tiff does not
// decode float samples), one-channel 8/16-bit unsigned to x/image/tiff, everything else refused.
func decodeTIFF(b []byte, role string) (*raster, error) {
	d, err := parseTIFF(b)
	if err != nil {
		return nil, err
	}
	float, err := d.readable(role)
	if err != nil {
		return nil, err
	}
	if float {
		return readFloatTIFF(b, d)
	}
	if err := checkBacked(d.w, d.h, d.bps/8, len(b), lzwRatio); err != nil {
		return nil, fmt.Errorf("TIFF %w", err)
	}
	if err := checkMemory(d.w, d.h, d.bps/8+decodeBytesPerTexel, fmt.Sprintf("%d-bit grayscale TIFF", d.bps)); err != nil {
		return nil, err
	}
	img, err := tiff.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decoding TIFF: %w", err)
	}
	return fromImage(img, fmt.Sprintf("%d-bit grayscale TIFF", d.bps), role)
}

// readable refuses, with the messages both TIFF readers give, what neither reads: a size past
// CheckSize, more than one channel, colour, signed integers, floats other than 32-bit, integers
// other than 8 or 16 bits. float says the samples are 32-bit floats (else 8/16-bit codes).
func (d *tiffIFD) readable(role string) (float bool, err error) {
	if err := CheckSize(d.w, d.h); err != nil {
		return false, fmt.Errorf("TIFF: %w", err)
	}
	if name, ok := map[int]string{2: "grayscale+alpha", 3: "RGB", 4: "RGBA"}[d.spp]; ok || d.spp != 1 {
		if !ok {
			name = fmt.Sprintf("%d-channel", d.spp)
		}
		return false, fmt.Errorf("%d-bit %s TIFF: a %s must be grayscale", d.bps, name, role)
	}
	if ph := d.get(tagPhotometric, 1); ph == 2 || ph == 3 {
		return false, fmt.Errorf("%d-bit %s TIFF: a %s must be grayscale", d.bps, map[int]string{2: "RGB", 3: "paletted"}[ph], role)
	}
	switch d.sampleFormat {
	case 3:
		if d.bps != 32 {
			return false, fmt.Errorf("%d-bit float TIFF: only 32-bit float is read", d.bps)
		}
		return true, nil
	case 2:
		return false, fmt.Errorf("%d-bit signed integer TIFF: save it as unsigned 16-bit or 32-bit float", d.bps)
	case 1:
	default:
		return false, fmt.Errorf("TIFF sample format %d is not read", d.sampleFormat)
	}
	if d.bps != 8 && d.bps != 16 {
		return false, fmt.Errorf("%d-bit integer TIFF: want 8 or 16 bits", d.bps)
	}
	return false, nil
}

// readFloatTIFF reads an uncompressed, stripped, one-channel 32-bit float TIFF — what GDAL,
// World Machine and Gaea write for float heightmaps — strictly: anything else is an error that
// says how to save the file instead.
func readFloatTIFF(b []byte, d *tiffIFD) (*raster, error) {
	if c := d.get(tagCompression, 1); c != 1 {
		return nil, fmt.Errorf("compressed float TIFF (compression %d): save it uncompressed", c)
	}
	if p := d.get(tagPredictor, 1); p != 1 {
		return nil, fmt.Errorf("float TIFF with predictor %d: save it without a predictor", p)
	}
	if _, tiled := d.tags[tagTileWidth]; tiled {
		return nil, errors.New("tiled float TIFF: save it in strips")
	}
	if err := checkBacked(d.w, d.h, 4, len(b), 1); err != nil {
		return nil, fmt.Errorf("float TIFF %w", err)
	}
	if err := checkMemory(d.w, d.h, 4, "32-bit float TIFF"); err != nil {
		return nil, err
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
	r := &raster{w: d.w, h: d.h, floats: make([]float32, d.w*d.h), kind: "32-bit float TIFF"}
	rowBytes := d.w * 4
	for s := 0; s < nStrips; s++ {
		rows := min(rps, d.h-s*rps)
		need := rows * rowBytes
		off := offsets[s]
		if s < len(counts) && counts[s] < need {
			return nil, fmt.Errorf("float TIFF strip %d holds %d bytes, want %d", s, counts[s], need)
		}
		if off < 0 || off > len(b) || need > len(b)-off {
			return nil, fmt.Errorf("float TIFF strip %d (%d bytes at %d) runs past the end of the %d-byte file", s, need, off, len(b))
		}
		dst := r.floats[s*rps*d.w : (s*rps+rows)*d.w]
		for k := range dst {
			dst[k] = math.Float32frombits(d.order.Uint32(b[off+4*k:]))
		}
	}
	return r, nil
}
