package field

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"strata/exr"
	"strata/internal/safeio"
	"strata/internal/sysmem"
)

// Whole-file decoding: a file decoded into a raster of codes or floats before its values are
// mapped. The window reader (LoadHeightWindow) crops PNG and TIFF windows from it and streams EXR
// windows through readEXR; the imports (LoadHeight, LoadChannel) stream every format into the
// grid instead (import.go), and the tests hold the two to the same values.

// raster is a decoded file before its values are mapped: integer codes (with the largest code of
// their depth) or float samples.
type raster struct {
	w, h    int
	codes   []uint16 // integer formats
	maxCode float64  // 255 or 65535
	floats  []float32
	kind    string // what the file turned out to be, for messages: "16-bit grayscale PNG"
	i0, j0  int    // where texel (0, 0) lies in the file's grid (a window's corner), for messages
}

// grid maps the raster's values: codes linearly onto lo..hi, floats unchanged (and checked).
func (r *raster) grid(path string, lo, hi float64) (*Grid, error) {
	g := &Grid{W: r.w, H: r.h}
	if r.floats != nil {
		g.Data = r.floats
		for k, v := range g.Data {
			if v != v || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("field: %s: texel (%d, %d) of the %s is %v: samples must be finite", path, r.i0+k%r.w, r.j0+k/r.w, r.kind, v)
			}
		}
		return g, nil
	}
	g.Data = make([]float32, len(r.codes))
	scale := (hi - lo) / r.maxCode
	for k, c := range r.codes {
		g.Data[k] = float32(lo + float64(c)*scale)
	}
	return g, nil
}

// decodeFile reads path and decodes it by extension (or, for an unknown extension, by its
// magic bytes). size is the W, H for headerless raw files; role ("heightmap", "channel") words
// the colour error.
func decodeFile(path string, size [2]int, role string) (*raster, error) {
	fail := func(err error) (*raster, error) { return nil, fmt.Errorf("field: %s: %w", path, err) }
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("field: %w", err)
	}
	if st.IsDir() {
		return fail(errors.New("is a directory, not an image"))
	}
	ext := strings.ToLower(filepath.Ext(path))
	if isRaw(ext) {
		// Headerless samples are read straight into the grid's own memory (an 8192² float32
		// file is 256 MiB that a copy would hold twice), from a regular file of bounded size.
		rst, err := safeio.Stat(path) // a regular file: not a FIFO or a device behind a symlink
		if err != nil {
			return fail(safeio.Unnamed(err))
		}
		if rst.Size() > maxFileBytes {
			return fail(fmt.Errorf("file of %d bytes is larger than the %d a field can hold", rst.Size(), int64(maxFileBytes)))
		}
		r, err := readRaw(path, rst.Size(), size, ext)
		if err != nil {
			return fail(safeio.Unnamed(err))
		}
		return r, nil
	}
	// Only a regular file, and no more bytes than a field can hold: a FIFO or /dev/zero named as
	// a heightmap is refused here instead of being read forever.
	b, err := safeio.ReadFile(path, maxFileBytes)
	if errors.Is(err, safeio.ErrTooLarge) {
		return fail(fmt.Errorf("file of %d bytes or more is larger than the %d a field can hold", st.Size(), int64(maxFileBytes)))
	}
	if err != nil {
		return fail(safeio.Unnamed(err))
	}
	r, err := decodeBytes(b, ext, role)
	if err != nil {
		return fail(err)
	}
	return r, nil
}

// decodeBytes decodes a file's bytes by its magic bytes, else by its extension ext. It is
// decodeFile without the file system (and without the headerless raw formats, which decodeFile
// reads straight into the grid: readRaw), for the import fuzzers.
func decodeBytes(b []byte, ext string, role string) (*raster, error) {
	switch sniffBytes(b, ext) {
	case ".png":
		return decodePNG(b, role)
	case ".tif", ".tiff":
		return decodeTIFF(b, role)
	case ".exr":
		return decodeEXR(b)
	}
	return nil, fmt.Errorf("unknown format %q: want .png, .r16, .tif, .tiff, .exr, .f32 or .raw", ext)
}

// decodePNG accepts 8- and 16-bit (and 1/2/4-bit, scaled to 8 by the decoder) grayscale without
// alpha. Colour is refused rather than converted: a colour file in a height slot is usually the
// wrong export (a preview, a splat map), and guessing a gray conversion would hide that.
func decodePNG(b []byte, role string) (*raster, error) {
	w, h, depth, err := pngHeader(b, int64(len(b)), role)
	if err != nil {
		return nil, err
	}
	if err := checkMemory(w, h, max(depth, 8)/8+decodeBytesPerTexel, fmt.Sprintf("%d-bit grayscale PNG", depth)); err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decoding PNG: %w", err)
	}
	return fromImage(img, fmt.Sprintf("%d-bit grayscale PNG", depth), role)
}

