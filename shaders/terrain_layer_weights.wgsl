// terrain_layer_weights — a layer stack's rules into two RGBA8 weight textures (layers 0-3 in
// weightsLo, 4-7 in weightsHi; the eight bytes of a texel sum to exactly 255).
//
// One thread per destination weight texel, dispatched per tile in 16×16 workgroups (each warp of
// 32 threads covers an 8×4 block, so neighbouring texels, which take the same branches, share a
// warp). The thread writes global texel tileOrigin + local; every read is placed from the field
// minimum and the texel sizes (never from the tile origin), through the tile's apron-inclusive
// buffers, so any tiling gives the same bytes. Twin of stack.Compiled (Band, Compose, Quantize) and
// field.Sampler; docs/design.md fixes the math.
//
// Speed: no dynamically indexed private arrays (they can live in local memory on
// NVIDIA): the eight shares are two vec4s and quantization ranks them with vector compares; a
// channel's four bilinear taps are one switch. The fbm is noise.wgsl's FBMPre (row hashes shared,
// gradients by select instead of an 8-way switch on a per-texel hash): same values as FBM, 19%
// less time for the stress stack on the H200. On top of it the corner hashes come from a
// per-workgroup lattice cache (below): 5.02 → 4.47 ms for the 4096² stress field on the H200, but
// 0.396 → 0.470 ms for the 1-rule sample (which draws no noise: the cost of the cache's prologue
// and of the larger kernel).
//
//!include noise.wgsl
//!include field.wgsl
//!include stack_rules.wgsl

@group(0) @binding(0) var<storage, read> P: Params;
@group(0) @binding(1) var<storage, read> height: array<f32>;
@group(0) @binding(2) var<storage, read> chan0: array<f32>;
@group(0) @binding(3) var<storage, read> chan1: array<f32>;
@group(0) @binding(4) var<storage, read> chan2: array<f32>;
@group(0) @binding(5) var<storage, read> chan3: array<f32>;
@group(0) @binding(6) var weightsLo: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(7) var weightsHi: texture_storage_2d<rgba8unorm, write>;

const INPUT_HEIGHT: u32 = 0u;
const INPUT_SLOPE: u32 = 1u;
const INPUT_CURVATURE: u32 = 2u;
const INPUT_MASK: u32 = 3u;
const INPUT_NOISE: u32 = 4u;
const INPUT_CHANNEL: u32 = 5u;


// The workgroup: WG_X × WG_Y threads (gpu.weightsWorkgroup must match).
const WG_X: u32 = 16u;
const WG_Y: u32 = 16u;
const WG_THREADS: u32 = 256u;

fn fieldGeom() -> vec4<f32> {
    return vec4<f32>(P.head.fieldMin, P.head.invHTexel);
}

// slot 0 is the height; slots 1..4 are chan0..chan3. (field.wgsl's hook; the kernel itself reads
// through bilinear4 below.)
fn fieldTap(slot: u32, i: i32, j: i32) -> f32 {
    let k = tapIndex(i, j);
    switch (slot) {
        case 1u: { return chan0[k]; }
        case 2u: { return chan1[k]; }
        case 3u: { return chan2[k]; }
        case 4u: { return chan3[k]; }
        default: { return height[k]; }
    }
}

// Per-texel state: the position, the buffer placement, and the height taps, fetched once when a
// rule first needs them.
var<private> gPx: f32;
var<private> gPz: f32;
var<private> gBufO: vec2<i32>;
var<private> gBufMax: vec2<i32>;
var<private> gBufW: u32;
var<private> gHaveTaps: bool;
var<private> gTaps: Taps;

fn tapIndex(i: i32, j: i32) -> u32 {
    let a = clamp(i - gBufO.x, 0, gBufMax.x);
    let b = clamp(j - gBufO.y, 0, gBufMax.y);
    return u32(b) * gBufW + u32(a);
}

