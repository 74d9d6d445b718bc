package field

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/tiff"
)

// The encoders write a grid in the formats LoadHeight reads, in the same orientation (row 0 =
// minimum Z, no flip), so `strata export --heightmap` and the import round-trip tests share one
// definition of each format. Integer formats quantize v onto codes with
// round((v - LO) / (HI - LO) · max), clamped — the inverse of the import mapping.

// quantize maps v onto 0 … maxCode over rng.
func quantize(v float32, rng [2]float64, maxCode float64) uint16 {
	t := (float64(v) - rng[0]) / (rng[1] - rng[0])
	return uint16(math.Round(math.Min(math.Max(t, 0), 1) * maxCode))
}

func checkEncode(g *Grid, rng [2]float64, integer bool) error {
	if g == nil || CheckSize(g.W, g.H) != nil || len(g.Data) != g.W*g.H {
		return fmt.Errorf("field: encode: invalid grid")
	}
	if integer && (math.IsNaN(rng[0]) || math.IsNaN(rng[1]) || !(rng[1] > rng[0]) || math.IsInf(rng[1]-rng[0], 0)) {
		return fmt.Errorf("field: encode: height range %v,%v: want finite LO < HI", rng[0], rng[1])
	}
	return nil
}

// EncodePNG16 writes g as a 16-bit grayscale PNG with its values mapped from rng onto 0 … 65535.
func EncodePNG16(w io.Writer, g *Grid, rng [2]float64) error {
	if err := checkEncode(g, rng, true); err != nil {
		return err
	}
	img := image.NewGray16(image.Rect(0, 0, g.W, g.H))
	for k, v := range g.Data {
		c := quantize(v, rng, 65535)
		img.Pix[2*k], img.Pix[2*k+1] = byte(c>>8), byte(c)
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("field: encode PNG: %w", err)
	}
	return nil
}

// EncodeTIFF16 writes g as a 16-bit grayscale TIFF (deflate-compressed) mapped like EncodePNG16.
func EncodeTIFF16(w io.Writer, g *Grid, rng [2]float64) error {
	if err := checkEncode(g, rng, true); err != nil {
		return err
	}
	img := image.NewGray16(image.Rect(0, 0, g.W, g.H))
	for k, v := range g.Data {
		c := quantize(v, rng, 65535)
		img.Pix[2*k], img.Pix[2*k+1] = byte(c>>8), byte(c)
	}
	if err := tiff.Encode(w, img, &tiff.Options{Compression: tiff.Deflate}); err != nil {
		return fmt.Errorf("field: encode TIFF: %w", err)
	}
	return nil
}

// EncodeR16 writes g as raw little-endian uint16 codes, row by row, with no header.
func EncodeR16(w io.Writer, g *Grid, rng [2]float64) error {
	if err := checkEncode(g, rng, true); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var buf [2]byte
	for _, v := range g.Data {
		binary.LittleEndian.PutUint16(buf[:], quantize(v, rng, 65535))
		if _, err := bw.Write(buf[:]); err != nil {
			return fmt.Errorf("field: encode R16: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("field: encode R16: %w", err)
	}
	return nil
}

// EncodeF32 writes g as raw little-endian float32, row by row, with no header.
func EncodeF32(w io.Writer, g *Grid) error {
	if err := checkEncode(g, [2]float64{}, false); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var buf [4]byte
	for _, v := range g.Data {
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(v))
		if _, err := bw.Write(buf[:]); err != nil {
			return fmt.Errorf("field: encode F32: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("field: encode F32: %w", err)
	}
	return nil
}

// EncodeTIFFFloat writes g as a little-endian, uncompressed, single-strip, one-channel 32-bit float
// TIFF (SampleFormat 3), the layout readFloatTIFF reads and GDAL-style tools write.
func EncodeTIFFFloat(w io.Writer, g *Grid) error {
	if err := checkEncode(g, [2]float64{}, false); err != nil {
		return err
	}
	type entry struct {
		tag, typ uint16
		val      uint32
	}
	const nEntries = 10
	dataOff := uint32(8 + 2 + nEntries*12 + 4)
	dataOff = (dataOff + 3) &^ 3
	entries := []entry{
		{tagWidth, 4, uint32(g.W)},
		{tagHeight, 4, uint32(g.H)},
		{tagBitsPer, 3, 32},
		{tagCompression, 3, 1},
		{tagPhotometric, 3, 1}, // BlackIsZero
		{tagStripOffsets, 4, dataOff},
		{tagSamplesPer, 3, 1},
		{tagRowsPerStrip, 4, uint32(g.H)},
		{tagStripBytes, 4, uint32(4 * g.W * g.H)},
		{tagSampleFormat, 3, 3}, // IEEE float
	}
	hdr := make([]byte, dataOff)
	copy(hdr, "II*\x00")
	binary.LittleEndian.PutUint32(hdr[4:], 8)
	binary.LittleEndian.PutUint16(hdr[8:], nEntries)
	for k, e := range entries {
		p := hdr[10+12*k:]
		binary.LittleEndian.PutUint16(p, e.tag)
		binary.LittleEndian.PutUint16(p[2:], e.typ)
		binary.LittleEndian.PutUint32(p[4:], 1)
		if e.typ == 3 {
			binary.LittleEndian.PutUint16(p[8:], uint16(e.val))
		} else {
			binary.LittleEndian.PutUint32(p[8:], e.val)
		}
	}
	// next IFD offset (0) is already zero
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("field: encode TIFF: %w", err)
	}
	return EncodeF32(w, g)
}
