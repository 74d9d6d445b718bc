package ui

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"strata/internal/testgpu"
	"strata/recovery"
	"strata/session"
	"strata/stack"
)

// deadCopy leaves under root the recovery copy an editor that died would have left: the sample
// at 64² with a painted mask and a layer reading it.
func deadCopy(t *testing.T, root string, when time.Time) string {
	t.Helper()
	w, err := recovery.Create(root, recovery.Meta{Name: "dunes", Base: recovery.Base{Kind: recovery.BaseSample, Texels: 64}, Width: 64, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	st := stack.SampleDunes()
	ly := stack.NewLayer("wet")
	ly.Rules = []stack.Rule{{Input: stack.InputMask, Channel: "wet", Min: stack.F(0.5)}}
	st.Layers = append(st.Layers, ly)
	data, err := stack.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	blk := make([]float32, 64*64)
	for i := range blk {
		blk[i] = 0.75
	}
	if err := w.Append(&recovery.Record{Time: when, Steps: 3, Position: 3, Label: "Paint mask.wet", Full: true,
		HasStack: true, Stack: data, HasChannels: true, Channels: []recovery.Channel{{Name: "mask.wet", Fresh: true}},
		Blocks: []recovery.Block{{Target: "mask.wet", W: 64, H: 64, Data: blk}}}); err != nil {
		t.Fatal(err)
	}
	w.Release()
	return w.ID()
}

// recoveryEditor is the editor over a session keeping copies under root, with a channel that
// hears every document event.
func recoveryEditor(t *testing.T, root string) (*editor, chan session.Event) {
	t.Helper()
	a := test.NewTempApp(t)
	s, err := session.New(context.Background(), session.Options{Device: testgpu.Device(t), Width: 160, Height: 100,
		Evaluator: session.CPU, Recovery: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	events := make(chan session.Event, 256)
	s.Subscribe(func(e session.Event) {
		select {
		case events <- e:
		default:
		}
	})
	ed := newEditor(a, s, Options{Log: io.Discard, Recovery: root})
	if err := s.OpenSampleSized(context.Background(), 64, nil); err != nil {
		t.Fatal(err)
	}
	return ed, events
}

// until waits on the session's events until cond holds.
func until(t *testing.T, events chan session.Event, cond func() bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for !cond() {
		select {
		case <-events:
		case <-deadline:
			t.Fatal("condition not reached within 60 s")
		}
	}
}

// TestRecoveryOffer: at the start after an unclean exit the window offers the copy, naming the
// landscape and the time of its last step; Later keeps it, Discard deletes it, Restore opens it
// modified with its mask and stack.
func TestRecoveryOffer(t *testing.T) {
	root := t.TempDir()
	when := time.Now().Add(-time.Minute).Truncate(time.Second)
	older := deadCopy(t, root, when.Add(-time.Hour))
	newer := deadCopy(t, root, when)
	ed, events := recoveryEditor(t, root)
	copies, err := session.RecoveryCopies(root)
	if err != nil || len(copies) != 2 || copies[0].ID != newer {
		t.Fatalf("copies %+v, %v", copies, err)
	}
	ed.offerRecovery(copies)
	o := ed.offer
	if o == nil || !strings.Contains(o.text, "dunes") || !strings.Contains(o.text, when.Local().Format("15:04:05")) || !strings.Contains(o.text, "3 steps") {
		t.Fatalf("the offer says %q", o.text)
	}
	test.Tap(o.later) // the newer stays; the older is offered next
	if ed.offer == nil || ed.offer == o || !strings.Contains(ed.offer.text, when.Add(-time.Hour).Local().Format("15:04:05")) {
		t.Fatalf("after Later: %+v", ed.offer)
	}
	test.Tap(ed.offer.discard)
	if _, err := os.Stat(filepath.Join(root, older)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Discard left the copy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, newer)); err != nil {
		t.Errorf("Later did not keep the copy: %v", err)
	}
	copies, _ = session.RecoveryCopies(root)
	ed.offerRecovery(copies)
	test.Tap(ed.offer.restore)
	until(t, events, func() bool {
		return ed.s.Modified() && slices.Contains(ed.s.Channels(), "mask.wet") && len(ed.s.Stack().Layers) == 3
	})
	if ed.s.Name() != "dunes" || ed.s.Path() != "" || ed.s.RecoveryID() != newer {
		t.Errorf("restored: name %q, path %q, copy %q", ed.s.Name(), ed.s.Path(), ed.s.RecoveryID())
	}
}

// TestSaveFailureDialog: a save into a folder that is gone shows the reason in a dialog and
// leaves the landscape modified.
func TestSaveFailureDialog(t *testing.T) {
	ed, events := recoveryEditor(t, t.TempDir())
	if err := ed.s.NewMask("m"); err != nil {
		t.Fatal(err)
	}
	until(t, events, ed.s.Modified)
	gone := filepath.Join(t.TempDir(), "gone")
	done := make(chan error, 1)
	ed.onSaved = func(err error) { done <- err }
	ed.saveTo(filepath.Join(gone, "x.terrainData"), nil)
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the save into a removed folder succeeded")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the save did not end within 60 s")
	}
	if !strings.Contains(ed.saveError, gone) || !strings.Contains(ed.saveError, "is gone") || !ed.s.Modified() {
		t.Errorf("dialog: %q, modified %v", ed.saveError, ed.s.Modified())
	}
}
