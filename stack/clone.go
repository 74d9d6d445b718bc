package stack

// Clone returns a deep copy of s: the editor keeps every state of a stack as an immutable value
// (the pipeline evaluates one while the artist edits the next), so an edit copies, changes the
// copy and hands it over, and undo keeps the old value as it was.
func (s *Stack) Clone() *Stack {
	if s == nil {
		return nil
	}
	c := *s
	c.GradientStep = clonePtr(s.GradientStep)
	c.Layers = make([]Layer, len(s.Layers))
	for i, l := range s.Layers {
		c.Layers[i] = cloneLayer(l)
	}
	c.Populations = make([]Population, len(s.Populations))
	for i, p := range s.Populations {
		p.Rules = cloneRules(p.Rules)
		c.Populations[i] = p
	}
	return &c
}

// cloneLayer is a deep copy of l: its rules (and their pointer fields) are its own.
func cloneLayer(l Layer) Layer {
	l.Rules = cloneRules(l.Rules)
	return l
}

func cloneRules(rs []Rule) []Rule {
	if rs == nil {
		return nil
	}
	out := make([]Rule, len(rs))
	for i, r := range rs {
		r.Min, r.Max, r.FeatureSize = clonePtr(r.Min), clonePtr(r.Max), clonePtr(r.FeatureSize)
		out[i] = r
	}
	return out
}

func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
