package stack

import (
	"strings"
	"testing"

	"strata/field"
)

// A flow rule reads the flow plane through a channel slot: "@flow" sorts before every stored
// channel, so it takes chan0 and the stored channels follow; the lanes carry code 8 and that
// slot; Compiled reads the slot's value and bands it as a line (log10 m²).
func TestFlowRuleSlot(t *testing.T) {
	s := FlowStack()
	if got := s.Channels(); len(got) != 2 || got[0] != field.FlowChannel || got[1] != "mask.snow" {
		t.Fatalf("channels %v, want [%s mask.snow]", got, field.FlowChannel)
	}
	if !s.ReadsFlow() || StressStack().ReadsFlow() {
		t.Fatal("ReadsFlow")
	}
	for _, u := range s.ChannelUses() {
		if u.Channel == field.FlowChannel {
			t.Fatalf("ChannelUses lists the flow plane (%s): a field need not store it", u.Where)
		}
	}
	p, err := Pack(s, testGeom)
	if err != nil {
		t.Fatal(err)
	}
	pr, _ := UnpackRule(p, s.RuleIndex(2, 0))
	if code, _ := InputFlow.Code(); pr.Input != code || code != 8 || pr.Slot != 0 {
		t.Fatalf("reeds' flow rule: input %d slot %d, want 8 and 0", pr.Input, pr.Slot)
	}
	if pm, _ := UnpackRule(p, s.RuleIndex(2, 2)); pm.Slot != 1 {
		t.Fatalf("reeds' mask rule: slot %d, want 1", pm.Slot)
	}
	c, err := Compile(s, testGeom)
	if err != nil {
		t.Fatal(err)
	}
	if c.Needs()&NeedChan(0) == 0 || c.Needs()&NeedChan(1) == 0 {
		t.Fatalf("needs %b: want both slots", c.Needs())
	}
	// Flow 10^4 m² on flat ground (slope 0), no snow: wet and reeds are full, dry is empty.
	in := TexelInputs{Chan: [4]float32{4, 0}, Height: 0}
	cov := c.Coverage(&in)
	if cov[2] != 1 || cov[3] != 0 {
		t.Fatalf("coverage at 10^4 m²: %v", cov)
	}
	in.Chan[0] = 0.5 // a ridge: 10^0.5 m²
	if cov = c.Coverage(&in); cov[2] != 0 || cov[3] != 1 {
		t.Fatalf("coverage at 10^0.5 m²: %v", cov)
	}
}

// A flow band is a line band in log10(m²): min ≤ max, each edge within −20 … 15 — an edge past
// that is an area written in m², and the message says so. Errors name the file, the layer and the
// rule; four stored channels and flow are one slot too many, said with flow named apart.
func TestFlowValidation(t *testing.T) {
	for _, tc := range []struct {
		rule string
		want string // "" = valid
	}{
		{"{input: flow, min: 5, softness: 0.5}", ""},
		{"{input: flow, min: 3, max: 6, jitter: 0.2}", ""},
		{"{input: flow, max: -1.5}", ""},
		{"{input: flow, min: 100000}", `layers[1] "reeds" rules[0]: flow min 100000 is outside -20 … 15: a flow band is written in log10(m²)`},
		{"{input: flow, min: 2, max: 1e6}", `layers[1] "reeds" rules[0]: flow max 1e+06 is outside -20 … 15`},
		{"{input: flow, min: 6, max: 5}", `layers[1] "reeds" rules[0]: min 6 > max 5`},
		{"{input: flow, min: .nan}", `layers[1] "reeds" rules[0]: min is .nan`},
		{"{input: flow, min: 4, softness: -0.5}", `layers[1] "reeds" rules[0]: negative softness`},
	} {
		src := "layers:\n  - name: ground\n  - name: reeds\n    rules:\n      - " + tc.rule + "\n"
		s, err := Parse([]byte(src), "wetland.yaml")
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		_, err = Pack(s, testGeom)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.rule, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: packed, want %q", tc.rule, tc.want)
			continue
		}
		ve := &ValidationError{File: "wetland.yaml", Problems: Errors(Validate(s))}
		if msg := ve.Error(); !strings.Contains(msg, "wetland.yaml: "+tc.want) {
			t.Errorf("%s: %q, want %q", tc.rule, msg, tc.want)
		}
	}
	src := `layers:
  - name: ground
  - name: a
    rules:
      - {input: channel, channel: c1, min: 1}
      - {input: channel, channel: c2, min: 1}
      - {input: mask, channel: m3, min: 0.5}
      - {input: mask, channel: m4, min: 0.5}
  - name: b
    rules:
      - {input: flow, min: 4}
`
	s, err := Parse([]byte(src), "five.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ve := &ValidationError{File: "five.yaml", Problems: Errors(Validate(s))}
	if msg := ve.Error(); !strings.Contains(msg, "4 distinct channels (c1, c2, mask.m3, mask.m4) and flow, which takes a channel slot of its own: at most 4 can be bound") {
		t.Fatalf("4 channels and flow: %q", msg)
	}
	s.Layers[2].Rules[0].Disabled = true // flow off: the four channels fit
	if ps := Errors(Validate(s)); len(ps) != 0 {
		t.Fatalf("flow switched off: %v", ps)
	}
}
