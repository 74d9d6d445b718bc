package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"strata/export"
	"strata/progress"
	"strata/session"
)

// runLong runs work off the UI goroutine with a progress dialog and a Cancel button; done runs
// on the UI goroutine with work's error (nil, or context.Canceled after Cancel).
func (ed *editor) runLong(title string, work func(ctx context.Context, report progress.Func) error, done func(error)) {
	ed.runLongThen(title, work, done, true)
}

// runLongThen is runLong; notifyErr false leaves telling the error to done.
func (ed *editor) runLongThen(title string, work func(ctx context.Context, report progress.Func) error, done func(error), notifyErr bool) {
	ctx, cancel := context.WithCancel(context.Background())
	bar := widget.NewProgressBar()
	stage := widget.NewLabel("starting…")
	d := dialog.NewCustomWithoutButtons(title, container.NewVBox(stage, bar,
		widget.NewButton("Cancel", func() { stage.SetText("cancelling…"); cancel() })), ed.win)
	d.Resize(fyne.NewSize(420, 160))
	d.Show()
	var mu sync.Mutex
	report := func(s string, doneN, total int) {
		mu.Lock()
		defer mu.Unlock()
		fyne.Do(func() {
			stage.SetText(s)
			if total > 0 {
				bar.SetValue(float64(doneN) / float64(total))
			}
		})
	}
	go func() {
		err := work(ctx, report)
		cancel()
		fyne.Do(func() {
			d.Hide()
			if errors.Is(err, context.Canceled) {
				ed.inform(title + ": cancelled; nothing changed.")
			} else if err != nil && notifyErr {
				ed.notify(err)
			}
			if done != nil {
				done(err)
			}
		})
	}()
}

// unsavedThen runs next, first asking to save unsaved changes (Save, Don't save, Cancel).
func (ed *editor) unsavedThen(next func()) {
	if !ed.s.Modified() {
		next()
		return
	}
	var d dialog.Dialog
	msg := widget.NewLabel(fmt.Sprintf("%s has changes that are not saved.", ed.s.Name()))
	save := widget.NewButton("Save", func() {
		d.Hide()
		ed.saveThen(next)
	})
	save.Importance = widget.HighImportance
	discard := widget.NewButton("Don't save", func() { d.Hide(); next() })
	cancel := widget.NewButton("Cancel", func() { d.Hide() })
	d = dialog.NewCustomWithoutButtons("Save changes?", container.NewVBox(msg, container.NewHBox(save, discard, cancel)), ed.win)
	d.Show()
}

// confirmClose is the window's close (and Quit): it asks before unsaved changes are lost.
func (ed *editor) confirmClose() {
	ed.unsavedThen(func() {
		ed.closing = true
		ed.win.Close()
		ed.app.Quit()
	})
}

func (ed *editor) newSample() {
	ed.unsavedThen(func() {
		ed.runLong("New sample", func(ctx context.Context, _ progress.Func) error { return ed.s.OpenSample(ctx) }, nil)
	})
}

func (ed *editor) newFlat() {
	size := widget.NewEntry()
	size.SetText("2000")
	texels := widget.NewEntry()
	texels.SetText("1024")
	height := widget.NewEntry()
	height.SetText("0")
	size.Validator = numberIn("size", 0, math.Inf(1), false)
	texels.Validator = integerIn("texels", 2, 16384)
	height.Validator = numberIn("height", math.Inf(-1), math.Inf(1), true)
	ed.showForm("New flat landscape", "Create", []*widget.FormItem{
		formHint("size", size, "metres along X and Z"),
		formHint("texels", texels, "height samples along each side"),
		formHint("height", height, "metres"),
	}, []*widget.Entry{size, texels, height}, 0, func(ok bool) {
		if !ok {
			return
		}
		sz, err1 := strconv.ParseFloat(strings.TrimSpace(size.Text), 64)
		n, err2 := strconv.Atoi(strings.TrimSpace(texels.Text))
		h, err3 := strconv.ParseFloat(strings.TrimSpace(height.Text), 64)
		if err1 != nil || err2 != nil || err3 != nil || !(sz > 0) || n < 2 || n > 16384 {
			ed.notify(fmt.Errorf("new flat: size must be a positive number of metres, texels 2…16384, height a number"))
			return
		}
		ed.unsavedThen(func() {
			ed.runLong("New flat landscape", func(ctx context.Context, _ progress.Func) error {
				return ed.s.NewFlat(ctx, [2]float64{sz, sz}, [2]int{n, n}, h)
			}, nil)
		})
	})
}

