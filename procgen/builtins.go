package procgen

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// The sandbox's replacements for the built-ins that do unbounded work in Go, where neither the
// script's timeout nor the caller's context reaches: gopher-lua's gsub copied the whole string per
// match (200 000 characters took 34 s under a 2 s timeout), its gmatch collected every match
// before the first was returned, table.concat and string.rep allocated whatever was asked, and a
// yield inside a metamethod crashed the interpreter. Here every loop asks the context every few
// thousand steps, every string a built-in makes is at most maxString bytes, and an allocation
// whose size is known is weighed against the memory limit before it is made (memGuard.reserve).

// maxString caps every string a built-in makes (string.rep, gsub, format, table.concat): a
// script asking for gigabytes is stopped with an error instead of taking the machine's memory in
// one allocation.
const maxString = 64 << 20

// checkEvery is how many iterations a built-in's loop runs between looks at the context.
const checkEvery = 1 << 10

// builtinHook, when set (tests), is called as each bounded built-in starts, with its name: a test
// cancels the run there to see that the built-in itself stops.
var builtinHook func(name string)

func entered(name string) {
	if builtinHook != nil {
		builtinHook(name)
	}
}

// stopped records where the script was first stopped (the Lua line calling the built-in).
func (g *memGuard) stopped(L *lua.LState) {
	if g != nil && g.stoppedAt == "" {
		g.stoppedAt = L.Where(1)
	}
}

// checkStop raises the context's cause when the script has been stopped (its timeout, the memory
// limit, the caller's cancel): a built-in's loop calls it every checkEvery iterations.
func checkStop(L *lua.LState, g *memGuard) {
	if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
		g.stopped(L)
		L.RaiseError("%v", context.Cause(ctx))
	}
}

// stopCheck is checkStop as a luapm check.
func stopCheck(L *lua.LState) func() error {
	ctx := L.Context()
	if ctx == nil {
		return nil
	}
	return func() error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
}

// clip shortens s for a message: at most n bytes (on a rune boundary) and how long it was.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}

// bytesOf is s's bytes without a copy; the matcher only reads them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// installBuiltins replaces the built-ins of L's string, table and coroutine libraries that the
// sandbox bounds.
func installBuiltins(L *lua.LState, g *memGuard) {
	if s, ok := L.GetGlobal("string").(*lua.LTable); ok {
		format, _ := s.RawGetString("format").(*lua.LFunction)
		s.RawSetString("rep", L.NewFunction(func(L *lua.LState) int { return strRep(L, g) }))
		s.RawSetString("find", L.NewFunction(func(L *lua.LState) int { return strFind(L, g) }))
		s.RawSetString("match", L.NewFunction(func(L *lua.LState) int { return strMatch(L, g) }))
		s.RawSetString("gmatch", L.NewFunction(func(L *lua.LState) int { return strGmatch(L, g) }))
		s.RawSetString("gsub", L.NewFunction(func(L *lua.LState) int { return strGsub(L, g) }))
		// reverse is the sandbox's own: gopher-lua's makes a []byte copy and then the string
		// from it (twice the bytes weighed); this one makes the string alone.
		s.RawSetString("reverse", L.NewFunction(func(L *lua.LState) int { return sameSize(L, g, "string.reverse", strReverse) }))
		for _, name := range []string{"upper", "lower"} {
			if f, ok := s.RawGetString(name).(*lua.LFunction); ok && f.IsG {
				s.RawSetString(name, L.NewFunction(func(L *lua.LState) int { return sameSize(L, g, "string."+name, f.GFunction) }))
			}
		}
		if format != nil && format.IsG {
			s.RawSetString("format", L.NewFunction(func(L *lua.LState) int { return strFormat(L, g, format.GFunction) }))
		}
	}
	if s, ok := L.GetGlobal("string").(*lua.LTable); ok {
		if b, ok := s.RawGetString("byte").(*lua.LFunction); ok && b.IsG {
			s.RawSetString("byte", L.NewFunction(func(L *lua.LState) int { return capResults(L, "string.byte", b.GFunction, byteCount) }))
		}
	}
	if u, ok := L.GetGlobal("unpack").(*lua.LFunction); ok && u.IsG {
		L.SetGlobal("unpack", L.NewFunction(func(L *lua.LState) int { return capResults(L, "unpack", u.GFunction, unpackCount) }))
	}
	if t, ok := L.GetGlobal("table").(*lua.LTable); ok {
		t.RawSetString("concat", L.NewFunction(func(L *lua.LState) int { return tableConcat(L, g) }))
		t.RawSetString("sort", L.NewFunction(func(L *lua.LState) int { return tableSort(L, g) }))
	}
	if c, ok := L.GetGlobal("coroutine").(*lua.LTable); ok {
		if y, ok := c.RawGetString("yield").(*lua.LFunction); ok && y.IsG {
			c.RawSetString("yield", L.NewFunction(func(L *lua.LState) int { return coYield(L, y.GFunction) }))
		}
	}
}

