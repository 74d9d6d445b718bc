package ui

import (
	"fmt"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"strata/session"
)

// statusBar shows the GPU, the last evaluation (time, tiles, draft or full, and whether it is
// still refining), the instance counts, and what lies under the cursor.
type statusBar struct {
	ed       *editor
	gpu      *widget.Label
	eval     *widget.Label
	refining *widget.ProgressBarInfinite
	inst     *widget.Label
	probe    *widget.Label
	message  *widget.Label
	box      fyne.CanvasObject
}

func newStatusBar(ed *editor) *statusBar {
	b := &statusBar{ed: ed}
	b.gpu = widget.NewLabel("")
	b.gpu.Truncation = fyne.TextTruncateEllipsis
	b.eval = widget.NewLabel("")
	b.refining = widget.NewProgressBarInfinite()
	b.refining.Hide()
	b.inst = widget.NewLabel("")
	b.probe = widget.NewLabel("")
	b.message = widget.NewLabel("")
	b.message.Importance = widget.LowImportance
	b.message.Truncation = fyne.TextTruncateEllipsis
	refine := container.NewGridWrap(fyne.NewSize(90, 10), b.refining)
	top := container.NewBorder(nil, nil, container.NewHBox(b.eval, refine, b.inst), b.message, b.gpu)
	b.box = container.NewVBox(widget.NewSeparator(), top, b.probe)
	return b
}

func (b *statusBar) content() fyne.CanvasObject { return b.box }

// setStatus shows an evaluation status.
func (b *statusBar) setStatus(st session.Status) {
	b.gpu.SetText(fmt.Sprintf("%s · %s", st.Evaluator, st.Adapter))
	kind := "full"
	if st.Last.Draft {
		kind = "draft"
	}
	// What the pass evaluated: pages of the view's levels, full-resolution tiles for the
	// populations, or both.
	var what []string
	if st.Last.Pages > 0 {
		what = append(what, counted(st.Last.Pages, "page", "pages"))
	}
	if st.Last.Tiles > 0 || st.Last.Pages == 0 {
		what = append(what, counted(st.Last.Tiles, "tile", "tiles"))
	}
	text := fmt.Sprintf("last evaluation %.1f ms, %s, %s", float64(st.Last.Duration.Microseconds())/1000, strings.Join(what, " + "), kind)
	// No pass has evaluated tiles since the open: its first is under way, or it has no stack
	// (baked weights, shown as saved).
	first := st.Last == (session.Pass{})
	if first {
		text = ""
		if st.Refining {
			text = "evaluating the landscape…"
		}
	} else if st.Last.Scatter > 0 {
		text += fmt.Sprintf(" + scatter %.1f ms", float64(st.Last.Scatter.Microseconds())/1000)
	}
	if st.Reading != "" {
		text, st.Refining = st.Reading, true
	}
	if st.Refining {
		if !first && st.Reading == "" {
			text += " — refining…"
		}
		b.refining.Show()
		b.refining.Start()
	} else {
		b.refining.Stop()
		b.refining.Hide()
	}
	b.eval.SetText(text)
	var parts []string
	for _, p := range st.Instances {
		parts = append(parts, fmt.Sprintf("%s %d", p.Name, p.Count))
	}
	if len(parts) > 0 {
		b.inst.SetText("instances: " + strings.Join(parts, ", "))
	} else {
		b.inst.SetText("")
	}
}

// setProbe shows the ground under the cursor.
func (b *statusBar) setProbe(p session.Probe) {
	if !p.OK {
		b.probe.SetText("(move the mouse over the ground to read height, slope, aspect, curvature and weights)")
		return
	}
	var w []string
	st := b.ed.s.Stack()
	for i := 0; i < p.Layers; i++ {
		name := fmt.Sprintf("layer %d", i)
		if st != nil && i < len(st.Layers) {
			name = st.Layers[i].Name
		}
		w = append(w, fmt.Sprintf("%s %d", name, p.Weights[i]))
	}
	hole := ""
	if p.Hole {
		hole = "  (hole)"
	}
	aspect := "flat"
	if !p.Flat {
		aspect = fmt.Sprintf("%.0f° %s", p.Aspect, compassPoint(p.Aspect))
	}
	flow := ""
	if p.HasFlow {
		flow = fmt.Sprintf("   flow 10^%.2f m²", p.Flow)
	}
	b.probe.SetText(fmt.Sprintf("x %.1f  z %.1f   height %.2f m   slope %.1f°   aspect %s   curvature %+.4f 1/m%s   weights: %s%s",
		p.X, p.Z, p.Height, p.Slope, aspect, p.Curvature, flow, strings.Join(w, " · "), hole))
}

// compassPoint names the nearest of the eight compass points to an aspect in degrees (0 = N).
func compassPoint(deg float64) string {
	points := [...]string{"N", "NE", "E", "SE", "S", "SW", "W", "NW"}
	k := int(math.Floor(deg/45+0.5)) % 8
	if k < 0 {
		k += 8
	}
	return points[k]
}

// setMessage shows the last action ("Saved …", "Undo …").
func (b *statusBar) setMessage(s string) { b.message.SetText(s) }

// counted is "1 page" or "n pages".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
