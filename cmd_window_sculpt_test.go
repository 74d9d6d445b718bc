package main

import (
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEditorWindowSculpt raises a hill in a real window: the editor on the sample under Xvfb,
// the raise tool chosen with its key (R), a drag back and forth over the ground in the viewport
// through xdotool; the screenshot after the stroke's settled frame differs from the one before
// around the dragged line, and hardly anywhere far from it.
func TestEditorWindowSculpt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the editor in a real window under Xvfb and drives it with xdotool, tens of seconds (the full suite runs it: make test)")
	}
	dir, display, x := windowSetup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env := []string{"DISPLAY=" + display, "HOME=" + dir, "LANGUAGE=en", "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"), "STRATA_TRACE=frames"}
	e := startEditor(t, ctx, env, dir)
	e.await(t, "the first frame", func(l string) bool { return strings.Contains(l, "first frame after") })
	win := strings.Fields(x("search", "--sync", "--name", "Strata — dunes"))[0]
	x("windowfocus", "--sync", win)
	x("mousemove", "1595", "995") // off the window: no hover ring, no tooltip
	e.settledAt(t, 1)
	before := stableShot(t, display, dir)

	var gx, gy, gw, gh int
	for _, f := range strings.Fields(x("getwindowgeometry", "--shell", win)) {
		fmt.Sscanf(f, "X=%d", &gx)
		fmt.Sscanf(f, "Y=%d", &gy)
		fmt.Sscanf(f, "WIDTH=%d", &gw)
		fmt.Sscanf(f, "HEIGHT=%d", &gh)
	}
	// The stroke: across the ground in the middle of the viewport (its left half of the window,
	// below the horizon), back and forth, at a hand's pace.
	y := gy + gh*55/100
	x0, x1 := gx+gw*18/100, gx+gw*30/100
	x("key", "r")
	x("mousemove", "--sync", fmt.Sprint(x0), fmt.Sprint(y))
	seen := e.lineCount()
	drag := []string{"mousedown", "1"}
	const steps = 12
	for pass := 0; pass < 6; pass++ {
		for k := 1; k <= steps; k++ {
			px := x0 + (x1-x0)*k/steps
			if pass%2 == 1 {
				px = x1 - (x1-x0)*k/steps
			}
			drag = append(drag, "mousemove", fmt.Sprint(px), fmt.Sprint(y), "sleep", "0.03")
		}
	}
	x(append(drag, "mouseup", "1")...)
	x("mousemove", "1595", "995")
	// The stroke is one step: the title says the landscape is modified; then the frame after the
	// release, with every population re-placed, settles.
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	title := exec.CommandContext(wctx, "xdotool", "search", "--sync", "--name", "Strata — dunes \\*")
	title.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := title.CombinedOutput(); err != nil {
		e.mu.Lock()
		log := strings.Join(e.lines, "\n")
		e.mu.Unlock()
		t.Fatalf("the window's title never said the landscape was modified (%v: %s); stderr:\n%s", err, out, log)
	}
	e.awaitAfter(t, seen, "a settled frame after the stroke", func(l string) bool { return strings.HasPrefix(l, "strata: settled version ") })
	after := stableShot(t, display, dir)

	// In screen pixels: near is within 20 px of the dragged line (the ridge a 80 m brush raises is about 30 px across
	// there), far is more than 150 px from it,
	// both inside the viewport's ground band (the left half of the window, 30–70% of its height).
	close, closeChanged, far, farChanged := 0, 0, 0, 0
	b := before.Bounds()
	sky := before.At(b.Min.X+20, b.Min.Y+b.Dy()*20/100)
	for py := gy + gh*30/100; py < gy+gh*70/100; py += 2 {
		for px := gx + 10; px < gx+gw*50/100; px += 2 {
			c0 := before.At(px, py)
			if near(c0, sky, 6) {
				continue
			}
			changed := !near(c0, after.At(px, py), 16)
			d := distToSegment(image.Pt(px, py), image.Pt(x0, y), image.Pt(x1, y))
			switch {
			case d <= 20:
				close++
				if changed {
					closeChanged++
				}
			case d > 150:
				far++
				if changed {
					farChanged++
				}
			}
		}
	}
	t.Logf("near the stroke %d ground pixels, %d changed; far from it %d, %d changed", close, closeChanged, far, farChanged)
	if close < 300 || far < 1000 {
		t.Fatalf("the screenshot shows too little ground around the stroke (%d near, %d far)", close, far)
	}
	if closeChanged < close/3 {
		t.Errorf("raising a hill changed %d of %d ground pixels around the dragged line", closeChanged, close)
	}
	if farChanged > far/50 {
		t.Errorf("raising a hill changed %d of %d ground pixels far from the dragged line", farChanged, far)
	}
}

// distToSegment is the distance in pixels from p to the segment a–b.
func distToSegment(p, a, b image.Point) float64 {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = min(max((float64(p.X-a.X)*dx+float64(p.Y-a.Y)*dy)/l, 0), 1)
	}
	ex, ey := float64(p.X-a.X)-t*dx, float64(p.Y-a.Y)-t*dy
	return math.Hypot(ex, ey)
}

// lineCount is how many stderr lines the editor has written so far.
func (e *editorProcess) lineCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.lines)
}

// awaitAfter is await for a line written after the first n.
func (e *editorProcess) awaitAfter(t *testing.T, n int, what string, match func(string) bool) string {
	t.Helper()
	k := 0
	return e.await(t, what, func(l string) bool {
		k++
		return k > n && match(l)
	})
}
