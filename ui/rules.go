package ui

import (
	"fmt"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"strata/field"
	"strata/stack"
)

// owner is whose rules an editor shows: a layer or a population (bottom-up index).
type owner struct {
	pop   bool
	index int
}

func (o owner) rules(st *stack.Stack) *[]stack.Rule {
	if st == nil {
		return nil
	}
	if o.pop {
		if o.index < 0 || o.index >= len(st.Populations) {
			return nil
		}
		return &st.Populations[o.index].Rules
	}
	if o.index < 0 || o.index >= len(st.Layers) {
		return nil
	}
	return &st.Layers[o.index].Rules
}

func (o owner) name(st *stack.Stack) string {
	if o.pop {
		return st.Populations[o.index].Name
	}
	return st.Layers[o.index].Name
}

// inputOrder is the order the picker offers the inputs in: the ground's own (height, slope,
// aspect, curvature) first, whatever their lane codes.
var inputOrder = []stack.Input{stack.InputHeight, stack.InputSlope, stack.InputAspect, stack.InputCurvature,
	stack.InputFlow, stack.InputMask, stack.InputNoise, stack.InputChannel, stack.InputLayer}

// inputChoices are the inputs a rule may read, with their units, as the picker shows them.
func inputChoices(pop bool) []string {
	out := []string{}
	for _, in := range inputOrder {
		if in == stack.InputLayer && !pop {
			continue
		}
		out = append(out, inputLabel(in))
	}
	return out
}

func inputLabel(in stack.Input) string {
	switch in {
	case stack.InputHeight:
		return "height (m)"
	case stack.InputSlope:
		return "slope (°)"
	case stack.InputCurvature:
		return "curvature (1/m)"
	case stack.InputAspect:
		return "aspect (° from north)"
	case stack.InputFlow:
		return "flow (log10 m²)"
	case stack.InputMask:
		return "mask (0..1)"
	case stack.InputNoise:
		return "noise (0..1)"
	case stack.InputChannel:
		return "channel (stored unit)"
	case stack.InputLayer:
		return "layer weight (0..1)"
	}
	return string(in)
}

func inputFromLabel(s string) stack.Input {
	for _, in := range stack.Inputs {
		if inputLabel(in) == s {
			return in
		}
	}
	return stack.Input(strings.Fields(s)[0])
}

// rulesEditor is the list of an owner's rules, each a card of controls, and an Add rule button.
type rulesEditor struct {
	ed    *editor
	owner owner
	box   *fyne.Container
	cards []*ruleCard
	add   *tipButton
	sig   string
}

func newRulesEditor(ed *editor, pop bool) *rulesEditor {
	r := &rulesEditor{ed: ed, owner: owner{pop: pop}}
	r.box = container.NewVBox()
	tipText := "Add a rule: the layer then covers only where every rule's band holds."
	if pop {
		tipText = "Add a rule: the population then grows only where every rule's band holds."
	}
	r.add = newTipButton("Add rule", theme.ContentAddIcon(), tipText, r.addRule)
	return r
}

func (r *rulesEditor) content() fyne.CanvasObject { return container.NewVBox(r.box, r.add) }

// signature changes when the cards must be rebuilt rather than updated in place.
func signature(o owner, st *stack.Stack, channels []string) string {
	rules := o.rules(st)
	if rules == nil {
		return "none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v/%d/%d/%s|", o.pop, o.index, len(*rules), strings.Join(channels, ","))
	for _, ru := range *rules {
		fmt.Fprintf(&b, "%s:%s:%s;", ru.Input, ru.Channel, ru.Layer)
	}
	for _, l := range st.Layers { // a layer rule's picker lists the layers
		b.WriteString(l.Name + ",")
	}
	return b.String()
}

