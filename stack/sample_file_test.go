package stack

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// samples/dunes.yaml is the sample stack as a file, for `strata bake --sample dunes --stack
// samples/dunes.yaml` and as a starting point to edit. It must stay the stack SampleDunes builds;
// STRATA_UPDATE_SAMPLES=1 rewrites it.
func TestSampleStackFile(t *testing.T) {
	const path = "../samples/dunes.yaml"
	want, err := Marshal(SampleDunes())
	if err != nil {
		t.Fatal(err)
	}
	header := []byte("# The built-in sample's layer stack (stack.SampleDunes): sand, rock above 18° of slope with a\n# 4° feather, and groves of trees on the flat sand. `strata bake --sample dunes --stack samples/dunes.yaml`.\n")
	want = append(header, want...)
	if os.Getenv("STRATA_UPDATE_SAMPLES") != "" {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with STRATA_UPDATE_SAMPLES=1 to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the stack SampleDunes builds (run with STRATA_UPDATE_SAMPLES=1)", path)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, SampleDunes()) {
		t.Errorf("%s parses to %+v, want SampleDunes()", path, s)
	}
}
