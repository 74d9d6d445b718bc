package pngfilter

import "testing"

// The Up filter, undone eight bytes at a time, is the byte-by-byte sum mod 256 at every length.
func TestUpWords(t *testing.T) {
	for n := 0; n < 40; n++ {
		cur, prev := make([]byte, n), make([]byte, n)
		for i := range cur {
			cur[i], prev[i] = byte(i*97+200), byte(i*61+130)
		}
		want := make([]byte, n)
		for i := range want {
			want[i] = cur[i] + prev[i]
		}
		if err := Row(2, cur, prev, 4); err != nil {
			t.Fatal(err)
		}
		if string(cur) != string(want) {
			t.Fatalf("length %d: %v, want %v", n, cur, want)
		}
	}
}
