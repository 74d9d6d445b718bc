package terraindata

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sync"

	"gopkg.in/yaml.v3"

	"strata/exr"
)

// Format is a .texture child's pixel format (SPEC "terrainData on disk").
type Format string

// The formats a child can have. rgba8 is stored as data.png, the float formats as data.exr.
const (
	RGBA8   Format = "rgba8"
	RGBA32F Format = "rgba32f"
	R32F    Format = "r32f"
)

// Components is the number of values per texel.
func (f Format) Components() int {
	if f == R32F {
		return 1
	}
	return 4
}

// DataFile is the payload's name inside the .texture folder.
func (f Format) DataFile() string {
	if f == RGBA8 {
		return "data.png"
	}
	return "data.exr"
}

func (f Format) valid() bool { return f == RGBA8 || f == RGBA32F || f == R32F }

// Colour spaces a texture.yaml records, so an engine knows whether to decode sRGB on sampling.
const (
	SRGB   = "srgb"
	Linear = "linear"
)

// TextureInfoFile is the descriptor's name inside a .texture folder.
const TextureInfoFile = "texture.yaml"

// TextureInfo is texture.yaml: enough to bind the texture without opening its payload.
type TextureInfo struct {
	GUID       string `yaml:"guid"`
	Format     Format `yaml:"format"`
	Width      int    `yaml:"width"`
	Height     int    `yaml:"height"`
	ColorSpace string `yaml:"colorSpace"`
}

// Texture is a child read whole. Exactly one of RGBA8 and Float is set, by Format.
type Texture struct {
	TextureInfo
	RGBA8 *image.NRGBA // rgba8: straight (not premultiplied) bytes, as control weights need
	// Float holds the float formats interleaved per texel (Format.Components() values), row-major,
	// row 0 = minimum Z.
	Float []float32
}

// floatChannels are the EXR channel names of each float format. r32f stores one channel named R,
// matching the format's name; readers accept any single channel.
func floatChannels(f Format) []string {
	if f == R32F {
		return []string{"R"}
	}
	return []string{"R", "G", "B", "A"}
}

// Encoder writes .texture children with their payloads compressed on every core: PNG rows in
// deflate segments stitched into one zlib stream (png.go), EXR ZIP blocks each on its own
// (exr.Writer.WriteBlocks). The zero value is ready: every core, no cancellation, no progress.
type Encoder struct {
	// Context stops a write between blocks; the half-written child is left for the caller (Save
	// removes its whole temporary folder).
	Context context.Context
	// Workers is the number of goroutines compressing; ≤ 0 means GOMAXPROCS.
	Workers int
	// Progress receives the raw (uncompressed) bytes of each block as it is written; may be nil.
	Progress func(raw int64)
}

func (e *Encoder) ctx() context.Context {
	if e == nil || e.Context == nil {
		return context.Background()
	}
	return e.Context
}

func (e *Encoder) report(n int64) {
	if e != nil && e.Progress != nil {
		e.Progress(n)
	}
}

// WriteTextureRGBA8 writes img as a .texture folder at dir (created if needed), with the zero
// Encoder. The guid is random; Save replaces it with one derived from the container, so re-bakes
// keep it.
func WriteTextureRGBA8(dir string, img *image.NRGBA, colorSpace string) (TextureInfo, error) {
	return (&Encoder{}).RGBA8(dir, img, colorSpace)
}

// RGBA8 writes img as a .texture folder at dir (created if needed) holding data.png.
func (e *Encoder) RGBA8(dir string, img *image.NRGBA, colorSpace string) (TextureInfo, error) {
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return TextureInfo{}, fmt.Errorf("terraindata: %s: empty image", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return TextureInfo{}, fmt.Errorf("terraindata: %w", err)
	}
	p := filepath.Join(dir, RGBA8.DataFile())
	f, err := os.Create(p)
	if err != nil {
		return TextureInfo{}, fmt.Errorf("terraindata: %w", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	row := func(y int) []byte {
		o := img.PixOffset(b.Min.X, b.Min.Y+y)
		return img.Pix[o : o+4*b.Dx()]
	}
	err = encodeRGBA8(e.ctx(), bw, b.Dx(), b.Dy(), row, e.workers(), e.report)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return TextureInfo{}, fmt.Errorf("terraindata: writing %s: %w", p, err)
	}
	info := TextureInfo{GUID: newGUID(), Format: RGBA8, Width: b.Dx(), Height: b.Dy(), ColorSpace: colorSpace}
	return info, writeInfo(dir, info)
}

func (e *Encoder) workers() int {
	if e == nil {
		return 0
	}
	return e.Workers
}

// RowFunc fills dst with row y of a float texture: width × Components values, interleaved per
// texel. Producing rows on demand is what keeps an 8192² height payload off the heap. It is
// called from several goroutines at once, for different rows.
type RowFunc func(y int, dst []float32) error

// WriteTextureFloat streams a float texture (rgba32f or r32f) to dir as an EXR (FloatCompression),
// with the zero Encoder.
func WriteTextureFloat(dir string, format Format, width, height int, rows RowFunc) (TextureInfo, error) {
	return (&Encoder{}).Float(dir, format, width, height, rows)
}

// Float streams a float texture (rgba32f or r32f) to dir as an EXR compressed as
// FloatCompression says, its blocks filled from rows and compressed on every core.
func (e *Encoder) Float(dir string, format Format, width, height int, rows RowFunc) (TextureInfo, error) {
	if format != RGBA32F && format != R32F {
		return TextureInfo{}, fmt.Errorf("terraindata: %s: format %q is not a float format", dir, format)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return TextureInfo{}, fmt.Errorf("terraindata: %w", err)
	}
	p := filepath.Join(dir, format.DataFile())
	f, err := os.Create(p)
	if err != nil {
		return TextureInfo{}, fmt.Errorf("terraindata: %w", err)
	}
	err = e.writeFloatEXR(f, format, width, height, rows)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return TextureInfo{}, fmt.Errorf("terraindata: writing %s: %w", p, err)
	}
	info := TextureInfo{GUID: newGUID(), Format: format, Width: width, Height: height, ColorSpace: Linear}
	return info, writeInfo(dir, info)
}

