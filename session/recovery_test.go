package session

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/field"
	"strata/landscape"
	"strata/recovery"
	"strata/stack"
)

// recHarness is a harness whose session keeps recovery copies under its own folder, with every
// write of the copy handed to a channel.
type recHarness struct {
	*harness
	root   string
	writes chan RecoveryInfo
}

func newRecHarness(t *testing.T, n int) *recHarness {
	t.Helper()
	root := t.TempDir()
	writes := make(chan RecoveryInfo, 256)
	h := newHarness(t, Options{Evaluator: CPU, Recovery: root, OnRecovery: func(i RecoveryInfo) { writes <- i }})
	if n > 0 {
		if err := h.s.OpenSampleSized(context.Background(), n, nil); err != nil {
			t.Fatal(err)
		}
	}
	return &recHarness{harness: h, root: root, writes: writes}
}

// wrote waits for the write of the copy that holds step steps (or a later one) and returns it.
func (h *recHarness) wrote(steps int) RecoveryInfo {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case i := <-h.writes:
			if i.Err != nil {
				h.t.Fatalf("recovery write: %v", i.Err)
			}
			if i.Steps >= steps {
				return i
			}
		case <-deadline:
			h.t.Fatalf("no recovery write of step %d within 60 s", steps)
		}
	}
}

// removed waits for the write that removed the copy (a save, an open, an undo to the base).
func (h *recHarness) removed() {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case i := <-h.writes:
			if i.Err != nil {
				h.t.Fatalf("recovery write: %v", i.Err)
			}
			if i.ID == "" {
				return
			}
		case <-deadline:
			h.t.Fatal("the copy was not removed within 60 s")
		}
	}
}

// paint is one stroke of brush b through the field's centre.
func (h *recHarness) paint(b Brush, dx float64) {
	h.t.Helper()
	fi := h.s.Field()
	if err := h.s.BeginStroke(b); err != nil {
		h.t.Fatal(err)
	}
	h.s.Stroke(fi.Origin[0]-fi.Size[0]/4+dx, fi.Origin[1])
	h.s.Stroke(fi.Origin[0]+dx, fi.Origin[1]+fi.Size[1]/8)
	h.s.EndStroke()
}

// sameDocument fails unless l (a copy read back) has the session's stack, channels, height and
// holes.
func sameDocument(t *testing.T, s *Session, l *landscape.Landscape) {
	t.Helper()
	snap, _, err := s.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(marshal(t, snap.Stack), marshal(t, l.Stack)) {
		t.Errorf("stack differs:\n%s\nwant\n%s", marshal(t, l.Stack), marshal(t, snap.Stack))
	}
	var got, want []string
	for c := range l.Field.Channels {
		got = append(got, c)
	}
	for c := range snap.Field.Channels {
		want = append(want, c)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("channels %v, want %v", got, want)
	}
	for _, c := range want {
		if !slices.Equal(l.Field.Channels[c].Data, snap.Field.Channels[c].Data) {
			n, nz, nzw := 0, 0, 0
			for i, v := range snap.Field.Channels[c].Data {
				if v != l.Field.Channels[c].Data[i] {
					n++
				}
				if l.Field.Channels[c].Data[i] != 0 {
					nz++
				}
				if v != 0 {
					nzw++
				}
			}
			t.Errorf("channel %s differs at %d texels (non-zero: %d in the copy, %d in the document)", c, n, nz, nzw)
		}
	}
	if !slices.Equal(l.Field.Height.Data, snap.Field.Height.Data) {
		t.Error("height differs")
	}
	hole := func(h []bool, k int) bool { return h != nil && h[k] }
	for k := range snap.Field.Height.Data {
		if hole(l.Holes, k) != hole(snap.Holes, k) {
			t.Fatalf("holes differ at texel %d", k)
		}
	}
}

// readCopy reads the copy id back into a landscape.
func readCopy(t *testing.T, root, id string) (*recovery.State, *landscape.Landscape) {
	t.Helper()
	st, err := recovery.Read(filepath.Join(root, id))
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.Landscape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st, l
}

