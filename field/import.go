package field

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"strata/internal/safeio"
	"strata/internal/sysmem"
)

// DefaultRange is the height range in metres that integer heightmaps map onto when the caller
// gives none (`--height-range` left out): code 0 is 0 m and the largest code is 1000 m. An integer
// file carries no unit, so any default is a guess; 1000 m keeps a 16-bit file's step at 1.5 cm and
// an 8-bit file's at 3.9 m, and the dunes-sized landscapes the editor shows first stay in view.
var DefaultRange = [2]float64{0, 1000}

// maxFileBytes bounds what an import reads into memory: a MaxTexels float32 file plus headers.
const maxFileBytes = 4*MaxTexels + 1<<24

// ImportOptions says how to read a heightmap whose file does not say it itself (SPEC "Command
// line": --height-range, --height-size).
type ImportOptions struct {
	// Range is the LO, HI metres integer codes 0 … max map onto linearly; zero = DefaultRange.
	// Float formats keep their stored values and ignore it.
	Range [2]float64
	// Size is W, H texels for headerless raw files: required for .raw, optional for .r16 and
	// .f32 (square when zero). Files with headers ignore it.
	Size [2]int
}

// LoadHeight reads a heightmap into a grid: LoadHeightContext without cancellation or progress.
func LoadHeight(path string, opts ImportOptions) (*Grid, error) {
	g, _, err := LoadHeightContext(context.Background(), path, opts, nil)
	return g, err
}

// LoadChannel reads a field channel that must match a heightW×heightH height grid:
// LoadChannelContext without cancellation or progress.
func LoadChannel(path string, heightW, heightH int) (*Grid, error) {
	g, _, err := LoadChannelContext(context.Background(), path, heightW, heightH, nil)
	return g, err
}

// LoadHeightContext reads a heightmap into a grid and returns the range of its values. Formats,
// by extension: .png (8/16-bit grayscale), .r16 (raw little-endian uint16, square or opts.Size),
// .tif/.tiff (8/16-bit grayscale or 32-bit float, one channel), .exr (channel Y, else R, else G,
// else the only one), .f32 (raw little-endian float32, square or opts.Size), .raw (opts.Size
// required; 2 bytes a texel is read as .r16, 4 as .f32); an unknown extension is sniffed. Integer
// codes map linearly onto opts.Range; float values are kept. Image row 0 is the field's minimum
// Z and image x is +X (SPEC "Orientation"): nothing is flipped. Errors name the file and the
// reason and wrap the underlying error.
//
// The file is decoded straight into the grid (docs/field.md "Import"), on every core where the
// format allows, holding little besides the grid. progress, when not nil, is told rows done of
// total (a few hundred times at most, from one goroutine at a time, always (0, total) first and
// (total, total) at the end) so a status bar or a command line can show it. Cancelling ctx stops
// the decode within a band or a block of rows; the error then wraps ctx.Err() and nothing of the
// load is kept.
func LoadHeightContext(ctx context.Context, path string, opts ImportOptions, progress func(done, total int)) (*Grid, Range, error) {
	return LoadHeightRows(ctx, path, opts, progress, nil)
}

// RowsFunc hears, while an import fills its grid, how many of the grid's first rows are complete:
// rows 0 … done-1 of g hold their final values and are not written again, so a consumer may read
// them while the rest of the file is decoded (the viewport's level-of-detail tree is built so,
// docs/design.md "Progressive open"). It is called from one goroutine at a time with done
// increasing, on a decoder's goroutine: it must return at once (hand the work to a goroutine of
// its own). Formats decoded in order report as bands of rows complete; a band finished out of
// order is reported once the rows before it are; an interlaced PNG, whose passes write every
// row several times, reports all its rows at the end. When the import fails, what was reported
// was never a grid the caller gets: the consumer is to drop it.
type RowsFunc func(g *Grid, done int)

