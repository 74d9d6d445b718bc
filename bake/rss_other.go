//go:build !unix

package bake

// peakRSS is not measured on this system.
func peakRSS() int64 { return 0 }
