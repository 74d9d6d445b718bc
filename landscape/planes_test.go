package landscape_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"strata/bake"
	"strata/field"
	"strata/internal/sysmem"
	"strata/landscape"
	"strata/stack"
)

// planesContainer writes a 256² landscape with a mask channel, holes and two controls (six
// layers) and returns its path.
func planesContainer(t *testing.T) string {
	t.Helper()
	t.Setenv(sysmem.EnvMapPlanes, "never")
	s := stack.SampleDunes()
	for _, name := range []string{"snow", "moss", "scree"} {
		ly := stack.NewLayer(name)
		ly.Rules = []stack.Rule{{Input: stack.InputMask, Channel: "snow", Min: stack.F(0.3)}}
		s.Layers = append(s.Layers, ly)
	}
	const n = 256
	f := field.SampleDunesSized(n)
	mask := field.NewGrid(n, n)
	for i := range mask.Data {
		mask.Data[i] = float32(i%n) / (n - 1)
	}
	if err := f.AddChannel("mask.snow", mask); err != nil {
		t.Fatal(err)
	}
	l := &landscape.Landscape{Stack: s, Field: f, Holes: make([]bool, n*n)}
	for k := 0; k < n*n; k += 97 {
		l.Holes[k] = true
	}
	if _, err := bake.Evaluate(context.Background(), l, bake.EvalOptions{CPU: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.terrainData")
	if err := landscape.Write(path, l); err != nil {
		t.Fatal(err)
	}
	return path
}

// tree reads every file under dir by its relative path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A container opened under a memory limit too small for its planes keeps them on disk, and is
// the landscape opened normally: the same planes, the same bake, and saved again the same files
// byte for byte. Release unmaps every plane.
func TestOpenPlanesOnDisk(t *testing.T) {
	path := planesContainer(t)
	heap, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if heap.OnDisk() || heap.Weights.OnDisk() {
		t.Fatal("STRATA_MAP_PLANES=never opened planes on disk")
	}
	t.Setenv(sysmem.EnvMapPlanes, "auto")
	t.Setenv(sysmem.EnvMapDir, t.TempDir())
	t.Setenv(sysmem.EnvLimit, "1MiB") // the planes are 256²·(4·2 + 1 + 8) bytes: 1.1 MB
	before := sysmem.MappedBytes()
	disk, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !disk.OnDisk() || !disk.Field.Channels["mask.snow"].OnDisk() || !disk.Weights.OnDisk() || sysmem.MappedBytes()-before != 256*256*(4*2+1+8) {
		t.Fatalf("under 1MiB: height on disk %v, channel %v, weights %v, %d bytes mapped", disk.OnDisk(),
			disk.Field.Channels["mask.snow"].OnDisk(), disk.Weights.OnDisk(), sysmem.MappedBytes()-before)
	}
	if !slices.Equal(disk.Field.Height.Data, heap.Field.Height.Data) || !slices.Equal(disk.Holes, heap.Holes) ||
		!slices.Equal(disk.Field.Channels["mask.snow"].Data, heap.Field.Channels["mask.snow"].Data) ||
		!bytes.Equal(disk.Weights.Lo, heap.Weights.Lo) || !bytes.Equal(disk.Weights.Hi, heap.Weights.Hi) {
		t.Fatal("the planes on disk differ from the heap's")
	}
	// A new mask and the first holes of a landscape on disk go on disk too.
	g, err := disk.NewPlane()
	if err != nil || !g.OnDisk() {
		t.Fatalf("NewPlane: %v, on disk %v", err, g.OnDisk())
	}
	g.Release()
	// Baked again and saved (the bake's own working memory is checked against the budget, so
	// the limit goes): the same files.
	t.Setenv(sysmem.EnvLimit, "")
	for _, l := range []*landscape.Landscape{heap, disk} {
		if _, err := bake.Evaluate(context.Background(), l, bake.EvalOptions{CPU: true}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(disk.Weights.Lo, heap.Weights.Lo) || !bytes.Equal(disk.Weights.Hi, heap.Weights.Hi) {
		t.Error("the bake over planes on disk differs")
	}
	outs := [2]string{filepath.Join(t.TempDir(), "heap.terrainData"), filepath.Join(t.TempDir(), "disk.terrainData")}
	for i, l := range []*landscape.Landscape{heap, disk} {
		if err := landscape.Write(outs[i], l); err != nil {
			t.Fatal(err)
		}
	}
	a, b := tree(t, outs[0]), tree(t, outs[1])
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d files saved from the heap, %d from the disk", len(a), len(b))
	}
	for name, want := range a {
		if !bytes.Equal(b[name], want) {
			t.Errorf("%s differs between the saves", name)
		}
	}
	h := disk.Field.Height
	disk.Release()
	if h.OnDisk() || disk.Holes != nil || sysmem.MappedBytes() != before {
		t.Errorf("after Release: height on disk %v, holes %v, %d bytes still mapped", h.OnDisk(), disk.Holes != nil, sysmem.MappedBytes()-before)
	}
}

// An open whose planes cannot go on disk, when disk is forced, fails by name and leaves nothing
// mapped.
func TestOpenPlanesBackingFailure(t *testing.T) {
	path := planesContainer(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	t.Setenv(sysmem.EnvMapDir, filepath.Join(file, "planes"))
	t.Setenv(sysmem.EnvMapPlanes, "always")
	before := sysmem.MappedBytes()
	if _, err := landscape.Open(path); !errors.Is(err, sysmem.ErrMapping) {
		t.Errorf("open: %v; want an error wrapping sysmem.ErrMapping", err)
	}
	if sysmem.MappedBytes() != before {
		t.Errorf("%d bytes left mapped", sysmem.MappedBytes()-before)
	}
}