// LoadHeightRows is LoadHeightContext telling rows, when not nil, how many of the grid's first
// rows are complete as the file is read.
func LoadHeightRows(ctx context.Context, path string, opts ImportOptions, progress func(done, total int), rows RowsFunc) (*Grid, Range, error) {
	lo, hi := opts.Range[0], opts.Range[1]
	if lo == 0 && hi == 0 {
		lo, hi = DefaultRange[0], DefaultRange[1]
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(hi > lo) {
		return nil, Range{}, fmt.Errorf("field: %s: height range %v,%v: want finite LO < HI metres", path, opts.Range[0], opts.Range[1])
	}
	return load(ctx, path, loadSpec{size: opts.Size, role: "heightmap", lo: lo, hi: hi, rows: rows}, progress)
}

// LoadChannelContext reads a field channel that must match a heightW×heightH height grid, and
// the range of its values, as LoadHeightContext reads a heightmap. 8/16-bit integer formats map
// onto 0..1 (a painted mask); EXR, float TIFF and raw float32 keep their stored values (SPEC: "no
// rescaling"). Headerless raw files are read at the height's size.
func LoadChannelContext(ctx context.Context, path string, heightW, heightH int, progress func(done, total int)) (*Grid, Range, error) {
	return load(ctx, path, loadSpec{size: [2]int{heightW, heightH}, role: "channel", lo: 0, hi: 1, must: [2]int{heightW, heightH}}, progress)
}

// loadSpec is what a load is asked for: the size of headerless files, the role (for messages),
// the range integer codes map onto, and the grid a channel must have (zero: any).
type loadSpec struct {
	size   [2]int
	role   string
	lo, hi float64
	must   [2]int
	rows   RowsFunc // nil: nobody reads the rows before the import returns
}

// source is a file whose header has been read and checked, ready to be decoded into a grid.
type source interface {
	dims() (w, h int)
	// kind names what the file turned out to be, for messages: "16-bit grayscale PNG".
	kind() string
	// maxCode is the largest code of an integer format (255 or 65535), 0 for a float format.
	maxCode() int
	// memory is what the decode holds besides the grid, and the work the memory check names.
	memory() (bytes uint64, what string)
	// rows is the progress total.
	rows() int
	// decode fills out's grid, telling p as rows are done, and stops soon after ctx is done.
	decode(ctx context.Context, out *gridOut, p *progress) error
}

// load opens path (a regular file, within maxFileBytes) and imports it.
func load(ctx context.Context, path string, spec loadSpec, progress func(done, total int)) (*Grid, Range, error) {
	fail := func(err error) (*Grid, Range, error) { return nil, Range{}, fmt.Errorf("field: %s: %w", path, err) }
	st, err := os.Stat(path)
	if err != nil {
		return nil, Range{}, fmt.Errorf("field: %w", err)
	}
	if st.IsDir() {
		return fail(errors.New("is a directory, not an image"))
	}
	// Only a regular file, and no more bytes than a field can hold: a FIFO or /dev/zero named as
	// a heightmap is refused here instead of being read forever.
	f, size, err := safeio.Open(path)
	if err != nil {
		return fail(safeio.Unnamed(err))
	}
	defer f.Close()
	if size > maxFileBytes {
		return fail(fmt.Errorf("file of %d bytes is larger than the %d a field can hold", size, int64(maxFileBytes)))
	}
	return importFrom(ctx, path, f, size, strings.ToLower(filepath.Ext(path)), spec, progress)
}

// importFrom imports the size bytes of r, named path in messages, by its magic bytes or else its
// extension ext: the header is read and checked, the channel's size and the memory the decode
// needs are checked, and only then is the grid allocated and filled.
func importFrom(ctx context.Context, path string, r io.ReaderAt, size int64, ext string, spec loadSpec, progress func(done, total int)) (*Grid, Range, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	fail := func(err error) (*Grid, Range, error) { return nil, Range{}, fmt.Errorf("field: %s: %w", path, err) }
	src, err := openSource(r, size, ext, spec)
	if err != nil {
		return fail(err)
	}
	w, h := src.dims()
	if spec.must != [2]int{} && (w != spec.must[0] || h != spec.must[1]) {
		return fail(fmt.Errorf("%s is %d×%d but the height is %d×%d: a channel's grid must match the height's", src.kind(), w, h, spec.must[0], spec.must[1]))
	}
	extra, what := src.memory()
	g, err := newImportPlane(w, h, extra, what)
	if err != nil {
		return fail(err)
	}
	var lut []float32
	if mc := src.maxCode(); mc > 0 {
		lut = codeLUT(spec.lo, spec.hi, mc)
	}
	out := newGridOut(g, lut)
	out.hear(spec.rows)
	if err := src.decode(ctx, out, newProgress(progress, src.rows())); err != nil {
		g.Release()
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		return fail(err)
	}
	got, rng, err := out.finish(path, src.kind())
	if err != nil {
		g.Release()
	}
	return got, rng, err
}

// openSource reads the header of the format r is read by.
func openSource(r io.ReaderAt, size int64, ext string, spec loadSpec) (source, error) {
	if isRaw(ext) {
		return newRawSource(r, size, spec.size, ext)
	}
	var magic [8]byte
	n, _ := r.ReadAt(magic[:], 0)
	switch sniffBytes(magic[:n], ext) {
	case ".png":
		return newPNGSource(r, size, spec.role)
	case ".tif", ".tiff":
		return newTIFFSource(r, size, spec.role)
	case ".exr":
		return newEXRSource(r, size)
	}
	return nil, fmt.Errorf("unknown format %q: want .png, .r16, .tif, .tiff, .exr, .f32 or .raw", ext)
}

// isRaw reports the extensions of headerless sample files: .r16, .f32 and .raw.
func isRaw(ext string) bool { return ext == ".r16" || ext == ".f32" || ext == ".raw" }

// sniffBytes is the extension a file starting with b is read by: its own ext for the raw formats,
// else what its magic bytes say, else its own.
func sniffBytes(b []byte, ext string) string {
	if isRaw(ext) {
		return ext
	}
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return ".png"
	case bytes.HasPrefix(b, []byte("II*\x00")) || bytes.HasPrefix(b, []byte("MM\x00*")):
		return ".tif"
	case bytes.HasPrefix(b, []byte{0x76, 0x2f, 0x31, 0x01}):
		return ".exr"
	}
	return ext
}

