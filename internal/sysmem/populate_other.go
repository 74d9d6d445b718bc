//go:build !linux

package sysmem

// Populate does nothing here (Linux's MADV_POPULATE_WRITE faults pages in ahead of a writer).
func Populate(b []byte) bool { return false }