// TestRecoveryCopyFollowsSteps: each step — a new mask, a stroke, a rule, cut holes, an undo —
// is in the copy once its write is reported, and the copy read back is the document; a stroke
// adds only the blocks it touched to the journal; a clean close removes it.
func TestRecoveryCopyFollowsSteps(t *testing.T) {
	h := newRecHarness(t, 256)
	if id := h.s.RecoveryID(); id != "" {
		t.Fatalf("a copy (%s) before any step", id)
	}
	if err := h.s.NewMask("snow"); err != nil {
		t.Fatal(err)
	}
	i := h.wrote(1)
	if i.ID == "" || !i.Full {
		t.Fatalf("first write: %+v", i)
	}
	h.paint(Brush{Target: "mask.snow", Radius: 300, Strength: 1, Falloff: 0.5}, 0)
	i = h.wrote(2)
	st := h.s.Stack().Clone()
	snow := stack.NewLayer("snow")
	snow.Rules = []stack.Rule{{Input: stack.InputMask, Channel: "snow", Min: stack.F(0.5), Softness: 0.1}}
	st.Layers = append(st.Layers, snow)
	applied := time.Now()
	if err := h.s.Apply("add snow", st); err != nil {
		t.Fatal(err)
	}
	h.wrote(3)
	// Durable within 2 s of the step (the bound): here the write waits for the pass the
	// edit started, then one fsync.
	if took := time.Since(applied); took > 2*time.Second {
		t.Errorf("the step was on disk %v after the edit; the bound is 2 s", took)
	} else {
		t.Logf("the step was on disk %v after the edit", took.Round(10*time.Microsecond))
	}
	before := h.copySize(i.ID)
	h.paint(Brush{Target: HolesTarget, Radius: 200, Strength: 1}, 500)
	h.wrote(4)
	// A stroke of radius 200 m on a 256² field of 4 km (15.6 m texels) touches a few 64² blocks:
	// its record is those blocks, not the field.
	if grew := h.copySize(i.ID) - before; grew <= 0 || grew > 6*4*64*64+4096 {
		t.Errorf("the hole stroke added %d bytes to the journal", grew)
	}
	_, l := readCopy(t, h.root, i.ID)
	sameDocument(t, h.s, l)
	if !h.s.Undo() {
		t.Fatal("nothing to undo")
	}
	h.wrote(5)
	state, l := readCopy(t, h.root, i.ID)
	sameDocument(t, h.s, l)
	if state.Last.Steps != 5 || state.Last.Position != 3 || state.Meta.Name != "dunes" || state.Meta.Base.Kind != recovery.BaseSample {
		t.Errorf("copy's header: %+v, meta %+v", state.Last, state.Meta)
	}
	h.s.Close()
	if _, err := os.Stat(filepath.Join(h.root, i.ID)); !os.IsNotExist(err) {
		t.Errorf("a clean close left the copy: %v", err)
	}
}

func (h *recHarness) copySize(id string) int64 {
	fi, err := os.Stat(filepath.Join(h.root, id, "journal"))
	if err != nil {
		h.t.Fatal(err)
	}
	return fi.Size()
}

// abandon ends the session as a crash would: the copy stays on disk, unlocked.
func (h *recHarness) abandon() {
	r := h.s.rec
	close(r.quit)
	<-r.done
	r.mu.Lock()
	r.w.Release()
	r.w = nil
	r.mu.Unlock()
	h.s.rec = nil
	h.s.Close()
}

