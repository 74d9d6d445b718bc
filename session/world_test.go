package session

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"strata/field"
	"strata/internal/safeio"
	"strata/landscape"
	"strata/terraindata"
	"strata/world"
)

// A world's cell opens for editing; its first edit (once per open or save) says which cells
// need a re-bake; saving it in place keeps it the world's cell.
func TestWorldCell(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := filepath.Join(dir, "stack.yaml")
	if err := os.WriteFile(st, []byte("version: 1\nlayers:\n  - {name: low}\n  - name: high\n    rules: [{input: height, min: 500, softness: 50}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := landscape.Sources{StackPath: st, Height: "../testdata/maps/topobathy_120x91_f32le.raw",
		Import: field.ImportOptions{Size: [2]int{120, 91}}, Size: &[2]float64{288000, 218400}}
	w, err := world.Plan(ctx, world.PlanOptions{Sources: src, Cells: [2]int{2, 2}, Out: filepath.Join(dir, "dem.world"), Options: world.Options{CPU: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.BakeCell(ctx, 3, world.Options{CPU: true}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{Evaluator: CPU})
	if err := h.s.OpenWorldCell(ctx, w.Dir, 0); err == nil || !strings.Contains(err.Error(), "not baked") {
		t.Errorf("an unbaked cell: %v", err)
	}
	if err := h.s.OpenWorldCell(ctx, w.Dir, 4); err == nil {
		t.Error("cell 4 of 4 opened")
	}
	if err := h.s.OpenWorldCell(ctx, w.Dir, 3); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	c := h.s.World()
	if c == nil || c.Cell != 3 || c.Cells != 4 || !slices.Equal(c.Neighbours, []int{0, 1, 2}) {
		t.Fatalf("world cell %+v", c)
	}
	if h.s.Name() != "cell 3 of dem.world" {
		t.Errorf("name %q", h.s.Name())
	}
	edit := func(min float64) {
		t.Helper()
		s := h.s.Stack().Clone()
		s.Layers[1].Rules[0].Min = &min
		if err := h.s.Apply("high: min", s); err != nil {
			t.Fatal(err)
		}
		h.waitFrame(h.s.Version())
	}
	notices := func() []string {
		h.mu.Lock()
		defer h.mu.Unlock()
		var out []string
		for _, e := range h.ev {
			if e.Kind == EventNotice {
				out = append(out, e.Message)
			}
		}
		return out
	}
	if n := notices(); len(n) != 0 {
		t.Errorf("notices before any edit: %q", n)
	}
	edit(600)
	edit(700)
	n := notices()
	if len(n) != 1 || !strings.Contains(n[0], "cell 3 of dem.world") || !strings.Contains(n[0], "0, 1, 2") {
		t.Fatalf("after two edits, notices %q", n)
	}
	path := h.s.Path()
	// A save in place takes turns with a world bake of the cell: while the cell's lock file is
	// held (as `strata world bake --cell 3` holds it through its save), the save waits.
	lk, err := safeio.LockExclusive(terraindata.LockPath(path))
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan string, 4)
	restore := safeio.SetWaitHook(func(p string) { waiting <- p })
	saved := make(chan error, 1)
	go func() { saved <- h.s.Save(ctx, nil) }()
	select {
	case err := <-saved:
		t.Fatalf("the save did not wait for the cell's lock: %v", err)
	case p := <-waiting:
		if p != terraindata.LockPath(path) {
			t.Fatalf("the save waited for %s, want the cell's lock %s", p, terraindata.LockPath(path))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the save neither finished nor waited for the cell's lock")
	}
	restore()
	lk.Unlock()
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
	if h.s.World() == nil || h.s.Name() != "cell 3 of dem.world" {
		t.Errorf("saved in place: world %v name %q", h.s.World(), h.s.Name())
	}
	edit(800)
	if n := notices(); len(n) != 2 {
		t.Errorf("an edit after a save: %d notices", len(n))
	}
	if err := h.s.SaveAs(ctx, filepath.Join(dir, "mine.terrainData"), nil); err != nil {
		t.Fatal(err)
	}
	if h.s.World() != nil || h.s.Name() != "mine" {
		t.Errorf("saved elsewhere: world %v name %q", h.s.World(), h.s.Name())
	}
	edit(900)
	if n := notices(); len(n) != 2 {
		t.Errorf("an edit of a container saved out of the world: %d notices", len(n))
	}
	if l, err := landscape.Open(path); err != nil || l.Stack == nil || *l.Stack.Layers[1].Rules[0].Min != 700 {
		t.Errorf("the cell as saved: %v", err)
	}
}
