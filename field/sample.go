package field

import (
	"context"
	"math"

	"strata/internal/pool"
	"strata/noise"
)

// The built-in sample "dunes" (issue 2, the terrainData seed's example): a 4000 m square at the
// world origin, 2 m texels, 18 m of relief shaped by terrain_fbm of 180 m feature size.
const (
	DunesSize        = 4000.0 // metres per side
	DunesTexels      = 2000   // texels per side: 2 m texels
	DunesAmplitude   = 18.0   // metres: height spans 0 … 18 m
	DunesFeatureSize = 180.0  // metres: dune spacing and the fbm's first wavelength
	DunesOctaves     = 4
	DunesSeed        = 20240601
)

// dunesLee is the fraction of a dune's period taken by its steep lee (slip) face.
const dunesLee = 0.25

// SampleDunes is the built-in sample landscape the editor opens with and `strata bake --sample
// dunes` bakes. Plain 18 m fbm at 180 m is too gentle to show anything (its steepest texel is about
// 12°, so the sample stack's rock above 18° would never appear), so the fbm shapes transverse
// dunes instead, with the seed's numbers:
//
//	n = FBM(x, z, 180 m, 4, seed)                       crest line wander
//	m = 0.35 + 0.65 · FBM(x, z, 360 m, 2, seed + 1)     dune height
//	φ = frac(x / 180 m + 0.8 · n)                        position within a dune, wind along +X
//	p = φ < 0.75 ? smooth01(φ / 0.75) : smooth01((1 - φ) / 0.25)
//	h = 18 m · m · p
//
// A gentle windward face (at most about 11°) rises over 75% of the period and a steep lee face
// falls over the rest (about 31° where the dune is tallest, steeper where the crest wanders), so
// a slope band at 18° splits sand from rock along the crests: about a tenth of the texels. It is deterministic (float32 noise with an integer hash) and built on all
// cores.
func SampleDunes() *Field { return SampleDunesSized(DunesTexels) }

// SampleDunesSized is SampleDunes on an n×n grid over the same 4000 m square (texels of 4000/n m),
// so tests can use a small field with the same ground and benchmarks a large one. n is clamped
// to 1 … MaxSide.
func SampleDunesSized(n int) *Field {
	n = min(max(n, 1), MaxSide)
	p := Placement{Size: [2]float64{DunesSize, DunesSize}}
	g := NewGrid(n, n)
	mn := p.Min()
	texel := DunesSize / float64(n)
	pool.Each(context.Background(), n, 0, func(j int) {
		z := float32(mn[1] + (float64(j)+0.5)*texel)
		row := g.Data[j*n : (j+1)*n]
		for i := range row {
			x := float32(mn[0] + (float64(i)+0.5)*texel)
			row[i] = dunesHeight(x, z)
		}
	}, nil)
	return &Field{Placement: p, Height: g, Channels: map[string]*Grid{}}
}

// dunesHeight is the sample's height at world (x, z); see SampleDunes.
func dunesHeight(x, z float32) float32 {
	wander := float64(noise.FBM(x, z, DunesFeatureSize, DunesOctaves, DunesSeed))
	tall := 0.35 + 0.65*float64(noise.FBM(x, z, 2*DunesFeatureSize, 2, DunesSeed+1))
	phi := float64(x)/DunesFeatureSize + 0.8*wander
	phi -= math.Floor(phi)
	var prof float64
	if phi < 1-dunesLee {
		prof = smooth01(phi / (1 - dunesLee))
	} else {
		prof = smooth01((1 - phi) / dunesLee)
	}
	return float32(DunesAmplitude * tall * prof)
}

func smooth01(t float64) float64 { return t * t * (3 - 2*t) }
