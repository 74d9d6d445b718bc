package safeio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
// cannot cross file systems), named .NAME.tmp-RANDOM.
func Create(path string) (*AtomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &AtomicFile{File: f, path: path}, nil
}

// Commit flushes the file to disk, closes it and renames it over the destination.
func (a *AtomicFile) Commit() error {
	if a.done {
		return errors.New("safeio: commit after commit or abort")
	}
	a.done = true
	tmp := a.File.Name()
	err := a.File.Sync()
	if cerr := a.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
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
	a.File.Close()
	os.Remove(a.File.Name())
}

// realPath resolves p through symlinks; for a path that does not exist yet, its nearest existing
// ancestor is resolved and the rest appended.
func realPath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var tail []string
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, tail...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}

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
