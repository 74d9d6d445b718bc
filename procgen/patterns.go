package procgen

import (
	lua "github.com/yuin/gopher-lua"
	"strings"

	"strata/internal/luapm"
)

// string.find, match, gmatch and gsub on the stoppable matcher (internal/luapm): every match
// asks the context as it goes, and gsub builds its result once, weighed against the memory limit.

// compilePattern compiles the pattern of string.<name> after refusing one whose worst case over
// subj is past maxPatternSteps (the matcher is also stopped by the context, but a refusal says
// why at once).
func compilePattern(L *lua.LState, name, subj, pat string) *luapm.Pattern {
	if c := patternCost(len(subj), pat); c > maxPatternSteps {
		L.RaiseError("string.%s: the pattern %q may backtrack about %.2g steps over %d bytes; the sandbox allows %.0g (use fewer repetitions or a shorter string)",
			name, clip(pat, 60), c, len(subj), float64(maxPatternSteps))
	}
	p, err := luapm.Compile(pat)
	if err != nil {
		L.RaiseError("string.%s: malformed pattern %q: %v", name, clip(pat, 60), err)
	}
	return p
}

// findOne is the first match of p in subj from init on, nil when there is none.
func findOne(L *lua.LState, g *memGuard, name string, p *luapm.Pattern, subj string, init int) *luapm.MatchData {
	mds, err := p.Find(bytesOf(subj), init, 1, stopCheck(L))
	if err != nil {
		checkStop(L, g)
		L.RaiseError("string.%s: %v", name, err)
	}
	if len(mds) == 0 {
		return nil
	}
	return mds[0]
}

// pushCaptures pushes match m's captures (the whole match when it has none, with whole) and
// returns how many.
func pushCaptures(L *lua.LState, m *luapm.MatchData, subj string, whole bool) int {
	if m.CaptureLength() <= 2 {
		if !whole {
			return 0
		}
		L.Push(lua.LString(subj[m.Capture(0):m.Capture(1)]))
		return 1
	}
	for i := 2; i < m.CaptureLength(); i += 2 {
		L.Push(capture(m, subj, i))
	}
	return m.CaptureLength()/2 - 1
}

// capture is capture register i of m (2, 4, …): a substring or a position.
func capture(m *luapm.MatchData, subj string, i int) lua.LValue {
	if m.IsPosCapture(i) {
		return lua.LNumber(m.Capture(i))
	}
	return lua.LString(subj[m.Capture(i):m.Capture(i+1)])
}

// startIndex is Lua's init argument as a 0-based offset within 0…len.
func startIndex(n, i int) int {
	switch {
	case i > 0:
		i--
	case i < 0:
		i = n + i
	}
	return min(max(i, 0), n)
}

func strFind(L *lua.LState, g *memGuard) int {
	entered("find")
	subj := L.CheckString(1)
	pat := L.CheckString(2)
	init := startIndex(len(subj), L.OptInt(3, 1))
	if L.GetTop() >= 4 && lua.LVAsBool(L.Get(4)) || pat == "" {
		i := strings.Index(subj[init:], pat)
		if i < 0 {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(init + i + 1))
		L.Push(lua.LNumber(init + i + len(pat)))
		return 2
	}
	m := findOne(L, g, "find", compilePattern(L, "find", subj, pat), subj, init)
	if m == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(m.Capture(0) + 1))
	L.Push(lua.LNumber(m.Capture(1)))
	return 2 + pushCaptures(L, m, subj, false)
}

func strMatch(L *lua.LState, g *memGuard) int {
	entered("match")
	subj := L.CheckString(1)
	pat := L.CheckString(2)
	init := startIndex(len(subj), L.OptInt(3, 1))
	m := findOne(L, g, "match", compilePattern(L, "match", subj, pat), subj, init)
	if m == nil {
		L.Push(lua.LNil)
		return 1
	}
	return pushCaptures(L, m, subj, true)
}

