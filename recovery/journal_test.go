package recovery

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func block(target string, x, y, w, h int, v float32) Block {
	d := make([]float32, w*h)
	for i := range d {
		d[i] = v + float32(i)/1000
	}
	return Block{Target: target, X: x, Y: y, W: w, H: h, Data: d}
}

// sampleMeta is the meta of a copy over the sample at 128².
func sampleMeta() Meta {
	return Meta{Name: "dunes", Base: Base{Kind: BaseSample, Texels: 128}, Width: 128, Height: 128}
}

// comparable strips what differs between two reads of one state (the folder, the byte counts).
func comparable(s *State) State {
	c := *s
	c.Dir, c.Valid, c.Torn, c.Records = "", 0, "", 0
	return c
}

// TestJournalTornTail: a kill during the append of a record leaves the journal cut anywhere in
// it (or with garbage where it was being written); every such journal reads back as the state
// before that record, and a session adopting it appends after the last whole record.
func TestJournalTornTail(t *testing.T) {
	root := t.TempDir()
	w, err := Create(root, sampleMeta())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1700000000, 0)
	first := &Record{Time: t0, Steps: 1, Position: 1, Label: "New mask snow", Full: true,
		HasStack: true, Stack: []byte("version: 1\n"), HasChannels: true,
		Channels: []Channel{{Name: "mask.snow", Fresh: true}},
		Blocks:   []Block{block("mask.snow", 0, 0, 64, 64, 0.5), block(Holes, 64, 0, 64, 64, 1)}}
	if err := w.Append(first); err != nil {
		t.Fatal(err)
	}
	second := &Record{Time: t0.Add(time.Second), Steps: 2, Position: 2, Label: "Paint mask.snow",
		Blocks: []Block{block("mask.snow", 0, 0, 64, 64, 0.75), block("", 64, 64, 64, 64, 3)}}
	if err := w.Append(second); err != nil {
		t.Fatal(err)
	}
	before := w.Size()
	third := &Record{Time: t0.Add(2 * time.Second), Steps: 3, Position: 3, Label: "snow: min height",
		HasStack: true, Stack: []byte("version: 1\nlayers: []\n"),
		HasChannels: true, Channels: []Channel{{Name: "mask.snow"}, {Name: "mask.rock", Fresh: true}},
		Blocks: []Block{block("mask.rock", 0, 64, 8, 8, 0.25), block("", 64, 64, 4, 4, 4)}}
	if err := w.Append(third); err != nil {
		t.Fatal(err)
	}
	end := w.Size()
	w.Release()
	journal := filepath.Join(w.Dir(), journalFile)
	whole, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if all.Records != 3 || all.Torn != "" || all.Last.Label != third.Label || len(all.Channels) != 2 {
		t.Fatalf("whole journal: %d records, torn %q, last %q, channels %v", all.Records, all.Torn, all.Last.Label, all.Channels)
	}
	if got := all.Blocks[BlockKey{"", 64, 64}].Data[0]; got != 4 {
		t.Fatalf("the newest height block reads %v, want 4", got)
	}
	// The state before the third record, from a journal that never had it.
	prevDir := filepath.Join(t.TempDir(), "prev")
	copyCopy(t, w.Dir(), prevDir, whole[:before])
	prev, err := Read(prevDir)
	if err != nil {
		t.Fatal(err)
	}
	if prev.Records != 2 || prev.Last.Label != second.Label {
		t.Fatalf("two records: %d, last %q", prev.Records, prev.Last.Label)
	}
	want := comparable(prev)
	cut := filepath.Join(t.TempDir(), "cut")
	for off := before; off < end; off++ {
		copyCopy(t, w.Dir(), cut, whole[:off])
		got, err := Read(cut)
		if err != nil {
			t.Fatalf("cut at %d: %v", off, err)
		}
		if (off > before) != (got.Torn != "") {
			t.Fatalf("cut at %d: torn %q", off, got.Torn)
		}
		if !reflect.DeepEqual(comparable(got), want) {
			t.Fatalf("cut at %d of the last record [%d, %d): the state is not the previous one", off, before, end)
		}
	}
	// Garbage where the last record was (a sector written out of order): one flipped bit in each
	// byte of it.
	for off := before; off < end; off += 7 {
		bad := append([]byte(nil), whole...)
		bad[off] ^= 0x10
		copyCopy(t, w.Dir(), cut, bad)
		got, err := Read(cut)
		if err != nil {
			t.Fatalf("flip at %d: %v", off, err)
		}
		if got.Torn == "" || !reflect.DeepEqual(comparable(got), want) {
			t.Fatalf("flip at %d: torn %q; the state is not the previous one", off, got.Torn)
		}
	}
	// Adopting a torn copy drops the torn tail and appends after the last whole record.
	copyCopy(t, w.Dir(), cut, whole[:end-5])
	aw, st, err := Adopt(filepath.Dir(cut), filepath.Base(cut))
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 2 {
		t.Fatalf("adopted %d records", st.Records)
	}
	if err := aw.Append(third); err != nil {
		t.Fatal(err)
	}
	aw.Release()
	again, err := Read(cut)
	if err != nil {
		t.Fatal(err)
	}
	if again.Torn != "" || !reflect.DeepEqual(comparable(again), comparable(all)) {
		t.Fatalf("after adopting and appending: torn %q, state differs from the whole journal's", again.Torn)
	}
}

