// noise.wgsl — terrain_fbm and its u32 lattice hash. Twin of package noise (Go); docs/design.md
// fixes every step. The hash is integer arithmetic and agrees with Go bit for bit; the float part
// follows the Go order of operations and differs by rounding only.

fn PCG(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn Hash2(i: i32, j: i32, s: u32) -> u32 {
    return PCG(PCG(PCG(s) ^ bitcast<u32>(i)) ^ bitcast<u32>(j));
}

fn Hash3(i: i32, j: i32, k: u32, s: u32) -> u32 {
    return PCG(Hash2(i, j, s) ^ k);
}

fn U01(h: u32) -> f32 {
    return f32(h >> 8u) * (1.0 / 16777216.0);
}

fn RuleSeed(stackSeed: u32, r: u32) -> u32 {
    return PCG(stackSeed ^ PCG(r + 1u));
}

const NOISE_DIAG: f32 = 0.70710678;
const NOISE_MAX: f32 = 0.99999994;

fn noise_lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + (b - a) * t;
}

fn noise_grad(h: u32, dx: f32, dz: f32) -> f32 {
    switch (h & 7u) {
        case 0u: { return dx; }
        case 1u: { return -dx; }
        case 2u: { return dz; }
        case 3u: { return -dz; }
        case 4u: { return NOISE_DIAG * dx + NOISE_DIAG * dz; }
        case 5u: { return -NOISE_DIAG * dx + NOISE_DIAG * dz; }
        case 6u: { return NOISE_DIAG * dx - NOISE_DIAG * dz; }
        default: { return -NOISE_DIAG * dx - NOISE_DIAG * dz; }
    }
}

