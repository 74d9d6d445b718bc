package sysmem

import (
	"os"
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): fault the range in writable, as a write
// would, without writing: it races with nothing that writes the range at the same time.
const madvPopulateWrite = 0x17

// Populate faults in the whole pages of b ahead of a writer that will fill it (a read back into
// fresh memory: its page faults, not the copy, bounded it), leaving b's bytes as they are, and
// reports whether it did. It does nothing where the kernel cannot (before 5.14), nor on a plane
// on disk (Map: its pages are what the memory limit keeps out of the resident set), and is safe
// beside writers of b.
func Populate(b []byte) bool {
	page := uintptr(os.Getpagesize())
	if len(b) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo || inMapping(start, start+uintptr(len(b))) {
		return false
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvPopulateWrite)
	return errno == 0
}

// inMapping reports whether [lo, hi) overlaps a plane on disk not yet released.
func inMapping(lo, hi uintptr) bool {
	live.Lock()
	defer live.Unlock()
	for m := range live.set {
		m.mu.Lock()
		d := m.data
		m.mu.Unlock()
		if len(d) == 0 {
			continue
		}
		a := uintptr(unsafe.Pointer(&d[0]))
		if lo < a+uintptr(len(d)) && a < hi {
			return true
		}
	}
	return false
}
