package ui

import (
	"fmt"
	"image"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"strata/session"
	"strata/viewport"
)

// Tool is what a left drag in the viewport does.
type Tool int

const (
	ToolCamera    Tool = iota // orbit (right or Shift+left drag pans, the wheel zooms)
	ToolPaint                 // paint the selected mask
	ToolErase                 // erase the selected mask
	ToolHole                  // cut holes in the ground
	ToolRestore               // restore ground where holes were cut
	ToolRaise                 // raise the ground (Shift or Ctrl held: lower it)
	ToolSmooth                // smooth the ground
	ToolFlatten               // flatten the ground to the height under the press (Shift+click picks it)
	ToolSetHeight             // move the ground toward a typed height
	ToolTerrace               // terrace the ground
	ToolNoise                 // add world-anchored noise to the ground
	ToolStamp                 // stamp a heightmap image once per click (Shift or Ctrl held: cut it in)
)

// sculptTool is whether t shapes the height.
func sculptTool(t Tool) bool { return t >= ToolRaise && t <= ToolStamp }

// viewportWidget shows the session's frames and turns the mouse into camera moves, strokes and
// the readout under the cursor. It holds no camera or brush math: it hands pixels to the session.
type viewportWidget struct {
	widget.BaseWidget
	ed    *editor
	img   *canvas.Image
	bg    *canvas.Rectangle
	shown bool
	// level says, beside the brush ring, the height a flatten or set-height brush moves the
	// ground toward (the picked level, or the height under the cursor that a press would pick).
	level *canvas.Text
	// pressLevel is the height under the press of the open flatten stroke (no level picked).
	pressLevel    float64
	hasPressLevel bool

	button    desktop.MouseButton
	mods      fyne.KeyModifier
	last      fyne.Position
	pressed   bool
	stroking  bool
	lastHover time.Time
	lastSize  fyne.Size
}

func newViewport(ed *editor) *viewportWidget {
	v := &viewportWidget{ed: ed}
	v.img = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	v.img.FillMode = canvas.ImageFillStretch
	v.img.ScaleMode = canvas.ImageScaleSmooth // reduced-resolution frames (a moving camera) upscale softly
	v.bg = canvas.NewRectangle(color.NRGBA{0x6b, 0x8c, 0xb8, 0xff})
	v.level = canvas.NewText("", color.NRGBA{0xff, 0xf4, 0xc0, 0xff})
	v.level.TextStyle = fyne.TextStyle{Bold: true}
	v.level.Hide()
	v.ExtendBaseWidget(v)
	return v
}

func (v *viewportWidget) CreateRenderer() fyne.WidgetRenderer {
	return &viewportRenderer{v: v}
}

type viewportRenderer struct{ v *viewportWidget }

func (r *viewportRenderer) Layout(s fyne.Size) {
	r.v.bg.Resize(s)
	r.v.img.Resize(s)
	r.v.resized(s)
}
func (r *viewportRenderer) MinSize() fyne.Size { return fyne.NewSize(320, 240) }
func (r *viewportRenderer) Refresh() {
	r.v.img.Refresh()
}
func (r *viewportRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.v.bg, r.v.img, r.v.level}
}
func (r *viewportRenderer) Destroy() {}

// resized tells the session the viewport's size in device pixels.
func (v *viewportWidget) resized(s fyne.Size) {
	if s == v.lastSize || s.Width < 1 || s.Height < 1 {
		return
	}
	v.lastSize = s
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil {
		scale = c.Scale()
	}
	v.ed.s.SetViewSize(int(s.Width*scale+0.5), int(s.Height*scale+0.5))
}

// showFrame puts a new frame on screen (the UI goroutine).
func (v *viewportWidget) showFrame(f *session.Frame) {
	v.img.Image = f.Image
	v.img.Refresh()
	v.shown = true
}

// uv is a position as fractions of the widget's size.
func (v *viewportWidget) uv(p fyne.Position) (float64, float64) {
	s := v.Size()
	return float64(p.X / fyne.Max(s.Width, 1)), float64(p.Y / fyne.Max(s.Height, 1))
}

