package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// savedContainer saves a landscape over a 300×211 height (neither square nor a power of two: the
// EXR's 16-row blocks end short, and land in any order) as a container and returns its path.
func savedContainer(t *testing.T) string {
	t.Helper()
	g := field.SampleDunesSized(300).Height
	g = &field.Grid{W: 300, H: 211, Data: g.Data[:300*211]}
	f, err := field.New(field.Placement{Size: [2]float64{300, 211}}, g)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{Evaluator: CPU})
	if err := h.s.OpenLandscape(context.Background(), &landscape.Landscape{Stack: stack.Starter(), Field: f}, "h"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "h.terrainData")
	if err := h.s.SaveAs(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProgressiveContainerIsTheOpen: a container reopened with its level-of-detail tree built
// while its height is read shows what the same container opened whole shows (landscape.Open,
// the tree built by SetScene after it): the same camera, the same settled frame, pixel for pixel;
// the status said it read and then refined, and the open's steps waited for the tree's last rows
// instead of building one.
func TestProgressiveContainerIsTheOpen(t *testing.T) {
	path := savedContainer(t)
	read := newHarness(t, Options{Evaluator: CPU, Width: 200, Height: 120})
	if err := read.s.OpenContainer(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	l, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := newHarness(t, Options{Evaluator: CPU, Width: 200, Height: 120})
	if err := whole.s.OpenLandscape(context.Background(), l, "h"); err != nil {
		t.Fatal(err)
	}
	if a, b := read.s.Camera(), whole.s.Camera(); a != b {
		t.Fatalf("camera %+v, opened whole %+v", a, b)
	}
	fa, fb := read.waitFrame(read.s.Version()), whole.waitFrame(whole.s.Version())
	if n := diffPixels(fa.Image, fb.Image); n != 0 {
		t.Errorf("%d pixels differ from the container opened whole", n)
	}
	// The height's range is the one the read found, the grid's own.
	if got, want := read.s.Field().HeightRange, gridRange(l.Field.Height); got != want {
		t.Errorf("height range %v, the grid's %v", got, want)
	}
	var said []string
	for _, e := range read.events(0) {
		if r := e.Status.Reading; e.Kind == EventStatus && r != "" && (len(said) == 0 || said[len(said)-1] != r) {
			said = append(said, r)
		}
	}
	if len(said) < 2 || !strings.HasPrefix(said[0], "reading h.terrainData… ") || said[len(said)-1] != "refining h.terrainData: levels of detail…" {
		t.Errorf("reading the container: the status said %q", said)
	}
	if r := read.s.Status().Reading; r != "" {
		t.Errorf("after the open the status still says %q", r)
	}
	var steps []string
	for _, st := range read.s.OpenSteps() {
		steps = append(steps, st.Name)
	}
	if !slices.Contains(steps, "LOD tree's last rows") || slices.Contains(steps, "viewport scene (LOD tree)") {
		t.Errorf("the open's steps %q", steps)
	}
}

// TestOpenContainerFailsMidRead: an open cancelled after some of the height's rows went to the
// level-of-detail tree, or of a container whose height payload is cut short, fails with the
// reason, leaves the landscape open until then open and the status bar saying nothing of it.
func TestOpenContainerFailsMidRead(t *testing.T) {
	path := savedContainer(t)
	h := newHarness(t, Options{Evaluator: CPU})
	if err := h.s.OpenSampleSized(context.Background(), 64, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.s.Subscribe(func(e Event) {
		if e.Kind == EventStatus && strings.HasPrefix(e.Status.Reading, "reading ") {
			cancel() // after the first block of rows
		}
	})
	if err := h.s.OpenContainer(ctx, path); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled mid-read: %v", err)
	}
	exr := filepath.Join(path, "height.texture", "data.exr")
	b, err := os.ReadFile(exr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exr, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	mark := h.mark()
	err = h.s.OpenContainer(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "data.exr") || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("a height cut short: %v", err)
	}
	// It failed after rows of it were read (and handed to the tree): the status had said so.
	var readSome bool
	for _, e := range h.events(mark) {
		r := e.Status.Reading
		readSome = readSome || (e.Kind == EventStatus && strings.HasPrefix(r, "reading ") && !strings.HasSuffix(r, " 0%"))
	}
	if !readSome {
		t.Error("the cut height failed before any of its rows were read: not a failure mid-read")
	}
	if name, r := h.s.Name(), h.s.Status().Reading; name != "dunes" || r != "" {
		t.Errorf("after the failed opens: %q open, the status says %q", name, r)
	}
	h.waitFrame(h.s.Version()) // the sample is still drawn
}
