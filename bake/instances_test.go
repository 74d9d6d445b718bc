package bake

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/landscape"
	"strata/scatter"
	"strata/stack"
	"strata/terraindata"
)

// storedContainer bakes the stress field with the Go reference and stores its instances in the
// container as a world cell does (WriteOptions.Instances), returning the path and the pool.
func storedContainer(t *testing.T) (string, []float32) {
	t.Helper()
	ctx := context.Background()
	s, f := stack.StressStack(), StressField(64)
	l := &landscape.Landscape{Stack: s, Field: f}
	if _, err := Evaluate(ctx, l, EvalOptions{CPU: true}); err != nil {
		t.Fatal(err)
	}
	pops := l.Scatter
	path := filepath.Join(t.TempDir(), "cell.terrainData")
	if err := landscape.WriteContext(ctx, path, l, landscape.WriteOptions{Instances: true}); err != nil {
		t.Fatal(err)
	}
	if pops[0].Count == 0 {
		t.Fatal("the stress stack placed nothing: no instances to store")
	}
	return path, pops[0].Matrices[:pops[0].Count*scatter.MatrixFloats]
}

// A container that stores its instances is read back through them: PlaceFromContainer returns
// them (whatever the device), and validation accepts them.
func TestStoredInstancesRead(t *testing.T) {
	path, want := storedContainer(t)
	if probs := landscape.Validate(path); len(probs) > 0 {
		t.Fatal(probs)
	}
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	pops, err := PlaceFromContainer(context.Background(), c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := pops[0].Matrices
	if len(got) != len(want) || pops[0].Count != len(want)/16 {
		t.Fatalf("%d floats, want %d", len(got), len(want))
	}
	for k := range got {
		if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
			t.Fatalf("float %d: %v, stored %v", k, got[k], want[k])
		}
	}
}

// Stored instances a reader cannot trust are refused by validation and by the readers, naming
// the file and what is wrong.
func TestStoredInstancesRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(dir string)
		want  string
	}{
		{"count", func(d string) { edit(d, "index.yaml", "count: ", "count: 1") }, "count 1"},
		{"short file", func(d string) { truncate(d, 60) }, "bytes"},
		{"escaping file", func(d string) { edit(d, "index.yaml", "file: ", "file: ../") }, "not a file name"},
		{"unknown key", func(d string) { edit(d, "index.yaml", "format: ", "formt: ") }, "formt"},
		{"NaN", func(d string) { poke(d, math.Float32bits(float32(math.NaN()))) }, "not finite"},
		{"missing file", func(d string) { os.Remove(filepath.Join(d, entryFile(d))) }, "absent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, _ := storedContainer(t)
			tc.spoil(filepath.Join(path, landscape.InstancesDir))
			probs := landscape.Validate(path)
			if len(probs) == 0 || !strings.Contains(probs.Error(), tc.want) {
				t.Fatalf("validate: %v, want %q", probs, tc.want)
			}
			c, err := terraindata.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := PlaceFromContainer(context.Background(), c, nil, nil); err == nil {
				t.Error("PlaceFromContainer read them")
			}
		})
	}
}

// entryFile is the first population's file named by index.yaml in dir.
func entryFile(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "index.yaml"))
	_, rest, _ := strings.Cut(string(b), "file: ")
	name, _, _ := strings.Cut(rest, "\n")
	return name
}

// edit replaces the first from in dir/file by to (the rest of from's line is kept after to).
func edit(dir, file, from, to string) {
	p := filepath.Join(dir, file)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), from, to, 1)), 0o644)
}

func truncate(dir string, n int64) { os.Truncate(filepath.Join(dir, entryFile(dir)), n) }

// poke writes bits over the first float of the first population's file.
func poke(dir string, bits uint32) {
	f, err := os.OpenFile(filepath.Join(dir, entryFile(dir)), os.O_WRONLY, 0)
	if err != nil {
		return
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], bits)
	f.WriteAt(b[:], 0)
	f.Close()
}