// bilinear4 is field.wgsl's bilinear (same float32 order) with the four taps' indices computed
// first and one switch on the slot for all four loads.
fn bilinear4(slot: u32, px: f32, pz: f32) -> f32 {
    let g = fieldGeom();
    let u = (px - g.x) * g.z - 0.5;
    let v = (pz - g.y) * g.w - 0.5;
    let fu = floor(u);
    let fv = floor(v);
    let iu = i32(fu);
    let iv = i32(fv);
    let tx = u - fu;
    let tz = v - fv;
    let a0 = clamp(iu - gBufO.x, 0, gBufMax.x);
    let a1 = clamp(iu + 1 - gBufO.x, 0, gBufMax.x);
    let r0 = u32(clamp(iv - gBufO.y, 0, gBufMax.y)) * gBufW;
    let r1 = u32(clamp(iv + 1 - gBufO.y, 0, gBufMax.y)) * gBufW;
    let k00 = r0 + u32(a0);
    let k10 = r0 + u32(a1);
    let k01 = r1 + u32(a0);
    let k11 = r1 + u32(a1);
    var h: vec4<f32>;
    switch (slot) {
        case 1u: { h = vec4<f32>(chan0[k00], chan0[k10], chan0[k01], chan0[k11]); }
        case 2u: { h = vec4<f32>(chan1[k00], chan1[k10], chan1[k01], chan1[k11]); }
        case 3u: { h = vec4<f32>(chan2[k00], chan2[k10], chan2[k01], chan2[k11]); }
        case 4u: { h = vec4<f32>(chan3[k00], chan3[k10], chan3[k01], chan3[k11]); }
        default: { h = vec4<f32>(height[k00], height[k10], height[k01], height[k11]); }
    }
    return field_lerp(field_lerp(h.x, h.y, tx), field_lerp(h.z, h.w, tx), tz);
}

// ---- the lattice cache -------------------------------------------------------------------------
// Every texel of a workgroup lies in one small world rectangle, so per rule, noise kind (0 the
// jitter fbm, 1 a noise input) and octave its texels touch only a few lattice corners. Before the
// per-texel work the 256 threads hash, once, an 8×8 block of corners per (rule, kind, octave) slot
// for the first NC_RULES rules and NC_OCT octaves: the block starts at the lattice cell of the
// workgroup's lowest texel, in absolute lattice coordinates (never tile-relative, so any tiling
// gives the same bytes). A corner keeps its gradient selector (the hash's low 3 bits) in a nibble:
// one u32 per lattice row of a slot. A texel whose cell is not inside the block (a slot whose
// octave spans more than 7 cells over the workgroup, rules or octaves past the cap) hashes in-thread
// as before; the hashes are the same integers either way.
const NC_RULES: u32 = 16u;
const NC_OCT: u32 = 4u;
const NC_SLOTS: u32 = 128u; // NC_RULES · 2 kinds · NC_OCT
const NC_WORDS: u32 = 1024u; // NC_SLOTS · 8 rows

var<workgroup> ncBase: array<vec2<i32>, 128>;
var<workgroup> ncOn: array<u32, 128>;
var<workgroup> ncCol: array<u32, 1024>;
var<workgroup> ncSel: array<u32, 1024>;

fn ncSlot(ri: u32, kind: u32, k: u32) -> u32 {
    return (ri * 2u + kind) * NC_OCT + k;
}

// Slot rule index rr is rule gNcLo + rr; gNcRules rules are cached (0: no cache this dispatch).
var<private> gNcLo: u32;
var<private> gNcRules: u32;

