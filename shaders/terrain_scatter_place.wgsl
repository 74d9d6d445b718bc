// terrain_scatter_place — a population's density channel into instance transforms in the shared
// pool the viewport draws from (array<mat4x4<f32>>, column-major, tightly packed).
//
// One thread per candidate site of one tile: sites are a grid of `spacing` metres from the field's
// minimum corner, and the Go host hands each tile exactly the sites whose centre falls in it
// (scatter.Sites), so any tiling places the same sites. Acceptance, jitter, yaw and scale are
// integer hashes of the site's (i, j) and the seed; Y is the height at the jittered position. The
// slot comes from an atomic counter that keeps counting past capacity: the host reads the total,
// grows the pool and runs again. Twin of scatter (Go), site.go.
//
// Bit-exactness with the Go reference: GPU compilers fuse a*b + c into one fma (rounding once
// where Go rounds twice) and recognise a + (b - a)*t as a lerp they lower their own way. Every
// product that feeds a sum is written mulr(a, b): the product's bits XORed with zeroBits, a u32
// that is 0 at run time but unknown to the compiler. Integer operations cannot be folded into
// float patterns, so the product is rounded on its own and the sum is a plain add. The jittered
// position goes through the same identity, or (min + x) - min in a bilinear tap is simplified
// to x (seen on lavapipe: 66 of 298 heights off by an ulp before).
// sin/cos are polynomials of such products and sums for the same reason.
//
// One dispatch places every tile of a run: PPs holds one PlaceParams per tile and workgroup_id.z
// picks it (the host dispatches the largest tile's site block; threads past a tile's own block
// do nothing). Accepted sites take their slots a workgroup at a time: one atomicAdd on the pool
// counter per workgroup that accepted anything, then base + rank within the workgroup (most
// sites are rejected, and a single global counter hit by every accepted thread serialises).
// Slot order was never fixed (docs/scatter.md); the set of instances and each matrix are.
//
// A second entry point, keep, copies the instances of the tiles that are not being re-placed from
// the previous pool into this one (scatter.Pool.PlaceTiles on the GPU). It reads the previous
// pool's count from that pool's own counter (prevCount): the host dispatches it over a bound and
// need not know the count (gpu.PlaceJob.CountLate).
//
//!include noise.wgsl

struct PlaceParams {
    fieldMin: vec2<f32>,
    fieldEnd: vec2<f32>,
    invWTexel: vec2<f32>,
    invHTexel: vec2<f32>,
    siteOrigin: vec2<i32>,
    siteCount: vec2<u32>,
    heightSize: vec2<u32>,
    spacing: f32,
    spacing2: f32,
    seed: u32,
    capacity: u32,
    scaleLo: f32,
    scaleRange: f32,
    zeroBits: u32,
    tile: u32,
    keepCount: u32,
    pad: u32,
    // The height texels the height buffer holds: a window of the whole heightSize grid, placed
    // at heightOrigin, heightWin wide and deep (the host uploads what a band of tiles reads).
    heightOrigin: vec2<i32>,
    heightWin: vec2<u32>,
}

// terrain_scatter_density's output, read-only here.
struct DensityGrid {
    maxBits: u32,
    width: u32,
    height: u32,
    pad: u32,
    values: array<f32>,
}

struct Counter {
    count: atomic<u32>,
}

@group(0) @binding(0) var<storage, read> PPs: array<PlaceParams>;
@group(0) @binding(1) var<storage, read> D: DensityGrid;
@group(0) @binding(2) var<storage, read> heightGrid: array<f32>;
@group(0) @binding(3) var<storage, read_write> pool: array<mat4x4<f32>>;
@group(0) @binding(4) var<storage, read_write> C: Counter;
@group(0) @binding(5) var<storage, read_write> tags: array<u32>;
@group(0) @binding(6) var<storage, read> oldPool: array<mat4x4<f32>>;
@group(0) @binding(7) var<storage, read> oldTags: array<u32>;
@group(0) @binding(8) var<storage, read> dirty: array<u32>;
// The previous pool's count (keep): its counter, as the run that filled it left it.
@group(0) @binding(9) var<storage, read> prevCount: array<u32>;

