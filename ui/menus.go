package ui

import (
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"strata/viewport"
)

// maxRecent is how many recent landscapes File → Open Recent lists.
const maxRecent = 8

// menus is the window's main menu; the Edit items name the step Undo and Redo would take.
type menus struct {
	ed     *editor
	main   *fyne.MainMenu
	undo   *fyne.MenuItem
	redo   *fyne.MenuItem
	recent *fyne.MenuItem
	rerun  *fyne.MenuItem
	tiles  *fyne.MenuItem
	erode  *fyne.MenuItem
}

func newMenus(ed *editor) *menus {
	m := &menus{ed: ed}
	ctrl := fyne.KeyModifierShortcutDefault
	item := func(label string, f func(), key fyne.KeyName, mod fyne.KeyModifier) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, f)
		if key != "" {
			it.Shortcut = &desktop.CustomShortcut{KeyName: key, Modifier: mod}
		}
		return it
	}
	newItem := fyne.NewMenuItem("New", nil)
	newItem.ChildMenu = fyne.NewMenu("",
		fyne.NewMenuItem("Sample landscape (dunes)", ed.newSample),
		fyne.NewMenuItem("From a heightmap…", ed.newFromHeightmap),
		fyne.NewMenuItem("Flat…", ed.newFlat),
	)
	m.rerun = fyne.NewMenuItem("Run script again", ed.rerunScript)
	m.recent = fyne.NewMenuItem("Open Recent", nil)
	m.recent.ChildMenu = fyne.NewMenu("")
	file := fyne.NewMenu("File",
		newItem,
		item("Open…", ed.openDialog, fyne.KeyO, ctrl),
		m.recent,
		fyne.NewMenuItemSeparator(),
		item("Save", ed.save, fyne.KeyS, ctrl),
		item("Save As…", ed.saveAs, fyne.KeyS, ctrl|fyne.KeyModifierShift),
		item("Export for engines…", ed.exportDialog, fyne.KeyE, ctrl),
		fyne.NewMenuItemSeparator(),
		item("Run script…", ed.runScript, "", 0),
		m.rerun,
		fyne.NewMenuItemSeparator(),
		item("Quit", ed.confirmClose, fyne.KeyQ, ctrl),
	)
	// Fyne adds its own Quit to the first menu; ours asks about unsaved changes first.
	file.Items[len(file.Items)-1].IsQuit = true
	// Ctrl+Z reaches a window as Fyne's own ShortcutUndo (Ctrl+Y as ShortcutRedo), never as a
	// custom Ctrl+Z: the menu item must carry that shortcut for the key to reach it.
	m.undo = item("Undo", func() { ed.s.Undo() }, "", 0)
	m.undo.Shortcut = &fyne.ShortcutUndo{}
	m.redo = item("Redo", func() { ed.s.Redo() }, fyne.KeyZ, ctrl|fyne.KeyModifierShift)
	edit := fyne.NewMenu("Edit", m.undo, m.redo)
	m.tiles = fyne.NewMenuItem("Show evaluation tiles", func() { ed.tools.tiles.SetChecked(!ed.tools.tiles.Checked) })
	view := fyne.NewMenu("View",
		item("Frame all", func() { ed.s.FitCamera(ed.s.Camera().Mode == viewport.ViewMap) }, "", 0),
		item("Map view", ed.s.ToggleMap, "", 0),
		m.tiles,
	)
	layers := fyne.NewMenu("Layers",
		item("Add layer", ed.layers.addLayer, fyne.KeyN, ctrl|fyne.KeyModifierShift),
		item("Duplicate layer", ed.layers.duplicate, "", 0),
		item("Delete layer", ed.layers.remove, "", 0),
		item("Move layer up", func() { ed.layers.move(+1) }, "", 0),
		item("Move layer down", func() { ed.layers.move(-1) }, "", 0),
		fyne.NewMenuItemSeparator(),
		item("New mask…", ed.askNewMask, "", 0),
		item("Edit as a stack", ed.convertBaked, "", 0),
	)
	m.erode = item("Erode…", func() { ed.erodeDialog() }, "", 0)
	fieldMenu := fyne.NewMenu("Field", m.erode)
	help := fyne.NewMenu("Help",
		fyne.NewMenuItem("Shortcuts", ed.showShortcuts),
		fyne.NewMenuItem("About Strata", func() {
			dialog.ShowInformation("Strata", "A terrain editor: a layer stack of rules over height, slope, curvature, masks, "+
				"noise and channels, evaluated live on the GPU, saved as terrainData containers.\n\nGPU: "+ed.s.Adapter(), ed.win)
		}),
	)
	m.main = fyne.NewMainMenu(file, edit, view, layers, fieldMenu, help)
	m.loadRecent()
	return m
}