// strGmatch returns an iterator that finds one match per call (gopher-lua's found them all before
// returning the first: a gmatch over 60 MB held 60 million matches).
func strGmatch(L *lua.LState, g *memGuard) int {
	entered("gmatch")
	subj := L.CheckString(1)
	pat := L.CheckString(2)
	p := compilePattern(L, "gmatch", subj, pat)
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		if pos > len(subj) || p.MustHead && pos > 0 {
			return 0
		}
		m := findOne(L, g, "gmatch", p, subj, pos)
		if m == nil {
			pos = len(subj) + 1
			return 0
		}
		pos = max(m.Capture(0)+1, m.Capture(1))
		return pushCaptures(L, m, subj, true)
	}))
	return 1
}

// strGsub builds its result in one buffer as it goes (gopher-lua's copied the whole string per
// match), capped at maxString, asking the context every checkEvery matches.
func strGsub(L *lua.LState, g *memGuard) int {
	entered("gsub")
	subj := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl := L.Get(3)
	limit := L.OptInt(4, -1)
	p := compilePattern(L, "gsub", subj, pat)
	var b strings.Builder
	n, pos, last := 0, 0, 0
	for (limit < 0 || n < limit) && pos <= len(subj) {
		if n%checkEvery == checkEvery-1 {
			checkStop(L, g)
		}
		m := findOne(L, g, "gsub", p, subj, pos)
		if m == nil {
			break
		}
		s, e := m.Capture(0), m.Capture(1)
		r := gsubValue(L, repl, m, subj)
		if b.Len()+(s-last)+len(r) > maxString {
			L.RaiseError("string.gsub: the result would be more than the sandbox's %d MiB for one string", maxString>>20)
		}
		if grow := b.Len() + (s - last) + len(r); grow > b.Cap() {
			grow = min(max(grow, 2*b.Cap(), len(subj)), maxString)
			g.reserve(L, uint64(grow), "string.gsub")
			b.Grow(grow - b.Len())
		}
		b.WriteString(subj[last:s])
		b.WriteString(r)
		last = e
		n++
		pos = max(s+1, e)
		if p.MustHead {
			break
		}
	}
	if b.Len()+len(subj)-last > maxString {
		L.RaiseError("string.gsub: the result would be more than the sandbox's %d MiB for one string", maxString>>20)
	}
	b.WriteString(subj[last:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// gsubValue is what match m is replaced with (Lua 5.1's rules): a string with %0…%9, a table
// looked up by the first capture, a function called with the captures; false or nil keep the
// match.
func gsubValue(L *lua.LState, repl lua.LValue, m *luapm.MatchData, subj string) string {
	whole := subj[m.Capture(0):m.Capture(1)]
	first := func() lua.LValue {
		if m.CaptureLength() > 2 {
			return capture(m, subj, 2)
		}
		return lua.LString(whole)
	}
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LString:
		s := string(r)
		if strings.IndexByte(s, '%') < 0 {
			return s
		}
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c != '%' || i+1 == len(s) {
				b.WriteByte(c)
				continue
			}
			i++
			d := s[i]
			switch {
			case d == '0':
				b.WriteString(whole)
			case d >= '1' && d <= '9':
				k := int(d - '0')
				switch {
				case m.CaptureLength() <= 2 && k == 1:
					b.WriteString(whole)
				case 2*k >= m.CaptureLength():
					L.RaiseError("string.gsub: invalid capture index %%%c in the replacement", d)
				default:
					b.WriteString(lua.LVAsString(capture(m, subj, 2*k)))
				}
			default:
				b.WriteByte(d)
			}
		}
		return b.String()
	case *lua.LTable:
		v = L.GetTable(r, first())
	case *lua.LFunction:
		L.Push(r)
		n := 1
		if m.CaptureLength() > 2 {
			n = pushCaptures(L, m, subj, true)
		} else {
			L.Push(lua.LString(whole))
		}
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	}
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return lua.LVAsString(v)
	}
	if !lua.LVAsBool(v) {
		return whole
	}
	L.RaiseError("string.gsub: invalid replacement value (a %s)", v.Type())
	return ""
}
