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
}

// population is a terrain.scatter's population and the node that added it (errors name it).
type population struct {
	spec stack.Population
	node *node
}

// maskChannel is the field channel holding mask layer name.
func maskChannel(name string) string { return field.MaskPrefix + name }

// derive returns a copy of r that shares its grids and can be changed without changing r.
func (r *raster) derive() *raster {
	f := field.Field{Placement: r.field.Placement, Height: r.field.Height, Channels: make(map[string]*field.Grid, len(r.field.Channels)+1)}
	for k, v := range r.field.Channels {
		f.Channels[k] = v
	}
	return &raster{field: &f, populations: append([]population(nil), r.populations...)}
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
