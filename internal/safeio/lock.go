package safeio

import (
	"fmt"
	"os"
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
	if err := flock(f, exclusive); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
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