// refresh shows o's rules of st: values are written into the existing cards when only values
// changed (so a slider being dragged is not replaced under the mouse), else the cards are rebuilt.
func (r *rulesEditor) refresh(st *stack.Stack, o owner) {
	r.owner = o
	channels := r.ed.s.Channels()
	sig := signature(o, st, channels)
	rules := o.rules(st)
	editable := rules != nil && !r.ed.s.Baked()
	if editable {
		r.add.Enable()
	} else {
		r.add.Disable()
	}
	if sig == r.sig && len(r.cards) == lenRules(rules) {
		for k, c := range r.cards {
			c.set(st, &(*rules)[k])
		}
		return
	}
	r.sig = sig
	r.box.RemoveAll()
	r.cards = nil
	if rules == nil {
		return
	}
	for k := range *rules {
		c := newRuleCard(r, k, st, channels)
		c.set(st, &(*rules)[k])
		r.cards = append(r.cards, c)
		r.box.Add(c.box)
	}
	r.box.Refresh()
}

func lenRules(r *[]stack.Rule) int {
	if r == nil {
		return 0
	}
	return len(*r)
}

func (r *rulesEditor) addRule() {
	o := r.owner
	r.ed.edit("Add rule", func(st *stack.Stack) error {
		rules := o.rules(st)
		if rules == nil {
			return fmt.Errorf("nothing selected to add a rule to")
		}
		*rules = append(*rules, stack.Rule{Input: stack.InputSlope, Min: stack.F(30), Softness: 5})
		return nil
	})
}

// ruleCard is the controls of one rule.
type ruleCard struct {
	r      *rulesEditor
	k      int
	box    *fyne.Container
	input  *tipSelect
	chanel *tipSelect
	enable *tipCheck
	invert *tipCheck
	del    *tipButton
	min    *numField
	max    *numField
	soft   *numField
	jitter *numField
	fs     *numField
	inputV stack.Input
	// updating is set while set writes values in, so the widgets' callbacks make no edits.
	updating bool
}

