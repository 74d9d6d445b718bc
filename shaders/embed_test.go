package shaders

import (
	"strings"
	"testing"
)

func TestLoadExpandsIncludesOnce(t *testing.T) {
	src, err := Load("terrain_layer_weights")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(src, includeDirective) {
		t.Error("an include directive survived Load")
	}
	for _, fn := range []string{"fn PCG(", "fn FBM(", "fn bilinear(", "fn main("} {
		if n := strings.Count(src, fn); n != 1 {
			t.Errorf("%s appears %d times, want 1", fn, n)
		}
	}
	if _, err := Load("no_such_kernel"); err == nil || !strings.HasPrefix(err.Error(), "shaders: ") {
		t.Errorf("missing file: err = %v", err)
	}
}
