package field

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecodePNG fuzzes the PNG row decoder against image/png (sameImport): the same files
// accepted, the same codes, as heightmaps and cut into many small batches. Seeded from
// testdata/import (ImageMagick's 1/2/4/8/16-bit, interlaced and not, down to 1×1) and the
// project's own encoders.
func FuzzDecodePNG(f *testing.F) {
	files, _ := filepath.Glob("testdata/import/*.png")
	if len(files) == 0 {
		f.Fatal("no seeds in testdata/import")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
	}
	g := floatGrid(9, 7)
	rng := [2]float64{-3000, 3000}
	var b16, b8 bytes.Buffer
	if err := EncodePNG16(&b16, g, rng); err != nil {
		f.Fatal(err)
	}
	if err := encodeGray8(g, rng)(&b8); err != nil {
		f.Fatal(err)
	}
	f.Add(b16.Bytes(), true)
	f.Add(b8.Bytes(), false)
	f.Fuzz(func(t *testing.T, b []byte, small bool) {
		if small {
			smallPieces(t)
		}
		if err := sameImport("fuzz.png", b, ".png", heightSpec([2]int{}, rng)); err != nil {
			t.Fatal(err)
		}
	})
}