// ncFillSlots: thread li describes slot li / 2 (its block origin and octave seed) and hashes four
// of its eight columns. (x0, z0) and (x1, z1) are the workgroup's lowest and highest texel.
fn ncFillSlots(li: u32, x0: f32, z0: f32, x1: f32, z1: f32) {
    let s = li >> 1u;
    let half = li & 1u;
    let rr = s / (2u * NC_OCT);
    let kind = (s / NC_OCT) & 1u;
    let k = s % NC_OCT;
    if (rr >= gNcRules) {
        return;
    }
    var on = false;
    var seed = 0u;
    var inv = 0.0;
    {
        let r = P.rules[gNcLo + rr];
        let n = max(min(r.octaves, MAX_OCTAVES), 1u);
        inv = r.invFeatureSize;
        if (kind == 0u) {
            on = r.jitter != 0.0 && k < n;
            seed = r.seed;
        } else {
            on = r.input == INPUT_NOISE && k < n;
            seed = r.noiseSeed;
        }
    }
    if (!on) {
        if (half == 0u) {
            ncOn[s] = 0u;
        }
        return;
    }
    var qx0 = x0 * inv;
    var qz0 = z0 * inv;
    var qx1 = x1 * inv;
    var qz1 = z1 * inv;
    for (var j = 0u; j < k; j = j + 1u) {
        qx0 = qx0 * 2.0;
        qz0 = qz0 * 2.0;
        qx1 = qx1 * 2.0;
        qz1 = qz1 * 2.0;
    }
    let base = vec2<i32>(min(i32(floor(qx0)), i32(floor(qx1))), min(i32(floor(qz0)), i32(floor(qz1))));
    let ps = OctaveSeed(seed, k);
    if (half == 0u) {
        ncBase[s] = base;
        ncOn[s] = 1u;
    }
    for (var a = half * 4u; a < half * 4u + 4u; a = a + 1u) {
        ncCol[s * 8u + a] = PCG(ps ^ bitcast<u32>(base.x + i32(a)));
    }
}

// ncFillRows: the selectors of one lattice row (8 corners, a nibble each) per word.
fn ncFillRows(li: u32) {
    for (var wd = li; wd < gNcRules * 2u * NC_OCT * 8u; wd = wd + WG_THREADS) {
        let s = wd >> 3u;
        if (ncOn[s] == 0u) {
            continue;
        }
        let z = bitcast<u32>(ncBase[s].y + i32(wd & 7u));
        var sel = 0u;
        for (var a = 0u; a < 8u; a = a + 1u) {
            sel = sel | ((PCG(ncCol[s * 8u + a] ^ z) & 7u) << (4u * a));
        }
        ncSel[wd] = sel;
    }
}

// gradNoiseWG is GradNoisePre(qx, qz, OctaveSeed(seed, k)) with the corners read from slot s when
// the cell lies inside its block (useCache), hashed in-thread otherwise.
fn gradNoiseWG(qx: f32, qz: f32, seed: u32, k: u32, s: u32, useCache: bool) -> f32 {
    let fx0 = floor(qx);
    let fz0 = floor(qz);
    let ix = i32(fx0);
    let iz = i32(fz0);
    let fx = qx - fx0;
    let fz = qz - fz0;
    if (useCache) {
        let b = ncBase[s];
        let a = ix - b.x;
        let c = iz - b.y;
        if (a >= 0 && a < 7 && c >= 0 && c < 7) {
            let w0 = ncSel[s * 8u + u32(c)];
            let w1 = ncSel[s * 8u + u32(c) + 1u];
            let sh = u32(a) * 4u;
            return gradNoiseMix(fx, fz, w0 >> sh, w0 >> (sh + 4u), w1 >> sh, w1 >> (sh + 4u));
        }
    }
    let ps = OctaveSeed(seed, k);
    let c0 = PCG(ps ^ bitcast<u32>(ix));
    let c1 = PCG(ps ^ bitcast<u32>(ix + 1));
    let z0 = bitcast<u32>(iz);
    let z1 = bitcast<u32>(iz + 1);
    return gradNoiseMix(fx, fz, PCG(c0 ^ z0), PCG(c1 ^ z0), PCG(c0 ^ z1), PCG(c1 ^ z1));
}

