package ordered

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Results come back in order whatever order the work finishes in, and no more than 2·workers
// wait at any time.
func TestRunInOrder(t *testing.T) {
	const n, workers = 500, 4
	var started, emitted atomic.Int64
	var maxAhead atomic.Int64
	next := 0
	err := Run(context.Background(), n, workers, func(w, i int) (int, error) {
		if w < 0 || w >= workers {
			t.Errorf("worker %d of %d", w, workers)
		}
		ahead := started.Add(1) - emitted.Load()
		for m := maxAhead.Load(); ahead > m && !maxAhead.CompareAndSwap(m, ahead); m = maxAhead.Load() {
		}
		time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
		return i * i, nil
	}, func(i, v int) error {
		if i != next || v != i*i {
			t.Fatalf("emit(%d, %d), want (%d, %d)", i, v, next, next*next)
		}
		next++
		emitted.Add(1)
		return nil
	})
	if err != nil || next != n {
		t.Fatalf("err %v after %d of %d", err, next, n)
	}
	if m := maxAhead.Load(); m > 3*workers {
		t.Errorf("%d pieces started ahead of the writer, want ≤ %d", m, 3*workers)
	}
}

// The first error stops the run and comes back; every goroutine has returned by then; a
// cancelled context stops it too.
func TestRunStops(t *testing.T) {
	boom := errors.New("boom")
	before := runtime.NumGoroutine()
	var last int
	err := Run(context.Background(), 1000, 3, func(w, i int) (int, error) {
		if i == 40 {
			return 0, boom
		}
		return i, nil
	}, func(i, v int) error { last = i; return nil })
	if !errors.Is(err, boom) || last != 39 {
		t.Fatalf("err %v, last emitted %d; want boom after 39", err, last)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = Run(ctx, 1000, 3, func(w, i int) (int, error) { return i, nil }, func(i, v int) error {
		if i == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err %v", err)
	}
	// Run waited for its goroutines' work; their exits may trail on a busy machine.
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(10 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if after > before {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
}
