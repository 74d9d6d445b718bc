package procgen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The graph API a script sees (the terrainData seed's): proc.graph(), g:node(name, type), and a
// node's chainable :input(slot, node) and :param(key, value). Each call checks what it can at
// once and raises an Error naming the node, the param and the line; what needs the whole graph
// (missing inputs, cycles, params that depend on each other) is checked when the script returns.

const (
	graphMeta = "procgen.graph"
	nodeMeta  = "procgen.node"
)

// builder collects the graphs one script builds.
type builder struct {
	graphs []*graph
	// pending is the Error last raised into Lua, so the run can return it whole when the script
	// does not catch it.
	pending *Error
	// maxNodes bounds the nodes of one script (a runaway loop is stopped with a message).
	maxNodes int
	nodes    int
}

// maxNodes is how many nodes one script may create.
const maxNodes = 100000

// maxNameBytes bounds a node's name: every message about the node quotes it.
const maxNameBytes = 256

// maxMessage bounds the text of a Lua error the run reports (error(string.rep("x", 1e7)) would
// print ten megabytes): longer ones are cut, saying how long they were.
const maxMessage = 2048

// install puts proc and the two userdata types into L.
func (b *builder) install(L *lua.LState) {
	gm := L.NewTypeMetatable(graphMeta)
	gm.RawSetString("__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{"node": b.node}))
	gm.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		if g, ok := L.CheckUserData(1).Value.(*graph); ok {
			L.Push(lua.LString(fmt.Sprintf("graph %d (%d nodes)", g.index+1, len(g.nodes))))
			return 1
		}
		return 0
	}))
	nm := L.NewTypeMetatable(nodeMeta)
	nm.RawSetString("__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{"input": b.input, "param": b.param}))
	nm.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		if n, ok := L.CheckUserData(1).Value.(*node); ok {
			L.Push(lua.LString("node " + n.label()))
			return 1
		}
		return 0
	}))
	proc := L.NewTable()
	proc.RawSetString("graph", L.NewFunction(b.graph))
	L.SetGlobal("proc", proc)
}

// where is the script position of the Lua code calling the current Go function.
func where(L *lua.LState) Pos {
	w := strings.TrimSuffix(L.Where(1), ":")
	i := strings.LastIndexByte(w, ':')
	if i < 0 {
		return Pos{File: w}
	}
	line, err := strconv.Atoi(w[i+1:])
	if err != nil {
		return Pos{File: w}
	}
	return Pos{File: w[:i], Line: line}
}

// raise stops the script with e (Lua may catch it with pcall, as with any error).
func (b *builder) raise(L *lua.LState, e *Error) {
	b.pending = e
	L.Error(lua.LString(e.Error()), 0)
}

// raiseAt stops the script with an error at the calling line that names no node.
func (b *builder) raiseAt(L *lua.LState, format string, a ...any) {
	b.raise(L, &Error{Pos: where(L), Err: fmt.Errorf(format, a...)})
}

func (b *builder) graph(L *lua.LState) int {
	g := &graph{index: len(b.graphs), pos: where(L), byName: map[string]*node{}}
	b.graphs = append(b.graphs, g)
	ud := L.NewUserData()
	ud.Value = g
	L.SetMetatable(ud, L.GetTypeMetatable(graphMeta))
	L.Push(ud)
	return 1
}

func (b *builder) self(L *lua.LState, method string) any {
	ud, ok := L.Get(1).(*lua.LUserData)
	if !ok {
		b.raiseAt(L, "%s: call it with a colon, x:%s(…), on a graph or node (got %s as self)", method, method, describe(L.Get(1)))
	}
	return ud.Value
}

