//go:build !linux

package sysmem

import (
	"errors"
	"os"
)

// Planes on disk are built on Linux's mmap, fallocate and madvise; elsewhere Map refuses (with
// ErrMapping) and the planes stay on the heap unless STRATA_MAP_PLANES=always asks otherwise.

func mapFile(dir string, n int) (*Mapping, error) {
	return nil, errors.ErrUnsupported
}

func unmap(b []byte) error                     { return nil }
func retire(b []byte, f *os.File)              {}
func trim(b []byte)                            {}
func diskFree(dir string) (uint64, bool)       { return 0, false }
func inMemoryFS(dir string) bool               { return false }
func residentSet() (rss, file uint64, ok bool) { return 0, 0, false }
