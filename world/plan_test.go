package world_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"strata/landscape"
	"strata/world"
)

// The partition: cuts on both grids at once, cells differing by at most one unit, refusals named.
func TestLayout(t *testing.T) {
	p := &world.Spec{Size: [2]float64{1000, 500}, Cells: [2]int{3, 2}, HeightGrid: [2]int{100, 50}, WeightsGrid: [2]int{200, 100}}
	cells, err := world.Layout(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 6 || cells[1].Height != [4]int{33, 0, 66, 25} || cells[1].Weights != [4]int{66, 0, 132, 50} ||
		cells[5].Height != [4]int{66, 25, 100, 50} || cells[5].Size != [2]float64{340, 250} {
		t.Fatalf("%+v", cells)
	}
	// 91 rows and 46 weights rows (gcd 1) cannot be cut in two at a shared edge.
	p = &world.Spec{Size: [2]float64{1000, 910}, Cells: [2]int{1, 2}, HeightGrid: [2]int{100, 91}, WeightsGrid: [2]int{100, 46}}
	if _, err := world.Layout(p); err == nil || !strings.Contains(err.Error(), "can be cut at 1 places") {
		t.Errorf("gcd 1: %v", err)
	}
	p = &world.Spec{Size: [2]float64{1000, 1000}, Cells: [2]int{60, 1}, HeightGrid: [2]int{100, 100}, WeightsGrid: [2]int{100, 100}}
	if _, err := world.Layout(p); err == nil || !strings.Contains(err.Error(), "a cell holds 2") {
		t.Errorf("1-texel cells: %v", err)
	}
}

// The editor's entry points: a cell's container and its neighbours.
func TestCellAndNeighbours(t *testing.T) {
	dir := t.TempDir()
	w := planDEM(t, dir, [2]int{3, 2}, true)
	w2, err := world.Open(filepath.Join(dir, "dem.world"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := w2.Cell(4)
	if err != nil || p != filepath.Join(dir, "dem.world", "x1_z1.terrainData") {
		t.Fatalf("Cell(4) = %q, %v", p, err)
	}
	if _, err := w2.Cell(6); err == nil {
		t.Error("Cell(6) of six cells")
	}
	for i, want := range map[int]string{0: "[1 3 4]", 4: "[0 1 2 3 5]", 5: "[1 2 4]"} {
		if got := fmt.Sprint(w.Neighbours(i)); got != want {
			t.Errorf("Neighbours(%d) = %s, want %s", i, got, want)
		}
	}
	// A cell's guid derives from the world's and the cell's name: the same bytes on every
	// machine and in every build, so the cells of a world planned earlier keep theirs.
	w2.GUID = "6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b"
	if got, want := w2.CellGUID(1), "7b70fcc4-c21c-53f4-ab2a-584576d1ab0e"; got != want {
		t.Errorf("CellGUID(1) = %s, want %s", got, want)
	}
}

// world.Open refuses a world.yaml a cell bake could not use, naming the field.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	planDEM(t, dir, [2]int{3, 2}, true)
	wy := filepath.Join(dir, "dem.world", world.FileName)
	good, err := os.ReadFile(wy)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"version", "version: 1", "version: 2", "version: 2"},
		{"cells disagree", "cells: [3, 2]", "cells: [2, 3]", "cellList"},
		{"moved cell", "height: [40, 0, 80, 45]", "height: [41, 0, 80, 45]", "cellList[1]"},
		{"unknown key", "spacing: measured", "spacing: measured\nspacng: 3", "spacng"},
		{"second document", "spacing: measured", "spacing: measured\n---\nversion: 1", "second YAML document"},
		{"spacing disagrees", "spacing: 2236.06787109375", "spacing: 10", "populations[0]"},
		{"backslash path", "stack: ../stack.yaml", `stack: ..\stack.yaml`, "with '/'"},
		{"weights grid", "weightsGrid: [120, 91]", "weightsGrid: [121, 91]", "weightsGrid"},
		{"height and sample", "stack: ../stack.yaml", "stack: ../stack.yaml\nsample: dunes", "give exactly one of a heightmap and a sample"},
		{"heightmap without a stack", "stack: ../stack.yaml", "", "a heightmap needs a stack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(string(good), tc.from, tc.to, 1)
			if bad == string(good) {
				t.Fatalf("%q not in world.yaml", tc.from)
			}
			if err := os.WriteFile(wy, []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := world.Open(filepath.Dir(wy))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), wy) {
				t.Errorf("got %v, want an error naming %s and %q", err, wy, tc.want)
			}
		})
	}
	if _, err := world.Open(dir); err == nil || !strings.Contains(err.Error(), "not a world folder") {
		t.Errorf("a folder without world.yaml: %v", err)
	}
}