func (b *builder) node(L *lua.LState) int {
	g, ok := b.self(L, "node").(*graph)
	if !ok {
		b.raiseAt(L, "node: call it on a graph, g:node(name, type)")
	}
	name, ok1 := L.Get(2).(lua.LString)
	typ, ok2 := L.Get(3).(lua.LString)
	switch {
	case !ok1 || name == "":
		b.raiseAt(L, "g:node(name, type): name must be a non-empty string, got %s", describe(L.Get(2)))
	case len(name) > maxNameBytes:
		b.raiseAt(L, "g:node(name, type): name %q is %d bytes; a node's name is at most %d", clip(string(name), 40), len(name), maxNameBytes)
	case !ok2:
		b.raiseAt(L, "g:node(%q, type): type must be a string, got %s", string(name), describe(L.Get(3)))
	}
	t := nodeTypes[string(typ)]
	if t == nil {
		b.raise(L, &Error{Pos: where(L), Node: string(name), Type: clip(string(typ), 60),
			Err: fmt.Errorf("unknown node type %q (known: %s)", clip(string(typ), 60), strings.Join(typeNames(), ", "))})
	}
	if old := g.byName[string(name)]; old != nil {
		b.raise(L, &Error{Pos: where(L), Node: string(name), Type: t.name,
			Err: fmt.Errorf("this graph already has a node of that name (made at %s)", old.pos)})
	}
	if b.nodes >= b.maxNodes {
		b.raiseAt(L, "more than %d nodes: a script builds graphs, not one node per texel", b.maxNodes)
	}
	b.nodes++
	n := &node{g: g, name: string(name), typ: t, pos: where(L), inputs: map[string]edge{}, params: map[string]param{}}
	g.nodes = append(g.nodes, n)
	g.byName[n.name] = n
	ud := L.NewUserData()
	ud.Value = n
	L.SetMetatable(ud, L.GetTypeMetatable(nodeMeta))
	L.Push(ud)
	return 1
}

func (b *builder) input(L *lua.LState) int {
	n, ok := b.self(L, "input").(*node)
	if !ok {
		b.raiseAt(L, "input: call it on a node, n:input(slot, node)")
	}
	slot, ok := L.Get(2).(lua.LString)
	if !ok {
		b.raise(L, n.errf(where(L), "", ":input(slot, node): slot must be a string, got %s", describe(L.Get(2))))
	}
	what := "input " + quote(clip(string(slot), 60))
	if !n.typ.hasInput(string(slot)) {
		if len(n.typ.inputs) == 0 {
			b.raise(L, n.errf(where(L), what, "%s takes no input", n.typ.name))
		}
		b.raise(L, n.errf(where(L), what, "unknown input (%s takes %s)", n.typ.name, quoteList(n.typ.inputs)))
	}
	ud, ok := L.Get(3).(*lua.LUserData)
	from, ok2 := (*node)(nil), false
	if ok {
		from, ok2 = ud.Value.(*node)
	}
	switch {
	case !ok2:
		b.raise(L, n.errf(where(L), what, "want a node, got %s", describe(L.Get(3))))
	case from.g != n.g:
		b.raise(L, n.errf(where(L), what, "node %s belongs to another graph", from.label()))
	case from.typ.writes:
		b.raise(L, n.errf(where(L), what, "node %s writes a container and produces no raster", from.label()))
	}
	n.inputs[string(slot)] = edge{from: from, pos: where(L)}
	L.Push(L.Get(1))
	return 1
}

func (b *builder) param(L *lua.LState) int {
	n, ok := b.self(L, "param").(*node)
	if !ok {
		b.raiseAt(L, "param: call it on a node, n:param(key, value)")
	}
	key, ok := L.Get(2).(lua.LString)
	if !ok {
		b.raise(L, n.errf(where(L), "", ":param(key, value): key must be a string, got %s", describe(L.Get(2))))
	}
	what := "param " + quote(clip(string(key), 60))
	spec := n.typ.spec(string(key))
	if spec == nil {
		b.raise(L, n.errf(where(L), what, "unknown param (%s takes %s)", n.typ.name, strings.Join(n.typ.paramKeys(), ", ")))
	}
	if L.GetTop() < 3 || L.Get(3) == lua.LNil {
		b.raise(L, n.errf(where(L), what, "no value (want %s)", spec.kindName()))
	}
	v, err := spec.convert(L.Get(3))
	if err != nil {
		b.raise(L, n.errf(where(L), what, "%v", err))
	}
	n.params[string(key)] = param{value: v, pos: where(L)}
	L.Push(L.Get(1))
	return 1
}

// luaError turns what PCall returned into an Error: the one the API raised when the script let it
// through, else the Lua error with its position.
func (b *builder) luaError(err error) error {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return err
	}
	msg := ""
	if ae.Object != nil {
		msg = ae.Object.String()
	}
	if b.pending != nil && msg == b.pending.Error() {
		return b.pending
	}
	if msg == "" {
		msg = ae.Error()
	}
	return scriptError(clip(msg, maxMessage))
}