// newFromHeightmap asks for a heightmap and how to read it (prefilled when one was dropped).
func (ed *editor) newFromHeightmap() { ed.heightmapForm("") }

func (ed *editor) heightmapForm(path string) {
	file := widget.NewEntry()
	file.SetText(path)
	browse := widget.NewButton("Browse…", func() {
		d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
			if err == nil && r != nil {
				file.SetText(r.URI().Path())
				r.Close()
			}
		}, ed.win)
		d.SetFilter(storage.NewExtensionFileFilter([]string{".png", ".r16", ".raw", ".f32", ".tif", ".tiff", ".exr"}))
		d.Show()
	})
	size := widget.NewEntry()
	size.SetPlaceHolder("one metre per texel")
	rng := widget.NewEntry()
	rng.SetText("0,1000")
	raw := widget.NewEntry()
	raw.SetPlaceHolder("square")
	size.Validator = optionalPair("size", "x", false)
	rng.Validator = optionalPair("height range", ",", true)
	raw.Validator = optionalPair("raw size", "x", false)
	ed.showForm("New landscape from a heightmap", "Open", []*widget.FormItem{
		widget.NewFormItem("heightmap", container.NewBorder(nil, nil, nil, browse, file)),
		formHint("size", size, "WxD metres, e.g. 4000x4000"),
		formHint("height range", rng, "LO,HI metres that integer codes map onto"),
		formHint("raw size", raw, "WxH texels of a .r16/.f32/.raw that is not square"),
	}, []*widget.Entry{file, size, rng, raw}, 620, func(ok bool) {
		if !ok {
			return
		}
		var o session.HeightmapOptions
		if s := strings.TrimSpace(size.Text); s != "" {
			v, err := pair(s, "x")
			if err != nil {
				ed.notify(fmt.Errorf("size %q: %w", s, err))
				return
			}
			o.Size = &v
		}
		if s := strings.TrimSpace(rng.Text); s != "" {
			v, err := pair(s, ",")
			if err != nil {
				ed.notify(fmt.Errorf("height range %q: %w", s, err))
				return
			}
			o.Import.Range = v
		}
		if s := strings.TrimSpace(raw.Text); s != "" {
			v, err := pair(s, "x")
			if err != nil {
				ed.notify(fmt.Errorf("raw size %q: %w", s, err))
				return
			}
			o.Import.Size = [2]int{int(v[0]), int(v[1])}
		}
		p := strings.TrimSpace(file.Text)
		ed.unsavedThen(func() {
			ed.runLong("Opening "+filepath.Base(p), func(ctx context.Context, report progress.Func) error {
				o.Progress = report
				return ed.s.OpenHeightmap(ctx, p, o)
			}, nil)
		})
	})
}

// numberIn validates an entry holding a number in (lo, hi) — or [lo, hi] when closed — for a
// form dialog, which keeps its confirm button off and says why under the field until it holds.
func numberIn(what string, lo, hi float64, closed bool) func(string) error {
	return func(t string) error {
		v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		ok := err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
		if ok && closed {
			ok = v >= lo && v <= hi
		} else if ok {
			ok = v > lo && v < hi
		}
		if !ok {
			if math.IsInf(lo, -1) {
				return fmt.Errorf("%s: a number", what)
			}
			return fmt.Errorf("%s: a number above %g", what, lo)
		}
		return nil
	}
}

// integerIn validates an entry holding a whole number in [lo, hi].
func integerIn(what string, lo, hi int) func(string) error {
	return func(t string) error {
		if v, err := strconv.Atoi(strings.TrimSpace(t)); err != nil || v < lo || v > hi {
			return fmt.Errorf("%s: a whole number from %d to %d", what, lo, hi)
		}
		return nil
	}
}

// optionalPair validates an entry left empty or holding two numbers separated by sep (two
// positive numbers unless signed).
func optionalPair(what, sep string, signed bool) func(string) error {
	return func(t string) error {
		if strings.TrimSpace(t) == "" {
			return nil
		}
		v, err := pair(t, sep)
		if err == nil && !signed && !(v[0] > 0 && v[1] > 0) {
			err = fmt.Errorf("want two positive numbers")
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
}

func pair(s, sep string) ([2]float64, error) {
	a, b, ok := strings.Cut(strings.ToLower(s), sep)
	if !ok {
		return [2]float64{}, fmt.Errorf("want two numbers separated by %q", sep)
	}
	x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err1 != nil || err2 != nil {
		return [2]float64{}, fmt.Errorf("want two numbers separated by %q", sep)
	}
	return [2]float64{x, y}, nil
}

// openDialog picks a .terrainData folder.
func (ed *editor) openDialog() {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil || u == nil {
			return
		}
		ed.openPath(u.Path())
	}, ed.win)
	d.Show()
}

