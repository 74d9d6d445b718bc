// Package ui is the Strata editor's window: Fyne widgets over a session.Session — the layer stack
// panel, the rule and population editors, the viewport, the status bar, menus, dialogs. It holds
// no math and no GPU code: every edit is a call on the session, every picture comes from it.
package ui

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"strata/icons"
	"strata/session"
	"strata/stack"
	"strata/world"
)

// AppID names the editor to Fyne (preferences, recent files).
const AppID = "io.strata.editor"

// Options start the editor.
type Options struct {
	// Path is a container, a heightmap or a world (its folder or world.yaml; Cell says which
	// cell) to open; "" opens the built-in sample.
	Path string
	Cell int
	// Log receives the editor's own messages (the first frame's time); nil = stderr.
	Log io.Writer
	// Evaluator forces the GPU or the Go reference (default: measured).
	Evaluator session.Evaluator
	// TraceFrames logs one line per settled frame: the first frame of a document version that
	// is neither a draft nor refining nor drawn at reduced scale, with the time since the edit
	// that made the version. Scripts that drive the window wait for it (STRATA_TRACE=frames).
	TraceFrames bool
	// Recovery is the folder of recovery copies (recovery.Root()); "" keeps none and offers
	// none.
	Recovery string
	// TraceRecovery logs each write of the recovery copy, the offer of a dead one and its
	// restore (STRATA_TRACE=recovery): the real-window test waits for them.
	TraceRecovery bool
}

// Run opens the editor window and returns when it is closed.
func Run(o Options) error {
	start := time.Now()
	if o.Log == nil {
		o.Log = os.Stderr
	}
	a := app.NewWithID(AppID)
	a.SetIcon(icons.App)
	s, err := session.New(context.Background(), session.Options{Width: 1000, Height: 700, Evaluator: o.Evaluator, PrepareSample: o.Path == "",
		Recovery: o.Recovery, OnRecovery: traceRecovery(o)})
	if err != nil {
		return err
	}
	defer s.Close()
	ed := newEditor(a, s, o)
	ed.start = start
	if err := s.Watch(); err != nil {
		fmt.Fprintf(o.Log, "strata: %v (files will not be watched)\n", err)
	}
	// The landscape opens while the window is built and shown (its events reach the panels
	// through fyne.Do, once the window runs).
	go ed.openInitial(o)
	ed.win.Show()
	a.Run()
	return nil
}

// traceRecovery is the session's hook for STRATA_TRACE=recovery: one line per write of the copy.
func traceRecovery(o Options) func(session.RecoveryInfo) {
	if !o.TraceRecovery {
		return nil
	}
	return func(i session.RecoveryInfo) {
		switch {
		case i.Err != nil:
			fmt.Fprintf(o.Log, "strata: recovery copy not written: %v\n", i.Err)
		case i.ID == "":
			fmt.Fprintf(o.Log, "strata: recovery copy removed at step %d\n", i.Steps)
		default:
			fmt.Fprintf(o.Log, "strata: recovery copy %s holds step %d\n", i.ID, i.Steps)
		}
	}
}

// editor is one window on one session.
type editor struct {
	app fyne.App
	win fyne.Window
	s   *session.Session
	log io.Writer

	view    *viewportWidget
	layers  *layersPanel
	layer   *layerPanel
	pops    *popsPanel
	fieldp  *fieldPanel
	status  *statusBar
	tools   *toolbar
	banner  *widget.Label
	notice  *widget.Label
	tabs    *container.AppTabs
	menus   *menus
	noticeT *time.Timer
	notices []noticeBox
	// erodeForm is the Field → Erode… dialog last shown (tests fill and submit it).
	erodeForm *erodeForm

	tool  Tool
	brush session.Brush
	// flatLevel is the flatten brush's level once Shift+click picked one (hasFlatLevel);
	// otherwise a flatten stroke levels to the height under its press. stampName is the stamp
	// image's file name.
	flatLevel    float64
	hasFlatLevel bool
	stampName    string
	selLayer     int // bottom-up layer index
	selPop       int

	start      time.Time
	firstFrame bool
	closing    bool

	// trace logs settled frames (Options.TraceFrames): settled is the last version logged.
	trace   bool
	settled uint64

	// recovery is the folder of recovery copies (Options.Recovery); offer the dialog offering
	// one back, saveError the last save failure's message (tests read both).
	recovery  string
	traceRec  bool
	offer     *recoveryOffer
	saveError string
	// onSaved hears the end of each save (tests), on the UI goroutine.
	onSaved func(error)
}

