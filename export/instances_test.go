package export

import (
	"strings"
	"testing"

	"strata/bake"
)

// TestInstanceFilesDistinct is class 5 for export --instances: populations whose names clean to
// one file name each get their own file.
func TestInstanceFilesDistinct(t *testing.T) {
	var pops []*bake.PlacedPopulation
	for _, n := range []string{"a/b", "a_b", "A_B", "pine trees", "a_b_2"} {
		pops = append(pops, &bake.PlacedPopulation{Population: bake.Population{Name: n}})
	}
	got := strings.Join(instanceFiles(pops), " ")
	if want := "a_b.f32 a_b_2.f32 A_B_3.f32 pine_trees.f32 a_b_2_2.f32"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
