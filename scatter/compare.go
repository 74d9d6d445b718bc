package scatter

import (
	"math"
	"slices"

	"strata/field"
)

// SortMatrices returns the instances of a pool (MatrixFloats per instance) sorted
// lexicographically by their float bits. Pool slots are handed out by an atomic, so only the
// sorted set is comparable between runs, tilings and the two twins.
func SortMatrices(m []float32) []float32 {
	n := len(m) / MatrixFloats
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return compareMatrix(m[a*MatrixFloats:(a+1)*MatrixFloats], m[b*MatrixFloats:(b+1)*MatrixFloats])
	})
	out := make([]float32, 0, n*MatrixFloats)
	for _, i := range idx {
		out = append(out, m[i*MatrixFloats:(i+1)*MatrixFloats]...)
	}
	return out
}

// compareMatrix orders by translation first (x, z, y), then every float, by total order of bits.
func compareMatrix(a, b []float32) int {
	for _, k := range [...]int{12, 14, 13, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15} {
		if c := cmpFloat(a[k], b[k]); c != 0 {
			return c
		}
	}
	return 0
}

func cmpFloat(a, b float32) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	ab, bb := math.Float32bits(a), math.Float32bits(b)
	switch {
	case ab < bb:
		return -1
	case ab > bb:
		return 1
	}
	return 0
}

// FirstDifference is the index of the first float whose bits differ between a and b (or the
// shorter length when one is a prefix of the other), -1 when they are bit-identical.
func FirstDifference(a, b []float32) int {
	for i := 0; i < min(len(a), len(b)); i++ {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// Expected is the mean and variance of the number of instances a placement carries: each site is
// a Bernoulli trial (the count is Poisson-binomial), its probability estimated on n×n jitter
// positions inside its cell. Summed over the sites it is the integral of the density over the
// field, which is what makes the density channel mean instances per square metre.
func Expected(p Params, geo *field.Geometry, density, height *field.Grid, n int) (mean, variance float64) {
	if p.Spacing == 0 || checkInputs(geo, density, height) != nil {
		return 0, 0
	}
	nx, err1 := SiteCount(geo, 0, p.Spacing)
	nz, err2 := SiteCount(geo, 1, p.Spacing)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	env := newSiteEnv(p, geo, density, height)
	for j := 0; j < nz; j++ {
		for i := 0; i < nx; i++ {
			q := env.siteProbability(int32(i), int32(j), n)
			mean += q
			variance += q * (1 - q)
		}
	}
	return mean, variance
}
