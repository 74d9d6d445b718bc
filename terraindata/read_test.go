package terraindata

import (
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// Read takes an EXR payload's blocks in any order (Stream.Each): the texture is the one the
// blocks make in file order (Next), and a bad value is named by the first texel in row order,
// whichever block was checked first.
func TestReadEqualsNext(t *testing.T) {
	const w, h = 7, 100 // several 16-row ZIP blocks
	for _, tc := range []struct {
		format Format
		bad    bool
	}{{RGBA32F, false}, {R32F, false}, {RGBA32F, true}} {
		dir := filepath.Join(t.TempDir(), "t.texture")
		nc := tc.format.Components()
		_, err := WriteTextureFloat(dir, tc.format, w, h, func(y int, dst []float32) error {
			for i := range dst {
				dst[i] = float32(y*1000 + i)
			}
			if tc.bad && (y == 90 || y == 20) {
				dst[nc*(y%7)] = float32(math.NaN()) // texel (6, 90) and (6, 20)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadTexture(dir)
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), "2 texel(s) are invalid, first at (6,20): R is NaN") {
				t.Errorf("%s with two NaNs: %v", tc.format, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		s, err := standalone(dir).Stream()
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, w*h*nc)
		for {
			b, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			copy(want[b.Y0*w*nc:], b.Float)
		}
		s.Close()
		for k := range want {
			if got.Float[k] != want[k] || want[k] != float32(k/(w*nc)*1000+k%(w*nc)) {
				t.Fatalf("%s: value %d: Read %v, Next %v", tc.format, k, got.Float[k], want[k])
			}
		}
	}
}
