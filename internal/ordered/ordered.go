// Package ordered runs independent pieces of work on every core and hands their results back in
// order: what a parallel encoder needs, where blocks compress independently but must be written
// to the file one after the other (PNG's deflate segments, EXR's ZIP blocks).
package ordered

import (
	"context"
	"runtime"
	"sync"
)

// Run calls work(w, i) for every i in [0, n) on up to workers goroutines (≤ 0: GOMAXPROCS; w is
// the goroutine's number, 0 ≤ w < workers, for per-goroutine scratch) and emit(i, result) for
// each i in increasing order, on the calling goroutine. At most 2·workers results wait to be
// emitted, which bounds the memory in flight. It stops at the first error of work, emit or ctx
// and returns it, after every goroutine it started has returned.
func Run[T any](ctx context.Context, n, workers int, work func(w, i int) (T, error), emit func(i int, r T) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if n <= 0 {
		return ctx.Err()
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	type result struct {
		v   T
		err error
	}
	slots := make([]chan result, n)
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	pending := make(chan int, 2*workers) // indices handed out, in order
	jobs := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				v, err := work(w, i)
				slots[i] <- result{v, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		defer close(pending)
		for i := 0; i < n; i++ {
			select {
			case pending <- i:
			case <-stop:
				return
			}
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	finish := func(err error) error {
		close(stop)
		for range pending {
		}
		wg.Wait()
		return err
	}
	for i := range pending {
		r := <-slots[i]
		if r.err != nil {
			return finish(r.err)
		}
		if err := ctx.Err(); err != nil {
			return finish(err)
		}
		if err := emit(i, r.v); err != nil {
			return finish(err)
		}
	}
	wg.Wait()
	return nil
}
