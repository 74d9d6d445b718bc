package landscape

import (
	"strings"
	"testing"
)

// TestInstanceFilesDistinct is class 5 for stored and exported instances (export --instances, a
// world cell's instances/): populations whose names clean to one file name each get their own
// file, whatever the case.
func TestInstanceFilesDistinct(t *testing.T) {
	names := InstanceFileNames([]string{"a/b", "a_b", "A_B", "pine trees", "a_b_2"})
	got := strings.Join(names, " ")
	if want := "a_b.f32 a_b_2.f32 A_B_3.f32 pine_trees.f32 a_b_2_2.f32"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if k := strings.ToLower(n); seen[k] {
			t.Errorf("%s twice on a case-insensitive file system", n)
		} else {
			seen[k] = true
		}
	}
}
