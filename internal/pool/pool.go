// Package pool is the one worker pool: a loop over n independent items on every core.
package pool

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Each runs fn(k) for every k in 0 … n-1 on workers goroutines (0 or less: GOMAXPROCS, never
// more than n), each taking the next index as it finishes the last, so a slow item holds up no
// other. Once ctx is done no more indices are handed out and Each returns ctx.Err() after the
// items in flight finish; otherwise nil. done, when not nil, is called after each item with the
// number finished so far (from the workers' goroutines).
func Each(ctx context.Context, n, workers int, fn func(k int), done func(finished int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next, finished atomic.Int64
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for range min(workers, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				if ctx.Err() != nil {
					stopped.Store(true)
					return
				}
				fn(k)
				Between()
				if d := finished.Add(1); done != nil {
					done(int(d))
				}
			}
		}()
	}
	wg.Wait()
	if stopped.Load() {
		return ctx.Err()
	}
	return nil
}

// between is called by every worker after each item when set (SetBetween).
var between atomic.Pointer[func()]

// Between runs the SetBetween function, if any: Each calls it after every item, and a loop of its
// own over a large grid (the import's eachTask) calls it after each of its items too.
func Between() {
	if b := between.Load(); b != nil {
		(*b)()
	}
}

// SetBetween has every worker call fn after each item (nil: nothing): sysmem's residency check,
// so a pass over memory-mapped planes on every core trims them as it goes, where a timer's
// goroutine would wait for a core behind the workers. fn must be cheap and safe for concurrent
// use.
func SetBetween(fn func()) {
	if fn == nil {
		between.Store(nil)
		return
	}
	between.Store(&fn)
}
