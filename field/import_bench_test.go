package field

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"strata/internal/sysmem"
)

// BenchmarkImport times LoadHeightContext on one ground written in every format the import reads,
// at 2048² and 8192² (docs/PERFORMANCE.md "Import"): 16-bit PNG (image/png's encoder, and the
// same file through the whole-file path it replaced, png16-old), R16, F32, 16-bit TIFF in one
// deflate strip (EncodeTIFF16) and in 64-row deflate strips with a predictor (as GDAL writes
// them), float TIFF, EXR (ZIP). B/op is what one import allocates: the grid (4 B a texel) and
// its bounded buffers. The files are written into the benchmark's temporary folder first; a size
// the machine cannot hold (memory or disk) is skipped.
//
//	go test ./field -run '^$' -bench Import -benchtime 5x
func BenchmarkImport(b *testing.B) {
	for _, n := range []int{2048, 8192} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			need := uint64(n) * uint64(n)
			if err := sysmem.Check(16*need, "the import benchmark"); err != nil {
				b.Skipf("%d²: %v", n, err)
			}
			var st syscall.Statfs_t
			if syscall.Statfs(dir, &st) == nil && st.Bavail*uint64(st.Bsize) < 24*need {
				b.Skipf("%d²: %d bytes free in %s, the files need about %d", n, st.Bavail*uint64(st.Bsize), dir, 24*need)
			}
			g := benchGround(n)
			rng := [2]float64{-1500, 2300}
			files := []struct {
				name string
				enc  func(io.Writer) error
				old  bool
			}{
				{"png16", func(w io.Writer) error { return EncodePNG16(w, g, rng) }, false},
				{"png16-old", nil, true},
				{"r16", func(w io.Writer) error { return EncodeR16(w, g, rng) }, false},
				{"f32", func(w io.Writer) error { return EncodeF32(w, g) }, false},
				{"tiff16", func(w io.Writer) error { return EncodeTIFF16(w, g, rng) }, false},
				{"tiff16-strips", func(w io.Writer) error { return encodeTIFF16Strips(w, g, rng, 64) }, false},
				{"tiff32", func(w io.Writer) error { return EncodeTIFFFloat(w, g) }, false},
				{"exr", encodeEXR(g, "Y"), false},
			}
			ext := map[string]string{"png16": ".png", "png16-old": ".png", "r16": ".r16", "f32": ".f32", "tiff16": ".tif", "tiff16-strips": ".tif", "tiff32": ".tif", "exr": ".exr"}
			for _, f := range files {
				path := filepath.Join(dir, "png16.png")
				if !f.old {
					path = filepath.Join(dir, f.name+ext[f.name])
					if err := writeBenchFile(path, f.enc); err != nil {
						b.Fatal(err)
					}
				}
				opts := ImportOptions{Range: rng, Size: [2]int{n, n}}
				b.Run(f.name, func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(4 * int64(need))
					for b.Loop() {
						var gg *Grid
						var err error
						if f.old {
							var rs *raster
							if rs, err = decodeFile(path, opts.Size, "heightmap"); err == nil {
								gg, err = rs.grid(path, rng[0], rng[1])
							}
						} else {
							gg, _, err = LoadHeightContext(context.Background(), path, opts, nil)
						}
						if err != nil || gg.W != n {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

func writeBenchFile(path string, enc func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := enc(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchGround is an n×n ground like the DEMs artists bring: the real 120×91 topobathy grid
// (testdata/maps) resampled with Catmull-Rom, as ImageMagick's -filter
// Catrom -resize makes /tmp/dem/dem8192.png, else rolling synthetic relief.
func benchGround(n int) *Grid {
	g := NewGrid(n, n)
	src, err := LoadHeight(topobathy, ImportOptions{Size: [2]int{120, 91}})
	if err != nil {
		for k := range g.Data {
			x, z := float64(k%n)/float64(n), float64(k/n)/float64(n)
			g.Data[k] = float32(900*math.Sin(7*x+3*math.Sin(5*z)) + 500*math.Cos(11*z+2*x) + 40*math.Sin(91*x*z))
		}
		return g
	}
	cubic := func(p0, p1, p2, p3, t float64) float64 {
		return p1 + 0.5*t*(p2-p0+t*(2*p0-5*p1+4*p2-p3+t*(3*(p1-p2)+p3-p0)))
	}
	at := func(i, j int) float64 {
		return float64(src.At(min(max(i, 0), src.W-1), min(max(j, 0), src.H-1)))
	}
	for j := range n {
		v := (float64(j)+0.5)*float64(src.H)/float64(n) - 0.5
		j0, tv := int(math.Floor(v)), v-math.Floor(v)
		for i := range n {
			u := (float64(i)+0.5)*float64(src.W)/float64(n) - 0.5
			i0, tu := int(math.Floor(u)), u-math.Floor(u)
			var col [4]float64
			for k := range 4 {
				col[k] = cubic(at(i0-1, j0-1+k), at(i0, j0-1+k), at(i0+1, j0-1+k), at(i0+2, j0-1+k), tu)
			}
			g.Data[j*n+i] = float32(cubic(col[0], col[1], col[2], col[3], tv))
		}
	}
	return g
}