// newEditor builds the window over s (tests build it on Fyne's test app).
func newEditor(a fyne.App, s *session.Session, o Options) *editor {
	ed := &editor{app: a, s: s, log: o.Log, selLayer: -1, start: time.Now(), trace: o.TraceFrames, recovery: o.Recovery, traceRec: o.TraceRecovery}
	if ed.log == nil {
		ed.log = os.Stderr
	}
	ed.brush = session.Brush{Radius: 60, Strength: 0.6, Falloff: 0.6,
		Step: 5, Sharpness: 0.8, Amplitude: 4, FeatureSize: 40, Seed: 1, StampHeight: 20}
	ed.win = a.NewWindow("Strata")
	ed.win.SetIcon(icons.App)
	ed.win.Resize(fyne.NewSize(1440, 900))

	ed.view = newViewport(ed)
	ed.status = newStatusBar(ed)
	ed.layers = newLayersPanel(ed)
	ed.layer = newLayerPanel(ed)
	ed.pops = newPopsPanel(ed)
	ed.fieldp = newFieldPanel(ed)
	ed.tools = newToolbar(ed)
	ed.banner = widget.NewLabel("")
	ed.banner.Importance = widget.WarningImportance
	ed.banner.Wrapping = fyne.TextWrapWord
	ed.banner.Hide()
	ed.notice = widget.NewLabel("")
	ed.notice.Wrapping = fyne.TextWrapWord
	ed.notice.Hide()

	ed.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Layer", icons.Rule, ed.layer.content()),
		container.NewTabItemWithIcon("Populations", icons.Tree, ed.pops.content()),
		container.NewTabItemWithIcon("Field", icons.Mask, ed.fieldp.content()),
	)
	side := container.NewVSplit(ed.layers.content(), ed.tabs)
	side.SetOffset(0.3)
	// The banner and notices float over the viewport's top edge, so showing one never resizes
	// the picture under the artist's mouse.
	centre := container.NewStack(ed.view, container.NewVBox(ed.backed(ed.banner), ed.backed(ed.notice)))
	split := container.NewHSplit(centre, side)
	split.SetOffset(0.68)
	body := container.NewBorder(ed.tools.content(), ed.status.content(), nil, nil, split)
	ed.win.SetContent(container.NewStack(body, newTipLayer()))
	ed.menus = newMenus(ed)
	ed.win.SetMainMenu(ed.menus.main)
	ed.shortcuts()
	ed.win.SetCloseIntercept(ed.confirmClose)
	ed.win.SetOnDropped(ed.dropped)

	s.Subscribe(func(e session.Event) { fyne.Do(func() { ed.handle(e) }) })
	ed.refresh()
	return ed
}

// backed puts a label on a translucent panel (the label's visibility decides the panel's).
func (ed *editor) backed(l *widget.Label) fyne.CanvasObject {
	bg := canvas.NewRectangle(color.NRGBA{0x10, 0x14, 0x18, 0xd0})
	box := container.NewStack(bg, l)
	box.Hide()
	l.Hide()
	ed.notices = append(ed.notices, noticeBox{l, box})
	return box
}

// noticeBox pairs a floating label with its panel.
type noticeBox struct {
	label *widget.Label
	box   *fyne.Container
}

// syncNotices shows each panel exactly when its label is shown.
func (ed *editor) syncNotices() {
	for _, n := range ed.notices {
		if n.label.Visible() {
			n.box.Show()
		} else {
			n.box.Hide()
		}
	}
}