// copyCopy makes dst a copy of the recovery folder src with journal as its journal.
func copyCopy(t *testing.T, src, dst string, journal []byte) {
	t.Helper()
	os.RemoveAll(dst)
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(src, metaFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, metaFile), meta, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, journalFile), journal, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCompactionReplacesTheJournal: a full record written over a long journal leaves one record
// with the same state; a failed compaction (the folder read-only) leaves the journal as it was.
func TestCompactionReplacesTheJournal(t *testing.T) {
	root := t.TempDir()
	w, err := Create(root, sampleMeta())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	full := &Record{Time: time.Unix(1, 0), Steps: 1, Full: true, HasStack: true, Stack: []byte("version: 1\n"), HasChannels: true}
	if err := w.Append(full); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := w.Append(&Record{Time: time.Unix(int64(2+i), 0), Steps: 2 + i, Blocks: []Block{block("", 0, 0, 64, 64, float32(i))}}); err != nil {
			t.Fatal(err)
		}
	}
	long, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	compact := &Record{Time: long.Last.Time, Steps: long.Last.Steps, Full: true, HasStack: true, Stack: long.Stack,
		HasChannels: true, Channels: []Channel{}, Blocks: []Block{long.Blocks[BlockKey{"", 0, 0}]}}
	if os.Getuid() != 0 {
		os.Chmod(w.Dir(), 0o500)
		if err := w.Append(compact); err == nil || !strings.Contains(err.Error(), w.Dir()) {
			t.Errorf("compaction into a read-only folder: %v (want an error naming the folder)", err)
		}
		os.Chmod(w.Dir(), 0o700)
		if again, err := Read(w.Dir()); err != nil || again.Records != 21 {
			t.Fatalf("after the failed compaction: %v", err)
		}
	}
	if err := w.Append(compact); err != nil {
		t.Fatal(err)
	}
	short, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if short.Records != 1 || short.Valid >= long.Valid {
		t.Fatalf("compacted: %d records, %d bytes (was %d)", short.Records, short.Valid, long.Valid)
	}
	if !reflect.DeepEqual(short.Blocks, long.Blocks) || short.Last.Steps != long.Last.Steps {
		t.Fatal("the compacted state differs")
	}
}

// TestListLiveAndBuild: a copy whose writer is alive is listed as live; released, it is a dead
// one that Adopt takes and Landscape rebuilds — the sample with the journal's blocks over it.
func TestListLiveAndBuild(t *testing.T) {
	root := t.TempDir()
	w, err := Create(root, sampleMeta())
	if err != nil {
		t.Fatal(err)
	}
	snow := block("mask.snow", 64, 64, 64, 64, 0.5)
	ground := block("", 0, 0, 64, 64, 7)
	if err := w.Append(&Record{Time: time.Unix(5, 0), Steps: 4, Label: "Paint mask.snow", Full: true, HasStack: true,
		Stack:       []byte("version: 1\nlayers:\n  - {name: ground}\n  - name: snow\n    rules: [{input: mask, channel: mask.snow, min: 0.5}]\n"),
		HasChannels: true, Channels: []Channel{{Name: "mask.snow", Fresh: true}},
		Blocks: []Block{snow, ground, block(Holes, 0, 64, 64, 64, 1)}}); err != nil {
		t.Fatal(err)
	}
	ls, err := List(root)
	if err != nil || len(ls) != 1 || !ls[0].Live || ls[0].Steps != 4 || ls[0].Meta.Name != "dunes" {
		t.Fatalf("list with the writer alive: %+v, %v", ls, err)
	}
	if _, _, err := Adopt(root, w.ID()); err == nil {
		t.Fatal("a live copy was adopted")
	}
	w.Release()
	ls, _ = List(root)
	if len(ls) != 1 || ls[0].Live {
		t.Fatalf("list after release: %+v", ls)
	}
	aw, st, err := Adopt(root, w.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer aw.Release()
	l, err := st.Landscape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Stack.Layers) != 2 || l.Field.Channels["mask.snow"] == nil {
		t.Fatalf("rebuilt: %d layers, channels %v", len(l.Stack.Layers), l.Field.Channels)
	}
	m := l.Field.Channels["mask.snow"]
	if m.Data[64*128+64] != 0.5 || m.Data[0] != 0 {
		t.Errorf("mask: %v at the block, %v outside it", m.Data[64*128+64], m.Data[0])
	}
	if l.Field.Height.Data[1] != ground.Data[1] || !l.Holes[64*128] || l.Holes[0] {
		t.Error("the height and holes blocks are not in the rebuilt field")
	}
	for _, bad := range []string{"../x", "", ".hidden", "nope"} {
		if _, _, err := Adopt(root, bad); err == nil {
			t.Errorf("Adopt(%q) succeeded", bad)
		}
	}
}

// TestBaseGoneOrChanged: a copy whose base is gone, or changed size since, is refused with the
// copy's folder and the base named.
func TestBaseGoneOrChanged(t *testing.T) {
	root := t.TempDir()
	for _, m := range []Meta{
		{Name: "valley", Base: Base{Kind: BaseContainer, Path: filepath.Join(root, "gone.terrainData")}, Width: 64, Height: 64},
		{Name: "dunes", Base: Base{Kind: BaseSample, Texels: 64}, Width: 128, Height: 128},
		{Name: "odd", Base: Base{Kind: "martian"}, Width: 64, Height: 64},
	} {
		w, err := Create(root, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append(&Record{Time: time.Unix(1, 0), Full: true, HasStack: true, Stack: []byte("version: 1\n"), HasChannels: true}); err != nil {
			t.Fatal(err)
		}
		w.Release()
		st, err := Read(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Landscape(context.Background())
		if err == nil || !strings.Contains(err.Error(), w.Dir()) {
			t.Errorf("%s: %v (want an error naming %s)", m.Base.Describe(), err, w.Dir())
		} else {
			t.Logf("%s: %v", m.Base.Describe(), err)
		}
	}
}