func newRuleCard(r *rulesEditor, k int, st *stack.Stack, channels []string) *ruleCard {
	c := &ruleCard{r: r, k: k}
	o := r.owner
	ed := r.ed
	label := func(what string) string { return fmt.Sprintf("%s: %s", o.name(ed.s.Stack()), what) }
	c.input = newTipSelect(inputChoices(o.pop), "What this rule bands: height in metres, slope in degrees, aspect (the way the slope faces, degrees clockwise from north; min 315, max 45 is the north-facing quarter; flat ground has none), curvature (+ gully, − ridge), a painted mask, noise, a stored channel"+map[bool]string{true: ", or a layer's final weight", false: ""}[o.pop]+".", func(s string) {
		if c.inputUpdating() {
			return
		}
		in := inputFromLabel(s)
		ed.edit(label("input"), func(st *stack.Stack) error {
			ru := c.rule(st)
			ru.Input = in
			if !in.ReadsChannel() {
				ru.Channel = ""
			}
			if in != stack.InputLayer {
				ru.Layer = ""
			}
			// Start the band in the new input's range.
			rg := ed.s.RangeFor(in, ru.FieldChannel())
			if ru.Min != nil {
				ru.Min = stack.F(rg.Lo + 0.5*(rg.Hi-rg.Lo))
			}
			if ru.Max != nil {
				ru.Max = stack.F(rg.Lo + 0.75*(rg.Hi-rg.Lo))
			}
			ru.Softness = (rg.Hi - rg.Lo) / 20
			ru.Jitter = 0
			switch in {
			case stack.InputAspect: // an arc of the compass, both edges: start north-facing
				ru.Min, ru.Max, ru.Softness = stack.F(315), stack.F(45), 10
			case stack.InputFlow: // where water gathers: above the middle of the range, open above
				ru.Min, ru.Max, ru.Softness = stack.F(math.Round(rg.Lo+0.6*(rg.Hi-rg.Lo))), nil, 0.25
			case stack.InputMask:
				ru.Channel = firstMask(ed.s.Channels())
			case stack.InputChannel:
				ru.Channel = firstChannel(ed.s.Channels())
			case stack.InputLayer:
				if len(st.Layers) > 0 {
					ru.Layer = st.Layers[0].Name
				}
			}
			return nil
		})
	})
	c.chanel = newTipSelect(nil, "The channel (a painted mask, a stored channel) or layer this rule reads.", func(s string) {
		if c.inputUpdating() || s == "" {
			return
		}
		ed.edit(label("source"), func(st *stack.Stack) error {
			ru := c.rule(st)
			if ru.Input == stack.InputLayer {
				ru.Layer = s
			} else {
				ru.Channel = s
			}
			return nil
		})
	})
	c.enable = newTipCheck("on", "Switch the rule off without losing it (it keeps its noise, so switching it on again changes nothing else).", func(on bool) {
		if c.inputUpdating() {
			return
		}
		ed.edit(label(map[bool]string{true: "enable rule", false: "disable rule"}[on]), func(st *stack.Stack) error {
			c.rule(st).Disabled = !on
			return nil
		})
	})
	c.invert = newTipCheck("invert", "Cover where the band does NOT hold (1 − coverage).", func(on bool) {
		if c.inputUpdating() {
			return
		}
		ed.edit(label("invert"), func(st *stack.Stack) error {
			c.rule(st).Invert = on
			return nil
		})
	})
	c.del = newTipButton("", theme.DeleteIcon(), "Delete this rule (Undo brings it back).", func() {
		ed.edit(label("delete rule"), func(st *stack.Stack) error {
			rules := o.rules(st)
			*rules = append((*rules)[:k], (*rules)[k+1:]...)
			return nil
		})
	})
	mk := func(name, tipText string, openable bool, get func(*stack.Rule) **float64, setv func(*stack.Rule, float64)) *numField {
		f := newNumField(numSpec{label: name, tip: tipText, lo: 0, hi: 1, openable: openable,
			openTip: "Open: no " + name + " bound (the band runs on forever that way)."})
		f.drag = func(v float64) error {
			return ed.drag(label(name), func(st *stack.Stack) { setv(c.rule(st), v) })
		}
		f.endDrag = ed.s.EndDrag
		f.commit = func(v float64) error {
			return ed.edit(label(name), func(st *stack.Stack) error { setv(c.rule(st), v); return nil })
		}
		if get != nil {
			f.setOpen = func(open bool) error {
				return ed.edit(label(name), func(st *stack.Stack) error {
					ru := c.rule(st)
					if ru.Input == stack.InputAspect && (name == "min" || name == "max") {
						// An aspect band has both edges or neither (the whole compass).
						if open {
							ru.Min, ru.Max = nil, nil
						} else {
							ru.Min, ru.Max = stack.F(315), stack.F(45)
						}
						return nil
					}
					p := get(ru)
					if open {
						*p = nil
					} else {
						rg := ed.s.RangeFor(c.rule(st).Input, c.rule(st).FieldChannel())
						*p = stack.F(rg.Lo + 0.5*(rg.Hi-rg.Lo))
					}
					return nil
				})
			}
		}
		return f
	}
	c.min = mk("min", "The band's lower edge: the rule covers from here up (softened by the softness).", true,
		func(ru *stack.Rule) **float64 { return &ru.Min }, func(ru *stack.Rule, v float64) { ru.Min = stack.F(v) })
	c.max = mk("max", "The band's upper edge: the rule covers up to here.", true,
		func(ru *stack.Rule) **float64 { return &ru.Max }, func(ru *stack.Rule, v float64) { ru.Max = stack.F(v) })
	c.soft = mk("softness", "Half the width of the blend at each edge, in the input's unit (0: a hard edge).", false,
		nil, func(ru *stack.Rule, v float64) { ru.Softness = max(v, 0) })
	c.jitter = mk("jitter", "How far noise may move the value before banding, in the input's unit: breaks straight edges up.", false,
		nil, func(ru *stack.Rule, v float64) { ru.Jitter = max(v, 0) })
	c.fs = mk("feature size", "The size in metres of the noise this rule's jitter (and a noise input) draws; open = the stack's.", true,
		func(ru *stack.Rule) **float64 { return &ru.FeatureSize }, func(ru *stack.Rule, v float64) { ru.FeatureSize = stack.F(max(v, 0.01)) })
	c.fs.setRange(1, 2000, "m")
	head := container.NewBorder(nil, nil, nil, container.NewHBox(c.enable, c.invert, c.del), container.NewGridWithColumns(2, c.input, c.chanel))
	note := widget.NewLabel("")
	if !o.pop && o.index == 0 {
		note.SetText("Layer 0 is the ground: it takes whatever the layers above leave, so its rules are kept but never change it.")
		note.Wrapping = fyne.TextWrapWord
		note.Importance = widget.WarningImportance
	} else {
		note.Hide()
	}
	c.box = container.NewVBox(widget.NewSeparator(), head, note, c.min.box, c.max.box, c.soft.box, c.jitter.box, c.fs.box)
	return c
}

