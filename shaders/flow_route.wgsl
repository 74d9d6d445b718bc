// flow_route.wgsl: field.Flow's GPU twin (docs/design.md "Flow", "The GPU twin"): Quinn multiple
// flow direction over the 8 neighbours, the flats routed toward their way out, the area
// accumulated in a deterministic parallel order. Each entry point is the twin of the Go step of the
// same name (flowRouter's classify, flats, flatReceivers, donors, route). No float atomics and
// no order-dependent sums: the flats' distances are a Jacobi relaxation (the breadth-first
// distance is unique), and the accumulation runs in waves in which a cell whose donors are all
// done PULLS their area, its donors taken in neighbour order, so every sum is the same in any
// thread order. Integer atomics only count and schedule (the cells done, whether a pass changed
// anything, the worklist of tiles). routeFront and frontTick, at the end, are scheduling only: they
// run route's step (gather) over a worklist of tiles instead of the whole grid.

struct FlowParams {
  // sweep: the most sub-waves routeFront sweeps a tile in one step (0: until it can do no more).
  w: u32, h: u32, area: f32, sweep: u32,
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
// neighbour order, what each hands it (gather): the donor's area per unit of weight times its
// weight toward this cell. A donor done in this same wave counts as not done (its value may not
// be visible yet), so a thread never reads a value being written.
@compute @workgroup_size(16, 16)
fn route(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok || done[c.c] != 0u) { return; }
  let wave = atomicLoad(&ctl[0]);
  var donors = 0u;
  for (var k = 0; k < 8; k++) {
    let n = nb(c, k);
    if (n < 0 || (recv[n] & (1u << u32(7 - k))) == 0u) { continue; }
    let dn = done[n];
    if (dn == 0u || dn >= wave) { return; }
    donors |= 1u << u32(k);
  }
  gather(c, donors, wave);
  atomicAdd(&ctl[1], 1u);
}

// gather completes cell c, whose donors (bit k: neighbour k) are all done and visible: its area
// (acc), the area it hands per unit of weight (outv), done with stamp. The one sum of the
// accumulation, for route and routeFront alike: the same donors in the same order, so the same
// bytes. The donors' values are loaded first, all at once, then summed in neighbour order.
fn gather(c: Cell, donors: u32, stamp: u32) {
  let hc = height[c.c];
  var ov: array<f32, 8>;
  var hn: array<f32, 8>;
  for (var k = 0; k < 8; k++) {
    if ((donors & (1u << u32(k))) != 0u) {
      let n = nb(c, k);
      ov[k] = outv[n];
      hn[k] = height[n];
    }
  }
  let a = donorSum(hc, donors, &ov, &hn);
  acc[c.c] = a;
  let o = handOut(a, recv[c.c], wsum[c.c]);
  outv[c.c] = o;
  done[c.c] = stamp;
}

// donorSum is a cell's area: its own plus, donor by donor in neighbour order, the donor's area
// per unit of weight (ov[k]) times its weight toward the cell (hn[k]: the donor's height, hc the
// cell's). gather and routeFront both sum through it: the same operations, so the same bytes.
fn donorSum(hc: f32, donors: u32, ov: ptr<function, array<f32, 8>>, hn: ptr<function, array<f32, 8>>) -> f32 {
  var a = P.area;
  for (var k = 0; k < 8; k++) {
    if ((donors & (1u << u32(k))) != 0u) { a += (*ov)[k] * weight(7 - k, (*hn)[k], hc); }
  }
  return a;
}

