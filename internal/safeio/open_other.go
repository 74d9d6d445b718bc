//go:build !unix

package safeio

import "os"

// openNonBlocking opens read-only; systems without O_NONBLOCK have no FIFO that could block here
// once Stat has seen a regular file.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
