package bake

import (
	"math"
	"path/filepath"
	"testing"

	"strata/landscape"
	"strata/terraindata"
)

// ValidateContainer is Validate of an open container, and hands back the stored instances it
// checked: the pools StoredInstances reads; none for a container that stores none, or whose
// instances are broken (then a problem names them).
func TestValidateContainer(t *testing.T) {
	path, want := storedContainer(t)
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	probs, pools := landscape.ValidateContainer(c)
	if len(probs) > 0 || len(landscape.Validate(path)) > 0 {
		t.Fatalf("%v / %v", probs, landscape.Validate(path))
	}
	if len(pools) != 1 {
		t.Fatalf("%d pools, want 1", len(pools))
	}
	for _, got := range pools {
		if len(got) != len(want) {
			t.Fatalf("%d floats, want %d", len(got), len(want))
		}
		for k := range got {
			if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
				t.Fatalf("float %d: %v, stored %v", k, got[k], want[k])
			}
		}
	}
	poke(filepath.Join(path, landscape.InstancesDir), math.Float32bits(float32(math.Inf(1))))
	probs, pools = landscape.ValidateContainer(c)
	if len(probs) == 0 || pools != nil || probs.Error() != landscape.Validate(path).Error() {
		t.Fatalf("broken instances: %v, %d pools; Validate: %v", probs, len(pools), landscape.Validate(path))
	}
}