// fbmWG is FBMPre(gPx, gPz, inv, octaves, seed) (same float operations) through the cache slots
// of rule ri's noise of the given kind.
fn fbmWG(inv: f32, octaves: u32, seed: u32, ri: u32, kind: u32) -> f32 {
    var qx = gPx * inv;
    var qz = gPz * inv;
    var sum = 0.0;
    var norm = 0.0;
    var amp = 1.0;
    let n = max(octaves, 1u);
    let rr = ri - gNcLo;
    let cached = ri >= gNcLo && rr < gNcRules && ncOn[ncSlot(min(rr, NC_RULES - 1u), kind, 0u)] != 0u;
    let s0 = ncSlot(min(rr, NC_RULES - 1u), kind, 0u);
    for (var k = 0u; k < n; k = k + 1u) {
        sum = sum + amp * gradNoiseWG(qx, qz, seed, k, s0 + min(k, NC_OCT - 1u), cached && k < NC_OCT);
        norm = norm + amp;
        amp = amp * 0.5;
        qx = qx * 2.0;
        qz = qz * 2.0;
    }
    return fbmUnit(sum, norm);
}

fn taps() -> Taps {
    if (!gHaveTaps) {
        let g = P.head.gradientStep;
        gTaps.xp = bilinear4(0u, gPx + g, gPz);
        gTaps.xm = bilinear4(0u, gPx - g, gPz);
        gTaps.zp = bilinear4(0u, gPx, gPz + g);
        gTaps.zm = bilinear4(0u, gPx, gPz - g);
        gTaps.c = bilinear4(0u, gPx, gPz);
        gHaveTaps = true;
    }
    return gTaps;
}

fn ruleValue(r: RuleLane, ri: u32) -> f32 {
    switch (r.input) {
        case 0u: { return bilinear4(0u, gPx, gPz); }
        case 1u: { return slopeFromTaps(taps(), P.head.gradientStep); }
        case 2u: { return curvatureFromTaps(taps(), P.head.gradientStep); }
        case 3u, 5u: { return bilinear4(1u + (r.slot & 3u), gPx, gPz); }
        case 4u: { return fbmWG(r.invFeatureSize, min(r.octaves, MAX_OCTAVES), r.noiseSeed, ri, 1u); }
        default: { return 0.0; }
    }
}

// ruleBand is stack_rules' ruleBandAt with the jitter fbm read through the workgroup's lattice
// cache (same values: the hashes are the same integers, the float part is unchanged).
fn ruleBand(ri: u32) -> f32 {
    let r = P.rules[ri];
    let v = ruleValue(r, ri);
    if (r.jitter == 0.0) {
        return band(v, r, 0.0);
    }
    let settled = ruleSettled(v, r);
    if (settled >= 0.0) {
        return settled;
    }
    return band(v, r, fbmWG(r.invFeatureSize, min(r.octaves, MAX_OCTAVES), r.seed, ri, 0u));
}

// product is strength · Π band over the layer's rules, stopping once it reaches 0.
fn product(l: u32) -> f32 {
    let L = P.layers[l];
    var v = L.strength;
    for (var ri = L.ruleStart; ri < L.ruleStart + L.ruleCount && v != 0.0; ri = ri + 1u) {
        v = v * ruleBand(ri);
    }
    return v;
}

// clamp01v is clamp01 per component (NaN → 0).
fn clamp01v(t: vec4<f32>) -> vec4<f32> {
    return select(vec4<f32>(0.0), min(t, vec4<f32>(1.0)), t > vec4<f32>(0.0));
}

fn sum4(v: vec4<i32>) -> i32 {
    return v.x + v.y + v.z + v.w;
}

