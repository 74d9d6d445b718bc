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

// Bar draws a one-line progress bar on a terminal, redrawn in place with '\r'. When the writer is
// not a terminal it prints a line per stage and per tenth of the work instead, so logs stay short.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	stage    string
	lastPct  int
	lastDraw time.Time
	started  time.Time
	width    int
	drawn    bool
}

// NewBar returns a bar writing to w (usually os.Stderr).
func NewBar(w io.Writer) *Bar {
	return &Bar{w: w, tty: isTerminal(w), lastPct: -1, width: 30, started: time.Now()}
}

// Func returns the bar's reporting function.
func (b *Bar) Func() Func { return b.Update }

// Update records progress and redraws when something visible changed.
func (b *Bar) Update(stage string, done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	pct := 100
	if total > 0 {
		pct = int(int64(done) * 100 / int64(total))
	}
	newStage := stage != b.stage
	if newStage && b.drawn && b.tty {
		fmt.Fprintln(b.w)
	}
	if newStage {
		b.stage, b.lastPct, b.started = stage, -1, time.Now()
	}
	if b.tty {
		if !newStage && pct == b.lastPct && time.Since(b.lastDraw) < 100*time.Millisecond {
			return
		}
		fill := b.width * pct / 100
		fmt.Fprintf(b.w, "\r%-12s [%s%s] %3d%%  %d/%d  %s", stage, strings.Repeat("#", fill),
			strings.Repeat(".", b.width-fill), pct, done, total, time.Since(b.started).Round(100*time.Millisecond))
	} else {
		if !newStage && pct/10 == b.lastPct/10 {
			return
		}
		fmt.Fprintf(b.w, "%s: %d%% (%d/%d)\n", stage, pct, done, total)
	}
	b.lastPct, b.lastDraw, b.drawn = pct, time.Now(), true
}

// Finish ends the bar's line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn && b.tty {
		fmt.Fprintln(b.w)
	}
	b.drawn = false
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
