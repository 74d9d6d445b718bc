package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"strata/field"
	"strata/icons"
	"strata/stack"
)

// fieldPanel shows the ground itself: its extent and grids, its channels (with a button to create
// a mask to paint), and the stack-wide noise and slope step every rule shares.
type fieldPanel struct {
	ed       *editor
	info     *widget.Label
	channels *fyne.Container
	newMask  *tipButton
	fs       *numField
	octaves  *numField
	seed     *numField
	step     *numField
	box      fyne.CanvasObject
}

func newFieldPanel(ed *editor) *fieldPanel {
	p := &fieldPanel{ed: ed}
	p.info = widget.NewLabel("")
	p.info.Wrapping = fyne.TextWrapWord
	p.channels = container.NewVBox()
	p.newMask = newTipButton("New mask…", theme.ContentAddIcon(), "Create an empty mask channel (0 everywhere) to paint and to read from rules (input: mask).", ed.askNewMask)
	num := func(sp numSpec, label string, set func(st *stack.Stack, v float64)) *numField {
		f := newNumField(sp)
		f.drag = func(v float64) error { return ed.drag(label, func(st *stack.Stack) { set(st, v) }) }
		f.endDrag = ed.s.EndDrag
		f.commit = func(v float64) error {
			return ed.edit(label, func(st *stack.Stack) error { set(st, v); return nil })
		}
		return f
	}
	p.fs = num(numSpec{label: "noise feature size", unit: "m", lo: 1, hi: 2000,
		tip: "The size of the noise every jitter and noise rule draws (a rule may set its own)."},
		"noise feature size", func(st *stack.Stack, v float64) { st.Noise.FeatureSize = max(v, 0.01) })
	p.octaves = num(numSpec{label: "octaves", lo: 1, hi: 8, integer: true, strict: true,
		tip: "How many layers of finer detail the noise adds (each half the size and half as strong)."},
		"noise octaves", func(st *stack.Stack, v float64) { st.Noise.Octaves = int(v) })
	p.seed = num(numSpec{label: "noise seed", lo: 0, hi: 99999, integer: true, strict: true,
		tip: "Reshuffles every rule's noise at once."},
		"noise seed", func(st *stack.Stack, v float64) { st.Noise.Seed = uint32(v) })
	p.step = num(numSpec{label: "gradient step", unit: "m", lo: 0.1, hi: 50, openable: true,
		openTip: "Open: the field's texel size (the default).",
		tip:     "The distance over which slope and curvature are measured: larger smooths them."},
		"gradient step", func(st *stack.Stack, v float64) { st.GradientStep = stack.F(max(v, 0.01)) })
	p.step.setOpen = func(open bool) error {
		return ed.edit("gradient step", func(st *stack.Stack) error {
			if open {
				st.GradientStep = nil
			} else {
				st.GradientStep = stack.F(st.GradientStepFor(ed.s.Field().Texel))
			}
			return nil
		})
	}
	title := func(s string) fyne.CanvasObject {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	p.box = container.NewVScroll(container.NewVBox(
		title("Ground"), p.info,
		container.NewBorder(nil, nil, title("Channels"), p.newMask), p.channels,
		title("Noise and slope"), p.fs.box, p.octaves.box, p.seed.box, p.step.box,
	))
	return p
}

func (p *fieldPanel) content() fyne.CanvasObject { return p.box }

func (p *fieldPanel) refresh(st *stack.Stack) {
	fi := p.ed.s.Field()
	if fi.HeightW == 0 {
		p.info.SetText("(nothing open)")
		return
	}
	p.info.SetText(fmt.Sprintf("%.6g × %.6g m centred on (%.6g, %.6g); height %d×%d texels of %.3g m; weights %d×%d; ground from %.1f to %.1f m.",
		fi.Size[0], fi.Size[1], fi.Origin[0], fi.Origin[1], fi.HeightW, fi.HeightH, fi.Texel[0], fi.WeightsW, fi.WeightsH,
		fi.HeightRange[0], fi.HeightRange[1]))
	p.channels.RemoveAll()
	reads := map[string]bool{}
	if st != nil {
		for _, c := range st.Channels() {
			reads[c] = true
		}
	}
	for _, name := range p.ed.s.Channels() {
		r := fi.ChannelRange[name]
		text := fmt.Sprintf("%s   %.3g … %.3g", name, r[0], r[1])
		if reads[name] {
			text += "   (read by rules)"
		}
		row := []fyne.CanvasObject{widget.NewIcon(icons.Mask), widget.NewLabel(text)}
		var right fyne.CanvasObject
		if strings.HasPrefix(name, field.MaskPrefix) {
			n := name
			right = newTipButton("Paint", icons.Brush, "Paint this mask in the viewport (the brush tool, with this mask chosen).", func() {
				p.ed.brush.Target = n
				p.ed.setTool(ToolPaint)
			})
		}
		p.channels.Add(container.NewBorder(nil, nil, container.NewHBox(row...), right))
	}
	if len(p.ed.s.Channels()) == 0 {
		p.channels.Add(widget.NewLabel("No channels yet."))
	}
	editable := st != nil && !p.ed.s.Baked()
	if st == nil || !editable {
		return
	}
	p.fs.set(st.Noise.FeatureSize, false)
	p.octaves.set(float64(st.Noise.Octaves), false)
	p.seed.set(float64(st.Noise.Seed), false)
	p.step.set(st.GradientStepFor(fi.Texel), st.GradientStep == nil)
}

// askNewMask asks for a mask's name and creates it.
func (ed *editor) askNewMask() {
	e := widget.NewEntry()
	e.SetPlaceHolder("e.g. snowless")
	e.Validator = func(t string) error {
		_, err := ed.s.MaskChannel(t)
		return err
	}
	create := func(ok bool) {
		if !ok {
			return
		}
		full, err := ed.s.MaskChannel(e.Text)
		if err == nil {
			err = ed.s.NewMask(e.Text)
		}
		if err != nil {
			ed.notify(err)
			return
		}
		ed.brush.Target = full
		ed.setTool(ToolPaint)
		name := strings.TrimPrefix(full, field.MaskPrefix)
		ed.inform(fmt.Sprintf("Mask %s created: paint it in the viewport, and read it from a rule (input: mask).", name))
	}
	ed.showForm("New mask", "Create", []*widget.FormItem{formHint("name", e, "letters, digits, _ - .")}, []*widget.Entry{e}, 420, create)
}
