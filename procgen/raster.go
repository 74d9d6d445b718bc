package procgen

import (
	"sort"
	"strings"

	"strata/field"
	"strata/stack"
)

// raster is what flows along a graph's edges: the ground — its placement, height grid and field
// channels, where the mask layer NAME is the channel mask.NAME (0..1, the height's grid) — and the
// populations to scatter once it is written. Nodes never change a raster they are given: each
// returns a new one sharing the grids it did not replace, so branches of a graph cannot see each
// other's masks.
type raster struct {
	field       *field.Field
	populations []population

	// sole is set by the evaluator on an input whose last reader is the node running: derive
	// then hands the raster itself over (moved) instead of copying its channel map, so a chain
	// of N nodes costs N steps, not N²/2 map copies. changed records the grids a moved raster
	// gained and lost (setChannel, setHeight), for the evaluator's memory count.
	sole, moved bool
	changed     []gridChange
}

// gridChange is one grid replaced in a moved raster: old (nil when none) by new (nil: removed).
type gridChange struct{ old, new *field.Grid }

// population is a terrain.scatter's population and the node that added it (errors name it).
type population struct {
	spec stack.Population
	node *node
}

// maskChannel is the field channel holding mask layer name.
func maskChannel(name string) string { return field.MaskPrefix + name }

// derive returns a copy of r that shares its grids and can be changed without changing r.
func (r *raster) derive() *raster {
	if r.sole {
		r.sole, r.moved = false, true
		return r
	}
	f := field.Field{Placement: r.field.Placement, Height: r.field.Height, Channels: make(map[string]*field.Grid, len(r.field.Channels)+1)}
	for k, v := range r.field.Channels {
		f.Channels[k] = v
	}
	return &raster{field: &f, populations: append([]population(nil), r.populations...)}
}

// setChannel sets field channel name to g (nil removes it).
func (r *raster) setChannel(name string, g *field.Grid) {
	old := r.field.Channels[name]
	if g == nil {
		delete(r.field.Channels, name)
	} else {
		r.field.Channels[name] = g
	}
	if r.moved && old != g {
		r.changed = append(r.changed, gridChange{old: old, new: g})
	}
}

// setHeight replaces the height grid.
func (r *raster) setHeight(g *field.Grid) {
	old := r.field.Height
	r.field.Height = g
	if r.moved && old != g {
		r.changed = append(r.changed, gridChange{old: old, new: g})
	}
}

// grids calls fn for each grid the raster holds: its height and every channel.
func (r *raster) grids(fn func(*field.Grid)) {
	if r.field.Height != nil {
		fn(r.field.Height)
	}
	for _, g := range r.field.Channels {
		if g != nil {
			fn(g)
		}
	}
}

// mask returns mask layer name, nil when the raster has none of that name.
func (r *raster) mask(name string) *field.Grid { return r.field.Channels[maskChannel(name)] }

// maskNames lists the raster's mask layers, sorted, for messages.
func (r *raster) maskNames() string {
	var n []string
	for k := range r.field.Channels {
		if m, ok := strings.CutPrefix(k, field.MaskPrefix); ok {
			n = append(n, m)
		}
	}
	sort.Strings(n)
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

// channelNames lists the raster's field channels (masks included, as mask.<name>), sorted.
func (r *raster) channelNames() string {
	var n []string
	for k := range r.field.Channels {
		n = append(n, k)
	}
	sort.Strings(n)
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}
