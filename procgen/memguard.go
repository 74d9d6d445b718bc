package procgen

import (
	"context"
	"fmt"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// memGuard is the script's memory limit. A watchdog samples the heap every few milliseconds and
// stops the script (through cancel) once it has grown by more than limit since the start — Lua
// has no allocation limit of its own, and a runaway `s = s .. s` would exhaust memory long before
// a timeout — and reserve refuses a built-in's allocation of known size before it is made.
type memGuard struct {
	cancel context.CancelCauseFunc
	limit  uint64
	base   uint64
	done   chan struct{}
	once   sync.Once
	// stoppedAt is where a built-in first saw the stop: a pcall may catch that error, and the
	// next instruction's raise is reported at the place the script was really stopped.
	stoppedAt string
	// peak is the most the heap had grown by, as the watchdog's ticks and the reservations it
	// granted saw it.
	peak atomic.Uint64
}

// note raises peak to used.
func (g *memGuard) note(used uint64) {
	for {
		p := g.peak.Load()
		if used <= p || g.peak.CompareAndSwap(p, used) {
			return
		}
	}
}

// heapBytes is the live heap, as the watchdog measures it.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func newMemGuard(cancel context.CancelCauseFunc, limit uint64) *memGuard {
	g := &memGuard{cancel: cancel, limit: limit, base: heapBytes(), done: make(chan struct{})}
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-g.done:
				return
			case <-t.C:
				used := g.used()
				g.note(used)
				if used > limit {
					cancel(fmt.Errorf("the script used more than %d MiB of memory: %w", limit>>20, ErrMemory))
					return
				}
			}
		}
	}()
	return g
}

// used is how much the heap has grown since the script started.
func (g *memGuard) used() uint64 {
	if now := heapBytes(); now > g.base {
		return now - g.base
	}
	return 0
}

// stop ends the watchdog; it may be called more than once.
func (g *memGuard) stop() { g.once.Do(func() { close(g.done) }) }

// reserve stops the script, before anything is allocated, when n more bytes for what would take
// it past its limit. Small allocations are left to the watchdog.
func (g *memGuard) reserve(L *lua.LState, n uint64, what string) {
	if g == nil || n < 1<<20 {
		return
	}
	used := g.used()
	if used+n > g.limit {
		cause := fmt.Errorf("%s needs %d MiB more, past the script's %d MiB of memory (%d MiB in use): %w", what, n>>20, g.limit>>20, used>>20, ErrMemory)
		g.cancel(cause)
		g.stopped(L)
		L.RaiseError("%v", cause)
	}
	g.note(used + n)
}