// rule is this card's rule in st.
func (c *ruleCard) rule(st *stack.Stack) *stack.Rule {
	return &(*c.r.owner.rules(st))[c.k]
}

func (c *ruleCard) inputUpdating() bool { return c.updating }

// set writes the rule's values into the card.
func (c *ruleCard) set(st *stack.Stack, ru *stack.Rule) {
	c.updating = true
	defer func() { c.updating = false }()
	ed := c.r.ed
	c.inputV = ru.Input
	c.input.SetSelected(inputLabel(ru.Input))
	switch ru.Input {
	case stack.InputMask:
		var masks []string
		for _, ch := range ed.s.Channels() {
			if strings.HasPrefix(ch, field.MaskPrefix) {
				masks = append(masks, strings.TrimPrefix(ch, field.MaskPrefix))
			}
		}
		c.chanel.Options = masks
		c.chanel.SetSelected(strings.TrimPrefix(ru.Channel, field.MaskPrefix))
		c.chanel.Show()
	case stack.InputChannel:
		c.chanel.Options = ed.s.Channels()
		c.chanel.SetSelected(ru.Channel)
		c.chanel.Show()
	case stack.InputLayer:
		var names []string
		for _, l := range st.Layers {
			names = append(names, l.Name)
		}
		c.chanel.Options = names
		c.chanel.SetSelected(ru.Layer)
		c.chanel.Show()
	default:
		c.chanel.Hide()
	}
	c.enable.SetChecked(!ru.Disabled)
	c.invert.SetChecked(ru.Invert)
	rg := ed.s.RangeFor(ru.Input, ru.FieldChannel())
	span := rg.Hi - rg.Lo
	c.min.setRange(rg.Lo, rg.Hi, rg.Unit)
	c.max.setRange(rg.Lo, rg.Hi, rg.Unit)
	c.soft.setRange(0, span/4, rg.Unit)
	c.jitter.setRange(0, span/4, rg.Unit)
	c.min.set(deref(ru.Min), ru.Min == nil)
	c.max.set(deref(ru.Max), ru.Max == nil)
	c.soft.set(ru.Softness, false)
	c.jitter.set(ru.Jitter, false)
	fs := st.Noise.FeatureSize
	if ru.FeatureSize != nil {
		fs = *ru.FeatureSize
	}
	c.fs.set(fs, ru.FeatureSize == nil)
	// The feature size matters only when noise is drawn.
	if ru.Jitter == 0 && ru.Input != stack.InputNoise {
		c.fs.box.Hide()
	} else {
		c.fs.box.Show()
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func firstMask(ch []string) string {
	for _, c := range ch {
		if strings.HasPrefix(c, field.MaskPrefix) {
			return strings.TrimPrefix(c, field.MaskPrefix)
		}
	}
	return ""
}

func firstChannel(ch []string) string {
	if len(ch) > 0 {
		return ch[0]
	}
	return ""
}