// openPath opens a container (asking about unsaved changes first).
func (ed *editor) openPath(path string) {
	if !isContainer(path) {
		ed.notify(fmt.Errorf("%s is not a terrainData container (a folder holding terrain.yaml)", path))
		return
	}
	ed.unsavedThen(func() {
		ed.runLong("Opening "+filepath.Base(path), func(ctx context.Context, _ progress.Func) error {
			return ed.s.OpenContainer(ctx, path)
		}, func(err error) {
			if err == nil {
				ed.menus.addRecent(path)
			}
		})
	})
}

// dropped opens a container or starts a landscape on a heightmap dropped on the window.
func (ed *editor) dropped(_ fyne.Position, uris []fyne.URI) {
	if len(uris) == 0 {
		return
	}
	p := uris[0].Path()
	if isContainer(p) {
		ed.openPath(p)
		return
	}
	switch strings.ToLower(filepath.Ext(p)) {
	case ".png", ".r16", ".raw", ".f32", ".tif", ".tiff", ".exr":
		ed.heightmapForm(p)
	default:
		ed.notify(fmt.Errorf("%s is neither a terrainData container nor a heightmap", filepath.Base(p)))
	}
}

func (ed *editor) save() { ed.saveThen(nil) }

// saveThen saves (asking where when the landscape was never saved) and then runs next.
func (ed *editor) saveThen(next func()) {
	if ed.s.Path() == "" {
		ed.saveAsThen(next)
		return
	}
	ed.saveTo(ed.s.Path(), next)
}

func (ed *editor) saveAs() { ed.saveAsThen(nil) }

