package procgen

import (
	"fmt"
	"os"
	"strings"

	"strata/field"
	"strata/internal/sysmem"
	"strata/stack"
)

// What a graph holds while it evaluates. Each node's raster shares the grids it did not replace,
// so what is held is the distinct grids of the rasters still waiting for a reader. The evaluator
// counts them (gridCount), refuses a node whose new grids would take the count past
// STRATA_MEMORY_LIMIT or past what the machine has (internal/sysmem), and drops from each raster
// the channels no later node reads or writes (channelNeeds), so a chain of masks that each read
// the last holds two of them, not all.

// chanSet is a set of field channel names, or every channel (all).
type chanSet struct {
	all   bool
	names map[string]bool
}

func (s *chanSet) add(name string) {
	if name == "" || s.all {
		return
	}
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.names[name] = true
}

func (s *chanSet) union(o *chanSet) {
	if o == nil || s.all {
		return
	}
	if o.all {
		s.all, s.names = true, nil
		return
	}
	for k := range o.names {
		s.add(k)
	}
}

func (s *chanSet) has(name string) bool { return s.all || s.names[name] }

// ruleReads adds the channels rules read.
func (s *chanSet) ruleReads(rules []stack.Rule) {
	for i := range rules {
		s.add(rules[i].FieldChannel())
	}
}

// channelNeeds returns, for each node of ord (dependencies first), the channels its output must
// keep: what later nodes read (a mask's input, a combine's own mask, a write's layers, channels
// and holes, the rules of the populations the raster carries to its write) and what they pass on
// unread. A terrain.stack reads any channel its stack.yaml names, so everything before one is
// kept.
func channelNeeds(ord []*node) map[*node]*chanSet {
	// carried: the channels the populations a raster carries will read when it is written.
	carried := map[*node]*chanSet{}
	for _, n := range ord {
		c := &chanSet{}
		if ed, ok := n.inputs["raster"]; ok {
			c.union(carried[ed.from])
		}
		switch n.typ.name {
		case "terrain.scatter":
			c.ruleReads(scatterSpec(n).Rules)
		case "terrain.stack":
			c.all = true
		}
		carried[n] = c
	}
	out := map[*node]*chanSet{}
	for _, n := range ord {
		out[n] = &chanSet{}
	}
	for i := len(ord) - 1; i >= 0; i-- {
		n := ord[i]
		ed, ok := n.inputs["raster"]
		if !ok {
			continue
		}
		in := &chanSet{}
		switch n.typ.name {
		case "terrain.write":
			for _, l := range n.params["layers"].value.([]layerSpec) {
				in.add(maskChannel(l.Name))
			}
			if n.has("channels") {
				for _, c := range n.params["channels"].value.([]string) {
					in.add(c)
				}
			}
			if n.has("holes") {
				in.add(maskChannel(n.str("holes", "")))
			}
			in.union(carried[ed.from])
		case "terrain.mask":
			own := maskChannel(maskName(n))
			if !out[n].all {
				for k := range out[n].names {
					if k != own {
						in.add(k)
					}
				}
			} else {
				in.all = true
			}
			in.ruleReads(maskStack(n).Populations[0].Rules)
			if n.str("combine", "replace") != "replace" {
				in.add(own)
			}
		case "terrain.stack":
			in.all = true
		default: // fbm, scatter: pass every channel on
			in.union(out[n])
		}
		in.union(carried[n])
		out[ed.from].union(in)
	}
	return out
}

// prune drops from r (a raster n just made) the channels keep does not name.
func prune(r *raster, keep *chanSet) {
	if keep == nil || keep.all {
		return
	}
	for name := range r.field.Channels {
		if !keep.has(name) {
			r.setChannel(name, nil)
		}
	}
}

// gridCount counts the distinct grids the live rasters hold: how many rasters hold each, and
// their bytes in all.
type gridCount struct {
	refs  map[*field.Grid]int
	bytes uint64
}

func gridBytes(g *field.Grid) uint64 { return 4 * uint64(len(g.Data)) }

func (c *gridCount) inc(g *field.Grid) {
	if g == nil {
		return
	}
	if c.refs == nil {
		c.refs = map[*field.Grid]int{}
	}
	if c.refs[g]++; c.refs[g] == 1 {
		c.bytes += gridBytes(g)
	}
}

func (c *gridCount) dec(g *field.Grid) {
	if g == nil || c.refs[g] == 0 {
		return
	}
	if c.refs[g]--; c.refs[g] == 0 {
		delete(c.refs, g)
		c.bytes -= gridBytes(g)
	}
}

// hold counts every grid of r; release uncounts them.
func (c *gridCount) hold(r *raster)    { r.grids(c.inc) }
func (c *gridCount) release(r *raster) { r.grids(c.dec) }

// moved applies what a moved raster gained and lost.
func (c *gridCount) moved(r *raster) {
	for _, ch := range r.changed {
		c.inc(ch.new)
		c.dec(ch.old)
	}
	r.changed, r.moved = nil, false
}

// newGrids is how many grids of its input's height grid node n allocates while it evaluates (its
// result and the evaluation's scratch; the bake's own checks weigh a stack's and a write's).
func newGrids(n *node) uint64 {
	switch n.typ.name {
	case "terrain.mask":
		return 2 // the density grid, clamped in place, and the evaluation's tiles
	case "terrain.fbm":
		return 1
	case "terrain.stack", "terrain.write":
		return 2 // the weights and their layers as masks
	}
	return 0
}

// memoryLimit is STRATA_MEMORY_LIMIT in bytes, 0 when unset or unreadable (sysmem reports that).
func memoryLimit() (uint64, string) {
	v := strings.TrimSpace(os.Getenv(sysmem.EnvLimit))
	if v == "" {
		return 0, ""
	}
	n, err := sysmem.ParseBytes(v)
	if err != nil {
		return 0, ""
	}
	return n, sysmem.EnvLimit + "=" + v
}

// checkMemory refuses node n when the grids it would allocate over src, with those the graph
// holds, pass STRATA_MEMORY_LIMIT, or the grids alone pass what the machine can give now.
func (e *evaluator) checkMemory(n *node, src *raster) error {
	if src == nil || src.field.Height == nil {
		return nil // a source weighs its grid itself, once it knows its size (checkGrids)
	}
	w, h := src.field.Height.W, src.field.Height.H
	return e.checkGrids(n, newGrids(n)*4*uint64(w)*uint64(h), w, h)
}

// checkGrids refuses node n when need more bytes of w×h grids, with those the graph holds, pass
// STRATA_MEMORY_LIMIT, or need alone passes what the machine can give now.
func (e *evaluator) checkGrids(n *node, need uint64, w, h int) error {
	if lim, what := memoryLimit(); lim > 0 && e.held.bytes+need > lim {
		return n.errf(n.pos, "", "%w: the graph would hold %s of grids with this node's (%d held, %s; its own %s over %d×%d), more than %s; read fewer masks after this point, write fewer channels, or use a coarser resolution",
			sysmem.ErrInsufficient, sysmem.Format(e.held.bytes+need), len(e.held.refs), sysmem.Format(e.held.bytes), sysmem.Format(need), w, h, what)
	}
	if need >= 16<<20 { // below, the machine's headroom is not worth reading files for
		if err := sysmem.Check(need, fmt.Sprintf("node %s over %d×%d", n.label(), w, h)); err != nil {
			return n.errf(n.pos, "", "%v (the graph holds %s already)", err, sysmem.Format(e.held.bytes))
		}
	}
	return nil
}
