//go:build unix

package bake

import (
	"runtime"
	"syscall"
)

// PeakRSS is the process's resident-set high-water mark in bytes (getrusage; Linux reports KiB,
// the BSDs and macOS bytes).
func PeakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
