// flow_route.wgsl: field.Flow's GPU twin (docs/design.md "Flow", "The GPU twin"): Quinn multiple
// flow direction over the 8 neighbours, the flats routed toward their way out, the area
// accumulated in a deterministic parallel order. Each entry point is the twin of the Go step of the
// same name (flowRouter's classify, flats, flatReceivers, donors, route). No float atomics and
// no order-dependent sums: the flats' distances are a Jacobi relaxation (the breadth-first
// distance is unique), and the accumulation runs in waves in which a cell whose donors are all
// done PULLS their area, its donors taken in neighbour order, so every sum is the same in any
// thread order. Integer atomics only count (the cells done, whether a pass changed anything).

struct FlowParams {
  w: u32, h: u32, area: f32, _pad: u32,
  // coef[k]: the geometric factor of neighbour k (flowRouter.geometry), in neighbour order.
  coef: array<vec4<f32>, 2>,
}

@group(0) @binding(0) var<uniform> P: FlowParams;
@group(0) @binding(1) var<storage, read_write> height: array<f32>;
// recv: bit k, neighbour k receives from the cell (its lower neighbours, or on a flat those one
// step nearer the way out).
@group(0) @binding(2) var<storage, read_write> recv: array<u32>;
@group(0) @binding(3) var<storage, read_write> distA: array<i32>;
@group(0) @binding(4) var<storage, read_write> distB: array<i32>;
// wsum: the sum of the cell's receivers' weights; out: the area it hands per unit of weight.
@group(0) @binding(5) var<storage, read_write> wsum: array<f32>;
@group(0) @binding(6) var<storage, read_write> acc: array<f32>;
@group(0) @binding(7) var<storage, read_write> outv: array<f32>;
// done: the wave in which the cell's area was complete (0: not yet).
@group(0) @binding(8) var<storage, read_write> done: array<u32>;
// ctl: 0 the wave, 1 cells done, 2 a relaxation pass changed a distance.
@group(0) @binding(9) var<storage, read_write> ctl: array<atomic<u32>, 4>;
@group(0) @binding(10) var<storage, read_write> plane: array<f32>;

// nbOffset is the neighbour order of field.flowRouter (-1,-1), (0,-1), (1,-1), (-1,0), (1,0),
// (-1,1), (0,1), (1,1): neighbour 7−k of a cell's neighbour k is the cell.
fn nbOffset(k: i32) -> vec2<i32> {
  let e = select(k + 1, k, k < 4);
  return vec2(e % 3 - 1, e / 3 - 1);
}

fn coefAt(k: i32) -> f32 { return P.coef[k / 4][k % 4]; }

fn finiteH(v: f32) -> bool { return v == v && abs(v) <= 3.4028234663852886e38; }

struct Cell { i: i32, j: i32, c: i32, ok: bool, }

fn cellOf(gid: vec3<u32>) -> Cell {
  return Cell(i32(gid.x), i32(gid.y), i32(gid.y) * i32(P.w) + i32(gid.x), gid.x < P.w && gid.y < P.h);
}

// nb is neighbour k of cell c (-1 outside the field).
fn nb(c: Cell, k: i32) -> i32 {
  let o = nbOffset(k);
  let n = vec2(c.i, c.j) + o;
  if (n.x < 0 || n.y < 0 || n.x >= i32(P.w) || n.y >= i32(P.h)) { return -1; }
  return c.c + o.y * i32(P.w) + o.x;
}

// classify: the strictly lower (finite) neighbours; distance 0 with one, -1 without.
@compute @workgroup_size(16, 16)
fn classify(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  let hc = height[c.c];
  var m = 0u;
  if (finiteH(hc)) {
    for (var k = 0; k < 8; k++) {
      let n = nb(c, k);
      if (n >= 0) {
        let hn = height[n];
        if (finiteH(hn) && hn < hc) { m |= 1u << u32(k); }
      }
    }
  }
  recv[c.c] = m;
  distA[c.c] = select(-1, 0, m != 0u);
  distB[c.c] = select(-1, 0, m != 0u);
  done[c.c] = 0u;
}

// flats: one relaxation pass of the flats' distances (distA → distB): a finite cell without a
// lower neighbour and no distance yet takes one more than the least distance among its
// equal-height neighbours that have one. Repeated until no pass changes anything, it gives the
// breadth-first distances of flowRouter.flats.
@compute @workgroup_size(16, 16)
fn flats(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  let dc = distA[c.c];
  let hc = height[c.c];
  var best = -1;
  if (dc == -1 && finiteH(hc)) {
    for (var k = 0; k < 8; k++) {
      let n = nb(c, k);
      if (n >= 0 && height[n] == hc) {
        let dn = distA[n];
        if (dn >= 0 && (best < 0 || dn < best)) { best = dn; }
      }
    }
  }
  if (best >= 0) {
    distB[c.c] = best + 1;
    atomicOr(&ctl[2], 1u);
  } else {
    distB[c.c] = dc;
  }
}

// weight is the weight of neighbour k as a receiver of a cell of height hc (a drop times the
// factor; a flat receiver the factor alone).
fn weight(k: i32, hc: f32, hn: f32) -> f32 {
  let drop = hc - hn;
  return select(coefAt(k), coefAt(k) * drop, drop > 0.0);
}

