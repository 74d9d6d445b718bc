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

// The rule every reader of sources applies, with the words strata bake, world plan and
// world.yaml report it in.
func TestSourcesCheck(t *testing.T) {
	for _, tc := range []struct {
		src  landscape.Sources
		want string
	}{
		{landscape.Sources{Sample: "dunes"}, ""},
		{landscape.Sources{Sample: "dunes", StackPath: "s.yaml"}, ""},
		{landscape.Sources{Height: "h.png", StackPath: "s.yaml"}, ""},
		{landscape.Sources{}, "give exactly one of a heightmap and a sample"},
		{landscape.Sources{Height: "h.png", Sample: "dunes", StackPath: "s.yaml"}, "give exactly one of a heightmap and a sample"},
		{landscape.Sources{Sample: "hills"}, `sample "hills": the built-in sample is "dunes"`},
		{landscape.Sources{Height: "h.png"}, "a heightmap needs a stack (only the sample has a stack of its own)"},
	} {
		err := tc.src.Check()
		if (tc.want == "") != (err == nil) || (err != nil && err.Error() != tc.want) {
			t.Errorf("%+v: %v, want %q", tc.src, err, tc.want)
		}
		if _, _, lerr := landscape.Load(tc.src); tc.want != "" && (lerr == nil || lerr.Error() != "bake: "+tc.want) {
			t.Errorf("Load(%+v): %v, want bake: %s", tc.src, lerr, tc.want)
		}
	}
}
