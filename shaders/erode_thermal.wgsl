// erode_thermal.wgsl: thermal erosion's passes of package erode (thermal.go), one thread a texel,
// each entry point the twin of the Go pass of the same name. A step is two Jacobi passes (what
// each texel sheds, then what each receives from its neighbours' shares), both from the ground's
// f32 copy hgt as in Go. The settle's "is any slope still too steep" is one u32 flag set with
// atomicOr (an integer OR: the same bits in any order); settleTick ends the settle on the device
// after the first step that found none, so a chunk of steps runs without a round trip and the
// steps after the last one change nothing.

//!include erode_common.wgsl

// Talus is one thermal step's constants (erode.talusStep): the drop at talus to each of the 8
// neighbours (nbOff's order), the drop at talus + tolerance (+Inf: none asked), the rate.
struct Talus {
  lim: array<vec4<f32>, 2>,
  limTol: array<vec4<f32>, 2>,
  rate: f32,
  // skip: the settle's steps skip quiet tiles (16×16, a workgroup's); tilesX × tilesY tiles.
  skip: u32, tilesX: u32, tilesY: u32,
}

@group(0) @binding(2) var<storage, read_write> ground: array<f32>;
// db: the ground's change, updated in place by thermalInRow (each texel writes only its own).
@group(0) @binding(4) var<storage, read_write> db: array<f32>;
@group(0) @binding(10) var<storage, read_write> out: array<f32>;
@group(0) @binding(13) var<storage, read_write> hgt: array<f32>;
@group(0) @binding(14) var<storage, read_write> hgtNext: array<f32>;
@group(0) @binding(15) var<storage, read_write> excess: array<f32>;
@group(0) @binding(16) var<uniform> T: Talus;
// ctl: 0 live (the settle goes on), 1 a slope of this step exceeded talus + tolerance, 2 steps
// taken, 3 the step the settle ended at, 4 the final check's flag.
@group(0) @binding(17) var<storage, read_write> ctl: array<atomic<u32>, 8>;
// Per tile, the last step's (tileA) and this step's (tileB) bits: 1 a texel of the tile shed
// material, 2 a slope of the tile exceeded talus + tolerance; tileQ: 1 this step's first pass
// may skip the tile, 2 its second pass may.
@group(0) @binding(18) var<storage, read_write> tileA: array<atomic<u32>>;
@group(0) @binding(19) var<storage, read_write> tileB: array<atomic<u32>>;
@group(0) @binding(20) var<storage, read_write> tileQ: array<u32>;

// nbIndex is the index of neighbour d of texel c, erode's nbOff order: (-1,-1), (0,-1), (1,-1),
// (-1,0), (1,0), (-1,1), (0,1), (1,1), the 3×3 block without its middle, row by row.
fn nbIndex(c: Cell, d: i32) -> i32 {
  var dx = array<i32, 8>(-1, 0, 1, -1, 1, -1, 0, 1);
  var dz = array<i32, 8>(-1, -1, -1, 0, 0, 1, 1, 1);
  return c.k + dz[d] * i32(P.w) + dx[d];
}

// interior: all 8 neighbours are on the grid (no test per neighbour, as Go's fast path).
fn interior(c: Cell) -> bool {
  return c.i > 0 && c.j > 0 && c.i < i32(P.w) - 1 && c.j < i32(P.h) - 1;
}

fn inside(c: Cell, d: i32) -> bool {
  var dx = array<i32, 8>(-1, 0, 1, -1, 1, -1, 0, 1);
  var dz = array<i32, 8>(-1, -1, -1, 0, 0, 1, 1, 1);
  let x = c.i + dx[d];
  let z = c.j + dz[d];
  return x >= 0 && x < i32(P.w) && z >= 0 && z < i32(P.h);
}

fn limAt(d: i32) -> f32 { return T.lim[d / 4][d % 4]; }
fn limTolAt(d: i32) -> f32 { return T.limTol[d / 4][d % 4]; }

// A settle step skips the tiles where nothing can change, as Go's settle skips quiet rows
// (rowState): a texel's first pass reads the ground within one texel, which moved only within
// one texel of a texel that shed in the last step, so a tile none of whose tiles within two shed
// gives what it gave (its out and excess are kept, its steepness carried); a texel's second pass
// changes it only when it or a neighbour sheds in this step, so a tile none of whose tiles
// within one shed keeps its change and its ground's copy. tilePlanOut and tilePlanIn run one
// thread a tile.

fn tileOf(gid: vec3<u32>) -> vec2<i32> { return vec2(i32(gid.x), i32(gid.y)); }

fn tileIndex(t: vec2<i32>) -> i32 { return t.y * i32(T.tilesX) + t.x; }

// anyShed reports whether a tile within r of t shed (bit 1) in flags b (0: tileA, 1: tileB).
fn anyShed(t: vec2<i32>, r: i32, b: i32) -> bool {
  for (var z = max(t.y - r, 0); z <= min(t.y + r, i32(T.tilesY) - 1); z++) {
    for (var x = max(t.x - r, 0); x <= min(t.x + r, i32(T.tilesX) - 1); x++) {
      var f = 0u;
      if (b == 0) { f = atomicLoad(&tileA[tileIndex(vec2(x, z))]); } else { f = atomicLoad(&tileB[tileIndex(vec2(x, z))]); }
      if ((f & 1u) != 0u) { return true; }
    }
  }
  return false;
}

