package bake

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/stack"
	"strata/terraindata"
)

// fromLandscape is a small landscape with everything a container carries for editing: five
// layers (two controls), a mask channel a rule reads, a hole, a population, and a weights grid
// coarser than the height grid.
func fromLandscape(t *testing.T) *landscape.Landscape {
	t.Helper()
	s := stack.SampleDunes()
	for _, name := range []string{"grass", "mud"} {
		s.Layers = append(s.Layers, stack.NewLayer(name))
	}
	snow := stack.NewLayer("snow")
	snow.Rules = []stack.Rule{{Input: stack.InputMask, Channel: "snow", Min: stack.F(0.5), Softness: 0.1}}
	s.Layers = append(s.Layers, snow)
	f := field.SampleDunesSized(96)
	mask := field.NewGrid(96, 96)
	for i := range mask.Data {
		mask.Data[i] = float32(i%96) / 95
	}
	if err := f.AddChannel("mask.snow", mask); err != nil {
		t.Fatal(err)
	}
	l := &landscape.Landscape{Stack: s, Field: f, Holes: make([]bool, 96*96)}
	l.Holes[5*96+7], l.Holes[40*96+41] = true, true
	return l
}

// treeFiles hashes nothing: it reads every file under dir by its path relative to dir.
func treeFiles(t *testing.T, dir string) map[string][]byte {
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

// sameTree fails unless the containers at a and b hold the same files with the same bytes.
func sameTree(t *testing.T, a, b string) {
	t.Helper()
	fa, fb := treeFiles(t, a), treeFiles(t, b)
	for k, v := range fa {
		if w, ok := fb[k]; !ok {
			t.Errorf("%s: %s is missing", b, k)
		} else if !bytes.Equal(v, w) {
			t.Errorf("%s differs between %s and %s", k, a, b)
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			t.Errorf("%s: %s is extra", b, k)
		}
	}
}

// Rebake (the ground written while the stack evaluates) writes the very container the editor's
// Save wrote before it — Evaluate, then WriteContext — file for file.
func TestRebakeIsEvaluateThenWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.terrainData"), filepath.Join(dir, "b.terrainData")
	la := fromLandscape(t)
	la.GUID = "0b6e5c3e-6f4d-4f38-9d0c-9c2b1f4a7e11"
	if _, err := Evaluate(ctx, la, EvalOptions{CPU: true, Options: Options{Resolution: 4000.0 / 64}}); err != nil {
		t.Fatal(err)
	}
	if err := landscape.WriteContext(ctx, a, la, landscape.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	lb := fromLandscape(t)
	lb.GUID = la.GUID
	if _, err := Rebake(ctx, lb, b, RebakeOptions{EvalOptions: EvalOptions{CPU: true, Options: Options{Resolution: 4000.0 / 64}}}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, a, b)
}

// bake --from: a saved landscape re-evaluated with the same evaluator is the same container, file
// for file — controls, channels, holes, populations, stack and guid — written elsewhere or over
// itself.
func TestBakeFromRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.terrainData")
	l := fromLandscape(t)
	if _, err := Rebake(ctx, l, src, RebakeOptions{EvalOptions: EvalOptions{CPU: true, Options: Options{Resolution: 4000.0 / 64}}}); err != nil {
		t.Fatal(err)
	}
	if l.Weights.W != 64 || len(l.Scatter) != 1 || l.Scatter[0].Count == 0 {
		t.Fatalf("the source is not what the test needs: %d² weights, %d populations", l.Weights.W, len(l.Scatter))
	}
	for _, want := range []string{"control1.texture/data.png", "holes.texture/data.png", "mask_snow.texture/data.exr", "scatter_trees.texture/data.exr"} {
		if _, err := os.Stat(filepath.Join(src, want)); err != nil {
			t.Fatalf("the source lacks %s", want)
		}
	}
	out := filepath.Join(dir, "out.terrainData")
	var stages []string
	r, err := BakeFrom(ctx, FromJob{From: src, Out: out, EvalOptions: EvalOptions{CPU: true, Options: Options{Progress: func(stage string, done, total int) {
		if done == total && (len(stages) == 0 || stages[len(stages)-1] != stage) {
			stages = append(stages, stage)
		}
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Landscape.Weights.W != 64 || r.Backend != "Go reference (--cpu)" {
		t.Errorf("re-evaluated %d² weights with %s", r.Landscape.Weights.W, r.Backend)
	}
	sameTree(t, src, out)
	for _, s := range []string{StageLoad, StageEvaluate, landscape.StageEncode, landscape.StageValidate} {
		if !strings.Contains(strings.Join(stages, ","), s) {
			t.Errorf("progress stages %v lack %q", stages, s)
		}
	}
	// In place: the source is read whole before the save swaps the new container in.
	before := treeFiles(t, src)
	if _, err := BakeFrom(ctx, FromJob{From: src, Out: src, EvalOptions: EvalOptions{CPU: true}}); err != nil {
		t.Fatal(err)
	}
	after := treeFiles(t, src)
	if len(after) != len(before) {
		t.Errorf("in place: %d files, %d before", len(after), len(before))
	}
	for k, v := range before {
		if !bytes.Equal(after[k], v) {
			t.Errorf("in place: %s changed", k)
		}
	}
	if probs := landscape.Validate(src); len(probs) > 0 {
		t.Errorf("in place: %v", probs)
	}
}

// On the GPU (lavapipe here) a landscape the GPU baked and re-baked from its container gets the
// same controls byte for byte, and the same instances.
func TestBakeFromGPU(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, out := filepath.Join(dir, "g.terrainData"), filepath.Join(dir, "g2.terrainData")
	l := fromLandscape(t)
	r, err := Rebake(ctx, l, src, RebakeOptions{EvalOptions: EvalOptions{Options: Options{Resolution: 4000.0 / 64}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Backend, "GPU") {
		t.Fatalf("the source was baked by %s", r.Backend)
	}
	if _, err := BakeFrom(ctx, FromJob{From: src, Out: out}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, src, out)
}

// What bake --from refuses, before writing anything: by file, field and why.
func TestBakeFromRefuses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		desc    string
		breakIt func(t *testing.T, p string)
		want    []string
		is      error
	}{
		{"no container", func(t *testing.T, p string) { os.RemoveAll(p) }, []string{"src.terrainData"}, nil},
		{"baked elsewhere: no stack", func(t *testing.T, p string) {
			editManifest(t, p, func(m *terraindata.Manifest) { m.Stack = "" })
			os.Remove(filepath.Join(p, "stack.yaml"))
		}, []string{"terrain.yaml: stack: none", "baked elsewhere"}, ErrNothingToEvaluate},
		{"a world's cell", func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(filepath.Dir(p), "world.yaml"), []byte("version: 1\n"), 0o644)
		}, []string{"terrain.yaml", "cell of the world", "strata world bake"}, nil},
		{"stored instances", func(t *testing.T, p string) {
			os.Mkdir(filepath.Join(p, landscape.InstancesDir), 0o755)
		}, []string{"terrain.yaml: instances", "strata world bake"}, nil},
		{"height payload cut short", func(t *testing.T, p string) {
			os.Truncate(filepath.Join(p, "height.texture", "data.exr"), 1000)
		}, []string{"height.texture", "height"}, nil},
		{"channel missing", func(t *testing.T, p string) {
			os.RemoveAll(filepath.Join(p, "mask_snow.texture"))
		}, []string{"mask_snow.texture", "channels.mask.snow"}, nil},
		{"control corrupt", func(t *testing.T, p string) {
			b, _ := os.ReadFile(filepath.Join(p, "control0.texture", "data.png"))
			b[len(b)/2] ^= 0xff
			os.WriteFile(filepath.Join(p, "control0.texture", "data.png"), b, 0o644)
		}, []string{"control0.texture", "control"}, nil},
		{"stack invalid", func(t *testing.T, p string) {
			os.WriteFile(filepath.Join(p, "stack.yaml"), []byte("version: 1\nlayers: [{name: sand}, {name: rock, rules: [{input: slope, min: 5, max: 3}]}]\n"), 0o644)
		}, []string{"stack", "min 5 > max 3"}, nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src.terrainData")
			l := fromLandscape(t)
			if _, err := Rebake(ctx, l, src, RebakeOptions{EvalOptions: EvalOptions{CPU: true}}); err != nil {
				t.Fatal(err)
			}
			tc.breakIt(t, src)
			out := filepath.Join(dir, "out.terrainData")
			r, err := BakeFrom(ctx, FromJob{From: src, Out: out, EvalOptions: EvalOptions{CPU: true}})
			if err == nil || r != nil {
				t.Fatalf("accepted: %v", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused bake left %s behind (%v)", out, err)
			}
		})
	}
}

// A bake --from stopped part way (Ctrl+C) leaves the container at Out exactly as it was — here
// the source itself, re-baked in place.
func TestBakeFromCancelledKeepsOld(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.terrainData")
	if _, err := Rebake(context.Background(), fromLandscape(t), src, RebakeOptions{EvalOptions: EvalOptions{CPU: true}}); err != nil {
		t.Fatal(err)
	}
	before := treeFiles(t, src)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := BakeFrom(ctx, FromJob{From: src, Out: src, EvalOptions: EvalOptions{CPU: true, Options: Options{Progress: func(stage string, done, total int) {
		if stage == StageEvaluate && done > 0 {
			cancel()
		}
	}}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want a cancelled bake", err)
	}
	after := treeFiles(t, src)
	if len(after) != len(before) {
		t.Errorf("%d files, %d before", len(after), len(before))
	}
	for k, v := range before {
		if !bytes.Equal(after[k], v) {
			t.Errorf("%s changed", k)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		// The save's lock file stays by design (terraindata.LockPath, safeio.Lock); nothing else.
		if strings.HasPrefix(e.Name(), ".") && e.Name() != filepath.Base(terraindata.LockPath(src)) {
			t.Errorf("%s left beside the container", e.Name())
		}
	}
}
