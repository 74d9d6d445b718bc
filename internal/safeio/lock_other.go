//go:build !unix

package safeio

import "os"

// flock is not available here: Strata's batch bakes run on Unix hosts, and on this system a lock
// is taken without excluding anyone (one writer per path is then the caller's to ensure).
func flock(f *os.File, exclusive bool) error { return nil }

func funlock(f *os.File) {}

func flockHeld(f *os.File, exclusive bool) (bool, error) { return false, nil }

// locksExclude: without flock a live writer's temporary file cannot be told from a killed one's.
const locksExclude = false
