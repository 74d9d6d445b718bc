// weights_texel — the per-texel body of terrain_layer_weights, shared by its two pipelines: the
// plain kernel (terrain_layer_weights.wgsl: stacks whose layers 1.. draw no noise) and the one with
// the per-workgroup lattice cache (terrain_layer_weights_noise.wgsl). Bindings, inputs, band,
// compose, quantize and the store live here once; the including kernel provides main and
// ruleNoise(r, ri, kind), rule ri's fbm at (gPx, gPz) — kind 0 its jitter noise, 1 a noise input —
// so the two pipelines write the same bytes (gpu's TestWeightsKernelsIdentical holds them to it).
// Twin of stack.Compiled (Band, Compose, Quantize) and field.Sampler; docs/design.md fixes the math.
//
// Speed: no dynamically indexed private arrays (they can live in local memory on NVIDIA): the
// eight shares are two vec4s and quantization ranks them with vector compares; a channel's four
// bilinear taps are one switch.
//
// Needs noise.wgsl, field.wgsl and stack_rules.wgsl included before it.

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
        case 3u, 5u, 8u: { return bilinear4(1u + (r.slot & 3u), gPx, gPz); } // 8: flow, its plane in a slot
        case 4u: { return ruleNoise(r, ri, 1u); }
        case 7u: { return aspectFromTaps(taps(), P.head.gradientStep); }
        default: { return 0.0; }
    }
}

// ruleBand is stack_rules' ruleBandAt with the jitter fbm from the kernel's ruleNoise (the same
// values whichever pipeline includes this file).
fn ruleBand(ri: u32) -> f32 {
    let r = P.rules[ri];
    let v = ruleValue(r, ri);
    if (r.input == INPUT_ASPECT) {
        var n = 0.0;
        if (r.jitter != 0.0 && v >= 0.0) {
            n = ruleNoise(r, ri, 0u);
        }
        return aspectBand(v, r, n);
    }
    if (r.jitter == 0.0) {
        return band(v, r, 0.0);
    }
    let settled = ruleSettled(v, r);
    if (settled >= 0.0) {
        return settled;
    }
    return band(v, r, ruleNoise(r, ri, 0u));
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

// texelLocal maps thread li of workgroup wg to its texel in the tile: warp w (32 threads) covers
// the 8×4 block (w % 2, w / 2) of the 16×16 workgroup tile.
fn texelLocal(wg: vec3<u32>, li: u32) -> vec2<u32> {
    let lane = li & 31u;
    let w = li >> 5u;
    let bx = w % (WG_X / 8u);
    let by = w / (WG_X / 8u);
    return vec2<u32>(wg.x * WG_X + bx * 8u + (lane & 7u), wg.y * WG_Y + by * 4u + (lane >> 3u));
}

// weightsTexel evaluates and stores the texel at local of the tile (nothing outside the tile). The
// thread reads world positions from the global texel tileOrigin + local and writes the target at
// that texel minus targetOrigin, the target's own first texel (0 for a whole-field target; a bake
// band's corner otherwise), so a band of a field gets the bytes of the whole field's run.
fn weightsTexel(local: vec2<u32>) {
    if (local.x >= P.head.tileSize.x || local.y >= P.head.tileSize.y) {
        return;
    }
    let gi = P.head.tileOrigin + local;
    // A level of the pyramid places its texel gi where the full grid's texel gi·stride stands.
    let gs = gi * max(P.head.stride, 1u);
    gPx = P.head.fieldMin.x + (f32(gs.x) + 0.5) * P.head.wTexel.x;
    gPz = P.head.fieldMin.y + (f32(gs.y) + 0.5) * P.head.wTexel.y;
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
    let at = vec2<i32>(gi - P.head.targetOrigin);
    textureStore(weightsLo, at, vec4<f32>(q.lo) / 255.0);
    textureStore(weightsHi, at, vec4<f32>(q.hi) / 255.0);
}
