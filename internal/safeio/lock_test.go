package safeio

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// An exclusive lock excludes every other holder, shared or exclusive, even within one process
// (flock locks belong to the open file); shared locks are held together.
func TestLockExcludes(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".cell.lock")
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 5; k++ {
				l, err := LockExclusive(p)
				if err != nil {
					t.Error(err)
					return
				}
				n := inside.Add(1)
				most.Store(max(most.Load(), n))
				time.Sleep(time.Millisecond)
				inside.Add(-1)
				l.Unlock()
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d exclusive holders at once", most.Load())
	}
	a, err := LockShared(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LockShared(p)
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan string, 1)
	defer SetWaitHook(func(path string) { waiting <- path })()
	got := make(chan struct{})
	go func() {
		l, err := LockExclusive(p)
		if err == nil {
			l.Unlock()
		}
		close(got)
	}()
	// The exclusive lock finds the shared ones held and waits (the hook hears it before the wait).
	select {
	case <-got:
		t.Fatal("an exclusive lock was taken while two shared ones were held")
	case w := <-waiting:
		if w != p {
			t.Fatalf("waited for %s, want %s", w, p)
		}
	}
	select {
	case <-got:
		t.Fatal("an exclusive lock was taken while two shared ones were held")
	default:
	}
	a.Unlock()
	b.Unlock()
	b.Unlock() // twice is safe
	<-got
	var nilLock *Lock
	nilLock.Unlock()
}
