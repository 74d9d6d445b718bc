//go:build unix

package safeio

import (
	"os"
	"syscall"
)

// openNonBlocking opens read-only with O_NONBLOCK: harmless on a regular file, and an open of a
// FIFO that raced in after the kind check returns at once instead of waiting for a writer.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
