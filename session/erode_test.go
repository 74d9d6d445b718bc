package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"strata/erode"
	"strata/field"
)

// erosionChannels are the channels an erosion leaves.
var erosionChannels = []string{erode.ChannelFlow, erode.ChannelDeposit, erode.ChannelWear}

// fieldNow is the field as the artist sees it (queued edits applied, as a save copies it).
func fieldNow(t *testing.T, h *harness) *field.Field {
	t.Helper()
	snap, _, err := h.s.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return snap.Field
}

func equalFloats(a, b []float32) bool { return slices.Equal(a, b) }

// Field → Erode…'s session half: an erosion is one undoable step that changes the height to
// what erode.Run makes of it and adds the erosion channels; undo puts back the height's bytes
// and takes the channels away; redo brings the eroded ground back; a cancelled erosion changes
// nothing.
func TestErodeIsOneUndoableStep(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: CPU}, 128, nil, true)
	ctx := context.Background()
	before := fieldNow(t, h)
	orig := before.Height.Clone()
	label, version := h.s.UndoLabel(), h.s.Version()
	trees := h.instances("trees")
	o := ErodeOptions{Preset: "old mountains", Iterations: 12, Seed: 7}

	// Cancelled after two iterations: nothing changes.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err := h.s.Erode(cctx, o, func(stage string, done, total int) {
		if stage == erode.Stage && done >= 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled erosion: %v, want context.Canceled", err)
	}
	if h.s.UndoLabel() != label || h.s.Version() != version || h.s.Modified() {
		t.Errorf("a cancelled erosion made a step: undo %q, version %d → %d, modified %v", h.s.UndoLabel(), version, h.s.Version(), h.s.Modified())
	}
	if f := fieldNow(t, h); !equalFloats(f.Height.Data, orig.Data) || f.Channels[erode.ChannelFlow] != nil {
		t.Fatal("a cancelled erosion changed the field")
	}

	// What erode.Run makes of this ground, the bytes the session must show.
	p, _ := erode.Preset(o.Preset)
	p.Iterations = o.Iterations
	want, err := erode.Run(ctx, orig, before.TexelSize(), erode.Options{Params: p, Seed: o.Seed})
	if err != nil {
		t.Fatal(err)
	}
	if equalFloats(want.Height.Data, orig.Data) {
		t.Fatal("the erosion moves nothing on the sample: the test shows nothing")
	}
	reports := 0
	if err := h.s.Erode(ctx, o, func(string, int, int) { reports++ }); err != nil {
		t.Fatal(err)
	}
	if reports < o.Iterations {
		t.Errorf("%d progress reports for %d iterations", reports, o.Iterations)
	}
	if got := h.s.UndoLabel(); got != "Erode (old mountains)" {
		t.Errorf("undo label %q", got)
	}
	h.waitFrame(h.s.Version())
	f := fieldNow(t, h)
	if !equalFloats(f.Height.Data, want.Height.Data) {
		t.Fatal("the eroded height is not erode.Run's")
	}
	for _, c := range []struct {
		name string
		g    *field.Grid
	}{{erode.ChannelFlow, want.Flow}, {erode.ChannelDeposit, want.Deposit}, {erode.ChannelWear, want.WearMap}} {
		if g := f.Channels[c.name]; g == nil || !equalFloats(g.Data, c.g.Data) {
			t.Errorf("channel %s missing or not erode.Run's", c.name)
		}
		if !slices.Contains(h.s.Channels(), c.name) {
			t.Errorf("the document's channels %v lack %s", h.s.Channels(), c.name)
		}
	}
	if !h.s.Modified() {
		t.Error("an erosion left the document unmodified")
	}

	if !h.s.Undo() {
		t.Fatal("nothing to undo")
	}
	h.waitFrame(h.s.Version())
	f = fieldNow(t, h)
	if !equalFloats(f.Height.Data, orig.Data) {
		t.Error("undo: the height's bytes are not the original's")
	}
	for _, c := range erosionChannels {
		if f.Channels[c] != nil || slices.Contains(h.s.Channels(), c) {
			t.Errorf("undo: channel %s still there", c)
		}
	}
	if h.s.Modified() {
		t.Error("undo back to the opened state left the document modified")
	}
	if got := h.instances("trees"); got != trees || trees <= 0 {
		t.Errorf("undo: %d trees, %d before the erosion", got, trees)
	}

	if !h.s.Redo() {
		t.Fatal("nothing to redo")
	}
	h.waitFrame(h.s.Version())
	f = fieldNow(t, h)
	if !equalFloats(f.Height.Data, want.Height.Data) {
		t.Error("redo: the height is not the eroded one")
	}
	if g := f.Channels[erode.ChannelDeposit]; g == nil || !equalFloats(g.Data, want.Deposit.Data) {
		t.Error("redo: erosion.deposit missing or changed")
	}

	// A second erosion replaces the channels' changed blocks; its undo brings the first back.
	if err := h.s.Erode(ctx, ErodeOptions{Preset: "light rain", Iterations: 5, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	if !h.s.Undo() {
		t.Fatal("nothing to undo")
	}
	h.waitFrame(h.s.Version())
	f = fieldNow(t, h)
	if !equalFloats(f.Height.Data, want.Height.Data) || !equalFloats(f.Channels[erode.ChannelWear].Data, want.WearMap.Data) {
		t.Error("undoing a second erosion did not bring the first one's ground and channels back")
	}
}

// Limited to a mask, an erosion leaves the ground where the mask is 0 byte for byte, with no
// deposit, wear or flow there, and takes the eroded height where it is 1.
func TestErodeLimitedToMask(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: CPU}, 128, nil, true)
	ctx := context.Background()
	if err := h.s.NewMask("valley"); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	// Paint the mask straight into the field: 1 on the left half's middle rows, a soft edge.
	p := h.s.pipe
	p.passMu.Lock()
	h.s.fmu.Lock()
	g := h.s.land.Field.Channels["mask.valley"]
	for j := 32; j < 96; j++ {
		for i := 0; i < 64; i++ {
			v := float32(1)
			if i >= 56 {
				v = 0.5
			}
			g.Data[j*g.W+i] = v
		}
	}
	h.s.fmu.Unlock()
	p.passMu.Unlock()
	before := fieldNow(t, h)
	orig := before.Height.Clone()
	mask := before.Channels["mask.valley"].Data

	if err := h.s.Erode(ctx, ErodeOptions{Preset: "old mountains", Iterations: 12, Seed: 7, Mask: "nothing"}, nil); err == nil {
		t.Error("an erosion limited to a mask the landscape lacks was accepted")
	}
	if err := h.s.Erode(ctx, ErodeOptions{Preset: "old mountains", Iterations: 12, Seed: 7, Mask: "valley"}, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	f := fieldNow(t, h)
	pp, _ := erode.Preset("old mountains")
	pp.Iterations = 12
	full, err := erode.Run(ctx, orig, before.TexelSize(), erode.Options{Params: pp, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	inside, moved := 0, 0
	for k, m := range mask {
		hNew := f.Height.Data[k]
		switch m {
		case 0:
			if hNew != orig.Data[k] {
				t.Fatalf("texel (%d, %d) outside the mask changed: %v → %v", k%orig.W, k/orig.W, orig.Data[k], hNew)
			}
			for _, c := range erosionChannels {
				if v := f.Channels[c].Data[k]; v != 0 {
					t.Fatalf("%s is %v at (%d, %d), outside the mask", c, v, k%orig.W, k/orig.W)
				}
			}
		case 1:
			inside++
			if hNew != full.Height.Data[k] {
				t.Fatalf("texel (%d, %d) inside the mask is %v, the erosion's %v", k%orig.W, k/orig.W, hNew, full.Height.Data[k])
			}
			if hNew != orig.Data[k] {
				moved++
			}
		}
		if d := f.Channels[erode.ChannelDeposit].Data[k] - f.Channels[erode.ChannelWear].Data[k]; d != hNew-orig.Data[k] {
			t.Fatalf("deposit − wear at (%d, %d) is %v, the height moved %v", k%orig.W, k/orig.W, d, hNew-orig.Data[k])
		}
	}
	if inside == 0 || moved == 0 {
		t.Fatalf("%d texels inside the mask, %d of them moved: the test shows nothing", inside, moved)
	}
	if !h.s.Undo() {
		t.Fatal("nothing to undo")
	}
	h.waitFrame(h.s.Version())
	if f := fieldNow(t, h); !equalFloats(f.Height.Data, orig.Data) {
		t.Error("undo of a masked erosion: the height is not the original's")
	}
}

// ErodeOptions.Params replaces the preset's parameters: the height is erode.Run's with them,
// the step is "Erode (custom)"; Params equal to the preset's but for Iterations keep the
// preset's name; an invalid parameter is refused naming it and changes nothing.
func TestErodeOptionsParams(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: CPU}, 128, nil, true)
	ctx := context.Background()
	before := fieldNow(t, h)
	orig := before.Height.Clone()
	label, version := h.s.UndoLabel(), h.s.Version()

	bad, _ := erode.Preset("light rain")
	bad.Evaporation = 1.5
	err := h.s.Erode(ctx, ErodeOptions{Preset: "light rain", Params: &bad, Iterations: -1, Seed: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "evaporation") {
		t.Fatalf("evaporation 1.5: %v, want an error naming evaporation", err)
	}
	if h.s.UndoLabel() != label || h.s.Version() != version {
		t.Error("a refused erosion made a step")
	}

	p, _ := erode.Preset("light rain")
	p.Talus, p.ThermalRate, p.SettleIterations, p.Rain = 25, 0.2, 50, 0.01
	o := ErodeOptions{Preset: "light rain", Params: &p, Iterations: 8, Seed: 5}
	run := p
	run.Iterations = 8
	want, err := erode.Run(ctx, orig, before.TexelSize(), erode.Options{Params: run, Seed: o.Seed})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := erode.Preset("light rain")
	plain.Iterations = 8
	asPreset, err := erode.Run(ctx, orig, before.TexelSize(), erode.Options{Params: plain, Seed: o.Seed})
	if err != nil {
		t.Fatal(err)
	}
	if equalFloats(want.Height.Data, asPreset.Height.Data) {
		t.Fatal("the custom parameters erode as the preset does: the test shows nothing")
	}
	if err := h.s.Erode(ctx, o, nil); err != nil {
		t.Fatal(err)
	}
	if got := h.s.UndoLabel(); got != CustomErodeLabel {
		t.Errorf("undo label %q, want %q", got, CustomErodeLabel)
	}
	h.waitFrame(h.s.Version())
	if f := fieldNow(t, h); !equalFloats(f.Height.Data, want.Height.Data) {
		t.Fatal("the eroded height is not erode.Run's with the custom parameters")
	}
	if !h.s.Undo() {
		t.Fatal("nothing to undo")
	}
	h.waitFrame(h.s.Version())

	// The preset's own parameters (another Iterations) keep the preset's name.
	same, _ := erode.Preset("old mountains")
	same.Iterations = 999
	if _, l, err := (ErodeOptions{Preset: "old mountains", Params: &same, Iterations: 4}).Resolve(); err != nil || l != "Erode (old mountains)" {
		t.Errorf("the preset's parameters: label %q, %v", l, err)
	}
	if q, _, _ := (ErodeOptions{Preset: "old mountains", Params: &same, Iterations: -1}).Resolve(); q.Iterations != 999 {
		t.Errorf("Iterations -1 kept %d, want Params' 999", q.Iterations)
	}
}
