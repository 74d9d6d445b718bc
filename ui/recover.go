package ui

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"strata/progress"
	"strata/session"
)

// recoveryOffer is the dialog that offers a dead editor's work back (tests tap its buttons).
type recoveryOffer struct {
	d                       dialog.Dialog
	text                    string
	restore, later, discard *widget.Button
}

// checkRecovery offers the recovery copies editors that died left behind (docs/editor.md "Crash
// recovery"), newest first, one after the other (off the UI goroutine).
func (ed *editor) checkRecovery() {
	if ed.recovery == "" {
		return
	}
	copies, err := session.RecoveryCopies(ed.recovery)
	if err != nil {
		fmt.Fprintf(ed.log, "strata: %v\n", err)
		return
	}
	if len(copies) > 0 {
		fyne.Do(func() { ed.offerRecovery(copies) })
	}
}

// offerRecovery asks what to do with copies[0] — Restore (open it, modified), Later (keep it
// for the next start, or `strata recover`), Discard (delete it) — then offers the next.
func (ed *editor) offerRecovery(copies []session.RecoveryCopy) {
	if len(copies) == 0 {
		ed.offer = nil
		return
	}
	c := copies[0]
	rest := copies[1:]
	last := c.Last.Local()
	when := last.Format("15:04:05")
	if y, m, d := last.Date(); y != time.Now().Year() || m != time.Now().Month() || d != time.Now().Day() {
		when = last.Format("Mon 2 Jan 2006 15:04:05")
	}
	steps := "1 step"
	if c.Steps != 1 {
		steps = fmt.Sprintf("%d steps", c.Steps)
	}
	o := &recoveryOffer{text: fmt.Sprintf("Strata closed without saving %s (%s).\n\nIts last step was at %s, %s after it was opened. Restore opens it as it was then, with the changes unsaved; Later keeps it for the next start (or `strata recover %s --out …`); Discard deletes it.",
		c.Meta.Name, c.Meta.Base.Describe(), when, steps, c.ID)}
	if len(rest) > 0 {
		o.text += fmt.Sprintf("\n\n%d more to look at after this one.", len(rest))
	}
	next := func() { ed.offerRecovery(rest) }
	o.restore = widget.NewButton("Restore", func() {
		o.d.Hide()
		ed.unsavedThen(func() {
			ed.runLong("Restoring "+c.Meta.Name, func(ctx context.Context, _ progress.Func) error {
				return ed.s.OpenRecovery(ctx, c.ID)
			}, func(err error) {
				if err == nil {
					ed.inform(fmt.Sprintf("Restored %s as it was at %s: save it where you want it.", c.Meta.Name, when))
					if ed.traceRec {
						fmt.Fprintf(ed.log, "strata: restored recovery copy %s (version %d)\n", c.ID, ed.s.Version())
					}
				}
				ed.offer = nil
			})
		})
	})
	o.restore.Importance = widget.HighImportance
	o.later = widget.NewButton("Later", func() { o.d.Hide(); next() })
	o.discard = widget.NewButton("Discard", func() {
		o.d.Hide()
		if err := ed.s.DiscardRecovery(c.ID); err != nil {
			ed.notify(err)
		}
		next()
	})
	l := widget.NewLabel(o.text)
	l.Wrapping = fyne.TextWrapWord
	o.d = dialog.NewCustomWithoutButtons("Recover unsaved work?", container.NewVBox(l, container.NewHBox(o.restore, o.later, o.discard)), ed.win)
	o.d.Resize(fyne.NewSize(560, 240))
	ed.offer = o
	o.d.Show()
	// Restore has the keyboard: Space restores, as a click would.
	ed.win.Canvas().Focus(o.restore)
	if ed.traceRec {
		fmt.Fprintf(ed.log, "strata: offering recovery copy %s of %s\n", c.ID, c.Meta.Name)
	}
}
