package landscape

import (
	"testing"

	"strata/internal/fixture"
	"strata/stack"
)

// TestGeometryLevel holds Geometry.Level to the geometry placed afresh over the level's field
// geometry (geometryOf), the numbers bake.TestLevelsSubsampleTheGrid evaluates a level with.
func TestGeometryLevel(t *testing.T) {
	f := fixture.StressField(64, 2)
	s := stack.StressStack()
	for _, res := range []float64{0, 3} {
		base, err := NewGeometry(s, f, res)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k <= 3; k++ {
			want, err := geometryOf(s, base.Field.Level(k), f.TexelSize())
			if err != nil {
				t.Fatal(err)
			}
			if got := base.Level(k); got != want {
				t.Errorf("resolution %g, level %d: Level gives %+v, geometryOf %+v", res, k, got, want)
			}
		}
	}
}