// Status follows the sources: missing, then baked, then stale when the stack changes; with a
// measured spacing the plan itself is then stale. A stack whose density outgrows the plan's
// spacing is refused by the cell bake, by name.
func TestStatusAndStalePlan(t *testing.T) {
	dir := t.TempDir()
	w := planDEM(t, dir, [2]int{3, 2}, true)
	st, err := w.Status()
	if err != nil || st.Count(world.StateMissing) != 6 {
		t.Fatalf("%+v %v", st, err)
	}
	for i := range w.CellList {
		if _, err := w.BakeCell(context.Background(), i, world.Options{CPU: true}); err != nil {
			t.Fatal(err)
		}
	}
	if st, err = w.Status(); err != nil || st.Count(world.StateBaked) != 6 || st.PlanStale != "" {
		t.Fatalf("%+v %v", st, err)
	}
	later := time.Now().Add(2 * time.Second)
	stackPath := filepath.Join(dir, "stack.yaml")
	denser := strings.Replace(demStack, "density: 2e-7", "density: 8e-7", 1)
	if err := os.WriteFile(stackPath, []byte(denser), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(stackPath, later, later)
	st, err = w.Status()
	if err != nil || st.Count(world.StateStale) != 6 || !strings.Contains(st.Cells[0].Why, "stack") || !strings.Contains(st.PlanStale, "re-run strata world plan") {
		t.Fatalf("after a stack edit: %+v %v", st, err)
	}
	if _, err := w.BakeCell(context.Background(), 0, world.Options{CPU: true}); err == nil || !strings.Contains(err.Error(), "re-run strata world plan") {
		t.Fatalf("a density beyond the plan's spacing: %v", err)
	}
	renamed := strings.Replace(demStack, "name: trees", "name: pines", 1)
	os.WriteFile(stackPath, []byte(renamed), 0o644)
	if _, err := w.BakeCell(context.Background(), 0, world.Options{CPU: true}); err == nil || !strings.Contains(err.Error(), `"pines" in the stack, "trees" in the plan`) {
		t.Fatalf("a renamed population: %v", err)
	}
	// Re-planning keeps the world's identity (and so every cell's guid).
	os.WriteFile(stackPath, []byte(demStack), 0o644)
	w2 := planDEM(t, dir, [2]int{3, 2}, true)
	if w2.GUID != w.GUID {
		t.Errorf("re-plan changed the guid %s → %s", w.GUID, w2.GUID)
	}
	if _, err := w2.BakeCell(context.Background(), 0, world.Options{CPU: true}); err != nil {
		t.Fatal(err)
	}
	p, _ := w2.Cell(0)
	l, err := landscape.Open(p)
	if err != nil || l.GUID != w2.CellGUID(0) {
		t.Errorf("cell guid %q, want %q (%v)", l.GUID, w2.CellGUID(0), err)
	}
}

// Declared spacing needs no density pass: each population's spacing follows its declared density.
func TestPlanDeclaredSpacing(t *testing.T) {
	dir := t.TempDir()
	noStack := demSources(t, dir)
	noStack.StackPath = ""
	if _, err := world.Plan(context.Background(), world.PlanOptions{Sources: noStack, Cells: [2]int{2, 2}, Out: filepath.Join(dir, "n.world"),
		Spacing: world.SpacingDeclared}); err == nil || !strings.Contains(err.Error(), "world: a heightmap needs a stack") {
		t.Errorf("a heightmap world without a stack: %v", err)
	}
	w, err := world.Plan(context.Background(), world.PlanOptions{Sources: demSources(t, dir), Cells: [2]int{2, 2}, Out: filepath.Join(dir, "d.world"),
		Spacing: world.SpacingDeclared, Options: world.Options{CPU: true}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Populations[0].MaxDensity != 2e-7 || float32(w.Populations[0].Spacing) != world.SpacingOf(2e-7) {
		t.Errorf("%+v", w.Populations[0])
	}
	res, err := w.BakeCell(context.Background(), 3, world.Options{CPU: true})
	if err != nil {
		t.Fatal(err)
	}
	// The phases strata world bake prints, in the order they ran.
	var names []string
	for _, p := range res.Phases {
		names = append(names, p.Name)
		if p.D <= 0 {
			t.Errorf("phase %s took %v", p.Name, p.D)
		}
	}
	if got := strings.Join(names, " "); got != "read evaluate place write" {
		t.Errorf("phases %s, want read evaluate place write", got)
	}
}

// A cell bake reports the write's stages as strata bake does (the encode in MiB), and a bake
// cancelled while it writes leaves the cell's container as it was.
func TestBakeCellWriteProgressAndCancel(t *testing.T) {
	dir := t.TempDir()
	w, err := world.Plan(context.Background(), world.PlanOptions{Sources: demSources(t, dir), Cells: [2]int{2, 1}, Out: filepath.Join(dir, "d.world"),
		Spacing: world.SpacingDeclared, Options: world.Options{CPU: true}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	if _, err := w.BakeCell(context.Background(), 0, world.Options{CPU: true, Progress: func(stage string, done, total int) { seen[stage] = true }}); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"read", "place", landscape.StageEncodeHeight, landscape.StageEncode, landscape.StageValidate} {
		if !seen[stage] {
			t.Errorf("no %q progress (saw %v)", stage, seen)
		}
	}
	p, _ := w.Cell(0)
	manifest := filepath.Join(p, "terrain.yaml")
	before, err := os.Stat(manifest)
	if err != nil {
		t.Fatal(err)
	}
	old, err := landscape.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = w.BakeCell(ctx, 0, world.Options{CPU: true, Progress: func(stage string, done, total int) {
		if stage == landscape.StageEncode {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a bake cancelled while it writes: %v, want context.Canceled", err)
	}
	// A swapped-in container is a new folder: its manifest another file, whatever the clock says.
	after, err := os.Stat(manifest)
	if err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the cell was replaced: %v", err)
	}
	if probs := landscape.Validate(p); len(probs) > 0 {
		t.Fatalf("the old cell no longer validates: %v", probs)
	}
	if l, err := landscape.Open(p); err != nil || l.GUID != old.GUID {
		t.Fatalf("the old cell: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "d.world", ".x0_z0.terrainData.*")); len(left) != 1 {
		t.Errorf("beside the cell: %v (want only its lock file)", left)
	}
}

// Flow is routed over a whole field's height; a world's cells are baked apart, so a plan whose
// stack reads flow is refused, naming the stack file and the rule.
func TestPlanRefusesFlow(t *testing.T) {
	dir := t.TempDir()
	src := demSources(t, dir)
	flow := "layers:\n  - name: ground\n  - name: reeds\n    rules:\n      - {input: flow, min: 5}\n"
	if err := os.WriteFile(src.StackPath, []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := world.Plan(context.Background(), world.PlanOptions{Sources: src, Cells: [2]int{2, 2}, Out: filepath.Join(dir, "f.world"),
		Options: world.Options{CPU: true}})
	if err == nil || !strings.Contains(err.Error(), src.StackPath) || !strings.Contains(err.Error(), `layers[1] "reeds" rules[0] reads flow`) {
		t.Fatalf("a world whose stack reads flow: %v", err)
	}
}

// The erosion channels come from eroding a whole field and a world's cells are never eroded: a
// plan whose stack reads erosion.deposit without a channel file of that name is refused, naming
// the stack file, the rule and why.
func TestPlanRefusesErosionChannels(t *testing.T) {
	dir := t.TempDir()
	src := demSources(t, dir)
	scree := "layers:\n  - name: ground\n  - name: scree\n    rules:\n      - {input: channel, channel: erosion.deposit, min: 0.5}\n"
	if err := os.WriteFile(src.StackPath, []byte(scree), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := world.Plan(context.Background(), world.PlanOptions{Sources: src, Cells: [2]int{2, 2}, Out: filepath.Join(dir, "e.world"),
		Options: world.Options{CPU: true}})
	if err == nil || !strings.Contains(err.Error(), src.StackPath) || !strings.Contains(err.Error(), `layers[1] "scree" rules[0] reads erosion.deposit`) ||
		!strings.Contains(err.Error(), "a world's cells are not eroded") {
		t.Fatalf("a world whose stack reads erosion.deposit: %v", err)
	}
}
