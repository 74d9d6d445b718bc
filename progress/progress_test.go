package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// clock is a fake time source the tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newTestBar(buf *bytes.Buffer, tty bool) (*Bar, *clock) {
	c := &clock{t: time.Unix(1000, 0)}
	b := NewBar(buf)
	b.tty, b.now = tty, c.now
	return b, c
}

func TestBarNonTerminalPrintsTenths(t *testing.T) {
	var buf bytes.Buffer
	b, c := newTestBar(&buf, false)
	for i := 0; i <= 100; i++ {
		b.Update("bake", i, 100)
		c.add(10 * time.Millisecond)
	}
	b.Update("write", 1, 2)
	b.Finish()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 12 {
		t.Fatalf("got %d lines, want 11 tenths of bake + 1 write:\n%s", len(lines), buf.String())
	}
	if lines[0] != "bake: 0% (0/100) 0s" || lines[10] != "bake: 100% (100/100) in 1s" || lines[11] != "write: 50% (1/2) 0s" {
		t.Errorf("unexpected lines:\n%s", buf.String())
	}
	if lines[5] != "bake: 50% (50/100) 500ms, ETA 500ms" {
		t.Errorf("halfway: %q, want the time spent and an ETA of the same", lines[5])
	}
}

// Interleaved stages each keep their own line, counts, unit and ETA; on a terminal every redraw
// goes back to the first stage's line and rewrites them all.
func TestBarTerminalStagesKeepTheirLines(t *testing.T) {
	var buf bytes.Buffer
	b, c := newTestBar(&buf, true)
	b.SetUnit("read back", "MiB")
	b.Update("evaluate", 0, 8)
	b.Update("read back", 0, 64)
	for k := 1; k <= 4; k++ {
		c.add(time.Second)
		b.Update("evaluate", 2*k, 8)
		b.Update("read back", 8*k, 64)
	}
	b.Finish() // draws the last state (the last update came within 100 ms of a redraw)
	out := buf.String()
	frames := strings.Split(out, "\x1b[2F")
	last := frames[len(frames)-1]
	lines := strings.Split(strings.TrimSuffix(last, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("last frame has %d lines, want one per stage:\n%q", len(lines), last)
	}
	if !strings.Contains(lines[0], "evaluate") || !strings.Contains(lines[0], "(8/8) in 4s") {
		t.Errorf("evaluate line %q: want finished in 4s", lines[0])
	}
	if !strings.Contains(lines[1], "read back") || !strings.Contains(lines[1], "(32/64 MiB) 4s, ETA 4s") {
		t.Errorf("read back line %q: want 32 of 64 MiB, 4s spent, ETA 4s", lines[1])
	}
	if !strings.HasSuffix(out, "\x1b[K\n") {
		t.Errorf("Finish leaves the cursor mid-line: %q", out[max(0, len(out)-40):])
	}
}