@compute @workgroup_size(16, 16)
fn tilePlanOut(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = tileOf(gid);
  if (t.x >= i32(T.tilesX) || t.y >= i32(T.tilesY)) { return; }
  let i = tileIndex(t);
  atomicStore(&tileB[i], 0u);
  tileQ[i] = select(0u, 1u, T.skip != 0u && !anyShed(t, 2, 0));
}

@compute @workgroup_size(16, 16)
fn tilePlanIn(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = tileOf(gid);
  if (t.x >= i32(T.tilesX) || t.y >= i32(T.tilesY)) { return; }
  let i = tileIndex(t);
  tileQ[i] = (tileQ[i] & 1u) | select(0u, 2u, T.skip != 0u && !anyShed(t, 1, 1));
}

fn tileOfCell(c: Cell) -> i32 { return tileIndex(vec2(c.i / 16, c.j / 16)); }

// hgtRefresh: the ground's f32 copy, f32(ground + change), as sim.thermalRows refreshes it.
@compute @workgroup_size(16, 16)
fn hgtRefresh(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  hgt[c.k] = ground[c.k] + db[c.k];
}

// thermalOutRow: every texel's outgoing material (rate · its largest excess over talus) and its
// share per unit of excess; a slope above talus + tolerance sets ctl[1].
@compute @workgroup_size(16, 16)
fn thermalOutRow(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok || atomicLoad(&ctl[0]) == 0u) { return; }
  let tile = tileOfCell(c);
  if (T.skip != 0u && (tileQ[tile] & 1u) != 0u) {
    // Quiet: out and excess as the last step left them; its steepness carried.
    if ((atomicLoad(&tileA[tile]) & 2u) != 0u) {
      if ((atomicLoad(&tileB[tile]) & 2u) == 0u) { atomicOr(&tileB[tile], 2u); }
      if (atomicLoad(&ctl[1]) == 0u) { atomicOr(&ctl[1], 1u); }
    }
    return;
  }
  let hk = hgt[c.k];
  let in = interior(c);
  var sum = 0.0;
  var most = 0.0;
  var steep = false;
  for (var d = 0; d < 8; d++) {
    if (!in && !inside(c, d)) { continue; }
    let dr = hk - hgt[nbIndex(c, d)];
    let e = dr - limAt(d);
    if (e > 0.0) {
      sum += e;
      if (e > most) { most = e; }
    }
    if (dr > limTolAt(d)) { steep = true; }
  }
  let o = T.rate * most;
  out[c.k] = o;
  var x = 0.0;
  if (o > 0.0) {
    x = o / sum;
    if ((atomicLoad(&tileB[tile]) & 1u) == 0u) { atomicOr(&tileB[tile], 1u); }
  }
  excess[c.k] = x;
  // The flags are ORed only while unset: most texels of a steep ground find them set, and an
  // atomic on one word from every thread serializes.
  if (steep) {
    if ((atomicLoad(&tileB[tile]) & 2u) == 0u) { atomicOr(&tileB[tile], 2u); }
    if (atomicLoad(&ctl[1]) == 0u) { atomicOr(&ctl[1], 1u); }
  }
}

// thermalInRow: change = change − what the texel sheds + its neighbours' shares toward it, each
// from the same hgt as the first pass, in nbOff's order; hgtNext the new ground's f32 copy.
@compute @workgroup_size(16, 16)
fn thermalInRow(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok || atomicLoad(&ctl[0]) == 0u) { return; }
  if (T.skip != 0u && (tileQ[tileOfCell(c)] & 2u) != 0u) {
    hgtNext[c.k] = hgt[c.k]; // nothing moves here: f32(ground + change) as it was
    return;
  }
  let hk = hgt[c.k];
  let in = interior(c);
  var v = db[c.k] - out[c.k];
  for (var d = 0; d < 8; d++) {
    if (!in && !inside(c, d)) { continue; }
    let n = nbIndex(c, d);
    v += excess[n] * max(hgt[n] - hk - limAt(d), 0.0);
  }
  db[c.k] = v;
  hgtNext[c.k] = ground[c.k] + v;
}

// settleTick ends a settle step (one thread): the settle stops after the first step in which no
// slope exceeded talus + tolerance (sim.settle), and the steps after it do nothing.
@compute @workgroup_size(1)
fn settleTick() {
  if (atomicLoad(&ctl[0]) == 0u) { return; }
  let k = atomicAdd(&ctl[2], 1u);
  if (atomicExchange(&ctl[1], 0u) == 0u) {
    atomicStore(&ctl[0], 0u);
    atomicStore(&ctl[3], k);
  }
}

// steep is sim.steep: whether any slope to a neighbour exceeds talus + tolerance (ctl[4]).
@compute @workgroup_size(16, 16)
fn steep(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  let in = interior(c);
  for (var d = 0; d < 8; d++) {
    if (!in && !inside(c, d)) { continue; }
    let n = nbIndex(c, d);
    if ((ground[c.k] - ground[n]) + (db[c.k] - db[n]) > limTolAt(d)) {
      if (atomicLoad(&ctl[4]) == 0u) { atomicOr(&ctl[4], 1u); }
      return;
    }
  }
}