// flatReceivers: a flat cell with a way out hands its area to its equal-height neighbours one
// step nearer it; then every cell's receivers' weight sum (distA holds the final distances).
@compute @workgroup_size(16, 16)
fn flatReceivers(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  let dc = distA[c.c];
  let hc = height[c.c];
  var m = recv[c.c];
  if (dc > 0) {
    m = 0u;
    for (var k = 0; k < 8; k++) {
      let n = nb(c, k);
      if (n >= 0 && distA[n] == dc - 1 && height[n] == hc) { m |= 1u << u32(k); }
    }
    recv[c.c] = m;
  }
  var s = 0.0;
  for (var k = 0; k < 8; k++) {
    if ((m & (1u << u32(k))) != 0u) { s += weight(k, hc, height[nb(c, k)]); }
  }
  wsum[c.c] = s;
}

// route: one wave of the accumulation. A cell not yet done whose donors (the neighbours that
// hand it area) were all done in earlier waves takes its own area plus, donor by donor in
// neighbour order, what each hands it: the donor's area per unit of weight times its weight
// toward this cell. A donor done in this same wave counts as not done (its value may not be
// visible yet), so a thread never reads a value being written.
@compute @workgroup_size(16, 16)
fn route(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok || done[c.c] != 0u) { return; }
  let wave = atomicLoad(&ctl[0]);
  let hc = height[c.c];
  var a = P.area;
  for (var k = 0; k < 8; k++) {
    let n = nb(c, k);
    if (n < 0 || (recv[n] & (1u << u32(7 - k))) == 0u) { continue; }
    let dn = done[n];
    if (dn == 0u || dn >= wave) { return; }
    a += outv[n] * weight(7 - k, height[n], hc);
  }
  acc[c.c] = a;
  var o = 0.0;
  if (recv[c.c] != 0u) { o = a / wsum[c.c]; }
  outv[c.c] = o;
  done[c.c] = wave;
  atomicAdd(&ctl[1], 1u);
}

// tick ends a wave (one thread).
@compute @workgroup_size(1)
fn tick() {
  atomicAdd(&ctl[0], 1u);
}

// logPlane: the flow plane, log10 of the area (m²).
@compute @workgroup_size(16, 16)
fn logPlane(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  plane[c.c] = log2(acc[c.c]) * 0.30102999566398120;
}

// routeTile is route with waves inside a workgroup's 16×16 tile: a dispatch runs up to
// tileWaves sub-waves, separated by workgroup barriers, so a chain of cells advances by up to
// tileWaves cells a dispatch inside a tile instead of one. Wave numbers: dispatch D's sub-wave s
// is D·tileWaves + s + 1. A donor in the same tile counts when done in an earlier sub-wave (the
// barrier made it visible); a donor in another tile only when done in an earlier dispatch (a
// value another workgroup is writing is never read). A tile with nothing left returns at once,
// and stops when a sub-wave completes nothing (what it waits for is in another tile). The sums
// are those of route: the same donors in the same order, so the same bytes.
const tileWaves: u32 = 32u;

var<workgroup> wgFlag: atomic<u32>;
var<workgroup> wgCount: atomic<u32>;
var<workgroup> wgUniform: u32;

// sameTile reports whether cells (i, j) and (x, z) lie in one 16×16 tile.
fn sameTile(i: i32, j: i32, x: i32, z: i32) -> bool {
  return (i >> 4u) == (x >> 4u) && (j >> 4u) == (z >> 4u);
}

// pull is one cell's attempt in wave wave of a dispatch whose earlier dispatches' waves are
// ≤ base: its area when every donor is ready, else a negative value.
fn pull(c: Cell, wave: u32, base: u32) -> f32 {
  let hc = height[c.c];
  var a = P.area;
  for (var k = 0; k < 8; k++) {
    let n = nb(c, k);
    if (n < 0 || (recv[n] & (1u << u32(7 - k))) == 0u) { continue; }
    let dn = done[n];
    let o = nbOffset(k);
    let limit = select(base, wave - 1u, sameTile(c.i, c.j, c.i + o.x, c.j + o.y));
    if (dn == 0u || dn > limit) { return -1.0; }
    a += outv[n] * weight(7 - k, height[n], hc);
  }
  return a;
}

@compute @workgroup_size(16, 16)
fn routeTile(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let c = cellOf(gid);
  let base = atomicLoad(&ctl[0]) * tileWaves;
  if (li == 0u) {
    atomicStore(&wgFlag, 0u);
    atomicStore(&wgCount, 0u);
  }
  workgroupBarrier();
  var pending = c.ok && done[c.c] == 0u;
  if (pending) { atomicStore(&wgFlag, 1u); }
  workgroupBarrier();
  if (li == 0u) { wgUniform = atomicLoad(&wgFlag); }
  if (workgroupUniformLoad(&wgUniform) == 0u) { return; }
  for (var s = 0u; s < tileWaves; s++) {
    if (li == 0u) { atomicStore(&wgFlag, 0u); }
    workgroupBarrier();
    if (pending) {
      let wave = base + s + 1u;
      let a = pull(c, wave, base);
      if (a >= 0.0) {
        acc[c.c] = a;
        var o = 0.0;
        if (recv[c.c] != 0u) { o = a / wsum[c.c]; }
        outv[c.c] = o;
        done[c.c] = wave;
        pending = false;
        atomicStore(&wgFlag, 1u);
        atomicAdd(&wgCount, 1u);
      }
    }
    storageBarrier();
    workgroupBarrier();
    if (li == 0u) { wgUniform = atomicLoad(&wgFlag); }
    if (workgroupUniformLoad(&wgUniform) == 0u) { break; }
  }
  if (li == 0u) { atomicAdd(&ctl[1], atomicLoad(&wgCount)); }
}