// pixels converts a widget delta into device pixels of the viewport.
func (v *viewportWidget) pixels(d float32) float64 {
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil {
		scale = c.Scale()
	}
	return float64(d * scale)
}

// MouseDown starts what a left press does with the tool: a stroke, or with Shift held a pan —
// except that Shift inverts the raise and stamp brushes (as Ctrl does) and, with the flatten
// brush, picks the level under the cursor without sculpting.
func (v *viewportWidget) MouseDown(e *desktop.MouseEvent) {
	v.button, v.mods, v.last, v.pressed = e.Button, e.Modifier, e.Position, true
	if e.Button != desktop.MouseButtonPrimary || v.ed.tool == ToolCamera {
		return
	}
	shift := e.Modifier&fyne.KeyModifierShift != 0
	switch {
	case shift && v.ed.tool == ToolFlatten:
		v.pressed = false
		if hit, ok := v.pick(v.uv(e.Position)); ok {
			v.ed.pickLevel(hit.Height)
			v.showLevel(e.Position, hit.Height)
		}
	case !shift || v.ed.tool == ToolRaise || v.ed.tool == ToolStamp:
		v.beginStroke(e.Position, e.Modifier)
	}
}

func (v *viewportWidget) MouseUp(e *desktop.MouseEvent) {
	v.endGesture()
}

func (v *viewportWidget) endGesture() {
	if v.stroking {
		v.stroking = false
		v.ed.s.EndStroke()
	} else if v.pressed {
		v.ed.s.SetCamera(v.ed.s.Camera(), false) // the camera rests: draw at full resolution
	}
	v.pressed = false
}

func (v *viewportWidget) MouseIn(e *desktop.MouseEvent) { v.hover(e.Position) }
func (v *viewportWidget) MouseOut() {
	v.endGesture()
	v.ed.s.SetBrushCursor(false, 0, 0, 0)
	v.ed.status.setProbe(session.Probe{})
	v.hideLevel()
}

func (v *viewportWidget) MouseMoved(e *desktop.MouseEvent) {
	if !v.pressed {
		v.hover(e.Position)
		return
	}
	dx, dy := v.pixels(e.Position.X-v.last.X), v.pixels(e.Position.Y-v.last.Y)
	v.last = e.Position
	switch {
	case v.stroking:
		v.strokeTo(e.Position)
	case v.button == desktop.MouseButtonSecondary || v.button == desktop.MouseButtonTertiary ||
		v.mods&fyne.KeyModifierShift != 0:
		v.ed.s.PanBy(dx, dy)
	case v.button == desktop.MouseButtonPrimary:
		v.ed.s.OrbitBy(dx, dy)
	}
}

func (v *viewportWidget) Scrolled(e *fyne.ScrollEvent) {
	u, w := v.uv(e.Position)
	v.ed.s.ZoomBy(float64(e.Scrolled.DY)/10, u, w)
}

func (v *viewportWidget) DoubleTapped(e *fyne.PointEvent) {
	u, w := v.uv(e.Position)
	v.ed.s.FocusAt(u, w)
}

// hover updates the readout under the cursor and the brush ring (at most 30 times a second:
// picking and probing cost a little).
func (v *viewportWidget) hover(p fyne.Position) {
	if time.Since(v.lastHover) < 33*time.Millisecond {
		return
	}
	v.lastHover = time.Now()
	u, w := v.uv(p)
	hit, ok := v.pick(u, w)
	if !ok {
		v.ed.status.setProbe(session.Probe{})
		v.ed.s.SetBrushCursor(false, 0, 0, 0)
		v.hideLevel()
		return
	}
	v.ed.status.setProbe(v.ed.s.ProbeAt(hit.X, hit.Z))
	if v.ed.tool != ToolCamera {
		v.ed.s.SetBrushCursor(true, hit.X, hit.Z, v.ed.brush.Radius)
	}
	v.showLevel(p, hit.Height)
}