// openInitial opens what the command line named, or the sample (off the UI goroutine).
func (ed *editor) openInitial(o Options) {
	ctx := context.Background()
	path := o.Path
	var err error
	switch {
	case path == "":
		err = ed.s.OpenSample(ctx)
	case world.IsWorld(path):
		err = ed.s.OpenWorldCell(ctx, path, o.Cell)
	case isContainer(path):
		err = ed.s.OpenContainer(ctx, path)
		if err == nil {
			fyne.Do(func() { ed.menus.addRecent(path) })
		}
	default:
		err = ed.s.OpenHeightmap(ctx, path, session.HeightmapOptions{})
	}
	if err != nil {
		fmt.Fprintf(ed.log, "strata: %v\n", err)
		fyne.Do(func() {
			ed.notify(fmt.Errorf("could not open %s: %w — showing the sample instead", path, err))
		})
		if path != "" {
			if err := ed.s.OpenSample(ctx); err != nil {
				fyne.Do(func() { ed.notify(err) })
			}
		}
	}
	// An editor that died with unsaved work left a copy: offer it back over what just opened.
	ed.checkRecovery()
}

// isContainer reports a terrainData folder.
func isContainer(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return strings.HasSuffix(strings.TrimRight(path, "/"), ".terrainData")
	}
	if !fi.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(path, "terrain.yaml"))
	return err == nil
}

// handle applies one session event (the UI goroutine).
func (ed *editor) handle(e session.Event) {
	switch e.Kind {
	case session.EventFrame:
		ed.view.showFrame(e.Frame)
		// The first frame that shows the landscape evaluated (not the ground before its weights).
		if !ed.firstFrame && !e.Frame.Refining && !e.Frame.Draft && ed.s.Loaded() {
			ed.firstFrame = true
			fmt.Fprintf(ed.log, "strata: first frame after %d ms (%s)\n", time.Since(ed.start).Milliseconds(), ed.s.Adapter())
		}
		if ed.trace && !e.Frame.Refining && !e.Frame.Draft && e.Frame.Scale == 1 && e.Frame.Version != ed.settled && ed.s.Loaded() {
			ed.settled = e.Frame.Version
			fmt.Fprintf(ed.log, "strata: settled version %d, %d ms after the edit\n", e.Frame.Version, e.Frame.At.Sub(e.Frame.Made).Milliseconds())
		}
	case session.EventDocument:
		if strings.HasPrefix(e.Message, "Opened ") {
			// A brush about 1/50 of the field across: visible at the framing the camera starts at.
			fi := ed.s.Field()
			ed.brush.Radius = max(1, float64(int(max(fi.Size[0], fi.Size[1])/50)))
		}
		ed.refresh()
		if e.Message != "" {
			ed.status.setMessage(e.Message)
		}
	case session.EventStatus:
		ed.status.setStatus(e.Status)
	case session.EventError:
		ed.notify(e.Err)
	case session.EventReloaded, session.EventNotice:
		ed.inform(e.Message)
	}
}

// refresh makes every panel show the session's document.
func (ed *editor) refresh() {
	st := ed.s.Stack()
	name := ed.s.Name()
	title := "Strata"
	if name != "" {
		title = "Strata — " + name
		if ed.s.Modified() {
			title += " *"
		}
	}
	ed.win.SetTitle(title)
	if st != nil {
		if ed.selLayer < 0 || ed.selLayer >= len(st.Layers) {
			ed.selLayer = len(st.Layers) - 1
		}
		if ed.selPop >= len(st.Populations) {
			ed.selPop = len(st.Populations) - 1
		}
	}
	defer ed.syncNotices()
	if ed.s.Baked() {
		ed.banner.SetText("These weights are baked: the container carries no stack, so they are shown as saved. " +
			"Painting holes and masks works; Layers → Edit as a stack starts a stack (its evaluation replaces the baked weights).")
		ed.banner.Show()
	} else {
		ed.banner.Hide()
	}
	ed.layers.refresh(st)
	ed.layer.refresh(st)
	ed.pops.refresh(st)
	ed.fieldp.refresh(st)
	ed.tools.refresh()
	ed.menus.refresh()
}

// apply records st as one step; a refusal is shown and nothing changes.
func (ed *editor) apply(label string, st *stack.Stack) error {
	if err := ed.s.Apply(label, st); err != nil {
		ed.notify(err)
		return err
	}
	return nil
}

