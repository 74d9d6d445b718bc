package viewport

import "testing"

// An overlay grid is reduced by the smallest factor that fits overlaySide and the binding, each
// texel the mean of its block, the far edges' blocks clipped.
func TestOverlayGridReduced(t *testing.T) {
	for _, c := range []struct {
		w, h  int
		limit uint64
		want  int
	}{
		{64, 64, 0, 1},
		{overlaySide, overlaySide, 0, 1},
		{overlaySide + 1, 3, 0, 2},
		{8192, 8192, 128 << 20, 2},
		{16384, 16384, 0, 4},
		{1000, 1000, 16 + 4*250*250, 4}, // the binding decides
	} {
		if k := overlayFactor(c.w, c.h, c.limit); k != c.want {
			t.Errorf("overlayFactor(%d, %d, %d) = %d, want %d", c.w, c.h, c.limit, k, c.want)
		}
	}
	// 5×3 by 2: blocks 2×2, 1×2 (east edge), 2×1 (north edge), 1×1 (corner).
	v := []float32{
		1, 3, 5, 7, 9,
		2, 4, 6, 8, 10,
		100, 200, 300, 400, 500,
	}
	got, w, h := boxMean(make([]float32, 1, 64), v, 5, 3, 2)
	want := []float32{2.5, 6.5, 9.5, 150, 350, 500}
	if w != 3 || h != 2 || len(got) != len(want) {
		t.Fatalf("boxMean: %dx%d %v", w, h, got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("boxMean: %v, want %v", got, want)
		}
	}
}

// BenchmarkBoxMean8192 is the overlay of an 8192² mask reduced for a 128 MiB binding.
func BenchmarkBoxMean8192(b *testing.B) {
	v := make([]float32, 8192*8192)
	for i := range v {
		v[i] = float32(i & 255)
	}
	k := overlayFactor(8192, 8192, 128<<20)
	var dst []float32
	b.ResetTimer()
	for b.Loop() {
		dst, _, _ = boxMean(dst, v, 8192, 8192, k)
	}
}

// The aspect overlay's reduction is a circular mean: 350° and 10° give north, not south; a block
// at least half flat is flat.
func TestCircularMean(t *testing.T) {
	v := []float32{
		350, 10, 90, -1,
		350, 10, -1, -1,
	}
	got, w, h := circularMean(nil, v, 4, 2, 2)
	if w != 2 || h != 1 {
		t.Fatalf("circularMean: %dx%d", w, h)
	}
	if d := min(got[0], 360-got[0]); d > 1e-3 {
		t.Errorf("mean of 350°, 10°, 350°, 10° = %v, want 0", got[0])
	}
	if got[1] != -1 {
		t.Errorf("a block three quarters flat = %v, want -1", got[1])
	}
}