// TestRecoveryRestore: a session that dies leaves its copy; another opens it — the document as
// it was, modified, named as before — goes on writing the same copy, and a save with nothing
// after it removes the copy, the next edit starting one over the saved container.
func TestRecoveryRestore(t *testing.T) {
	a := newRecHarness(t, 128)
	if err := a.s.NewMask("wet"); err != nil {
		t.Fatal(err)
	}
	a.paint(Brush{Target: "mask.wet", Radius: 400, Strength: 0.7, Falloff: 0.5}, 0)
	a.paint(Brush{Target: HolesTarget, Radius: 300, Strength: 1}, 800)
	id := a.wrote(3).ID
	want, _, err := a.s.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	a.abandon()

	b := newRecHarness(t, 0)
	b.root = a.root
	b.s.rec.root = a.root
	copies, err := RecoveryCopies(a.root)
	if err != nil || len(copies) != 1 || copies[0].ID != id || copies[0].Steps != 3 || copies[0].Meta.Name != "dunes" {
		t.Fatalf("copies: %+v, %v", copies, err)
	}
	if err := b.s.OpenRecovery(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if !b.s.Modified() || b.s.Name() != "dunes" || b.s.Path() != "" || b.s.UndoLabel() != "" {
		t.Errorf("restored: modified %v, name %q, path %q, undo %q", b.s.Modified(), b.s.Name(), b.s.Path(), b.s.UndoLabel())
	}
	if got := b.s.RecoveryID(); got != id {
		t.Errorf("the restored session writes copy %q, want %q", got, id)
	}
	l := &landscape.Landscape{Stack: want.Stack, Field: want.Field, Holes: want.Holes}
	sameDocument(t, b.s, l)
	if copies, _ := RecoveryCopies(a.root); len(copies) != 0 {
		t.Errorf("the adopted copy is offered again: %+v", copies)
	}
	b.paint(Brush{Target: "mask.wet", Radius: 200, Strength: 1, Erase: true}, -300)
	b.wrote(4)
	_, got := readCopy(t, a.root, id)
	sameDocument(t, b.s, got)

	path := filepath.Join(t.TempDir(), "wet.terrainData")
	if err := b.s.SaveAs(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	b.removed()
	if _, err := os.Stat(filepath.Join(a.root, id)); !os.IsNotExist(err) {
		t.Errorf("the save left the copy: %v", err)
	}
	b.paint(Brush{Target: "mask.wet", Radius: 200, Strength: 1}, 300)
	i := b.wrote(5)
	state, got := readCopy(t, a.root, i.ID)
	if state.Meta.Base.Kind != recovery.BaseContainer || state.Meta.Base.Path != path {
		t.Errorf("the copy after the save starts from %+v, want the container", state.Meta.Base)
	}
	sameDocument(t, b.s, got)
}

// TestRecoveryCompaction: with the journal rewritten whole at every step the copy still reads
// back as the document, and a channel removed (an undone new mask) leaves it.
func TestRecoveryCompaction(t *testing.T) {
	defer func(v int64) { recoveryCompactMin = v }(recoveryCompactMin)
	recoveryCompactMin = -1 << 40
	h := newRecHarness(t, 128)
	if err := h.s.NewMask("a"); err != nil {
		t.Fatal(err)
	}
	h.paint(Brush{Target: "mask.a", Radius: 400, Strength: 1}, 0)
	if err := h.s.NewMask("b"); err != nil {
		t.Fatal(err)
	}
	h.paint(Brush{Target: "mask.b", Radius: 400, Strength: 1}, 400)
	h.s.Undo() // the stroke on b
	h.s.Undo() // b itself
	i := h.wrote(6)
	if !i.Full {
		t.Errorf("the write was not whole: %+v", i)
	}
	st, l := readCopy(t, h.root, i.ID)
	if st.Records != 1 {
		t.Errorf("%d records after a whole write", st.Records)
	}
	sameDocument(t, h.s, l)
	h.s.Redo() // b again, as it was
	h.wrote(7)
	_, l = readCopy(t, h.root, i.ID)
	sameDocument(t, h.s, l)
}

// TestSaveFailureKeepsTheCopy: a save into a read-only folder, or into a folder removed while
// the landscape is open, fails with the path and the reason, writes nothing there, and leaves
// the document modified and its recovery copy in place.
func TestSaveFailureKeepsTheCopy(t *testing.T) {
	h := newRecHarness(t, 128)
	if err := h.s.NewMask("m"); err != nil {
		t.Fatal(err)
	}
	h.paint(Brush{Target: "mask.m", Radius: 300, Strength: 1}, 0)
	id := h.wrote(2).ID
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	readOnly(t, ro)
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{ro, gone} {
		path := filepath.Join(dir, "x.terrainData")
		err := h.s.SaveAs(context.Background(), path, nil)
		if err == nil {
			t.Fatalf("a save into %s succeeded", dir)
		}
		if !strings.Contains(err.Error(), dir) {
			t.Errorf("the save's error does not name the folder: %v", err)
		}
		t.Logf("save into %s: %v", filepath.Base(dir), err)
		if !h.s.Modified() || h.s.Path() != "" {
			t.Errorf("after the failed save: modified %v, path %q", h.s.Modified(), h.s.Path())
		}
		if got := h.s.RecoveryID(); got != id {
			t.Errorf("after the failed save the copy is %q, want %q", got, id)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("the failed save left %v in %s", ents, dir)
		}
	}
	if _, err := os.Stat(filepath.Join(h.root, id, "journal")); err != nil {
		t.Errorf("the copy went: %v", err)
	}
	_, l := readCopy(t, h.root, id)
	sameDocument(t, h.s, l)
}

// readOnly makes dir refuse new entries for this process until the test ends: its mode for a
// user, the immutable attribute for root (whom modes do not stop).
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Getuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Fatalf("chattr +i %s (root is not stopped by modes; e2fsprogs' chattr makes the folder immutable): %v %s", dir, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
		f.Close()
		t.Fatalf("%s still takes new files", dir)
	}
}

// TestGPUFailureFallsBack: when the GPU evaluator fails mid-session (the test hook: every
// evaluation fails as a lost device's would) the session switches to the Go reference with a
// notice, evaluates the edit that met the failure, and loses nothing: the stack, the recovery
// copy and a save are as they would have been.
func TestGPUFailureFallsBack(t *testing.T) {
	root := t.TempDir()
	writes := make(chan RecoveryInfo, 64)
	h := newHarness(t, Options{Evaluator: GPU, Recovery: root, OnRecovery: func(i RecoveryInfo) { writes <- i }})
	if err := h.s.OpenSampleSized(context.Background(), 64, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	if ev := h.s.Status().Evaluator; ev != "GPU" {
		t.Fatalf("evaluator %q before the failure", ev)
	}
	mark := h.mark()
	h.s.pipe.failGPU.Store(true)
	st := h.s.Stack().Clone()
	st.Layers[len(st.Layers)-1].Strength = 0.5
	if err := h.s.Apply("strength", st); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	notices := 0
	for _, e := range h.events(mark) {
		if e.Kind == EventNotice && strings.Contains(e.Message, "The GPU failed") && strings.Contains(e.Message, "Go reference") {
			notices++
		}
		if e.Kind == EventError {
			t.Errorf("an error reached the artist: %v", e.Err)
		}
	}
	if notices != 1 {
		t.Errorf("%d notices of the fallback", notices)
	}
	if ev := h.s.Status().Evaluator; ev != "Go reference" {
		t.Errorf("evaluator %q after the failure", ev)
	}
	if !bytes.Equal(marshal(t, h.s.Stack()), marshal(t, st)) || !h.s.Modified() {
		t.Error("the edit that met the failure is not the document's")
	}
	for i := range writes {
		if i.Err != nil {
			t.Fatal(i.Err)
		}
		if i.Steps >= 1 {
			_, l := readCopy(t, root, i.ID)
			sameDocument(t, h.s, l)
			break
		}
	}
	// The next edit and a save work on the Go reference.
	if err := h.s.NewMask("after"); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	path := filepath.Join(t.TempDir(), "fell.terrainData")
	if err := h.s.SaveAs(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	if probs := landscape.Validate(path); len(probs) != 0 {
		t.Errorf("the save after the fallback: %v", probs)
	}
}

// TestOpenRemovesThePreviousCopy: opening another landscape removes the copy of the one before
// (the window asked to save it first) without waiting for an edit of the new one.
func TestOpenRemovesThePreviousCopy(t *testing.T) {
	h := newRecHarness(t, 64)
	if err := h.s.NewMask("m"); err != nil {
		t.Fatal(err)
	}
	id := h.wrote(1).ID
	if err := h.s.NewFlat(context.Background(), [2]float64{100, 100}, [2]int{32, 32}, 5); err != nil {
		t.Fatal(err)
	}
	h.removed()
	if _, err := os.Stat(filepath.Join(h.root, id)); !os.IsNotExist(err) {
		t.Errorf("the previous landscape's copy is still there: %v", err)
	}
	// The flat landscape's copy rebuilds from its parameters.
	if err := h.s.NewMask("n"); err != nil {
		t.Fatal(err)
	}
	st, l := readCopy(t, h.root, h.wrote(1).ID)
	if st.Meta.Base.Kind != recovery.BaseFlat || st.Meta.Name != "untitled" {
		t.Errorf("the flat landscape's copy: %+v", st.Meta)
	}
	sameDocument(t, h.s, l)
}

// TestRecoveryInline: a landscape nothing can reload (assembled by a caller: OpenLandscape) is
// kept whole in its copy's first record — height, channels, holes — and rebuilt from it.
func TestRecoveryInline(t *testing.T) {
	h := newRecHarness(t, 0)
	f := field.SampleDunesSized(96)
	g := field.NewGrid(96, 96)
	for i := range g.Data {
		g.Data[i] = float32(i%7) / 7
	}
	if err := f.AddChannel("mask.given", g); err != nil {
		t.Fatal(err)
	}
	holes := make([]bool, 96*96)
	holes[500] = true
	if err := h.s.OpenLandscape(context.Background(), &landscape.Landscape{Stack: stack.SampleDunes(), Field: f, Holes: holes}, "assembled"); err != nil {
		t.Fatal(err)
	}
	h.paint(Brush{Target: "mask.given", Radius: 300, Strength: 1}, 0)
	st, l := readCopy(t, h.root, h.wrote(1).ID)
	if st.Meta.Base.Kind != recovery.BaseInline {
		t.Errorf("base %+v", st.Meta.Base)
	}
	sameDocument(t, h.s, l)
}

// TestSaveOnFullDisk: a save that runs out of room (the file-size limit stands in for a full
// disk, in a child process) fails with the reason, leaves nothing in the folder, and keeps the
// document modified and its recovery copy.
func TestSaveOnFullDisk(t *testing.T) {
	if os.Getenv("STRATA_SESSION_FSIZE_CHILD") != "" {
		h := newRecHarness(t, 128)
		if err := h.s.NewMask("m"); err != nil {
			t.Fatal(err)
		}
		id := h.wrote(1).ID
		out := t.TempDir()
		lim := &syscall.Rlimit{Cur: 16 << 10, Max: 16 << 10}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, lim); err != nil {
			t.Fatal(err)
		}
		err := h.s.SaveAs(context.Background(), filepath.Join(out, "full.terrainData"), nil)
		if err == nil || !strings.Contains(err.Error(), "file too large") {
			t.Fatalf("the save on a full disk: %v", err)
		}
		t.Logf("save: %v", err)
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("the failed save left %v", names)
		}
		if !h.s.Modified() || h.s.RecoveryID() != id {
			t.Errorf("after the failed save: modified %v, copy %q (was %q)", h.s.Modified(), h.s.RecoveryID(), id)
		}
		if _, err := os.Stat(filepath.Join(h.root, id, "journal")); err != nil {
			t.Errorf("the copy went: %v", err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSaveOnFullDisk$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "STRATA_SESSION_FSIZE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSaveOnFullDisk") {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "save: ") {
			t.Log(strings.TrimSpace(l))
		}
	}
}
