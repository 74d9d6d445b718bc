package field

import (
	"runtime"
	"sync"

	"strata/noise"
)

// The built-in sample "dunes" (issue 2, the terrainData seed's example): a 4000 m square at the
// world origin, 2 m texels, terrain_fbm of 18 m amplitude and 180 m feature size.
const (
	DunesSize        = 4000.0 // metres per side
	DunesTexels      = 2000   // texels per side: 2 m texels
	DunesAmplitude   = 18.0   // metres: height spans 0 … 18 m
	DunesFeatureSize = 180.0  // metres: wavelength of the first octave
	DunesOctaves     = 4
	DunesSeed        = 20240601
)

// SampleDunes is the built-in sample landscape the editor opens with and `strata bake --sample
// dunes` bakes: h = 18 m · terrain_fbm(x, z, 180 m, 4 octaves, DunesSeed) at the texel centres.
// It is deterministic (the noise is float32 with an integer hash) and built on all cores.
func SampleDunes() *Field { return SampleDunesSized(DunesTexels) }

// SampleDunesSized is SampleDunes on an n×n grid over the same 4000 m square (texels of 4000/n m),
// so tests can use a small field with the same ground. n is clamped to 1 … DunesTexels·4.
func SampleDunesSized(n int) *Field {
	n = min(max(n, 1), DunesTexels*4)
	p := Placement{Size: [2]float64{DunesSize, DunesSize}}
	g := NewGrid(n, n)
	mn := p.Min()
	texel := DunesSize / float64(n)
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := w; j < n; j += workers {
				z := float32(mn[1] + (float64(j)+0.5)*texel)
				row := g.Data[j*n : (j+1)*n]
				for i := range row {
					x := float32(mn[0] + (float64(i)+0.5)*texel)
					row[i] = DunesAmplitude * noise.FBM(x, z, DunesFeatureSize, DunesOctaves, DunesSeed)
				}
			}
		}(w)
	}
	wg.Wait()
	return &Field{Placement: p, Height: g, Channels: map[string]*Grid{}}
}