// maxResults is how many values one built-in may return (Lua 5.1's LUAI_MAXCSTACK): each is
// pushed on the stack, and string.byte(s, 1, -1) of a long string or unpack({}, 1, 1e9) would
// push millions.
const maxResults = 8000

// capResults calls orig after refusing a call that would return more than maxResults values, as
// count (from the arguments) says.
func capResults(L *lua.LState, name string, orig lua.LGFunction, count func(L *lua.LState) int64) int {
	if n := count(L); n > maxResults {
		L.RaiseError("%s: %d results are more than the %d one call may return (too many results)", name, n, maxResults)
	}
	return orig(L)
}

// byteCount is how many values string.byte(s, i, j) returns.
func byteCount(L *lua.LState) int64 {
	s, ok := L.Get(1).(lua.LString)
	if !ok || L.GetTop() < 3 {
		return 1
	}
	n := int64(len(s))
	i, j := int64(L.OptInt(2, 1)), int64(L.OptInt(3, -1))
	if i < 0 {
		i = n + i + 1
	}
	if j < 0 {
		j = n + j + 1
	}
	return min(j, n) - max(i, 1) + 1
}

// unpackCount is how many values unpack(t, i, j) returns.
func unpackCount(L *lua.LState) int64 {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return 0
	}
	i := int64(L.OptInt(2, 1))
	j := int64(L.OptInt(3, t.Len()))
	return j - i + 1
}