// The params of the tile this workgroup places (main) or of the run (keep), copied once.
var<private> PP: PlaceParams;

// Sites per workgroup along each axis (main); the host's placeWorkgroup.
const WG: u32 = 16u;

var<workgroup> wgAccepted: atomic<u32>;
var<workgroup> wgBase: u32;

// opq is x, opaque to the compiler: no float rewrite can look through it (see the header).
fn opq(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ PP.zeroBits);
}

// mulr is a*b rounded on its own, never fused into the sum it feeds.
fn mulr(a: f32, b: f32) -> f32 {
    return opq(a * b);
}

fn lerpr(a: f32, b: f32, t: f32) -> f32 {
    return a + mulr(b - a, t);
}

fn densityTap(i: i32, j: i32) -> f32 {
    let a = clamp(i, 0, i32(D.width) - 1);
    let b = clamp(j, 0, i32(D.height) - 1);
    return D.values[u32(b) * D.width + u32(a)];
}

// heightTap is texel (i, j) of the whole height grid, clamped to it, read from the window the
// buffer holds (every tap of the band's sites lies inside it: gpu.placeWindow).
fn heightTap(i: i32, j: i32) -> f32 {
    let a = clamp(i, 0, i32(PP.heightSize.x) - 1) - PP.heightOrigin.x;
    let b = clamp(j, 0, i32(PP.heightSize.y) - 1) - PP.heightOrigin.y;
    return heightGrid[u32(b) * PP.heightWin.x + u32(a)];
}

// densityAt is the bilinear density on the weights grid at world (px, pz): scatter.DensityGrid.
fn densityAt(px: f32, pz: f32) -> f32 {
    let u = mulr(px - PP.fieldMin.x, PP.invWTexel.x) - 0.5;
    let v = mulr(pz - PP.fieldMin.y, PP.invWTexel.y) - 0.5;
    let fu = floor(u);
    let fv = floor(v);
    let iu = i32(fu);
    let iv = i32(fv);
    let tx = u - fu;
    let tz = v - fv;
    return lerpr(lerpr(densityTap(iu, iv), densityTap(iu + 1, iv), tx),
                 lerpr(densityTap(iu, iv + 1), densityTap(iu + 1, iv + 1), tx), tz);
}

// heightAt is the bilinear height at world (px, pz): field.Sampler.Bilinear on the whole grid.
fn heightAt(px: f32, pz: f32) -> f32 {
    let u = mulr(px - PP.fieldMin.x, PP.invHTexel.x) - 0.5;
    let v = mulr(pz - PP.fieldMin.y, PP.invHTexel.y) - 0.5;
    let fu = floor(u);
    let fv = floor(v);
    let iu = i32(fu);
    let iv = i32(fv);
    let tx = u - fu;
    let tz = v - fv;
    return lerpr(lerpr(heightTap(iu, iv), heightTap(iu + 1, iv), tx),
                 lerpr(heightTap(iu, iv + 1), heightTap(iu + 1, iv + 1), tx), tz);
}

// sinCos is scatter.SinCos: yaw = k·2^-24·2π for a 24-bit k, quadrant k >> 22, the rest through
// Taylor polynomials on [0, π/2). Returns (sin, cos).
fn sinCos(k: u32) -> vec2<f32> {
    let q = (k >> 22u) & 3u;
    let x = f32(k & 0x3FFFFFu) * (1.0 / 4194304.0);
    let th = x * 1.5707964f;
    let t2 = th * th;
    var s = -2.5052108e-8f;
    s = 2.7557319e-6f + mulr(t2, s);
    s = -1.984127e-4f + mulr(t2, s);
    s = 8.333334e-3f + mulr(t2, s);
    s = -1.6666667e-1f + mulr(t2, s);
    s = 1.0f + mulr(t2, s);
    s = th * s;
    var c = 2.0876756e-9f;
    c = -2.755732e-7f + mulr(t2, c);
    c = 2.4801588e-5f + mulr(t2, c);
    c = -1.3888889e-3f + mulr(t2, c);
    c = 4.1666668e-2f + mulr(t2, c);
    c = -5.0e-1f + mulr(t2, c);
    c = 1.0f + mulr(t2, c);
    switch (q) {
        case 1u: { return vec2<f32>(c, -s); }
        case 2u: { return vec2<f32>(-s, -c); }
        case 3u: { return vec2<f32>(-c, s); }
        default: { return vec2<f32>(s, c); }
    }
}