// refresh names the undo and redo steps.
func (m *menus) refresh() {
	u, r := m.ed.s.UndoLabel(), m.ed.s.RedoLabel()
	m.undo.Label, m.undo.Disabled = "Undo", u == ""
	if u != "" {
		m.undo.Label = "Undo " + u
	}
	m.redo.Label, m.redo.Disabled = "Redo", r == ""
	if r != "" {
		m.redo.Label = "Redo " + r
	}
	m.tiles.Checked = m.ed.tools.tiles.Checked
	m.rerun.Disabled = !m.ed.s.HasScript()
	m.main.Refresh()
}

func (m *menus) loadRecent() {
	list := m.ed.app.Preferences().StringList("recent")
	m.recent.ChildMenu.Items = nil
	for _, p := range list {
		path := p
		m.recent.ChildMenu.Items = append(m.recent.ChildMenu.Items, fyne.NewMenuItem(filepath.Base(path)+"  —  "+filepath.Dir(path), func() {
			m.ed.openPath(path)
		}))
	}
	m.recent.Disabled = len(list) == 0
}

// addRecent puts path first in the recent list (kept in the app's preferences).
func (m *menus) addRecent(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	list := []string{path}
	for _, p := range m.ed.app.Preferences().StringList("recent") {
		if p != path && len(list) < maxRecent {
			list = append(list, p)
		}
	}
	m.ed.app.Preferences().SetStringList("recent", list)
	m.loadRecent()
	m.main.Refresh()
}

// shortcuts registers the keys that are not on a menu item: Ctrl+Y redo (with no entry focused), [ and ] brush size,
// F frame, M map.
func (ed *editor) shortcuts() {
	c := ed.win.Canvas()
	c.AddShortcut(&fyne.ShortcutRedo{}, func(fyne.Shortcut) { ed.s.Redo() }) // Ctrl+Y
	c.SetOnTypedRune(func(r rune) {
		switch r {
		case '[':
			ed.setRadius(ed.brush.Radius / 1.25)
			ed.s.SetBrushCursor(ed.tool != ToolCamera, ed.brushAt()[0], ed.brushAt()[1], ed.brush.Radius)
		case ']':
			ed.setRadius(ed.brush.Radius * 1.25)
			ed.s.SetBrushCursor(ed.tool != ToolCamera, ed.brushAt()[0], ed.brushAt()[1], ed.brush.Radius)
		case 'f', 'F':
			ed.s.FitCamera(ed.s.Camera().Mode == viewport.ViewMap)
		case 'm', 'M':
			ed.s.ToggleMap()
		case 'b', 'B':
			ed.setTool(ToolPaint)
		case 'e', 'E':
			ed.setTool(ToolErase)
		case 'c', 'C':
			ed.setTool(ToolCamera)
		case 'r', 'R':
			ed.setTool(ToolRaise)
		case 's', 'S':
			ed.setTool(ToolSmooth)
		case 'l', 'L':
			ed.setTool(ToolFlatten)
		case 'h', 'H':
			ed.setTool(ToolSetHeight)
		case 't', 'T':
			ed.setTool(ToolTerrace)
		case 'n', 'N':
			ed.setTool(ToolNoise)
		case 'p', 'P':
			ed.setTool(ToolStamp)
		}
	})
}

// brushAt is where the brush ring was last drawn.
func (ed *editor) brushAt() [2]float64 { return ed.s.BrushCursor() }

func (ed *editor) showShortcuts() {
	text := `Ctrl+Z undo · Ctrl+Shift+Z or Ctrl+Y redo · Ctrl+S save · Ctrl+Shift+S save as · Ctrl+O open · Ctrl+E export
Ctrl+Shift+N add a layer
Viewport: drag to orbit · right-drag or Shift+drag to pan · wheel to zoom toward the cursor · double-click to centre
F frame all · M map view · C camera · B paint the mask · E erase it · [ and ] brush size
R raise the ground (Shift or Ctrl+drag lowers) · S smooth it · L flatten it to the height where the stroke began (Shift+click picks the level)
H set it to the typed height · T terrace it · N add noise · P stamp the chosen image (one per click; Shift or Ctrl+click cuts it in)
Sliders preview while you drag and make one undo step when you let go; typed values apply on Enter.`
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Shortcuts", "Close", l, ed.win)
	d.Resize(fyne.NewSize(760, 320))
	d.Show()
}

// convertBaked starts a stack for a baked landscape: one layer per baked surface, no rules, so
// the artist can rebuild the weights by rules (the baked ones are replaced once it evaluates).
func (ed *editor) convertBaked() {
	if !ed.s.Baked() {
		ed.inform("This landscape already has a stack.")
		return
	}
	dialog.ShowConfirm("Edit as a stack", "Start a stack with this landscape's layers and no rules? Its evaluation replaces the baked weights (Undo does not bring them back until you reopen the file).", func(ok bool) {
		if !ok {
			return
		}
		if err := ed.s.StartStack(); err != nil {
			ed.notify(err)
		}
	}, ed.win)
}