// FloatCompression is how a float payload of format f is stored. The rgba32f height — metres and
// their two gradients, whose low mantissa bits are noise to zlib — is stored uncompressed: ZIP
// kept 75% of its bytes (the sample's and a 4096×3496 DEM's) for twice the time to write it and
// to read it back, the longest part of a bake on two cores (docs/PERFORMANCE.md, "Bakes that keep
// up"). The r32f channels and densities — masks, zeros, smooth fields — stay ZIP (20% or less).
func FloatCompression(f Format) exr.Compression {
	if f == RGBA32F {
		return exr.None
	}
	return exr.ZIP
}

// writeFloatEXR fills each block (sixteen rows for ZIP, one uncompressed) from rows,
// de-interleaved into the EXR's channel planes, on every core.
func (e *Encoder) writeFloatEXR(f *os.File, format Format, width, height int, rows RowFunc) error {
	names := floatChannels(format)
	nc := len(names)
	bw := &seekBuffer{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	w, err := exr.NewWriter(bw, width, height, names, FloatCompression(format))
	if err != nil {
		return err
	}
	rowBytes := int64(width * nc * 4)
	var pool sync.Pool // a row buffer per goroutine at a time
	err = w.WriteBlocks(e.ctx(), e.workers(), func(y0, n int, planes [][]float32) error {
		row, _ := pool.Get().([]float32)
		if len(row) != width*nc {
			row = make([]float32, width*nc)
		}
		defer pool.Put(row)
		for l := 0; l < n; l++ {
			if err := rows(y0+l, row); err != nil {
				return fmt.Errorf("row %d: %w", y0+l, err)
			}
			if nc == 1 {
				copy(planes[0][l*width:(l+1)*width], row)
				continue
			}
			for x := 0; x < width; x++ {
				for c := 0; c < nc; c++ {
					planes[c][l*width+x] = row[x*nc+c]
				}
			}
		}
		return nil
	}, func(n int) { e.report(int64(n) * rowBytes) })
	if err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return bw.w.Flush()
}

// seekBuffer buffers writes to a file and flushes before seeking, so the exr writer's many small
// block writes are cheap and its final seek-back to the offset table still lands right.
type seekBuffer struct {
	f *os.File
	w *bufio.Writer
}

func (s *seekBuffer) Write(p []byte) (int, error) { return s.w.Write(p) }

func (s *seekBuffer) Seek(off int64, whence int) (int64, error) {
	if err := s.w.Flush(); err != nil {
		return 0, err
	}
	return s.f.Seek(off, whence)
}

// WriteTextureFloatPixels writes a float texture held whole (Float layout of Texture), with the
// zero Encoder.
func WriteTextureFloatPixels(dir string, format Format, width, height int, pix []float32) (TextureInfo, error) {
	return (&Encoder{}).FloatPixels(dir, format, width, height, pix)
}

// FloatPixels writes a float texture held whole (Float layout of Texture).
func (e *Encoder) FloatPixels(dir string, format Format, width, height int, pix []float32) (TextureInfo, error) {
	nc := format.Components()
	if len(pix) != width*height*nc {
		return TextureInfo{}, fmt.Errorf("terraindata: %s: %d values for %dx%d %s", dir, len(pix), width, height, format)
	}
	return e.Float(dir, format, width, height, func(y int, dst []float32) error {
		copy(dst, pix[y*width*nc:(y+1)*width*nc])
		return nil
	})
}

func writeInfo(dir string, info TextureInfo) error {
	b, err := yaml.Marshal(info)
	if err != nil {
		return fmt.Errorf("terraindata: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, TextureInfoFile), b, 0o644); err != nil {
		return fmt.Errorf("terraindata: %w", err)
	}
	return nil
}
