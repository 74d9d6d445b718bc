//go:build !unix

package bake

// PeakRSS is not measured on this system.
func PeakRSS() int64 { return 0 }
