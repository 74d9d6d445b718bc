// Package progress carries progress reports from long operations to whoever shows them: the
// editor's progress bar or the command line's terminal bar.
//
// A long operation takes a Func and calls it as work completes; it never formats anything itself.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Func receives progress: stage names what is happening, done of total units are finished.
// It may be called from several goroutines; implementations must be safe for that.
type Func func(stage string, done, total int)

// Nop discards progress.
func Nop(string, int, int) {}

// Bar shows each stage of a long operation on its own line — a bar, the units done, the time
// spent and, while it runs, an estimate of the time left — redrawn in place on a terminal, so a
// bake whose stages interleave (evaluate and read back band after band) reads as phases with their
// own progress. When the writer is not a terminal it prints a line per stage at its start and at
// each tenth of its work instead, so logs stay short.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	now      func() time.Time
	stages   []*stage
	byName   map[string]*stage // the stages by name: a run of many stages stays linear
	units    map[string]string
	lines    int // lines drawn by the last redraw (tty)
	lastDraw time.Time
	width    int
}

type stage struct {
	name        string
	done, total int
	start, end  time.Time // end is zero while running
	lastTenth   int
}

// NewBar returns a bar writing to w (usually os.Stderr).
func NewBar(w io.Writer) *Bar {
	return &Bar{w: w, tty: isTerminal(w), now: time.Now, width: 24, units: map[string]string{}}
}

// Func returns the bar's reporting function.
func (b *Bar) Func() Func { return b.Update }

// SetUnit names the unit a stage counts in ("MiB"); by default the counts stand alone.
func (b *Bar) SetUnit(stage, unit string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.units[stage] = unit
}

// Update records progress and redraws when something visible changed.
func (b *Bar) Update(name string, done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	s := b.byName[name]
	fresh := s == nil
	if fresh {
		s = &stage{name: name, start: now, lastTenth: -1}
		b.stages = append(b.stages, s)
		if b.byName == nil {
			b.byName = map[string]*stage{}
		}
		b.byName[name] = s
	}
	wasDone := !s.end.IsZero()
	if wasDone && done < total { // a stage that runs again (a second bake) starts over
		s.start, s.end, s.lastTenth = now, time.Time{}, -1
		wasDone = false
	}
	s.done, s.total = done, total
	if done >= total && s.end.IsZero() {
		s.end = now
	}
	finished := !wasDone && !s.end.IsZero()
	if b.tty {
		if fresh || finished || now.Sub(b.lastDraw) >= 100*time.Millisecond {
			b.redraw(now)
		}
		return
	}
	tenth := 10
	if total > 0 {
		tenth = int(int64(done) * 10 / int64(total))
	}
	if tenth != s.lastTenth {
		s.lastTenth = tenth
		fmt.Fprintln(b.w, b.line(s, now, false))
	}
}

// line formats a stage: name, bar (tty), percentage, counts, time spent or left.
func (b *Bar) line(s *stage, now time.Time, bar bool) string {
	pct := 100
	if s.total > 0 {
		pct = int(int64(s.done) * 100 / int64(s.total))
	}
	var sb strings.Builder
	if bar {
		fill := b.width * min(pct, 100) / 100
		fmt.Fprintf(&sb, "%-13s [%s%s] %3d%%", s.name, strings.Repeat("#", fill), strings.Repeat(".", b.width-fill), pct)
	} else {
		fmt.Fprintf(&sb, "%s: %d%%", s.name, pct)
	}
	unit := ""
	if u := b.units[s.name]; u != "" {
		unit = " " + u
	}
	fmt.Fprintf(&sb, " (%d/%d%s)", s.done, s.total, unit)
	if !s.end.IsZero() {
		fmt.Fprintf(&sb, " in %s", round(s.end.Sub(s.start)))
		return sb.String()
	}
	spent := now.Sub(s.start)
	fmt.Fprintf(&sb, " %s", round(spent))
	if s.done > 0 && s.total > s.done && spent >= 200*time.Millisecond {
		left := time.Duration(float64(spent) * float64(s.total-s.done) / float64(s.done))
		fmt.Fprintf(&sb, ", ETA %s", round(left))
	}
	return sb.String()
}

// redraw rewrites every stage line in place: back to the first line drawn, each line rewritten
// and cleared to its end. The cursor ends on the line below the last stage.
func (b *Bar) redraw(now time.Time) {
	var sb strings.Builder
	if b.lines > 0 {
		fmt.Fprintf(&sb, "\x1b[%dF", b.lines)
	}
	for _, s := range b.stages {
		sb.WriteString("\r" + b.line(s, now, true) + "\x1b[K\n")
	}
	io.WriteString(b.w, sb.String())
	// Finished stages above the last maxLive are drawn for the last time: they stay on the
	// screen and leave the redraw, so thousands of stages (a procgen graph's nodes) are not all
	// rewritten at every update.
	k := 0
	for k < len(b.stages)-maxLive && !b.stages[k].end.IsZero() {
		delete(b.byName, b.stages[k].name)
		k++
	}
	b.stages = b.stages[k:]
	b.lines = len(b.stages)
	b.lastDraw = now
}

// maxLive is how many stages a terminal redraw keeps rewriting at least.
const maxLive = 16

// Finish draws the final state of every stage. A new operation's stages then start below.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty && len(b.stages) > 0 {
		b.redraw(b.now())
	}
	b.stages, b.byName, b.lines = nil, nil, 0
}

func round(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
