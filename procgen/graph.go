package procgen

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Pos is a place in a script: the file as it was named to the run and a 1-based line.
type Pos struct {
	File string
	Line int
}

// String is "file:line", or "" when the place is unknown.
func (p Pos) String() string {
	if p.File == "" {
		return ""
	}
	if p.Line <= 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// Error is what a script did wrong, said the way its author finds it: the script's file:line,
// the node (its name and type) and the param or input, and why. Lua errors of the script itself
// (syntax, a nil index) carry only the position.
type Error struct {
	Pos   Pos
	Node  string // "" for an error of the script itself
	Type  string
	Param string // "param \"max\"", "input \"raster\"" or ""
	Err   error
}

func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s + ": ")
	}
	if e.Node != "" {
		fmt.Fprintf(&b, "node %q (%s): ", e.Node, e.Type)
	}
	if e.Param != "" {
		b.WriteString(e.Param + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// luaPos matches gopher-lua's "file:line: " prefix of a runtime error.
var luaPos = regexp.MustCompile(`^(.+?):(\d+): `)

// scriptError turns a Lua error message into an Error, its position split off when it has one.
func scriptError(msg string) *Error {
	if m := luaPos.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[2])
		return &Error{Pos: Pos{File: m[1], Line: line}, Err: errors.New(msg[len(m[0]):])}
	}
	return &Error{Err: errors.New(msg)}
}

// graph is one proc.graph(): named nodes, wired by :input and configured by :param.
type graph struct {
	index  int // order of creation, from 0
	pos    Pos
	nodes  []*node
	byName map[string]*node
}

// node is one g:node(name, type).
type node struct {
	g      *graph
	name   string
	typ    *nodeType
	pos    Pos
	inputs map[string]edge
	params map[string]param
}

// edge is one :input(slot, node).
type edge struct {
	from *node
	pos  Pos
}

// param is one :param(key, value), converted to its Go form (paramKind says which).
type param struct {
	value any
	pos   Pos
}

// errf is an Error about node n, placed at pos.
func (n *node) errf(pos Pos, what string, format string, a ...any) *Error {
	return &Error{Pos: pos, Node: n.name, Type: n.typ.name, Param: what, Err: fmt.Errorf(format, a...)}
}

// paramErr is an Error about param key of n, placed where it was set (or where n was made).
func (n *node) paramErr(key string, format string, a ...any) *Error {
	pos := n.pos
	if p, ok := n.params[key]; ok {
		pos = p.pos
	}
	return n.errf(pos, fmt.Sprintf("param %q", key), format, a...)
}

// has reports whether param key was set.
func (n *node) has(key string) bool { _, ok := n.params[key]; return ok }

// num returns a number param, or def when it was not set.
func (n *node) num(key string, def float64) float64 {
	if p, ok := n.params[key]; ok {
		return p.value.(float64)
	}
	return def
}

// str returns a string param, or def.
func (n *node) str(key, def string) string {
	if p, ok := n.params[key]; ok {
		return p.value.(string)
	}
	return def
}

// flag returns a boolean param, or def.
func (n *node) flag(key string, def bool) bool {
	if p, ok := n.params[key]; ok {
		return p.value.(bool)
	}
	return def
}

// vec2 returns a two-number param, or def.
func (n *node) vec2(key string, def [2]float64) [2]float64 {
	if p, ok := n.params[key]; ok {
		return p.value.([2]float64)
	}
	return def
}

// label is how messages name a node: `"sand" (terrain.mask)`.
func (n *node) label() string { return fmt.Sprintf("%q (%s)", n.name, n.typ.name) }

// order returns the nodes the given ones depend on, and themselves, each once, dependencies first:
// the order to evaluate them in. A missing required input or a cycle is an Error naming the node,
// the input and where it was wired.
func order(targets []*node) ([]*node, error) {
	const (
		unseen = iota
		active
		done
	)
	state := map[*node]int{}
	var out []*node
	type frame struct {
		n     *node
		slots []string
		next  int
	}
	for _, t := range targets {
		if state[t] == done {
			continue
		}
		stack := []*frame{{n: t, slots: t.typ.slotNames()}}
		state[t] = active
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			if f.next == len(f.slots) {
				state[f.n] = done
				out = append(out, f.n)
				stack = stack[:len(stack)-1]
				continue
			}
			slot := f.slots[f.next]
			f.next++
			e, ok := f.n.inputs[slot]
			if !ok {
				return nil, f.n.errf(f.n.pos, fmt.Sprintf("input %q", slot), "is not connected (wire it with :input(%q, node))", slot)
			}
			switch state[e.from] {
			case done:
				continue
			case active:
				var path []string
				for i := range stack {
					if stack[i].n == e.from {
						for _, g := range stack[i:] {
							path = append(path, strconv.Quote(clip(g.n.name, 40)))
						}
						break
					}
				}
				path = append(path, strconv.Quote(clip(e.from.name, 40)))
				return nil, f.n.errf(e.pos, fmt.Sprintf("input %q", slot), "the graph has a cycle: %s", cyclePath(path))
			}
			state[e.from] = active
			stack = append(stack, &frame{n: e.from, slots: e.from.typ.slotNames()})
		}
	}
	return out, nil
}

// maxCycleNames is how many of a cycle's nodes its message names: a cycle of 100 000 nodes made
// a 1.3 MB line.
const maxCycleNames = 6

// cyclePath joins a cycle's quoted names (the first repeated at the end) with arrows, naming the
// first few and the count when it is long.
func cyclePath(path []string) string {
	if len(path) <= maxCycleNames+1 {
		return strings.Join(path, " → ")
	}
	return fmt.Sprintf("%s → … → %s (%d nodes)", strings.Join(path[:maxCycleNames], " → "), path[len(path)-1], len(path)-1)
}

// slotNames lists a node type's input slots, sorted, so evaluation order is deterministic.
func (t *nodeType) slotNames() []string {
	s := append([]string(nil), t.inputs...)
	sort.Strings(s)
	return s
}
