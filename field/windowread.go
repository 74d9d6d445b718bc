package field

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"strata/exr"
	"strata/internal/safeio"
)

// Reading a window of a heightmap or channel file (a world cell's share of its sources, with the
// apron its taps reach). Headerless raw files (.r16, .f32, .raw) are read row by row at their
// offsets, so a source of any size up to MaxWorldSide a side costs the window's memory alone; EXR
// is streamed block by block keeping only the window's rows; PNG and TIFF cannot be entered in the
// middle and are decoded whole (within MaxSide, like LoadHeight) and cropped. Values are mapped
// exactly as LoadHeight / LoadChannel map them, so a window equals the same block of the whole
// import bit for bit.

// ProbeHeight is the grid size a heightmap (or channel) file declares, read from its header (or,
// for headerless raw files, its length and opts.Size), without decoding it.
func ProbeHeight(path string, opts ImportOptions) (w, h int, err error) {
	fail := func(err error) (int, int, error) { return 0, 0, fmt.Errorf("field: %s: %w", path, err) }
	f, size, err := safeio.Open(path)
	if err != nil {
		return fail(safeio.Unnamed(err))
	}
	defer f.Close()
	ext := sniff(f, strings.ToLower(filepath.Ext(path)))
	if isRaw(ext) {
		rw, rh, _, err := rawLayout(ext, size, opts.Size, CheckWorldSize)
		if err != nil {
			return fail(err)
		}
		return rw, rh, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fail(err)
	}
	switch ext {
	case ".png":
		var hd [24]byte
		if _, err := io.ReadFull(f, hd[:]); err != nil || string(hd[12:16]) != "IHDR" {
			return fail(errors.New("not a PNG file (no PNG signature and IHDR)"))
		}
		w, h = int(binary.BigEndian.Uint32(hd[16:20])), int(binary.BigEndian.Uint32(hd[20:24]))
	case ".tif", ".tiff":
		// The first IFD may be anywhere in the file; TIFFs are decoded whole anyway (MaxSide).
		b, err := safeio.ReadFile(path, maxFileBytes)
		if err != nil {
			return fail(safeio.Unnamed(err))
		}
		d, err := parseTIFF(b)
		if err != nil {
			return fail(err)
		}
		w, h = d.w, d.h
	case ".exr":
		hd, err := exr.DecodeConfig(f)
		if err != nil {
			return fail(fmt.Errorf("decoding EXR header: %w", err))
		}
		w, h = hd.Width, hd.Height
	default:
		return fail(fmt.Errorf("unknown format %q: want .png, .r16, .tif, .tiff, .exr, .f32 or .raw", ext))
	}
	if err := CheckWorldSize(w, h); err != nil {
		return fail(err)
	}
	return w, h, nil
}

// sniff is sniffBytes for an open file: the extension it is read by, from its first bytes.
func sniff(f *os.File, ext string) string {
	if isRaw(ext) {
		return ext
	}
	var magic [8]byte
	n, _ := f.ReadAt(magic[:], 0)
	return sniffBytes(magic[:n], ext)
}