// strRep is string.rep with its result capped at maxString bytes and weighed against the memory
// limit before it is made.
func strRep(L *lua.LState, g *memGuard) int {
	entered("rep")
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if n > maxString/len(s) {
		L.RaiseError("string.rep: %d × %d bytes is more than the sandbox's %d MiB for one string", n, len(s), maxString>>20)
	}
	g.reserve(L, uint64(n)*uint64(len(s)), "string.rep")
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// sameSize calls orig, a built-in whose result is as long as its first argument (string.upper,
// lower, reverse), after weighing that copy.
func sameSize(L *lua.LState, g *memGuard, name string, orig lua.LGFunction) int {
	if s, ok := L.Get(1).(lua.LString); ok {
		g.reserve(L, uint64(len(s)), name)
	}
	return orig(L)
}

// strReverse is string.reverse: the bytes of its argument in reverse order, built in one
// allocation of the result's size.
func strReverse(L *lua.LState) int {
	str := L.CheckString(1)
	var b strings.Builder
	b.Grow(len(str))
	for i := len(str) - 1; i >= 0; i-- {
		b.WriteByte(str[i])
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// strFormat is string.format with Lua 5.1's bound on widths and precisions (two digits) and its
// result's size weighed before it is made: gopher-lua handed "%999999999d" to fmt.
func strFormat(L *lua.LState, g *memGuard, orig lua.LGFunction) int {
	entered("format")
	f := L.CheckString(1)
	size, arg := uint64(len(f)), 2
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		digits := func() {
			n := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
				if n++; n > 2 {
					L.RaiseError("string.format: invalid format %q (width or precision longer than two digits)", clip(f, 60))
				}
			}
		}
		digits()
		if i < len(f) && f[i] == '.' {
			i++
			digits()
		}
		if i >= len(f) {
			L.RaiseError("string.format: invalid format %q (ends inside a conversion)", clip(f, 60))
		}
		size += 512 // a number: at most 99 digits of precision and a float64's 309
		if c := f[i]; (c == 's' || c == 'q') && arg <= L.GetTop() {
			// fmt prints a string, or a value's String(): a table's address, not its __tostring.
			if v, ok := L.Get(arg).(lua.LString); ok {
				size += 2*uint64(len(v)) + 2
			} else {
				size += 64
			}
		}
		arg++
		if size > maxString {
			L.RaiseError("string.format: the result would be more than the sandbox's %d MiB for one string", maxString>>20)
		}
	}
	g.reserve(L, size, "string.format")
	return orig(L)
}

// tableConcat is table.concat with the result's size added up, capped and weighed before any of
// it is made (gopher-lua pushed every piece on the stack and joined whatever came), asking the
// context as it goes.
func tableConcat(L *lua.LState, g *memGuard) int {
	entered("concat")
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := t.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	i = max(min(i, n), 1)
	j = min(j, n)
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	size := 0
	for k := i; k <= j; k++ {
		if k%checkEvery == 0 {
			checkStop(L, g)
		}
		v := t.RawGetInt(k)
		if !lua.LVCanConvToString(v) {
			L.RaiseError("table.concat: invalid value (a %s) at index %d", v.Type(), k)
		}
		size += len(lua.LVAsString(v))
		if k < j {
			size += len(sep)
		}
		if size > maxString {
			L.RaiseError("table.concat: the result would be more than the sandbox's %d MiB for one string (at index %d)", maxString>>20, k)
		}
	}
	g.reserve(L, uint64(size), "table.concat")
	var b strings.Builder
	b.Grow(size)
	for k := i; k <= j; k++ {
		b.WriteString(lua.LVAsString(t.RawGetInt(k)))
		if k < j {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// tableSort is table.sort asking the context every checkEvery comparisons: sorting tens of
// millions of values runs in Go for many seconds.
func tableSort(L *lua.LState, g *memGuard) int {
	entered("sort")
	t := L.CheckTable(1)
	var fn *lua.LFunction
	if L.GetTop() != 1 {
		fn = L.CheckFunction(2)
	}
	n := t.Len()
	g.reserve(L, uint64(n)*16, "table.sort")
	s := &sorter{L: L, g: g, fn: fn, v: make([]lua.LValue, n)}
	for k := range s.v {
		s.v[k] = t.RawGetInt(k + 1)
	}
	sort.Sort(s)
	for k, v := range s.v {
		t.RawSetInt(k+1, v)
	}
	return 0
}

type sorter struct {
	L     *lua.LState
	g     *memGuard
	fn    *lua.LFunction
	v     []lua.LValue
	calls int
}

func (s *sorter) Len() int      { return len(s.v) }
func (s *sorter) Swap(i, j int) { s.v[i], s.v[j] = s.v[j], s.v[i] }
func (s *sorter) Less(i, j int) bool {
	if s.calls++; s.calls%checkEvery == 0 {
		checkStop(s.L, s.g)
	}
	if s.fn == nil {
		return s.L.LessThan(s.v[i], s.v[j])
	}
	s.L.Push(s.fn)
	s.L.Push(s.v[i])
	s.L.Push(s.v[j])
	s.L.Call(2, 1)
	r := s.L.Get(-1)
	s.L.Pop(1)
	return lua.LVAsBool(r)
}

// coYield is coroutine.yield refusing, as Lua 5.1 does, a yield across a call from Go — inside a
// metamethod, a for-in iterator, pcall, table.sort's comparison, gsub's function: gopher-lua
// resumed such a coroutine into a nil pointer dereference, or ran on in a wrong state.
func coYield(L *lua.LState, orig lua.LGFunction) int {
	if yieldAcrossGo() {
		L.RaiseError("coroutine.yield: cannot yield across a metamethod, an iterator, pcall or a function called by a built-in (yield from the coroutine's own Lua functions)")
	}
	return orig(L)
}

// yieldAcrossGo reports whether the running coroutine has called into Lua from Go since it was
// resumed: a gopher-lua callR (the way Go calls Lua, metamethods and iterators included) between
// this yield and the coroutine's threadRun on the Go stack.
func yieldAcrossGo() bool {
	const pkg = "github.com/yuin/gopher-lua."
	pcs := make([]uintptr, 64)
	called := false
	for skip := 2; ; skip += len(pcs) {
		n := runtime.Callers(skip, pcs)
		if n == 0 {
			return false // no threadRun: the main state, which the original refuses
		}
		frames := runtime.CallersFrames(pcs[:n])
		for {
			f, more := frames.Next()
			switch f.Function {
			case pkg + "threadRun":
				return called
			case pkg + "(*LState).callR":
				called = true
			}
			if !more {
				break
			}
		}
		if n < len(pcs) {
			return false
		}
	}
}