// rankOf counts the layers that come before layer k in the order "larger remainder first, ties to
// the lower index": how many +1s quantization hands out before reaching k.
fn rankOf(rk: f32, k: u32, rLo: vec4<f32>, rHi: vec4<f32>) -> i32 {
    let kv = vec4<u32>(k);
    let x = vec4<f32>(rk);
    let bLo = (rLo > x) | ((rLo == x) & (vec4<u32>(0u, 1u, 2u, 3u) < kv));
    let bHi = (rHi > x) | ((rHi == x) & (vec4<u32>(4u, 5u, 6u, 7u) < kv));
    return sum4(select(vec4<i32>(0), vec4<i32>(1), bLo)) + sum4(select(vec4<i32>(0), vec4<i32>(1), bHi));
}

fn min4(v: vec4<f32>) -> f32 {
    return min(min(v.x, v.y), min(v.z, v.w));
}

struct Quant {
    lo: vec4<i32>,
    hi: vec4<i32>,
}

// quantize is stack.Quantize: largest remainder to exactly 255, ties to the lower layer index.
// The d > 0 loop of stack.Quantize gives +1 to the d layers of lowest rank (larger remainder
// first, lower index on ties) and, past all eight, keeps picking layer 0: computed directly here.
fn quantize(shLo: vec4<f32>, shHi: vec4<f32>) -> Quant {
    let vLo = clamp01v(shLo) * 255.0;
    let vHi = clamp01v(shHi) * 255.0;
    let fLo = floor(vLo);
    let fHi = floor(vHi);
    var qLo = vec4<i32>(fLo);
    var qHi = vec4<i32>(fHi);
    var rLo = vLo - fLo;
    var rHi = vHi - fHi;
    var d = 255 - sum4(qLo) - sum4(qHi);
    if (d > 0) {
        let rankLo = vec4<i32>(rankOf(rLo.x, 0u, rLo, rHi), rankOf(rLo.y, 1u, rLo, rHi),
                               rankOf(rLo.z, 2u, rLo, rHi), rankOf(rLo.w, 3u, rLo, rHi));
        let rankHi = vec4<i32>(rankOf(rHi.x, 4u, rLo, rHi), rankOf(rHi.y, 5u, rLo, rHi),
                               rankOf(rHi.z, 6u, rLo, rHi), rankOf(rHi.w, 7u, rLo, rHi));
        let dv = vec4<i32>(d);
        qLo = qLo + select(vec4<i32>(0), vec4<i32>(1), rankLo < dv);
        qHi = qHi + select(vec4<i32>(0), vec4<i32>(1), rankHi < dv);
        qLo.x = qLo.x + max(d - 8, 0);
        d = 0;
    }
    // d < 0 (shares summing past 1 by rounding): take 1 from the layer with the smallest
    // remainder among those above 0 (ties to the lower index), mark it 2, repeat.
    for (; d < 0; d = d + 1) {
        let cLo = select(vec4<f32>(3.0), rLo, qLo > vec4<i32>(0));
        let cHi = select(vec4<f32>(3.0), rHi, qHi > vec4<i32>(0));
        let m = min(min4(cLo), min4(cHi));
        if (m == 3.0) {
            break;
        }
        var best = 7u;
        best = select(best, 6u, cHi.z == m);
        best = select(best, 5u, cHi.y == m);
        best = select(best, 4u, cHi.x == m);
        best = select(best, 3u, cLo.w == m);
        best = select(best, 2u, cLo.z == m);
        best = select(best, 1u, cLo.y == m);
        best = select(best, 0u, cLo.x == m);
        let bv = vec4<u32>(best);
        let mLo = vec4<u32>(0u, 1u, 2u, 3u) == bv;
        let mHi = vec4<u32>(4u, 5u, 6u, 7u) == bv;
        qLo = qLo - select(vec4<i32>(0), vec4<i32>(1), mLo);
        qHi = qHi - select(vec4<i32>(0), vec4<i32>(1), mHi);
        rLo = select(rLo, vec4<f32>(2.0), mLo);
        rHi = select(rHi, vec4<f32>(2.0), mHi);
    }

    return Quant(qLo, qHi);
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    // Thread li → texel: warp w (32 threads) covers the 8×4 block (w % 2, w / 2) of the 16×16
    // workgroup tile.
    let lane = li & 31u;
    let w = li >> 5u;
    let bx = w % (WG_X / 8u);
    let by = w / (WG_X / 8u);
    let local = vec2<u32>(wg.x * WG_X + bx * 8u + (lane & 7u), wg.y * WG_Y + by * 4u + (lane >> 3u));

    // The lattice cache, filled by all threads, and only when a rule of layers 1.. draws noise
    // (the condition reads only the read-only params: uniform control flow around the barriers).
    let lcAll = min(P.head.layerCount, 8u);
    var lo = 0xffffffffu;
    var hi = 0u;
    for (var l = 1u; l < lcAll; l = l + 1u) {
        let L = P.layers[l];
        if (L.ruleCount > 0u) {
            lo = min(lo, L.ruleStart);
            hi = max(hi, L.ruleStart + L.ruleCount);
        }
    }
    var noisy = false;
    for (var ri = lo; ri < hi; ri = ri + 1u) {
        let r = P.rules[ri];
        noisy = noisy || r.jitter != 0.0 || r.input == INPUT_NOISE;
    }
    gNcLo = lo;
    gNcRules = 0u;
    if (noisy) {
        gNcRules = min(hi - lo, NC_RULES);
        let ts = max(P.head.tileSize, vec2<u32>(1u));
        let g0 = P.head.tileOrigin + min(vec2<u32>(wg.x * WG_X, wg.y * WG_Y), ts - vec2<u32>(1u));
        let g1 = P.head.tileOrigin + min(vec2<u32>(wg.x * WG_X + WG_X - 1u, wg.y * WG_Y + WG_Y - 1u), ts - vec2<u32>(1u));
        ncFillSlots(li,
            P.head.fieldMin.x + (f32(g0.x) + 0.5) * P.head.wTexel.x,
            P.head.fieldMin.y + (f32(g0.y) + 0.5) * P.head.wTexel.y,
            P.head.fieldMin.x + (f32(g1.x) + 0.5) * P.head.wTexel.x,
            P.head.fieldMin.y + (f32(g1.y) + 0.5) * P.head.wTexel.y);
        workgroupBarrier();
        ncFillRows(li);
        workgroupBarrier();
    }

    if (local.x >= P.head.tileSize.x || local.y >= P.head.tileSize.y) {
        return;
    }
    let gi = P.head.tileOrigin + local;
    gPx = P.head.fieldMin.x + (f32(gi.x) + 0.5) * P.head.wTexel.x;
    gPz = P.head.fieldMin.y + (f32(gi.y) + 0.5) * P.head.wTexel.y;
    gBufO = vec2<i32>(P.head.bufOrigin);
    gBufMax = vec2<i32>(P.head.bufSize) - vec2<i32>(1);
    gBufW = P.head.bufSize.x;
    gHaveTaps = false;

    // Compose, top down: each layer takes its coverage of what still shows; layer 0 the rest.
    // Shares live in two vec4s written through constant-index masks (no private array).
    var shLo = vec4<f32>(0.0);
    var shHi = vec4<f32>(0.0);
    var remaining = 1.0;
    let lc = P.head.layerCount;
    for (var l = 7u; l >= 1u; l = l - 1u) {
        if (l >= lc || remaining == 0.0) {
            continue;
        }
        let s = product(l) * remaining;
        remaining = remaining - s;
        let lv = vec4<u32>(l);
        shLo = select(shLo, vec4<f32>(s), vec4<u32>(0u, 1u, 2u, 3u) == lv);
        shHi = select(shHi, vec4<f32>(s), vec4<u32>(4u, 5u, 6u, 7u) == lv);
    }
    shLo.x = remaining;

    let q = quantize(shLo, shHi);
    let at = vec2<i32>(gi);
    textureStore(weightsLo, at, vec4<f32>(q.lo) / 255.0);
    textureStore(weightsHi, at, vec4<f32>(q.hi) / 255.0);
}
