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

// checkValues' whole-block pass refuses exactly what its value-by-value check does, for every
// special value in every role.
func TestCheckValuesSpecials(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	specials := []float32{0, float32(math.Copysign(0, -1)), 0.5, 1, 1.0001, -1e-30, 3e38, -3e38, inf, -inf, nan}
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	roles := []struct {
		role string
		nc   int
		ok   func(c int, v float32) bool
	}{
		{"height", 4, func(c int, v float32) bool { return finite(v) && (c != 3 || v >= 0 && v <= 1) }},
		{"channels.mask.snow", 1, func(_ int, v float32) bool { return finite(v) && v >= 0 && v <= 1 }},
		{"channels.wetness", 1, func(_ int, v float32) bool { return finite(v) }},
		{"scatter.trees", 1, func(_ int, v float32) bool { return finite(v) && v >= 0 }},
	}
	for _, r := range roles {
		for c := 0; c < r.nc; c++ {
			for _, v := range specials {
				vals := make([]float32, 2*r.nc) // two texels, the second holding v in channel c
				for i := range vals {
					vals[i] = 0.25
				}
				vals[r.nc+c] = v
				s := &Stream{role: r.role, Info: TextureInfo{Width: 2, Height: 1}}
				s.checkValues(0, vals, r.nc)
				if got, want := s.bad.n == 0, r.ok(c, v); got != want {
					t.Errorf("%s channel %d value %v: passes %v, want %v", r.role, c, v, got, want)
				}
			}
		}
	}
}
