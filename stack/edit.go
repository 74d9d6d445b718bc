package stack

import (
	"fmt"
	"strconv"
)

// Editing operations on a stack value, for the editor: each keeps the stack valid where the
// plain slice operation would not (a renamed or removed layer that a population reads).

// UniqueLayerName returns base, or base with a number, that no layer of s is called yet.
func (s *Stack) UniqueLayerName(base string) string {
	return unique(base, func(n string) bool { return s.LayerIndex(n) >= 0 })
}

// UniquePopulationName is UniqueLayerName for populations.
func (s *Stack) UniquePopulationName(base string) string {
	return unique(base, func(n string) bool {
		for _, p := range s.Populations {
			if p.Name == n {
				return true
			}
		}
		return false
	})
}

func unique(base string, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	for k := 2; ; k++ {
		if n := base + " " + strconv.Itoa(k); !taken(n) {
			return n
		}
	}
}

// AddLayer puts l on top of the stack.
func (s *Stack) AddLayer(l Layer) error {
	if len(s.Layers) >= MaxLayers {
		return fmt.Errorf("stack: a stack holds at most %d layers", MaxLayers)
	}
	s.Layers = append(s.Layers, l)
	return nil
}

// DuplicateLayer puts a copy of layer i (rules included, a new name) right above it.
func (s *Stack) DuplicateLayer(i int) error {
	if i < 0 || i >= len(s.Layers) {
		return fmt.Errorf("stack: no layer %d", i)
	}
	if len(s.Layers) >= MaxLayers {
		return fmt.Errorf("stack: a stack holds at most %d layers", MaxLayers)
	}
	c := cloneLayer(s.Layers[i])
	c.Name = s.UniqueLayerName(c.Name + " copy")
	s.Layers = append(s.Layers[:i+1], append([]Layer{c}, s.Layers[i+1:]...)...)
	return nil
}

// RemoveLayer removes layer i and every population rule that read its weight (a population
// rule naming a missing layer would not validate).
func (s *Stack) RemoveLayer(i int) error {
	if i < 0 || i >= len(s.Layers) {
		return fmt.Errorf("stack: no layer %d", i)
	}
	if len(s.Layers) == 1 {
		return fmt.Errorf("stack: the ground layer is the last one; a stack needs a layer")
	}
	name := s.Layers[i].Name
	s.Layers = append(s.Layers[:i], s.Layers[i+1:]...)
	for p := range s.Populations {
		rules := s.Populations[p].Rules[:0]
		for _, r := range s.Populations[p].Rules {
			if !(r.Input == InputLayer && r.Layer == name) {
				rules = append(rules, r)
			}
		}
		s.Populations[p].Rules = rules
	}
	return nil
}

// MoveLayer moves layer from to position to (both bottom-up indices), shifting those between.
func (s *Stack) MoveLayer(from, to int) error {
	n := len(s.Layers)
	if from < 0 || from >= n || to < 0 || to >= n {
		return fmt.Errorf("stack: move layer %d to %d: the stack has %d layers", from, to, n)
	}
	l := s.Layers[from]
	s.Layers = append(s.Layers[:from], s.Layers[from+1:]...)
	s.Layers = append(s.Layers[:to], append([]Layer{l}, s.Layers[to:]...)...)
	return nil
}

// RenameLayer renames layer i; population rules reading it follow the new name.
func (s *Stack) RenameLayer(i int, name string) error {
	if i < 0 || i >= len(s.Layers) {
		return fmt.Errorf("stack: no layer %d", i)
	}
	if name == "" {
		return fmt.Errorf("stack: a layer needs a name")
	}
	if j := s.LayerIndex(name); j >= 0 && j != i {
		return fmt.Errorf("stack: a layer is already called %q", name)
	}
	old := s.Layers[i].Name
	s.Layers[i].Name = name
	for p := range s.Populations {
		for k := range s.Populations[p].Rules {
			if r := &s.Populations[p].Rules[k]; r.Input == InputLayer && r.Layer == old {
				r.Layer = name
			}
		}
	}
	return nil
}
