package bake

import (
	"context"
	"errors"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/field"
	"strata/internal/sysmem"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
	"strata/terraindata"
)

// TestBakeMemoryBudget is the "size of work" class: a bake whose working set would not fit the
// memory budget is refused before allocating, with the figures and the budget's source.
func TestBakeMemoryBudget(t *testing.T) {
	l := &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunesSized(64)}
	t.Setenv(sysmem.EnvLimit, "1MiB")
	t.Setenv(sysmem.EnvMapPlanes, "never")
	_, err := Evaluate(context.Background(), l, EvalOptions{CPU: true, Options: Options{Resolution: 0.5}})
	if !errors.Is(err, sysmem.ErrInsufficient) || !strings.Contains(err.Error(), "a bake of 8000×8000 weights over a 64×64 height with 1 population(s) needs about 1.2 GiB, 1 MiB is available (STRATA_MEMORY_LIMIT=1MiB)") {
		t.Errorf("got %v", err)
	}
	// With the weights on disk (auto: 512 MB of them pass half of 1 MiB) they are checked
	// against the disk, and the rest of the working set still against memory.
	t.Setenv(sysmem.EnvMapPlanes, "auto")
	t.Setenv(sysmem.EnvMapDir, t.TempDir())
	_, err = Evaluate(context.Background(), l, EvalOptions{CPU: true, Options: Options{Resolution: 0.5}})
	if !errors.Is(err, sysmem.ErrInsufficient) || !strings.Contains(err.Error(), "with 1 population(s) needs about 732 MiB, 1 MiB is available") {
		t.Errorf("weights on disk: got %v", err)
	}
}

