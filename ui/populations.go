package ui

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"strata/stack"
)

// popsPanel edits the populations: which one, its density, seed, scale range, mesh and rules
// (which may read a layer's final weight: "trees only on sand").
type popsPanel struct {
	ed       *editor
	pick     *tipSelect
	add      *tipButton
	del      *tipButton
	name     *tipEntry
	mesh     *tipSelect
	density  *numField
	seed     *numField
	reseed   *tipButton
	scaleLo  *numField
	scaleHi  *numField
	rules    *rulesEditor
	form     *fyne.Container
	empty    *widget.Label
	box      fyne.CanvasObject
	updating bool
}

func newPopsPanel(ed *editor) *popsPanel {
	p := &popsPanel{ed: ed}
	p.pick = newTipSelect(nil, "The population to edit.", func(s string) {
		if p.updating {
			return
		}
		st := ed.s.Stack()
		for i := range st.Populations {
			if st.Populations[i].Name == s {
				ed.selPop = i
			}
		}
		ed.refresh()
	})
	p.add = newTipButton("", theme.ContentAddIcon(), "Add a population: trees by default, 0.01 per m² wherever its rules hold.", p.addPop)
	p.del = newTipButton("", theme.DeleteIcon(), "Delete this population (Undo brings it back).", func() {
		i := ed.selPop
		if ed.edit("Delete population", func(st *stack.Stack) error {
			if i < 0 || i >= len(st.Populations) {
				return fmt.Errorf("no population selected")
			}
			st.Populations = append(st.Populations[:i], st.Populations[i+1:]...)
			return nil
		}) == nil {
			ed.selPop = max(0, i-1)
			ed.refresh()
		}
	})
	p.name = newTipEntry("The population's name (its instances export as NAME.f32). Press Enter to rename.")
	p.name.OnSubmitted = func(s string) {
		i := ed.selPop
		if ed.edit("Rename population", func(st *stack.Stack) error {
			s = strings.TrimSpace(s)
			for k, q := range st.Populations {
				if k != i && q.Name == s {
					return fmt.Errorf("a population is already called %q", s)
				}
			}
			st.Populations[i].Name = s
			return nil
		}) == nil {
			unfocus(p.name)
		}
	}
	p.mesh = newTipSelect(stack.Meshes, "The mesh each instance draws in the viewport (engines place their own by this name).", func(s string) {
		if p.updating {
			return
		}
		i := ed.selPop
		ed.edit(p.label("mesh"), func(st *stack.Stack) error { st.Populations[i].Mesh = s; return nil })
	})
	num := func(sp numSpec, set func(q *stack.Population, v float64)) *numField {
		f := newNumField(sp)
		f.drag = func(v float64) error {
			i := ed.selPop
			return ed.drag(p.label(sp.label), func(st *stack.Stack) { set(&st.Populations[i], v) })
		}
		f.endDrag = ed.s.EndDrag
		f.commit = func(v float64) error {
			i := ed.selPop
			return ed.edit(p.label(sp.label), func(st *stack.Stack) error { set(&st.Populations[i], v); return nil })
		}
		return f
	}
	p.density = num(numSpec{label: "density", unit: "/m²", lo: 0, hi: 0.1, strict: false,
		tip: "Instances per square metre where every rule holds fully; the spacing of candidate sites follows from the highest density reached."},
		func(q *stack.Population, v float64) { q.Density = max(v, 0) })
	p.seed = num(numSpec{label: "seed", lo: 0, hi: 99999, integer: true, strict: true,
		tip: "Which of the countless equally good placements this population takes."},
		func(q *stack.Population, v float64) { q.Seed = uint32(v) })
	p.reseed = newTipButton("", theme.ViewRefreshIcon(), "Pick another seed at random.", func() {
		i := ed.selPop
		ed.edit(p.label("seed"), func(st *stack.Stack) error { st.Populations[i].Seed = rand.Uint32N(10000); return nil })
	})
	p.scaleLo = num(numSpec{label: "scale from", lo: 0.1, hi: 5, tip: "The smallest instance's scale (the mesh is 1 at scale 1)."},
		func(q *stack.Population, v float64) { q.Scale[0] = max(v, 0.01) })
	p.scaleHi = num(numSpec{label: "scale to", lo: 0.1, hi: 5, tip: "The largest instance's scale."},
		func(q *stack.Population, v float64) { q.Scale[1] = max(v, 0.01) })
	p.rules = newRulesEditor(ed, true)
	p.empty = widget.NewLabel("No population yet: + adds one.")
	title := widget.NewLabelWithStyle("Rules", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.form = container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("name"), nil, p.name),
		container.NewBorder(nil, nil, widget.NewLabel("mesh"), nil, p.mesh),
		p.density.box,
		container.NewBorder(nil, nil, nil, p.reseed, p.seed.box),
		p.scaleLo.box, p.scaleHi.box,
		title, p.rules.content(),
	)
	head := container.NewBorder(nil, nil, nil, container.NewHBox(p.add, p.del), p.pick)
	p.box = container.NewBorder(head, nil, nil, nil, container.NewVScroll(container.NewVBox(p.empty, p.form)))
	return p
}

func (p *popsPanel) content() fyne.CanvasObject { return p.box }

func (p *popsPanel) label(what string) string {
	st := p.ed.s.Stack()
	if st == nil || p.ed.selPop < 0 || p.ed.selPop >= len(st.Populations) {
		return what
	}
	return st.Populations[p.ed.selPop].Name + ": " + what
}

func (p *popsPanel) addPop() {
	var idx int
	if p.ed.edit("Add population", func(st *stack.Stack) error {
		q := stack.NewPopulation(st.UniquePopulationName("trees"))
		q.Density = 0.01
		q.Seed = rand.Uint32N(10000)
		q.Scale = [2]float64{0.8, 1.3}
		q.Mesh = stack.MeshTree
		idx = len(st.Populations)
		st.Populations = append(st.Populations, q)
		return nil
	}) == nil {
		p.ed.selPop = idx
		p.ed.tabs.SelectIndex(1)
		p.ed.refresh()
	}
}

func (p *popsPanel) refresh(st *stack.Stack) {
	p.updating = true
	defer func() { p.updating = false }()
	editable := st != nil && !p.ed.s.Baked()
	if editable {
		p.add.Enable()
	} else {
		p.add.Disable()
	}
	if st == nil || len(st.Populations) == 0 || p.ed.selPop < 0 {
		p.pick.Options = nil
		p.pick.ClearSelected()
		p.form.Hide()
		p.empty.Show()
		p.del.Disable()
		return
	}
	p.empty.Hide()
	p.form.Show()
	p.del.Enable()
	var names []string
	for _, q := range st.Populations {
		names = append(names, q.Name)
	}
	p.pick.Options = names
	q := &st.Populations[p.ed.selPop]
	p.pick.SetSelected(q.Name)
	if p.ed.win.Canvas().Focused() != p.name {
		p.name.SetText(q.Name)
	}
	p.mesh.SetSelected(q.Mesh)
	p.density.setRange(0, max(0.1, 2*q.Density), "/m²")
	p.density.set(q.Density, false)
	p.seed.set(float64(q.Seed), false)
	p.scaleLo.set(q.Scale[0], false)
	p.scaleHi.set(q.Scale[1], false)
	p.rules.refresh(st, owner{pop: true, index: p.ed.selPop})
}
