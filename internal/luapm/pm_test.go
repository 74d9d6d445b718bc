package luapm

import (
	"errors"
	"strings"
	"testing"
)

// Find agrees with Lua's patterns on the cases procgen's string library relies on.
func TestFind(t *testing.T) {
	for _, c := range []struct {
		pat, src string
		offset   int
		want     [][2]int // each match's start and end
	}{
		{"a", "banana", 0, [][2]int{{1, 2}, {3, 4}, {5, 6}}},
		{"^b", "banana", 0, [][2]int{{0, 1}}},
		{"^a", "banana", 0, nil},
		{"(%w+)=(%w+)", "k=v", 0, [][2]int{{0, 3}}},
		{"x*", "ab", 0, [][2]int{{0, 0}, {1, 1}, {2, 2}}},
		{"%b()", "f(a(b)c)", 0, [][2]int{{1, 8}}},
		{"n", "banana", 3, [][2]int{{4, 5}}},
	} {
		ms, err := Find(c.pat, []byte(c.src), c.offset, -1, nil)
		if err != nil {
			t.Errorf("%q in %q: %v", c.pat, c.src, err)
			continue
		}
		var got [][2]int
		for _, m := range ms {
			got = append(got, [2]int{m.Capture(0), m.Capture(1)})
		}
		if len(got) != len(c.want) {
			t.Errorf("%q in %q: %v, want %v", c.pat, c.src, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q in %q: %v, want %v", c.pat, c.src, got, c.want)
			}
		}
	}
	if _, err := Compile("(%w"); err == nil {
		t.Error("an unclosed capture compiled")
	}
}

// A match asks its check as it goes and stops with the check's error: a backtracking pattern
// over a long subject, and a %b scan, both stop after the first refusal.
func TestCheckStops(t *testing.T) {
	stop := errors.New("stopped")
	for _, pat := range []string{".-.-.-.-.-b", "%b()"} {
		calls := 0
		src := strings.Repeat("a", 200)
		if pat == "%b()" {
			src = strings.Repeat("(", 100000)
		}
		_, err := Find(pat, []byte(src), 0, -1, func() error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Errorf("%q: err %v after %d checks, want the check's error after the first", pat, err, calls)
		}
	}
}
