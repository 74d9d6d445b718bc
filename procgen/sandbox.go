package procgen

import (
	"math/rand/v2"
	"reflect"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// The sandbox: a script gets Lua's base functions, string, table, math and coroutine, and the
// graph API — nothing that reaches files, processes, the network or other code. It reads only
// through the graph's asset params (below its folder or --assets) and writes only through
// terrain.write (below --out).

// blocked are the globals a script may not use; reading one raises an error that says so, rather
// than Lua's "attempt to index a nil value".
var blocked = []string{"os", "io", "require", "module", "package", "dofile", "load", "loadfile",
	"loadstring", "debug", "getfenv", "setfenv", "collectgarbage", "channel"}

// newState opens a Lua state with the sandbox's libraries, the bounded built-ins weighing their
// allocations with g; print goes to out.
func newState(out func(string), guard *memGuard) *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 256, RegistrySize: 1024 * 20, RegistryMaxSize: 1024 * 1024,
		// The registry grows by this step, copying itself each time: at gopher-lua's 32, pushing a
		// million values (unpack({}, 1, 1e9)) copied it 30 000 times and never ended.
		RegistryGrowStep: 1 << 16})
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.CoroutineLibName, lua.OpenCoroutine}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	for _, name := range append(blocked, "_printregs") {
		g.RawSetString(name, lua.LNil)
	}
	g.RawSetString("print", L.NewFunction(func(L *lua.LState) int {
		parts := make([]string, L.GetTop())
		size := uint64(0)
		for i := range parts {
			parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
			size += uint64(len(parts[i]) + 1)
		}
		guard.reserve(L, size, "print") // the line it joins
		if out != nil {
			out(strings.Join(parts, "\t"))
		}
		return 0
	}))
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		key := L.Get(2)
		for _, b := range blocked {
			if key.Type() == lua.LTString && string(key.(lua.LString)) == b {
				L.RaiseError("%s is not available in a procgen script: the sandbox has no os, io, require, load*, dofile or debug (read files through the graph's params, write with terrain.write)", b)
			}
		}
		L.Push(lua.LNil)
		return 1
	}))
	L.SetMetatable(g, mt)
	installBuiltins(L, guard)
	if m, ok := L.GetGlobal("math").(*lua.LTable); ok {
		rnd := rand.New(rand.NewPCG(0, 0))
		m.RawSetString("random", L.NewFunction(func(L *lua.LState) int { return mathRandom(L, rnd) }))
		m.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int {
			s := uint64(int64(L.CheckNumber(1)))
			rnd = rand.New(rand.NewPCG(s, 0))
			return 0
		}))
	}
	return L
}

// maxPatternSteps bounds the worst case of one Lua pattern match. gopher-lua's matcher backtracks
// in Go, where the timeout cannot reach it: ".-.-.-.-.-.-.-b" over 40 bytes runs for 20 s, over
// 60 for hours. A match whose worst case is past this bound is refused instead.
const maxPatternSteps = 1e9

// patternCost is the worst-case number of steps of matching pat against n bytes: each unbounded
// repetition (*, -, +) can try every position, each ? two ways, and an unanchored pattern is
// tried at every start.
func patternCost(n int, pat string) float64 {
	steps := float64(max(n, 1))
	if strings.HasPrefix(pat, "^") {
		steps = 1
	}
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '%':
			i++ // the escaped character is an item, not a quantifier
		case '[':
			i++
			if i < len(pat) && pat[i] == '^' {
				i++
			}
			if i < len(pat) && pat[i] == ']' {
				i++
			}
			for i < len(pat) && pat[i] != ']' {
				if pat[i] == '%' {
					i++
				}
				i++
			}
		case '*', '-', '+':
			if i > 0 {
				steps *= float64(max(n, 1))
			}
		case '?':
			steps *= 2
		}
		if steps > 1e300 {
			return steps
		}
	}
	return steps
}

// mathRandom is math.random over the state's own generator, seeded 0 until math.randomseed: a
// script that draws random numbers builds the same graph every run, so a landscape generated again
// (procgen.Rerun) is the same landscape.
func mathRandom(L *lua.LState, r *rand.Rand) int {
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r.Float64()))
	case 1:
		n := L.CheckInt64(1)
		if n < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(r.Int64N(n) + 1))
	default:
		lo, hi := L.CheckInt64(1), L.CheckInt64(2)
		if lo > hi || hi-lo < 0 || hi-lo == 1<<63-1 {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(lo + r.Int64N(hi-lo+1)))
	}
	return 1
}

// fixMethodLines moves each method call's line from the start of its receiver to its first
// argument: gopher-lua places `g:node(…)\n  :param("max", 18)` on the statement's first line, and
// an error about "max" should point at the line that sets it.
func fixMethodLines(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		if c, ok := v.Interface().(*ast.FuncCallExpr); ok && c.Method != "" && len(c.Args) > 0 && c.Args[0].Line() > c.Line() {
			c.SetLine(c.Args[0].Line())
		}
		fixMethodLines(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fixMethodLines(v.Field(i))
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			fixMethodLines(v.Index(i))
		}
	}
}