// bakedContainer writes a small sample landscape with trees and returns its path.
func bakedContainer(t *testing.T) string {
	t.Helper()
	l := &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunesSized(48)}
	if _, err := Evaluate(context.Background(), l, EvalOptions{CPU: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.terrainData")
	if err := landscape.Write(path, l); err != nil {
		t.Fatal(err)
	}
	return path
}

func editManifest(t *testing.T, path string, edit func(m *terraindata.Manifest)) {
	t.Helper()
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Manifest()
	edit(&m)
	b, _ := m.Encode()
	os.WriteFile(filepath.Join(path, terraindata.ManifestFile), b, 0o644)
}

// TestOpenHostile: the containers a hostile user hands the editor (bake.Open) and strata validate
// (bake.Validate). Each is refused by both, naming file and field; Open returns no landscape, so
// the editor keeps its last good state; nothing panics or hangs.
func TestOpenHostile(t *testing.T) {
	tests := []struct {
		desc    string
		breakIt func(t *testing.T, p string)
		field   string
		msg     string
	}{
		{"count overflowing the pool", func(t *testing.T, p string) {
			editManifest(t, p, func(m *terraindata.Manifest) { m.Scatter[0].Count = 1 << 59 })
		}, "scatter[0].count", "want 0"},
		{"spacing needing 10¹² sites", func(t *testing.T, p string) {
			editManifest(t, p, func(m *terraindata.Manifest) { m.Scatter[0].Spacing = 1e-3 })
		}, "scatter[0].spacing", "sites"},
		{"unknown mesh", func(t *testing.T, p string) {
			editManifest(t, p, func(m *terraindata.Manifest) { m.Scatter[0].Mesh = "cactus" })
		}, "scatter[0].mesh", `unknown mesh "cactus"`},
		{"stack symlinked to /dev/zero", func(t *testing.T, p string) {
			os.Remove(filepath.Join(p, "stack.yaml"))
			os.Symlink("/dev/zero", filepath.Join(p, "stack.yaml"))
		}, "stack", "outside the container"},
		{"stack is a FIFO", func(t *testing.T, p string) {
			os.Remove(filepath.Join(p, "stack.yaml"))
			syscall.Mkfifo(filepath.Join(p, "stack.yaml"), 0o644)
		}, "stack", "FIFO"},
		{"stack texture outside the container", func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(p, "stack.yaml"), []byte("version: 1\nlayers: [{name: sand, albedo: /etc/passwd}, {name: rock}]\npopulations: [{name: trees}]\n"), 0o644)
		}, `layers[0] "sand" albedo`, "not a relative"},
		{"stack texture climbing out", func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(p, "stack.yaml"), []byte("version: 1\nlayers: [{name: sand, albedo: ../x.png}, {name: rock}]\npopulations: [{name: trees}]\n"), 0o644)
		}, `layers[0] "sand" albedo`, "escapes the container"},
		{"stack of other layers", func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(p, "stack.yaml"), []byte("version: 1\nlayers: [{name: sand}, {name: snow}]\npopulations: [{name: trees}]\n"), 0o644)
		}, "layers[1]", `named "snow", the manifest's layers[1] is "rock"`},
		{"stack reading a channel the container lacks", func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(p, "stack.yaml"), []byte("version: 1\nlayers: [{name: sand}, {name: rock, rules: [{input: mask, channel: snow}]}]\npopulations: [{name: trees}]\n"), 0o644)
		}, `layers[1] "rock" rules[0]`, `reads channel "mask.snow", which the container does not store (channels: none)`},
		{"stack with two documents", func(t *testing.T, p string) {
			f, _ := os.OpenFile(filepath.Join(p, "stack.yaml"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("---\nversion: 1\n")
			f.Close()
		}, "stack", "second YAML document"},
		{"controls no weights grid", func(t *testing.T, p string) {
			img := make([]float32, 48*20)
			terraindata.WriteTextureFloatPixels(filepath.Join(p, "scatter_trees.texture"), terraindata.R32F, 48, 20, img)
			os.RemoveAll(filepath.Join(p, "control0.texture"))
			terraindata.WriteTextureRGBA8(filepath.Join(p, "control0.texture"), solidControl(48, 20), terraindata.Linear)
		}, "controls", "no weights grid"},
		{"a channel name a field cannot carry", func(t *testing.T, p string) {
			terraindata.WriteTextureFloatPixels(filepath.Join(p, "odd.texture"), terraindata.R32F, 48, 48, make([]float32, 48*48))
			editManifest(t, p, func(m *terraindata.Manifest) { m.Channels = map[string]string{"a b": "odd.texture"} })
		}, "channels.a b", "not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			path := bakedContainer(t)
			tc.breakIt(t, path)
			var l *landscape.Landscape
			var err error
			var probs terraindata.Problems
			done := make(chan struct{})
			go func() { l, err = landscape.Open(path); probs = landscape.Validate(path); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("hung")
			}
			if l != nil || err == nil || !strings.Contains(err.Error(), tc.field+": ") || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Open: %v, want an error with %q and %q", err, tc.field, tc.msg)
			}
			found := false
			for _, p := range probs {
				found = found || (p.Field == tc.field && strings.Contains(p.Msg, tc.msg))
			}
			if !found {
				t.Errorf("validate: want %s: …%s…; got\n%v", tc.field, tc.msg, probs)
			}
		})
	}
}

func solidControl(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img
}

// TestPlaceFromContainerNamesField: a spacing too small to place in reasonable time, reached by a
// reader that skipped validate, is refused naming terrain.yaml's scatter entry.
func TestPlaceFromContainerNamesField(t *testing.T) {
	path := bakedContainer(t)
	editManifest(t, path, func(m *terraindata.Manifest) { m.Scatter[0].Spacing = 1e-3; m.Scatter[0].Count = math.MaxInt32 })
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = PlaceFromContainer(context.Background(), c, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "terrain.yaml: scatter[0].spacing (\"trees\")") || !strings.Contains(err.Error(), "sites") {
		t.Errorf("got %v", err)
	}
}

// TestInstanceLimitsAgree binds the limits two packages keep.
func TestInstanceLimitsAgree(t *testing.T) {
	if terraindata.MaxScatterCount != scatter.MaxInstances {
		t.Errorf("terraindata.MaxScatterCount %d, scatter.MaxInstances %d", terraindata.MaxScatterCount, scatter.MaxInstances)
	}
}
