package procgen

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The sandbox's `..` (a call of concat, compiled in place of OP_CONCAT) gives what gopher-lua's
// own instruction gives: the same strings, number formatting, metamethods on either side and in
// a chain, operands adjusted to one value, and the same errors.
func TestConcatAsTheVM(t *testing.T) {
	script := `local function two() return "x", "y" end
local function none() end
local mt = {__concat = function(a, b) return "M(" .. type(a) .. "," .. type(b) .. ")" end}
local t = setmetatable({}, mt)
local function va(...) return "<" .. ... .. ">" end
local function show(f) local ok, v = pcall(f) print(ok, v) end
print("a" .. 1 .. 2.5 .. -0 .. 1e300 .. 2^53)
print("a" .. two(), select('#', "b" .. two()))
print(t .. "s", "s" .. t, 1 .. t, "a" .. "b" .. t .. "c" .. "d", t .. t)
print(("p" .. "q") .. "r" .. ("s" .. ("t" .. "u")))
print(va("m", "n"), va(1))
local s = "" for i = 1, 5 do s = s .. i .. "," end print(s)
show(function() return "a" .. nil end)
show(function() return {} .. "a" end)
show(function() return "a" .. none() end)
show(function() return "a" .. "b" .. true end)
show(function() return 1 .. {} .. "c" end)
print(("abc\0é"):reverse(), string.reverse(""), string.reverse(123), ("x"):rep(3):reverse())
show(function() return string.reverse() end)
`
	want := func() []string {
		var out []string
		L := lua.NewState()
		defer L.Close()
		L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
			parts := make([]string, L.GetTop())
			for i := range parts {
				parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
			}
			out = append(out, strings.Join(parts, "\t"))
			return 0
		}))
		fn, err := L.Load(strings.NewReader(script), "s.lua")
		if err != nil {
			t.Fatal(err)
		}
		L.Push(fn)
		if err := L.PCall(0, 0, nil); err != nil {
			t.Fatal(err)
		}
		return out
	}()
	r := runScript(t, script, nil, nil)
	if len(r.warnings) == 0 { // the script writes nothing: the run says so and succeeds
		t.Fatalf("no warning: %v", r.err)
	}
	got := strings.ReplaceAll(strings.Join(r.printed, "\n"), filepath.Join(r.dir, "s.lua"), "s.lua")
	if got != strings.Join(want, "\n") {
		t.Errorf("the sandbox printed\n%s\ngopher-lua's OP_CONCAT\n%s", got, strings.Join(want, "\n"))
	}
}

// Every string `..`, string.upper, string.lower, string.reverse or print makes is weighed before it is
// allocated: a loop growing strings under a 64 MiB limit is stopped for memory at the line that
// would pass it, and the heap never grew past the limit (by the watchdog's own accounting, which
// leaves allocations under 1 MiB to its ticks) — gopher-lua's OP_CONCAT made the string first,
// and the heap peaked near 2.5 × the limit.
func TestConcatWeighedFirst(t *testing.T) {
	const limit = 64 << 20
	for _, c := range []struct{ name, script, want string }{
		{"doubling", "local s = string.rep('x', 1024)\nwhile true do\ns = s .. s\nend", "s.lua:3: the .. operator needs"},
		{"chain of three with numbers", "local s = 'xy'\nwhile true do\ns = s .. 1 .. s .. s\nend", "s.lua:3: the .. operator needs"},
		{"kept pieces", "local s, t = string.rep('x', 4 * 2^20), {}\nwhile true do\nt[#t + 1] = s .. '!'\nend", "s.lua:3: the .. operator needs"},
		{"inside pcall", "local s = 'x'\nwhile true do\npcall(function() s = s .. s end)\nend", "s.lua:3: the .. operator needs"},
		{"inside a function's return", "local function f(s) return s .. s end\nlocal s = 'x'\nwhile true do s = f(s) end", "s.lua:1: the .. operator needs"},
		{"string.upper", "local s, t = string.rep('x', 4 * 2^20), {}\nwhile true do\nt[#t + 1] = s:upper()\nend", "s.lua:3: string.upper needs"},
		{"string.reverse", "local s, t = string.rep('x', 4 * 2^20), {}\nwhile true do\nt[#t + 1] = s:reverse()\nend", "s.lua:3: string.reverse needs"},
		{"print's line", "local s = string.rep('x', 30 * 2^20)\nprint(s, s, s)", "s.lua:2: print needs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var g *memGuard
			guardHook = func(mg *memGuard) { g = mg }
			defer func() { guardHook = nil }()
			r := runScript(t, c.script, nil, func(o *Options) { o.maxMemory = limit })
			if !errors.Is(r.err, ErrMemory) {
				t.Fatalf("err = %v, want ErrMemory", r.err)
			}
			containsAll(t, "error", r.err.Error(), c.want, "past the script's 64 MiB of memory")
			if g == nil {
				t.Fatal("no guard")
			}
			if p := g.peak.Load(); p > limit+1<<20 {
				t.Errorf("the heap grew by %d MiB, past the %d MiB limit", p>>20, limit>>20)
			}
		})
	}
}