// LoadHeightWindow reads block r of a heightmap, mapped as LoadHeight maps it (integer codes onto
// opts.Range, floats kept). r must lie inside the file's grid (ProbeHeight).
func LoadHeightWindow(path string, opts ImportOptions, r Rect) (*Window, error) {
	lo, hi := opts.Range[0], opts.Range[1]
	if lo == 0 && hi == 0 {
		lo, hi = DefaultRange[0], DefaultRange[1]
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(hi > lo) {
		return nil, fmt.Errorf("field: %s: height range %v,%v: want finite LO < HI metres", path, opts.Range[0], opts.Range[1])
	}
	return loadWindow(path, opts.Size, r, "heightmap", lo, hi, [2]int{})
}

// LoadChannelWindow reads block r of a channel file whose grid must be the height's
// (heightW×heightH), mapped as LoadChannel maps it (integer formats onto 0..1, floats kept).
func LoadChannelWindow(path string, heightW, heightH int, r Rect) (*Window, error) {
	return loadWindow(path, [2]int{heightW, heightH}, r, "channel", 0, 1, [2]int{heightW, heightH})
}

// loadWindow reads block r of path; must, when non-zero, is the grid the file has to have.
func loadWindow(path string, size [2]int, r Rect, role string, lo, hi float64, must [2]int) (*Window, error) {
	fail := func(err error) (*Window, error) { return nil, fmt.Errorf("field: %s: %w", path, err) }
	if r.Empty() {
		return fail(fmt.Errorf("empty window %v", r))
	}
	f, fileSize, err := safeio.Open(path)
	if err != nil {
		return fail(safeio.Unnamed(err))
	}
	defer f.Close()
	ext := sniff(f, strings.ToLower(filepath.Ext(path)))
	var rs *raster
	var w, h int
	if isRaw(ext) {
		var bps int
		if w, h, bps, err = rawLayout(ext, fileSize, size, CheckWorldSize); err != nil {
			return fail(err)
		}
		if err := checkWindow(r, w, h, must); err != nil {
			return fail(err)
		}
		if rs, err = readRawWindow(f, w, bps, r); err != nil {
			return fail(err)
		}
	} else if ext == ".exr" {
		rs, w, h, err = readEXR(f, fileSize, CheckWorldSize, func(w, h int, _ string) (Rect, error) {
			return r, checkWindow(r, w, h, must)
		})
		if err != nil {
			return fail(err)
		}
	} else {
		// PNG and TIFF: the whole file, then the block (the decoders cannot start mid-file).
		f.Close()
		whole, err := decodeFile(path, size, role)
		if err != nil {
			return nil, err
		}
		if err := checkWindow(r, whole.w, whole.h, must); err != nil {
			return fail(err)
		}
		rs = whole.crop(r)
	}
	rs.i0, rs.j0 = r.I0, r.J0 // the finite check (grid) names whole-file texels
	g, err := rs.grid(path, lo, hi)
	if err != nil {
		return nil, err
	}
	return &Window{Grid: g, I0: r.I0, J0: r.J0}, nil
}

// checkWindow refuses a block outside a w×h grid, or a grid other than must (when given).
func checkWindow(r Rect, w, h int, must [2]int) error {
	if must != [2]int{} && (w != must[0] || h != must[1]) {
		return fmt.Errorf("the file is %d×%d but the height is %d×%d: a channel's grid must match the height's", w, h, must[0], must[1])
	}
	if r.I0 < 0 || r.J0 < 0 || r.I1 > w || r.J1 > h {
		return fmt.Errorf("window %v is outside the file's %d×%d grid", r, w, h)
	}
	return checkMemory(r.W(), r.H(), 4+decodeBytesPerTexel, "window")
}

// readRawWindow reads the rows of block r from a raw file of w samples a row.
func readRawWindow(f *os.File, w, bps int, r Rect) (*raster, error) {
	rw, rh := r.W(), r.H()
	rs := &raster{w: rw, h: rh, kind: rawKind(bps)}
	if bps == 2 {
		rs.maxCode, rs.codes = 65535, make([]uint16, rw*rh)
	} else {
		rs.floats = make([]float32, rw*rh)
	}
	row := make([]byte, rw*bps)
	for j := 0; j < rh; j++ {
		off := (int64(r.J0+j)*int64(w) + int64(r.I0)) * int64(bps)
		if _, err := f.ReadAt(row, off); err != nil {
			return nil, fmt.Errorf("reading row %d: %w", r.J0+j, err)
		}
		for i := 0; i < rw; i++ {
			if bps == 2 {
				rs.codes[j*rw+i] = binary.LittleEndian.Uint16(row[2*i:])
			} else {
				rs.floats[j*rw+i] = math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:]))
			}
		}
	}
	return rs, nil
}

// crop is block r of a decoded raster.
func (rs *raster) crop(r Rect) *raster {
	out := &raster{w: r.W(), h: r.H(), maxCode: rs.maxCode, kind: rs.kind}
	if rs.floats != nil {
		out.floats = make([]float32, r.W()*r.H())
	} else {
		out.codes = make([]uint16, r.W()*r.H())
	}
	for j := r.J0; j < r.J1; j++ {
		lo, hi := j*rs.w+r.I0, j*rs.w+r.I1
		o := (j - r.J0) * r.W()
		if rs.floats != nil {
			copy(out.floats[o:], rs.floats[lo:hi])
		} else {
			copy(out.codes[o:], rs.codes[lo:hi])
		}
	}
	return out
}