// claimSlot is the pool slot of a thread whose site or instance is kept (ok): the workgroup's
// kept threads take consecutive slots from one atomicAdd on the pool counter (a single counter
// hit by every kept thread serialises). Every thread of the workgroup calls it, in uniform
// control flow: it holds the barriers. A thread that is not kept gets a slot it must not use.
fn claimSlot(ok: bool, li: u32) -> u32 {
    var rank = 0u;
    if (ok) {
        rank = atomicAdd(&wgAccepted, 1u);
    }
    workgroupBarrier();
    if (li == 0u) {
        let n = atomicLoad(&wgAccepted);
        if (n > 0u) {
            wgBase = atomicAdd(&C.count, n);
        }
    }
    workgroupBarrier();
    return wgBase + rank;
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    PP = PPs[wid.z];
    let sx = wid.x * WG + lid.x;
    let sy = wid.y * WG + lid.y;
    // No early return before claimSlot: every thread of the workgroup must reach its barriers.
    var ok = sx < PP.siteCount.x && sy < PP.siteCount.y;
    var h = 0u;
    var px = 0.0;
    var pz = 0.0;
    if (ok) {
        let i = PP.siteOrigin.x + i32(sx);
        let j = PP.siteOrigin.y + i32(sy);
        h = Hash2(i, j, PP.seed);
        let ux = U01(PCG(h + 1u));
        let uz = U01(PCG(h + 2u));
        // opq: without it the compiler simplifies (min + x) - min to x inside the bilinear taps.
        px = opq(PP.fieldMin.x + mulr(f32(i) + ux, PP.spacing));
        pz = opq(PP.fieldMin.y + mulr(f32(j) + uz, PP.spacing));
        ok = px < PP.fieldEnd.x && pz < PP.fieldEnd.y;
        if (ok) {
            let d = densityAt(px, pz);
            ok = U01(h) < d * PP.spacing2;
        }
    }
    let slot = claimSlot(ok, li);
    if (!ok) {
        return;
    }
    if (slot >= PP.capacity) {
        return;
    }
    let sc = PP.scaleLo + mulr(U01(PCG(h + 4u)), PP.scaleRange);
    let r = sinCos(PCG(h + 3u) >> 8u);
    let y = heightAt(px, pz);
    pool[slot] = mat4x4<f32>(
        vec4<f32>(r.y * sc, 0.0, -(r.x * sc), 0.0),
        vec4<f32>(0.0, sc, 0.0, 0.0),
        vec4<f32>(r.x * sc, 0.0, r.y * sc, 0.0),
        vec4<f32>(px, y, pz, 1.0));
    tags[slot] = PP.tile;
}

// keep copies instance k of the previous pool unless its tile is marked in dirty (a bit per tile
// index), so re-placing some tiles leaves every other instance as it was. The previous pool holds
// prevCount instances; PP.keepCount is the host's bound on it (the threads dispatched). The kept instances take
// their slots a workgroup at a time, as main's accepted sites do: one atomicAdd on the pool
// counter per workgroup (a million kept instances hitting one counter each serialised the pass).
// Dispatched 2D when one row of workgroups is not enough: k = x + y·(groups across)·64.
@compute @workgroup_size(64)
fn keep(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    PP = PPs[0];
    let k = id.x + id.y * n.x * 64u;
    // No early return before claimSlot: every thread of the workgroup must reach its barriers.
    var ok = k < min(PP.keepCount, prevCount[0]);
    var t = 0u;
    if (ok) {
        t = oldTags[k];
        let w = t >> 5u;
        ok = !(w < arrayLength(&dirty) && (dirty[w] & (1u << (t & 31u))) != 0u);
    }
    let slot = claimSlot(ok, li);
    if (!ok) {
        return;
    }
    if (slot < PP.capacity) {
        pool[slot] = oldPool[k];
        tags[slot] = t;
    }
}