// edit clones the current stack, lets change modify the clone and applies it as one step.
func (ed *editor) edit(label string, change func(st *stack.Stack) error) error {
	cur := ed.s.Stack()
	if cur == nil {
		return fmt.Errorf("no stack to edit")
	}
	st := cur.Clone()
	if err := change(st); err != nil {
		ed.notify(err)
		return err
	}
	return ed.apply(label, st)
}

// drag previews a continuous change (a slider) of the current stack.
func (ed *editor) drag(label string, change func(st *stack.Stack)) error {
	cur := ed.s.Stack()
	if cur == nil {
		return fmt.Errorf("no stack to edit")
	}
	st := cur.Clone()
	change(st)
	return ed.s.Drag(label, st)
}

// notify shows an error without stopping the artist (it fades after a while).
func (ed *editor) notify(err error) {
	if err == nil {
		return
	}
	ed.showNotice("⚠ "+err.Error(), widget.DangerImportance)
}

// inform shows a message the same way.
func (ed *editor) inform(msg string) { ed.showNotice(msg, widget.HighImportance) }

func (ed *editor) showNotice(text string, imp widget.Importance) {
	ed.notice.SetText(text)
	ed.notice.Importance = imp
	ed.notice.Show()
	ed.notice.Refresh()
	ed.syncNotices()
	if ed.noticeT != nil {
		ed.noticeT.Stop()
	}
	ed.noticeT = time.AfterFunc(10*time.Second, func() { fyne.Do(func() { ed.notice.Hide(); ed.syncNotices() }) })
}

// currentBrush is the brush the active tool paints with.
func (ed *editor) currentBrush() (session.Brush, error) {
	b := ed.brush
	switch ed.tool {
	case ToolPaint, ToolErase:
		if b.Target == "" {
			return b, fmt.Errorf("choose a mask to paint (Field → New mask creates one)")
		}
		b.Erase = ed.tool == ToolErase
	case ToolHole, ToolRestore:
		b.Target = session.HolesTarget
		b.Erase = ed.tool == ToolRestore
	case ToolRaise:
		b.Sculpt = session.SculptRaise
	case ToolSmooth:
		b.Sculpt = session.SculptSmooth
	case ToolFlatten:
		b.Sculpt = session.SculptFlatten
		b.Height, b.HasHeight = ed.flatLevel, ed.hasFlatLevel
	case ToolSetHeight:
		b.Sculpt = session.SculptSet
	case ToolTerrace:
		b.Sculpt = session.SculptTerrace
	case ToolNoise:
		b.Sculpt = session.SculptNoise
	case ToolStamp:
		b.Sculpt = session.SculptStamp
		if b.Stamp == nil {
			return b, fmt.Errorf("choose a stamp image first (the Image… button beside the brush)")
		}
	default:
		return b, fmt.Errorf("choose a brush")
	}
	return b, nil
}

// setTool switches the viewport's left-drag tool.
func (ed *editor) setTool(t Tool) {
	ed.tool = t
	if t == ToolCamera {
		ed.s.SetBrushCursor(false, 0, 0, 0)
	}
	if t != ToolFlatten && t != ToolSetHeight {
		ed.view.hideLevel()
	}
	ed.tools.refresh()
}

// pickLevel makes h the flatten brush's level (Shift+click with the flatten tool).
func (ed *editor) pickLevel(h float64) {
	ed.flatLevel, ed.hasFlatLevel = h, true
	ed.tools.refresh()
}

// loadStamp reads path as the stamp brush's image.
func (ed *editor) loadStamp(path string) error {
	g, err := session.LoadStamp(path)
	if err != nil {
		return err
	}
	ed.brush.Stamp, ed.stampName = g, filepath.Base(path)
	ed.tools.refresh()
	return nil
}

// setRadius changes the brush radius (the [ and ] keys, the toolbar).
func (ed *editor) setRadius(r float64) {
	ed.brush.Radius = min(max(r, 1), 5000)
	ed.tools.refresh()
}