// levelText is what the label beside the ring says with the cursor over ground of height here:
// the height a flatten or set-height dab moves the ground toward ("" for the other tools).
func (ed *editor) levelText(here float64, stroking bool, pressLevel float64) string {
	text, _, _ := ed.brushLevel(here, stroking, pressLevel)
	return text
}

// brushLevel is the level a flatten or set-height dab moves the ground toward with the cursor
// over ground of height here, and the label's words for it (ok false for the other tools).
func (ed *editor) brushLevel(here float64, stroking bool, pressLevel float64) (text string, level float64, ok bool) {
	switch ed.tool {
	case ToolFlatten:
		switch {
		case ed.hasFlatLevel:
			return fmt.Sprintf("flatten to %.2f m (picked)", ed.flatLevel), ed.flatLevel, true
		case stroking:
			return fmt.Sprintf("flatten to %.2f m", pressLevel), pressLevel, true
		}
		return fmt.Sprintf("flatten to %.2f m (here)", here), here, true
	case ToolSetHeight:
		return fmt.Sprintf("set to %.2f m", ed.brush.Height), ed.brush.Height, true
	}
	return "", 0, false
}

// showLevel puts the level label beside the cursor at p and the level inside the ring (its
// contour, the ground above and below it tinted), or hides both for tools without a level.
func (v *viewportWidget) showLevel(p fyne.Position, here float64) {
	text, level, ok := v.ed.brushLevel(here, v.stroking && v.hasPressLevel, v.pressLevel)
	if !ok {
		v.hideLevel()
		return
	}
	v.ed.s.SetBrushLevel(true, level)
	v.level.Text = text
	v.level.Move(p.AddXY(14, -22))
	v.level.Resize(v.level.MinSize())
	v.level.Show()
	v.level.Refresh()
}

// hideLevel hides the level label and the level inside the ring.
func (v *viewportWidget) hideLevel() {
	v.ed.s.SetBrushLevel(false, 0)
	if v.level.Visible() {
		v.level.Hide()
	}
}

// pick is the ground under viewport point (u, w): seen through the holes with the camera tool, the
// ground's surface with a brush (which restores cut ground by painting over the hole).
func (v *viewportWidget) pick(u, w float64) (viewport.Hit, bool) {
	if v.ed.tool == ToolCamera {
		return v.ed.s.Pick(u, w)
	}
	return v.ed.s.PickGround(u, w)
}

func (v *viewportWidget) beginStroke(p fyne.Position, mods fyne.KeyModifier) {
	b, err := v.ed.currentBrush()
	if (b.Sculpt == session.SculptRaise || b.Sculpt == session.SculptStamp) && mods&(fyne.KeyModifierControl|fyne.KeyModifierShift) != 0 {
		b.Erase = true // Ctrl or Shift inverts raise (lower) and stamp (cut it in)
	}
	v.hasPressLevel = false
	if b.Sculpt == session.SculptFlatten && !b.HasHeight {
		if hit, ok := v.pick(v.uv(p)); ok {
			v.pressLevel, v.hasPressLevel = hit.Height, true
		}
	}
	if err != nil {
		v.ed.notify(err)
		return
	}
	if err := v.ed.s.BeginStroke(b); err != nil {
		v.ed.notify(err)
		return
	}
	v.stroking = true
	v.strokeTo(p)
}

func (v *viewportWidget) strokeTo(p fyne.Position) {
	u, w := v.uv(p)
	if hit, ok := v.pick(u, w); ok {
		v.ed.s.Stroke(hit.X, hit.Z)
		v.ed.s.SetBrushCursor(true, hit.X, hit.Z, v.ed.brush.Radius)
		v.showLevel(p, hit.Height)
	}
}

var (
	_ desktop.Mouseable   = (*viewportWidget)(nil)
	_ desktop.Hoverable   = (*viewportWidget)(nil)
	_ fyne.Scrollable     = (*viewportWidget)(nil)
	_ fyne.DoubleTappable = (*viewportWidget)(nil)
)
