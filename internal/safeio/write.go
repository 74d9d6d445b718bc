package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// AtomicFile is an output written beside its destination and renamed over it only when complete
// and flushed to disk, so a full disk, a crash or an error half way leaves the old file (or none),
// never a truncated one with exit 1 (issue 12: export and render on a full disk).
type AtomicFile struct {
	*os.File
	path string
	done bool
}

// Create starts an atomic write of path: a temporary file in the same folder (so the rename
// cannot cross file systems), named .NAME.tmp-RANDOM, locked (flock) by this writer until it is
// committed or aborted. Temporary files of the same output that no writer holds — left by a
// writer that was killed — are removed first, so a killed export leaves nothing behind for ever:
// the next run of the same output cleans up. A writer of the same output running now holds its
// file's lock, and its file is left alone.
func Create(path string) (*AtomicFile, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	removeStale(dir, base)
	for range 3 {
		f, err := os.CreateTemp(dir, "."+base+".tmp-*")
		if err != nil {
			return nil, err
		}
		// Lock it at once; a cleaner that found it in the instant before may have removed it
		// (it could take the lock): then start again with a new one.
		if held, err := flockHeld(f, true); err != nil || held {
			f.Close()
			os.Remove(f.Name())
			if err == nil {
				err = errors.New("a new temporary file is locked by another process")
			}
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		if fi, err := os.Lstat(f.Name()); err == nil {
			if mine, err := f.Stat(); err == nil && os.SameFile(fi, mine) {
				if h := createHook.Load(); h != nil {
					(*h)(path)
				}
				return &AtomicFile{File: f, path: path}, nil
			}
		}
		f.Close()
	}
	return nil, fmt.Errorf("writing %s: its temporary file was removed three times while being made", path)
}

// createHook, when set, hears the destination of each atomic write Create has begun (its temporary
// file made and locked), before Create returns (SetCreateHook).
var createHook atomic.Pointer[func(path string)]

// SetCreateHook makes f hear the destination of each atomic write as it begins, its temporary file
// made and locked (nil: none): a test can hold one writer there while another writes the same
// output, without sleeping. It returns a function that restores the hook before it.
func SetCreateHook(f func(path string)) (restore func()) {
	var p *func(string)
	if f != nil {
		p = &f
	}
	old := createHook.Swap(p)
	return func() { createHook.Store(old) }
}

// tempPrefix is the start of the temporary files' names of output base (os.CreateTemp puts a
// run of digits after it).
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// removeStale removes the temporary files of output base in dir that no writer holds: regular
// files (not links) named .BASE.tmp-DIGITS whose lock can be taken at once. Where locks do not
// exclude (systems without flock), it removes nothing.
func removeStale(dir, base string) {
	if !locksExclude {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range ents {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, name)
		f, err := openNonBlocking(p)
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if held, err := flockHeld(f, true); err == nil && !held {
				os.Remove(p) // under its lock: its writer is gone
				funlock(f)
			}
		}
		f.Close()
	}
}

// Commit flushes the file to disk, closes it and renames it over the destination.
func (a *AtomicFile) Commit() error {
	if a.done {
		return errors.New("safeio: commit after commit or abort")
	}
	a.done = true
	tmp := a.File.Name()
	err := a.File.Sync()
	if err == nil {
		err = a.File.Chmod(0o644)
	}
	if locksExclude {
		// Renamed while still open and locked: a writer of the same output starting now cannot
		// take this file for a killed writer's and remove it between the close and the rename.
		if err == nil {
			err = os.Rename(tmp, a.path)
		}
		if cerr := a.File.Close(); err == nil {
			err = cerr
		}
	} else {
		if cerr := a.File.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, a.path)
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	if d, err := os.Open(filepath.Dir(a.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort drops the temporary file; the destination is untouched. Safe after Commit and twice, so
// `defer f.Abort()` covers every early return.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	os.Remove(a.File.Name())
	a.File.Close()
}

// realPath resolves p through symlinks; for a path that does not exist yet, its nearest existing
// ancestor is resolved and the rest appended.
func realPath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var tail []string
	for hops := 0; ; {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, tail...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A link to what does not exist yet (alias -> ctl, ctl to be made) leads where its
		// target will be.
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 && hops < 40 {
			if t, rerr := os.Readlink(p); rerr == nil {
				if !filepath.IsAbs(t) {
					t = filepath.Join(filepath.Dir(p), t)
				}
				p, hops = filepath.Clean(t), hops+1
				continue
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}

// Real is p made absolute and resolved through symlinks (for a path that does not exist yet, its
// nearest existing ancestor), so two names of one file compare equal.
func Real(p string) (string, error) { return realPath(p) }

// Within reports whether p (which need not exist) is root or lies inside it once both are
// resolved through symlinks: an export or render must not write into the container it reads.
func Within(root, p string) (bool, error) {
	r, err := realPath(root)
	if err != nil {
		return false, err
	}
	q, err := realPath(p)
	if err != nil {
		return false, err
	}
	rel, err := filepath.Rel(r, q)
	if err != nil {
		return false, nil
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))), nil
}

// RefuseInside refuses an output path inside the container being read: exporting the heightmap
// over the container's own height payload, or rendering into it, would destroy the source while
// reading it. what names the output for the message ("--out", "heightmap").
func RefuseInside(container, out, what string) error {
	in, err := Within(container, out)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, out, err)
	}
	if in {
		return fmt.Errorf("%s %s is inside the container %s: write outputs elsewhere", what, out, container)
	}
	return nil
}