// Largest expansion of stored bytes into pixel bytes: zlib cannot exceed about 1032:1, and TIFF's
// LZW about 4096:1 (one 12-bit code per 4096-byte string).
const (
	deflateRatio = 1100
	lzwRatio     = 4100
)

// decodeBytesPerTexel is what a whole-file decode (import_whole.go: the windows of PNG and TIFF
// files) holds per texel besides the decoded image: the codes (uint16) and the float32 grid they
// map onto. The streaming import holds the grid and its buffers (source.memory).
const decodeBytesPerTexel = 2 + 4

// checkMemory refuses a whole-file decode whose peak (bytesPerTexel for every texel of a w×h
// file) is more than the machine can give now (internal/sysmem), before the decoder allocates it:
// a 249 KB PNG can declare 16000² (docs/limits.md). importFrom makes the same check for a
// streaming import.
func checkMemory(w, h, bytesPerTexel int, kind string) error {
	return sysmem.Check(uint64(w)*uint64(h)*uint64(bytesPerTexel), fmt.Sprintf("decoding a %d×%d %s", w, h, kind))
}

// checkBacked refuses a header whose pixels the file's bytes cannot hold even at the codec's best
// compression ratio, so a tiny corrupt file cannot make the decoder allocate gigabytes.
func checkBacked(w, h, bytesPerPixel, fileBytes, ratio int) error {
	if need := int64(w) * int64(h) * int64(bytesPerPixel); need > int64(ratio)*int64(fileBytes)+1<<16 {
		return fmt.Errorf("header claims %d×%d pixels, more than the %d-byte file can hold", w, h, fileBytes)
	}
	return nil
}

// rawKind names a headerless file of bps-byte samples, for messages.
func rawKind(bps int) string {
	return map[int]string{2: "raw 16-bit file", 4: "raw float32 file"}[bps]
}

// rawLayout is the grid and sample width of a headerless little-endian file of n bytes: .r16
// holds uint16 codes, .f32 float32, and .raw either, told apart by the size it must be given
// (2·W·H bytes is 16-bit, 4·W·H float32: the two cannot collide). .r16 and .f32 are size when
// given, else the square their bytes make. checkSide bounds the sides: CheckSize for a field
// read whole, CheckWorldSize for a world's source read in windows.
func rawLayout(ext string, n int64, size [2]int, checkSide func(w, h int) error) (w, h, bps int, err error) {
	w, h = size[0], size[1]
	if ext == ".raw" {
		if w == 0 && h == 0 {
			return 0, 0, 0, errors.New(".raw file: the size must be given (--height-size WxH) to tell 16-bit from float32")
		}
		if err := checkSide(w, h); err != nil {
			return 0, 0, 0, err
		}
		switch texels := int64(w) * int64(h); n {
		case 2 * texels:
			return w, h, 2, nil
		case 4 * texels:
			return w, h, 4, nil
		default:
			return 0, 0, 0, fmt.Errorf(".raw file of %d bytes is neither %d×%d 16-bit (%d bytes) nor float32 (%d bytes)", n, w, h, 2*texels, 4*texels)
		}
	}
	bps = 2
	if ext == ".f32" {
		bps = 4
	}
	kind := rawKind(bps)
	if w == 0 && h == 0 {
		samples := n / int64(bps)
		s := int64(math.Sqrt(float64(samples)))
		for s*s < samples {
			s++
		}
		for s*s > samples {
			s--
		}
		if n%int64(bps) != 0 || s*s != samples || s == 0 || s > 1<<31 {
			return 0, 0, 0, fmt.Errorf("%s of %d bytes is not a square grid of %d-byte samples: give its size (--height-size WxH)", kind, n, bps)
		}
		w, h = int(s), int(s)
	}
	if err := checkSide(w, h); err != nil {
		return 0, 0, 0, err
	}
	if want := int64(w) * int64(h) * int64(bps); n != want {
		return 0, 0, 0, fmt.Errorf("%s of %d bytes does not hold %d×%d samples (%d bytes)", kind, n, w, h, want)
	}
	return w, h, bps, nil
}

// pickEXRChannel is the channel a heightmap or channel is read from: Y, else R, else G, else the
// file's only channel; kind names it for messages.
func pickEXRChannel(names []string) (pick int, kind string, err error) {
	pick = -1
	for _, want := range []string{"Y", "R", "G"} {
		for c, name := range names {
			if name == want && pick < 0 {
				pick = c
			}
		}
	}
	if pick < 0 && len(names) == 1 {
		pick = 0
	}
	if pick < 0 {
		return 0, "", fmt.Errorf("EXR has channels %v: want Y, R, G or a single channel", names)
	}
	return pick, fmt.Sprintf("EXR channel %s", names[pick]), nil
}