fn noise_fade(t: f32) -> f32 {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

fn GradNoise(qx: f32, qz: f32, seed: u32) -> f32 {
    let fx0 = floor(qx);
    let fz0 = floor(qz);
    let ix = i32(fx0);
    let iz = i32(fz0);
    let fx = qx - fx0;
    let fz = qz - fz0;
    let n00 = noise_grad(Hash2(ix, iz, seed), fx, fz);
    let n10 = noise_grad(Hash2(ix + 1, iz, seed), fx - 1.0, fz);
    let n01 = noise_grad(Hash2(ix, iz + 1, seed), fx, fz - 1.0);
    let n11 = noise_grad(Hash2(ix + 1, iz + 1, seed), fx - 1.0, fz - 1.0);
    let u = noise_fade(fx);
    let w = noise_fade(fz);
    return noise_lerp(noise_lerp(n00, n10, u), noise_lerp(n01, n11, u), w);
}

// fbmUnit maps an octave sum (normalised by the amplitudes' total) onto [0, 1): the one mapping
// FBMInv, FBMPre and the weights kernel's cached fbm share (noise.FBMInv's last two lines).
fn fbmUnit(sum: f32, norm: f32) -> f32 {
    let v = 0.5 + (sum / norm) * NOISE_DIAG;
    return clamp(v, 0.0, NOISE_MAX);
}

// FBM divides on the GPU (to 2.5 ULP in WGSL); kernels call FBMInv with the correctly rounded
// inverse from params (noise.FBMInv's doc says why).
fn FBM(x: f32, z: f32, featureSize: f32, octaves: u32, seed: u32) -> f32 {
    return FBMInv(x, z, 1.0 / featureSize, octaves, seed);
}

fn FBMInv(x: f32, z: f32, inv: f32, octaves: u32, seed: u32) -> f32 {
    var qx = x * inv;
    var qz = z * inv;
    var sum = 0.0;
    var norm = 0.0;
    var amp = 1.0;
    let n = max(octaves, 1u);
    for (var k = 0u; k < n; k = k + 1u) {
        sum = sum + amp * GradNoise(qx, qz, PCG(seed + k));
        norm = norm + amp;
        amp = amp * 0.5;
        qx = qx * 2.0;
        qz = qz * 2.0;
    }
    return fbmUnit(sum, norm);
}

// ---- the same noise with its hash work shared (twin of stack's fbm/gradNoise) -----------------
// Hash2(i, j, s) = PCG(PCG(PCG(s) ^ i) ^ j), so with ps = PCG(PCG(seed + k)) (OctaveSeed) taken
// once per octave, a lattice cell needs PCG(ps ^ ix), PCG(ps ^ (ix + 1)) for its two columns and
// one PCG per corner: 6 instead of 12. The gradient is chosen by selects instead of an 8-way switch
// on a per-texel hash (which diverges inside a warp). Same float32 operations as GradNoise/FBM
// (each gradient's dot product is the switch's expression with its signs moved onto dx, dz, which
// is exact); the hash is bit-exact and the float part may differ by rounding only (a driver may
// contract a different multiply-add into an fma).

fn OctaveSeed(seed: u32, k: u32) -> u32 {
    return PCG(PCG(seed + k));
}

fn noise_grad_sel(h: u32, dx: f32, dz: f32) -> f32 {
    let sx = select(dx, -dx, (h & 1u) != 0u);
    let szAxis = select(dz, -dz, (h & 1u) != 0u);
    let szDiag = select(dz, -dz, (h & 2u) != 0u);
    let axis = select(sx, szAxis, (h & 2u) != 0u);
    let diag = NOISE_DIAG * sx + NOISE_DIAG * szDiag;
    return select(axis, diag, (h & 4u) != 0u);
}

// GradNoisePre is GradNoise(qx, qz, seed) with ps = PCG(PCG(seed)) (OctaveSeed(seed', k) for the
// octave seed PCG(seed' + k)) already computed.
fn GradNoisePre(qx: f32, qz: f32, ps: u32) -> f32 {
    let fx0 = floor(qx);
    let fz0 = floor(qz);
    let ix = i32(fx0);
    let iz = i32(fz0);
    let fx = qx - fx0;
    let fz = qz - fz0;
    let c0 = PCG(ps ^ bitcast<u32>(ix));
    let c1 = PCG(ps ^ bitcast<u32>(ix + 1));
    let z0 = bitcast<u32>(iz);
    let z1 = bitcast<u32>(iz + 1);
    return gradNoiseMix(fx, fz, PCG(c0 ^ z0), PCG(c1 ^ z0), PCG(c0 ^ z1), PCG(c1 ^ z1));
}

// gradNoiseMix is the float part of GradNoisePre: the four corners' gradients (only the low three
// bits of each hash are read) mixed at the cell offset (fx, fz).
fn gradNoiseMix(fx: f32, fz: f32, h00: u32, h10: u32, h01: u32, h11: u32) -> f32 {
    let n00 = noise_grad_sel(h00, fx, fz);
    let n10 = noise_grad_sel(h10, fx - 1.0, fz);
    let n01 = noise_grad_sel(h01, fx, fz - 1.0);
    let n11 = noise_grad_sel(h11, fx - 1.0, fz - 1.0);
    let u = noise_fade(fx);
    let w = noise_fade(fz);
    return noise_lerp(noise_lerp(n00, n10, u), noise_lerp(n01, n11, u), w);
}

// FBMPre is FBMInv with the shared hash work above (same arguments, same result).
fn FBMPre(x: f32, z: f32, inv: f32, octaves: u32, seed: u32) -> f32 {
    var qx = x * inv;
    var qz = z * inv;
    var sum = 0.0;
    var norm = 0.0;
    var amp = 1.0;
    let n = max(octaves, 1u);
    for (var k = 0u; k < n; k = k + 1u) {
        sum = sum + amp * GradNoisePre(qx, qz, OctaveSeed(seed, k));
        norm = norm + amp;
        amp = amp * 0.5;
        qx = qx * 2.0;
        qz = qz * 2.0;
    }
    return fbmUnit(sum, norm);
}