// handOut is the area a cell of area a hands per unit of weight (0 for a pit: no receivers).
fn handOut(a: f32, m: u32, ws: f32) -> f32 {
  var o = 0.0;
  if (m != 0u) { o = a / ws; }
  return o;
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


// clearFlag (one thread) clears the flats' flag before a chunk's last pass, so that after the
// chunk the flag says whether that pass changed a distance (none: the distances are final).
@compute @workgroup_size(1)
fn clearFlag() {
  atomicStore(&ctl[2], 0u);
}

// ---- Scheduling only: the accumulation over a worklist of tiles (docs/design.md "The GPU twin").
//
// routeFront runs route's step over the tiles of a worklist, one tileSide² tile a workgroup, and
// inside a tile as far as it goes: a topological sweep, every cell completed once its donors are,
// in sub-waves separated by barriers, until the tile can do no more. A step (one dispatch, stamp
// s = ctl[0]) reads list (s−1)&1 and appends to list s&1 the tiles of the next step that hold a
// receiver, outside this tile, of a cell it completed; frontTick then turns that list's length
// into the next dispatch's indirect arguments (an empty list dispatches no workgroup). The tiling
// alternates: odd steps' tiles start at (0, 0), even steps' half a tile up and left, so a chain
// running along one tiling's edge runs inside the other's tiles.
//
// The workgroup first loads its tile and a ring of one cell around it into workgroup memory
// (height, receivers, the area per weight, whether done before this step; the tile's weight
// sums), so that the sweep reads no global memory: a cell's in-tile donors' values are those the
// sweep left in workgroup memory, its donors outside the tile those done in an earlier step
// (stamp < s: a value another workgroup may be writing in this step is never read, such a donor
// counts as not done and the cell waits for a later step). Every cell is completed with route's
// sum (donorSum, handOut: its donors in neighbour order, the same operations): the bytes are
// route's. ctl[3] is the last step that completed a cell. A step may sweep a tile at most P.sweep
// sub-waves (0: no limit), so that one long chain inside a tile does not hold every other tile
// of the step back: the steps are bulk-synchronous, each as long as its longest sweep.
const tileShift: u32 = 4u;
// groupSize: routeFront's threads a workgroup (a tile).
const groupSize: u32 = 256u;
const tileSide: u32 = 1u << tileShift;
const tileCells: u32 = tileSide * tileSide;
// The tile with its ring: haloSide² cells, cell (x, z) of the tile at (z+1)·haloSide + x+1.
const haloSide: u32 = tileSide + 2u;
const haloCells: u32 = haloSide * haloSide;
const ringRounds: u32 = (haloCells + groupSize - 1u) / groupSize;
const needWords: u32 = tileCells / 8u;
const queueWords: u32 = tileCells / 2u;
const donorWords: u32 = tileCells / 4u;
// frontRow: workgroups a row of an indirect dispatch (a list longer than this takes rows).
const frontRow: u32 = 32768u;
const frontSteps: u32 = 4096u;
// wDone: the bit of wRecv that says the cell was done before this step (or lies outside the
// field, where it is neither a donor nor swept).
const wDone: u32 = 0x100u;

// front: [0], [1] the two lists' lengths; [2, 2+NT) the step each tile was last queued for;
// then list 0 and list 1 (NT tiles each; NT: the tiles of the larger tiling, maxTiles); then, for
// steps 1 … frontSteps, the most sub-waves a tile swept in that step (a measure: the sum over the
// steps is the accumulation's critical path in sub-waves); last, the tiles queued after step 1
// (a measure: the work the steps had).
@group(0) @binding(11) var<storage, read_write> front: array<atomic<u32>>;
// args: the indirect dispatch arguments of list 0 (words 0–2) and list 1 (words 4–6).
@group(0) @binding(12) var<storage, read_write> args: array<u32, 8>;

// The tile and its ring (haloCells each): height, area per weight (outv; of the tile's cells as
// the sweep completes them), receivers with wDone.
var<workgroup> wHeight: array<f32, haloCells>;
var<workgroup> wOut: array<f32, haloCells>;
var<workgroup> wRecv: array<u32, haloCells>;
// The tile's cells' weight sums.
var<workgroup> wSum: array<f32, tileCells>;
// need: 4 bits a cell of the tile, its donors not yet done (15: one outside the tile is not
// ready, so it waits for a later step); queue: the tile's cells ready to complete, 16 bits each.
var<workgroup> need: array<atomic<u32>, needWords>;
var<workgroup> queue: array<atomic<u32>, queueWords>;
// donors: 8 bits a cell of the tile, its donors (found once, in phase 1).
var<workgroup> donorBits: array<atomic<u32>, donorWords>;
var<workgroup> qTail: atomic<u32>;
var<workgroup> wgDirs: atomic<u32>;
var<workgroup> wgCount: atomic<u32>;
var<workgroup> wgUniform: u32;

// tileOffset is how far step s's tiles are shifted up and left (0 on odd steps, half a tile on
// even ones); tilesAcross how many tiles of that tiling cover extent cells.
fn tileOffset(s: u32) -> u32 { return select(tileSide / 2u, 0u, (s & 1u) == 1u); }
fn tilesAcross(extent: u32, off: u32) -> u32 { return (extent + off + tileSide - 1u) >> tileShift; }
fn maxTiles() -> u32 { return tilesAcross(P.w, tileSide / 2u) * tilesAcross(P.h, tileSide / 2u); }

// ringIndex is tile cell l's index in the tile with its ring.
fn ringIndex(l: u32) -> u32 { return ((l >> tileShift) + 1u) * haloSide + (l & (tileSide - 1u)) + 1u; }

fn enqueue(l: u32) {
  let e = atomicAdd(&qTail, 1u);
  atomicOr(&queue[e >> 1u], l << ((e & 1u) * 16u));
}

@compute @workgroup_size(groupSize)
fn routeFront(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let step = atomicLoad(&ctl[0]);
  let nt = maxTiles();
  let rd = (step - 1u) & 1u;
  let wr = step & 1u;
  if (li == 0u) {
    // The list's length and its entry idx loaded at once (one round trip, not two): entries past
    // the length are old ones, idx past the list (the last row of a long one) reads entry 0.
    let idx = wid.y * frontRow + wid.x;
    let n = atomicLoad(&front[rd]);
    let e = atomicLoad(&front[2u + (1u + rd) * nt + select(0u, idx, idx < nt)]);
    wgUniform = select(0xffffffffu, e, idx < n);
    atomicStore(&qTail, 0u);
    atomicStore(&wgDirs, 0u);
    atomicStore(&wgCount, 0u);
  }
  for (var e = li; e < needWords; e += groupSize) { atomicStore(&need[e], 0u); }
  for (var e = li; e < queueWords; e += groupSize) { atomicStore(&queue[e], 0u); }
  for (var e = li; e < donorWords; e += groupSize) { atomicStore(&donorBits[e], 0u); }
  let t = workgroupUniformLoad(&wgUniform);
  if (t == 0xffffffffu) { return; }
  let off = tileOffset(step);
  let tx = t % tilesAcross(P.w, off);
  let ty = t / tilesAcross(P.w, off);
  let ox = i32(tx << tileShift) - i32(off);
  let oy = i32(ty << tileShift) - i32(off);
  let side = i32(tileSide);
  let hs = i32(haloSide);
  // The next step's tiles that can hold a receiver outside this one: a 2×2 block from (bx, bz).
  let off2 = i32(tileOffset(step + 1u));
  let bx = (ox - 1 + off2) >> tileShift;
  let bz = (oy - 1 + off2) >> tileShift;
  // 0. The tile and its ring into workgroup memory: every plane of every cell, in a fixed count
  // of rounds, so that the compiler may unroll them and issue every load at once.
  for (var it = 0u; it < ringRounds; it++) {
    let e = li + it * groupSize;
    if (e >= haloCells) { continue; }
    let x = i32(e % haloSide) - 1;
    let z = i32(e / haloSide) - 1;
    let i = ox + x;
    let j = oy + z;
    var r = wDone;
    if (i >= 0 && j >= 0 && i < i32(P.w) && j < i32(P.h)) {
      let g = j * i32(P.w) + i;
      let d = done[g];
      r = recv[g] | select(0u, wDone, d != 0u && d < step);
      wHeight[e] = height[g];
      wOut[e] = outv[g];
      if (x >= 0 && z >= 0 && x < side && z < side) { wSum[u32(z * side + x)] = wsum[g]; }
    }
    wRecv[e] = r;
  }
  workgroupBarrier();
  // 1. The tile's cells not done: their donors, how many each waits for.
  for (var l = li; l < tileCells; l += groupSize) {
    let e = i32(ringIndex(l));
    if ((wRecv[e] & wDone) != 0u) { continue; }
    let x = i32(l & (tileSide - 1u));
    let z = i32(l >> tileShift);
    var wait = 0u;
    var blocked = false;
    var donors = 0u;
    for (var k = 0; k < 8; k++) {
      let o = nbOffset(k);
      let rn = wRecv[e + o.y * hs + o.x];
      if ((rn & (1u << u32(7 - k))) == 0u) { continue; }
      donors |= 1u << u32(k);
      if ((rn & wDone) == 0u) {
        let xn = x + o.x;
        let zn = z + o.y;
        if (xn >= 0 && zn >= 0 && xn < side && zn < side) {
          wait += 1u;
        } else {
          blocked = true;
        }
      }
    }
    if (blocked) { wait = 15u; }
    atomicOr(&donorBits[l >> 2u], donors << ((l & 3u) * 8u));
    if (wait == 0u) {
      enqueue(l);
    } else {
      atomicOr(&need[l >> 3u], wait << ((l & 7u) * 4u));
    }
  }
  // 2. Sub-waves: complete the ready cells (their values to workgroup memory for the next
  // sub-waves, and to the planes), count down their receivers in the tile, queue those whose
  // count reaches 0; note the next step's tiles that hold a receiver outside this one.
  var head = 0u;
  var count = 0u;
  var waves = 0u;
  loop {
    workgroupBarrier();
    if (li == 0u) { wgUniform = atomicLoad(&qTail); }
    let tail = workgroupUniformLoad(&wgUniform);
    if (tail == head) { break; }
    if (waves == P.sweep && P.sweep != 0u) {
      // Swept as far as a step may: the ready cells wait for the next step, which takes the tiles
      // that hold them (a cell they make ready in another tile is queued as it completes).
      for (var q = head + li; q < tail; q += groupSize) {
        let l = (atomicLoad(&queue[q >> 1u]) >> ((q & 1u) * 16u)) & 0xffffu;
        let xn = i32(l & (tileSide - 1u));
        let zn = i32(l >> tileShift);
        let d = (((ox + xn + off2) >> tileShift) - bx) + 2 * (((oy + zn + off2) >> tileShift) - bz);
        atomicOr(&wgDirs, 1u << u32(d));
      }
      break;
    }
    waves += 1u;
    for (var q = head + li; q < tail; q += groupSize) {
      let l = (atomicLoad(&queue[q >> 1u]) >> ((q & 1u) * 16u)) & 0xffffu;
      let x = i32(l & (tileSide - 1u));
      let z = i32(l >> tileShift);
      let e = i32(ringIndex(l));
      let donors = (atomicLoad(&donorBits[l >> 2u]) >> ((l & 3u) * 8u)) & 0xffu;
      let hc = wHeight[e];
      var ov: array<f32, 8>;
      var hn: array<f32, 8>;
      for (var k = 0; k < 8; k++) {
        if ((donors & (1u << u32(k))) != 0u) {
          let o = nbOffset(k);
          ov[k] = wOut[e + o.y * hs + o.x];
          hn[k] = wHeight[e + o.y * hs + o.x];
        }
      }
      let a = donorSum(hc, donors, &ov, &hn);
      let m = wRecv[e] & 0xffu;
      let ow = handOut(a, m, wSum[l]);
      wOut[e] = ow;
      let g = (oy + z) * i32(P.w) + ox + x;
      acc[g] = a;
      outv[g] = ow;
      done[g] = step;
      count += 1u;
      for (var k = 0; k < 8; k++) {
        if ((m & (1u << u32(k))) == 0u) { continue; }
        let o = nbOffset(k);
        let xn = x + o.x;
        let zn = z + o.y;
        if (xn >= 0 && zn >= 0 && xn < side && zn < side) {
          let r = u32(zn * side + xn);
          let sh = (r & 7u) * 4u;
          let old = atomicSub(&need[r >> 3u], 1u << sh);
          if (((old >> sh) & 15u) == 1u) { enqueue(r); }
        } else {
          let d = (((ox + xn + off2) >> tileShift) - bx) + 2 * (((oy + zn + off2) >> tileShift) - bz);
          atomicOr(&wgDirs, 1u << u32(d));
        }
      }
    }
    head = tail;
  }
  atomicAdd(&wgCount, count);
  workgroupBarrier();
  // 3. Queue those tiles for the next step, once each.
  let nx = bx + i32(li & 1u);
  let nz = bz + i32(li >> 1u);
  let inside = nx >= 0 && nz >= 0 && nx < i32(tilesAcross(P.w, u32(off2))) && nz < i32(tilesAcross(P.h, u32(off2)));
  if (li < 4u && inside && (atomicLoad(&wgDirs) & (1u << li)) != 0u) {
    let t2 = u32(nz) * tilesAcross(P.w, u32(off2)) + u32(nx);
    if (atomicMax(&front[2u + t2], step + 1u) < step + 1u) {
      let at = atomicAdd(&front[wr], 1u);
      atomicStore(&front[2u + (1u + wr) * nt + at], t2);
    }
  }
  if (li == 0u) {
    let finished = atomicLoad(&wgCount);
    if (finished != 0u) {
      atomicAdd(&ctl[1], finished);
      atomicMax(&ctl[3], step);
    }
    if (step <= frontSteps) { atomicMax(&front[2u + 3u * nt + step - 1u], waves); }
  }
}

// frontTick ends a step (one thread): the list just written becomes the next dispatch's
// arguments, the list just read is emptied for the step after, the stamp advances.
@compute @workgroup_size(1)
fn frontTick() {
  let step = atomicLoad(&ctl[0]);
  let wr = step & 1u;
  let n = atomicLoad(&front[wr]);
  args[wr * 4u] = min(n, frontRow);
  args[wr * 4u + 1u] = (n + frontRow - 1u) / frontRow;
  args[wr * 4u + 2u] = 1u;
  atomicAdd(&front[2u + 3u * maxTiles() + frontSteps], n);
  atomicStore(&front[1u - wr], 0u);
  atomicStore(&ctl[0], step + 1u);
}
