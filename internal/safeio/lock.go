package safeio

import (
	"fmt"
	"os"
	"sync/atomic"
)

// Lock is an advisory lock on a file that exists only to be locked (a lock file), held by this
// process until Unlock. It serializes writers of one path across processes — two array tasks
// saving the same world cell, say — where the atomic rename dance of a save (terraindata.Save)
// assumes one writer at a time. The kernel drops it when the process dies, so a killed writer
// never leaves a stale lock; the lock file itself is left in place, since removing it would let a
// third process lock a new file while a second still holds the old one.
type Lock struct{ f *os.File }

// LockExclusive waits for, and takes, the exclusive lock on path (created when missing).
func LockExclusive(path string) (*Lock, error) { return lock(path, true) }

// LockShared waits for, and takes, a shared lock on path: readers hold it together, a writer's
// exclusive lock waits for them and they for it.
func LockShared(path string) (*Lock, error) { return lock(path, false) }

func lock(path string, exclusive bool) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if h := waitHook.Load(); h != nil {
		// Tests hear a lock held elsewhere before the wait for it (flock's own wait tells no one).
		if held, err := flockHeld(f, exclusive); err == nil && held {
			(*h)(path)
		}
	}
	if err := flock(f, exclusive); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// waitHook, when set, hears the path of each lock about to be waited for because another holder
// has it (SetWaitHook).
var waitHook atomic.Pointer[func(path string)]

// SetWaitHook makes f hear the path of each lock a caller is about to wait for because another
// holder has it (nil: none), so a test knows a writer is blocked on a lock without sleeping. It
// returns a function that restores the hook before it.
func SetWaitHook(f func(path string)) (restore func()) {
	var p *func(string)
	if f != nil {
		p = &f
	}
	old := waitHook.Swap(p)
	return func() { waitHook.Store(old) }
}

// Unlock releases the lock. Safe on nil and twice.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	funlock(l.f)
	l.f.Close()
	l.f = nil
}

// TryLockExclusive takes the exclusive lock on path (created when missing) without waiting:
// held reports that another holder has it (nil lock then). A recovery copy's lock tells a live
// editor from a dead one this way: the kernel drops a dead process's lock.
func TryLockExclusive(path string) (l *Lock, held bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, false, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	held, err = flockHeld(f, true)
	if err != nil || held {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("lock %s: %w", path, err)
		}
		return nil, true, nil
	}
	return &Lock{f: f}, false, nil
}

// File is the lock file, open for reading and writing (the holder may write into it).
func (l *Lock) File() *os.File { return l.f }
