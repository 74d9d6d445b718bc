// Package noise is terrain_fbm: gradient noise on an integer-hashed lattice, summed over octaves.
//
// It is the Go twin of shaders/noise.wgsl. The lattice hash is pure u32 arithmetic, so both sides
// agree on it bit for bit; the float part is float32 in the same order of operations as the WGSL,
// so the two differ by rounding only (a GPU may fuse multiply-adds). docs/design.md fixes every step.
package noise

// PCG is the PCG-RXS-M-XS 32-bit output permutation used as a stateless integer hash.
func PCG(v uint32) uint32 {
	state := v*747796405 + 2891336453
	word := ((state >> ((state >> 28) + 4)) ^ state) * 277803737
	return (word >> 22) ^ word
}

// Hash2 hashes a lattice point (i, j) with a seed. Negative coordinates hash by their bit pattern.
func Hash2(i, j int32, seed uint32) uint32 {
	return PCG(PCG(PCG(seed)^uint32(i)) ^ uint32(j))
}

// Hash3 hashes a lattice point with a third integer coordinate k.
func Hash3(i, j int32, k, seed uint32) uint32 {
	return PCG(Hash2(i, j, seed) ^ k)
}

// U01 maps a hash to [0, 1) using its top 24 bits, a value float32 represents exactly.
func U01(h uint32) float32 {
	return float32(h>>8) * (1.0 / 16777216.0)
}

// RuleSeed is the noise seed of the rule with global bottom-up index r in a stack seeded with
// stackSeed. Deriving it from the index alone is what keeps a rule's noise where it was when a
// layer is added above it.
func RuleSeed(stackSeed, r uint32) uint32 {
	return PCG(stackSeed ^ PCG(r+1))
}

// NoiseInputSeed is the seed of a noise-input rule's value field, independent of its jitter.
func NoiseInputSeed(ruleSeed uint32) uint32 {
	return PCG(ruleSeed ^ 0x9E3779B9)
}

const diag = float32(0.70710678)

// gradX, gradZ are the eight lattice gradients as tables: (1,0) (-1,0) (0,1) (0,-1) and the four
// diagonals scaled by √½. A random 8-way branch mispredicts about half the time; a lookup gives
// the same dot products (up to the sign of a zero, which the fbm's final 0.5 + … erases).
var gradX = [8]float32{1, -1, 0, 0, diag, -diag, diag, -diag}
var gradZ = [8]float32{0, 0, 1, -1, diag, diag, -diag, -diag}

// grad returns the dot product of the gradient selected by h with (dx, dz).
func grad(h uint32, dx, dz float32) float32 {
	return gradX[h&7]*dx + gradZ[h&7]*dz
}

func fade(t float32) float32 { return t * t * t * (t*(t*6-15) + 10) }

func lerp(a, b, t float32) float32 { return a + (b-a)*t }

// floor32 is floor without the float64 round trip's cost for the common in-range case.
func floor32(v float32) float32 {
	if v > -8388608 && v < 8388608 {
		t := float32(int32(v))
		if t > v {
			t--
		}
		return t
	}
	return v // |v| >= 2^23: already an integer (or NaN/Inf)
}

// GradNoise is 2D gradient (Perlin) noise at lattice coordinates (qx, qz); range about ±0.7072.
func GradNoise(qx, qz float32, seed uint32) float32 {
	return GradNoiseAt(qx, qz, PCG(seed))
}

// GradNoiseAt is GradNoise given its lattice seed ls = PCG(seed), which a caller evaluating many
// points computes once. Hash2(i, j, seed) is PCG(PCG(ls ^ i) ^ j), so the two columns' PCG(ls ^ i)
// serve both rows.
func GradNoiseAt(qx, qz float32, ls uint32) float32 {
	fx0 := floor32(qx)
	fz0 := floor32(qz)
	ix := int32(fx0)
	iz := int32(fz0)
	fx := qx - fx0
	fz := qz - fz0
	c0 := PCG(ls ^ uint32(ix))
	c1 := PCG(ls ^ uint32(ix+1))
	n00 := grad(PCG(c0^uint32(iz)), fx, fz)
	n10 := grad(PCG(c1^uint32(iz)), fx-1, fz)
	n01 := grad(PCG(c0^uint32(iz+1)), fx, fz-1)
	n11 := grad(PCG(c1^uint32(iz+1)), fx-1, fz-1)
	u := fade(fx)
	w := fade(fz)
	return lerp(lerp(n00, n10, u), lerp(n01, n11, u), w)
}

// OctaveSeed is the lattice seed of octave k of an fbm seeded with seed: GradNoiseAt's ls for
// GradNoise(…, PCG(seed+k)).
func OctaveSeed(seed, k uint32) uint32 { return PCG(PCG(seed + k)) }

// MaxValue is the largest value FBM returns: the float32 just below 1, so FBM is in [0, 1).
const MaxValue = float32(0.99999994)

// FBM is terrain_fbm at world (x, z) metres: octaves of GradNoise at lacunarity 2 and gain 0.5,
// the first octave at wavelength featureSize metres, mapped onto [0, 1).
func FBM(x, z, featureSize float32, octaves uint32, seed uint32) float32 {
	return FBMInv(x, z, 1/featureSize, octaves, seed)
}

// FBMInv is FBM given the inverse feature size (1/featureSize, correctly rounded float32). The
// kernels take the inverse from params, computed here on the CPU, because WGSL lets a driver
// divide to 2.5 ULP and an inverse one ULP off moves the lattice by x·ULP, amplified by every
// octave: 1.6e-4 of FBM at 3 km on the H200.
func FBMInv(x, z, inv float32, octaves uint32, seed uint32) float32 {
	qx := x * inv
	qz := z * inv
	var sum, norm float32
	amp := float32(1)
	if octaves < 1 {
		octaves = 1
	}
	for k := uint32(0); k < octaves; k++ {
		sum += amp * GradNoiseAt(qx, qz, OctaveSeed(seed, k))
		norm += amp
		amp *= 0.5
		qx *= 2
		qz *= 2
	}
	v := 0.5 + (sum/norm)*diag
	if v < 0 {
		return 0
	}
	if v > MaxValue {
		return MaxValue
	}
	return v
}
