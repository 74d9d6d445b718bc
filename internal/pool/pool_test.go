package pool

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// Every item runs once, done counts up to n, and a cancelled context stops handing out items.
func TestEach(t *testing.T) {
	const n = 1000
	var seen [n]atomic.Int32
	var last atomic.Int64
	if err := Each(context.Background(), n, 3, func(k int) { seen[k].Add(1) }, func(d int) {
		for {
			l := last.Load()
			if int64(d) <= l || last.CompareAndSwap(l, int64(d)) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	for k := range seen {
		if c := seen[k].Load(); c != 1 {
			t.Fatalf("item %d ran %d times", k, c)
		}
	}
	if last.Load() != n {
		t.Errorf("done reached %d, want %d", last.Load(), n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := Each(ctx, n, 2, func(k int) {
		if ran.Add(1) == 10 {
			cancel()
		}
	}, nil)
	if !errors.Is(err, context.Canceled) || ran.Load() >= n {
		t.Errorf("cancelled after 10 items: err %v, %d items ran", err, ran.Load())
	}
	if err := Each(context.Background(), 0, 0, func(int) { t.Error("an item of none ran") }, nil); err != nil {
		t.Error(err)
	}
}