// fromImage takes the codes of a decoded grayscale image; any other type is refused.
func fromImage(img image.Image, kind, role string) (*raster, error) {
	bnd := img.Bounds()
	w, h := bnd.Dx(), bnd.Dy()
	if err := CheckSize(w, h); err != nil {
		return nil, err
	}
	r := &raster{w: w, h: h, codes: make([]uint16, w*h), kind: kind}
	switch m := img.(type) {
	case *image.Gray:
		r.maxCode = 255
		for j := 0; j < h; j++ {
			row := m.Pix[j*m.Stride : j*m.Stride+w]
			for i, c := range row {
				r.codes[j*w+i] = uint16(c)
			}
		}
	case *image.Gray16:
		r.maxCode = 65535
		for j := 0; j < h; j++ {
			row := m.Pix[j*m.Stride : j*m.Stride+2*w]
			for i := 0; i < w; i++ {
				r.codes[j*w+i] = uint16(row[2*i])<<8 | uint16(row[2*i+1])
			}
		}
	default:
		return nil, fmt.Errorf("%s decodes as %T (colour or transparency): a %s must be plain grayscale", kind, img, role)
	}
	return r, nil
}

// readRaw reads a headerless little-endian file (.r16: uint16 codes; .f32: float32; .raw: either,
// told apart by the given size: rawLayout) straight into the raster's samples.
func readRaw(path string, n int64, size [2]int, ext string) (*raster, error) {
	w, h, bps, err := rawLayout(ext, n, size, CheckSize)
	if err != nil {
		return nil, err
	}
	kind := rawKind(bps)
	if err := sysmem.Check(uint64(w)*uint64(h)*uint64(bps), fmt.Sprintf("reading %d×%d samples", w, h)); err != nil {
		return nil, err
	}
	f, _, err := safeio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &raster{w: w, h: h, kind: kind}
	var view []byte
	if bps == 2 {
		r.maxCode = 65535
		r.codes = make([]uint16, w*h)
		view = unsafe.Slice((*byte)(unsafe.Pointer(&r.codes[0])), 2*len(r.codes))
	} else {
		r.floats = make([]float32, w*h)
		view = unsafe.Slice((*byte)(unsafe.Pointer(&r.floats[0])), 4*len(r.floats))
	}
	if _, err := io.ReadFull(bufio.NewReaderSize(f, 1<<20), view); err != nil {
		return nil, fmt.Errorf("reading %s: %w", kind, err)
	}
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 { // the file is little-endian
		for k := range r.codes {
			r.codes[k] = binary.LittleEndian.Uint16(view[2*k:])
		}
		for k := range r.floats {
			r.floats[k] = math.Float32frombits(binary.LittleEndian.Uint32(view[4*k:]))
		}
	}
	return r, nil
}

// decodeEXR reads channel Y, else R, else G, else the file's only channel; values are kept. The
// file is read block by block and only the chosen channel is kept, so an RGBA EXR costs one
// float32 per texel, not four; its declared size is checked against the file before allocating.
func decodeEXR(b []byte) (*raster, error) {
	r, _, _, err := readEXR(bytes.NewReader(b), int64(len(b)), CheckSize, func(w, h int, kind string) (Rect, error) {
		return Rect{0, 0, w, h}, checkMemory(w, h, 4, kind)
	})
	return r, err
}

// readEXR streams an EXR of fileSize bytes block by block and keeps one block of the channel
// pickEXRChannel picks: the one block returns for the file's w×h grid (after checkSide has
// bounded its sides), the whole grid for an import, a window for a world's cell.
func readEXR(src io.Reader, fileSize int64, checkSide func(w, h int) error, block func(w, h int, kind string) (Rect, error)) (rs *raster, w, h int, err error) {
	rd, err := exr.NewReader(src)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("decoding EXR: %w", err)
	}
	hd := rd.Header()
	if err := checkSide(hd.Width, hd.Height); err != nil {
		return nil, 0, 0, err
	}
	names := rd.Channels()
	pick, kind, err := pickEXRChannel(names)
	if err != nil {
		return nil, 0, 0, err
	}
	if err := checkBacked(hd.Width, hd.Height, 2*len(names), int(fileSize), deflateRatio); err != nil {
		return nil, 0, 0, fmt.Errorf("EXR %w", err)
	}
	r, err := block(hd.Width, hd.Height, kind)
	if err != nil {
		return nil, 0, 0, err
	}
	rs = &raster{w: r.W(), h: r.H(), floats: make([]float32, r.W()*r.H()), kind: kind}
	seen := 0
	for {
		y0, n, rows, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("decoding EXR: %w", err)
		}
		for y := max(y0, r.J0); y < min(y0+n, r.J1); y++ {
			src := rows[pick][(y-y0)*hd.Width:]
			copy(rs.floats[(y-r.J0)*r.W():(y-r.J0+1)*r.W()], src[r.I0:r.I1])
			seen++
		}
	}
	if seen != r.H() {
		return nil, 0, 0, fmt.Errorf("EXR: %d of the window's %d rows found", seen, r.H())
	}
	return rs, hd.Width, hd.Height, nil
}
