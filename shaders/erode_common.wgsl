// erode_common.wgsl: what the erosion kernels share (the twin of package erode's sim): the
// parameters, the hash of the rain's jitter and the texel a thread runs. Lengths are in texel
// units L = √(texelX·texelZ), as in Go; every plane is f32 and so is the arithmetic (WGSL has no
// f64: docs/design.md "Erosion", "The GPU twin", says what that changes).

struct ErodeParams {
  w: u32, h: u32, seed: u32, _pad0: u32,
  dt: f32, cx: f32, cz: f32, px: f32,
  pz: f32, rain: f32, rainJitter: f32, capacity: f32,
  minTilt: f32, erosion: f32, deposition: f32, evaporation: f32,
}

// Iter is one iteration's: its index, and whether rain falls on it and on the next one (the host
// decides both as sim.raining does).
struct Iter {
  it: u32, rainNow: u32, rainNext: u32, _pad: u32,
}

@group(0) @binding(0) var<uniform> P: ErodeParams;

// hash is erode.hash: a 32-bit mix of three words (lowbias32 rounds).
fn hash(a: u32, b: u32, c: u32) -> u32 {
  var x = a * 0x9E3779B1u ^ b * 0x85EBCA77u ^ c * 0xC2B2AE3Du;
  for (var r = 0; r < 2; r++) {
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
  }
  return x;
}

// rainAt is sim.rain: texel k's rain on iteration it (L).
fn rainAt(it: u32, k: u32) -> f32 {
  if (P.rainJitter == 0.0) {
    return P.rain;
  }
  let u = f32(hash(P.seed, it, k) >> 8u) / 16777216.0;
  return P.rain * (1.0 + P.rainJitter * (2.0 * u - 1.0));
}

// cell is the texel of a thread; ok is false outside the grid.
struct Cell { i: i32, j: i32, k: i32, ok: bool, }

fn cellOf(gid: vec3<u32>) -> Cell {
  let ok = gid.x < P.w && gid.y < P.h;
  let i = i32(gid.x);
  let j = i32(gid.y);
  return Cell(i, j, j * i32(P.w) + i, ok);
}