// saveAsThen asks for a folder and a name, then saves there.
func (ed *editor) saveAsThen(next func()) {
	dir := widget.NewEntry()
	cur := ed.s.Path()
	if cur != "" {
		dir.SetText(filepath.Dir(cur))
	} else if wd, err := os.Getwd(); err == nil {
		dir.SetText(wd)
	}
	name := widget.NewEntry()
	name.SetText(ed.s.Name())
	browse := widget.NewButton("Browse…", func() {
		dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				dir.SetText(u.Path())
			}
		}, ed.win).Show()
	})
	name.Validator = func(t string) error {
		if n := strings.TrimSuffix(strings.TrimSpace(t), ".terrainData"); n == "" || strings.ContainsAny(n, `/\`) {
			return fmt.Errorf("a name without slashes")
		}
		return nil
	}
	ed.showForm("Save As", "Save", []*widget.FormItem{
		widget.NewFormItem("folder", container.NewBorder(nil, nil, nil, browse, dir)),
		formHint("name", name, "saved as NAME.terrainData"),
	}, []*widget.Entry{name, dir}, 620, func(ok bool) {
		if !ok {
			return
		}
		n := strings.TrimSuffix(strings.TrimSpace(name.Text), ".terrainData")
		if n == "" || strings.ContainsAny(n, `/\`) {
			ed.notify(fmt.Errorf("a landscape needs a name without slashes"))
			return
		}
		path := filepath.Join(strings.TrimSpace(dir.Text), n+".terrainData")
		if _, err := os.Stat(path); err == nil && path != cur {
			dialog.ShowConfirm("Replace?", path+" exists. Replace it?", func(yes bool) {
				if yes {
					ed.saveTo(path, next)
				}
			}, ed.win)
			return
		}
		ed.saveTo(path, next)
	})
}

func (ed *editor) saveTo(path string, next func()) {
	ed.runLongThen("Saving "+filepath.Base(path), func(ctx context.Context, report progress.Func) error {
		return ed.s.SaveAs(ctx, path, report)
	}, func(err error) {
		if ed.onSaved != nil {
			defer ed.onSaved(err)
		}
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				ed.saveFailed(path, err)
			}
			return
		}
		ed.menus.addRecent(path)
		ed.inform("Saved " + path)
		if next != nil {
			next()
		}
	}, false)
}

// exportDialog writes the files engines import from the saved container (saving first when
// there are changes, so what is exported is what is on screen).
func (ed *editor) exportDialog() {
	dir := widget.NewEntry()
	if p := ed.s.Path(); p != "" {
		dir.SetText(filepath.Join(filepath.Dir(p), ed.s.Name()+"_export"))
	}
	browse := widget.NewButton("Browse…", func() {
		dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				dir.SetText(filepath.Join(u.Path(), ed.s.Name()+"_export"))
			}
		}, ed.win).Show()
	})
	controls := widget.NewCheck("control textures (PNG, one layer a channel)", nil)
	controls.SetChecked(true)
	height := widget.NewSelect([]string{"none", ".r16 (raw 16-bit)", ".png (16-bit)", ".exr (float metres)"}, nil)
	height.SetSelected(".r16 (raw 16-bit)")
	inst := widget.NewCheck("instances (<population>.f32 + index.yaml)", nil)
	inst.SetChecked(true)
	ed.showForm("Export for engines", "Export", []*widget.FormItem{
		widget.NewFormItem("folder", container.NewBorder(nil, nil, nil, browse, dir)),
		widget.NewFormItem("", controls),
		widget.NewFormItem("heightmap", height),
		widget.NewFormItem("", inst),
	}, []*widget.Entry{dir}, 620, func(ok bool) {
		if !ok {
			return
		}
		out := strings.TrimSpace(dir.Text)
		if out == "" {
			ed.notify(fmt.Errorf("export: choose a folder"))
			return
		}
		var o export.Options
		if controls.Checked {
			o.Controls = filepath.Join(out, "controls")
		}
		if ext := strings.Fields(height.Selected)[0]; ext != "none" {
			o.Heightmap = filepath.Join(out, "heightmap"+ext)
		}
		if inst.Checked {
			o.Instances = filepath.Join(out, "instances")
		}
		if err := o.Check(); err != nil {
			ed.notify(err)
			return
		}
		run := func() {
			ed.runLong("Exporting", func(ctx context.Context, _ progress.Func) error {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return err
				}
				return export.Run(ed.s.Path(), o, io.Discard)
			}, func(err error) {
				if err == nil {
					ed.inform("Exported to " + out)
				}
			})
		}
		if ed.s.Modified() || ed.s.Path() == "" {
			ed.saveThen(run)
			return
		}
		run()
	})
}

// showForm shows a form dialog the keyboard can drive: Enter in any of entries confirms it as its
// button does, and the first entry has the focus. width > 0 widens the dialog (a path stays
// readable).
func (ed *editor) showForm(title, confirm string, items []*widget.FormItem, entries []*widget.Entry, width float32, done func(bool)) {
	d := dialog.NewForm(title, confirm, "Cancel", items, done, ed.win)
	for _, e := range entries {
		e.OnSubmitted = func(string) { d.Submit() }
	}
	if width > 0 {
		d.Resize(fyne.NewSize(width, d.MinSize().Height))
	}
	d.Show()
	if len(entries) > 0 {
		ed.win.Canvas().Focus(entries[0])
	}
}

// formHint is a form row with a hint under the field.
func formHint(label string, w fyne.CanvasObject, hint string) *widget.FormItem {
	it := widget.NewFormItem(label, w)
	it.HintText = hint
	return it
}

// runScript runs a procgen script (a .lua graph) and opens what it wrote.
func (ed *editor) runScript() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		ed.unsavedThen(func() {
			ed.runLong("Running "+filepath.Base(path), func(ctx context.Context, report progress.Func) error {
				return ed.s.RunScript(ctx, path, report, func(msg string) { fyne.Do(func() { ed.inform(msg) }) })
			}, nil)
		})
	}, ed.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".lua"}))
	d.Show()
}

// rerunScript regenerates the open landscape from the script it carries, in place.
func (ed *editor) rerunScript() {
	ed.unsavedThen(func() {
		ed.runLong("Running the script again", func(ctx context.Context, report progress.Func) error {
			return ed.s.RerunScript(ctx, report, func(msg string) { fyne.Do(func() { ed.inform(msg) }) })
		}, nil)
	})
}

// saveFailed says in a dialog why a save failed (a full disk, a read-only folder, a folder
// removed while the landscape was open): nothing was written, the landscape is still modified
// and its recovery copy is kept.
func (ed *editor) saveFailed(path string, err error) {
	msg := fmt.Sprintf("Could not save %s to %s:\n\n%v\n\nNothing was written there. %s is still modified and its recovery copy is kept: save it somewhere else with Save As.",
		ed.s.Name(), path, err, ed.s.Name())
	ed.saveError = msg
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Could not save", "OK", l, ed.win)
	d.Resize(fyne.NewSize(560, 260))
	d.Show()
	ed.status.setMessage("Save failed: " + err.Error())
}
