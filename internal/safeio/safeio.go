// Package safeio opens the files a user names — heightmaps, channels, stack.yaml, layer textures,
// a container's manifest, texture.yaml and payloads — the one way that cannot hang or exhaust
// memory: only regular files (after symlinks) are opened, so a FIFO, /dev/zero or a symlink to a
// device is refused by name before any read, and whole-file reads carry a byte limit the caller
// derives from what the file may hold. Outputs go the other safe way: written beside their
// destination and renamed over it when complete (Create), never inside what is being read
// (Within).
package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular file (a FIFO, a device,
// a socket, a folder), so callers can tell "the wrong kind of thing" from "missing".
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over the caller's limit.
var ErrTooLarge = errors.New("file too large")

// kind names a file mode for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// NotRegularError says what a path is instead of a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	if e.Path == "" { // the caller names the file itself
		return fmt.Sprintf("%s, not a regular file: only regular files are read", kind(e.Mode))
	}
	return fmt.Sprintf("%s is %s, not a regular file: only regular files are read", e.Path, kind(e.Mode))
}

// Unwrap lets errors.Is(err, ErrNotRegular) match.
func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// Stat returns the file info of path after symlinks and refuses anything but a regular file.
func Stat(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return fi, nil
}

// Open opens path for reading when it is a regular file and returns it with its size. The kind is
// checked before opening (opening a FIFO with no writer blocks) and again on the open descriptor,
// which is opened non-blocking, so a path swapped for a FIFO in between cannot hang the caller.
func Open(path string) (*os.File, int64, error) {
	if _, err := Stat(path); err != nil {
		return nil, 0, err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, fi.Size(), nil
}

// LimitError says a file is larger than what its role may hold.
type LimitError struct {
	Path  string
	Size  int64 // bytes found (at least Limit+1 when the size was learned by reading)
	Limit int64
}

func (e *LimitError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%d bytes, more than the %d this file may hold", e.Size, e.Limit)
	}
	return fmt.Sprintf("%s is %d bytes, more than the %d this file may hold", e.Path, e.Size, e.Limit)
}

// Unnamed returns err without the path it names, for a caller whose message names the file
// already ("terrain.yaml: a FIFO (named pipe), not a regular file"); other errors pass through,
// and an *fs.PathError gives its cause.
func Unnamed(err error) error {
	var nr *NotRegularError
	var le *LimitError
	var pe *fs.PathError
	switch {
	case errors.As(err, &nr):
		c := *nr
		c.Path = ""
		return &c
	case errors.As(err, &le):
		c := *le
		c.Path = ""
		return &c
	case errors.As(err, &pe):
		return pe.Err
	}
	return err
}

// Unwrap lets errors.Is(err, ErrTooLarge) match.
func (e *LimitError) Unwrap() error { return ErrTooLarge }

// ReadFile reads a regular file of at most limit bytes whole. The limit is enforced on the bytes
// read, not only on the size the file system reports, so a file that grows while it is read
// cannot exceed it either.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, &LimitError{Path: path, Size: size, Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, &LimitError{Path: path, Size: int64(len(b)), Limit: limit}
	}
	return b, nil
}
