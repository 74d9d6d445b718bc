// terrain_layer_weights — a layer stack's rules into two RGBA8 weight textures (layers 0-3 in
// weightsLo, 4-7 in weightsHi; the eight bytes of a texel sum to exactly 255).
//
// One thread per destination weight texel, dispatched per tile. The thread writes global texel
// tileOrigin + local; every read is placed from the field minimum and the texel sizes (never from
// the tile origin), through the tile's apron-inclusive buffers, so any tiling gives the same bytes.
// Twin of stack.Compiled (Band, Compose, Quantize) and field.Sampler; docs/design.md fixes the math.
//
//!include noise.wgsl
//!include field.wgsl

// Params lanes (docs/design.md "Params lanes"; produced by stack.Pack / stack.PackTile only).
struct Head {
    fieldMin: vec2<f32>,
    invHTexel: vec2<f32>,
    wTexel: vec2<f32>,
    gradientStep: f32,
    layerCount: u32,
    tileOrigin: vec2<u32>,
    tileSize: vec2<u32>,
    bufOrigin: vec2<u32>,
    bufSize: vec2<u32>,
}

struct LayerLane {
    strength: f32,
    ruleStart: u32,
    ruleCount: u32,
    flags: u32,
}

struct RuleLane {
    input: u32,
    slot: u32,
    flags: u32,
    seed: u32,
    min: f32,
    max: f32,
    softness: f32,
    jitter: f32,
    featureSize: f32,
    octaves: u32,
    invTwoSoft: f32,
    noiseSeed: u32,
}

struct Params {
    head: Head,
    layers: array<LayerLane, 8>,
    rules: array<RuleLane>,
}

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

const FLAG_INVERT: u32 = 1u;
const FLAG_HAS_MIN: u32 = 2u;
const FLAG_HAS_MAX: u32 = 4u;
const MAX_OCTAVES: u32 = 16u;

fn fieldGeom() -> vec4<f32> {
    return vec4<f32>(P.head.fieldMin, P.head.invHTexel);
}

// slot 0 is the height; slots 1..4 are chan0..chan3.
fn fieldTap(slot: u32, i: i32, j: i32) -> f32 {
    let o = vec2<i32>(P.head.bufOrigin);
    let mx = i32(P.head.bufSize.x) - 1;
    let my = i32(P.head.bufSize.y) - 1;
    let a = clamp(i - o.x, 0, mx);
    let b = clamp(j - o.y, 0, my);
    let k = u32(b) * P.head.bufSize.x + u32(a);
    switch (slot) {
        case 1u: { return chan0[k]; }
        case 2u: { return chan1[k]; }
        case 3u: { return chan2[k]; }
        case 4u: { return chan3[k]; }
        default: { return height[k]; }
    }
}

fn clamp01(t: f32) -> f32 {
    if (!(t > 0.0)) {
        return 0.0;
    }
    if (t > 1.0) {
        return 1.0;
    }
    return t;
}

fn smooth01(t: f32) -> f32 {
    return t * t * (3.0 - 2.0 * t);
}

// band is stack.Band: jitter, the min/max feather (a hard inclusive step at softness 0), invert.
fn band(v0: f32, r: RuleLane, n: f32) -> f32 {
    var v = v0;
    if (r.jitter != 0.0) {
        v = v + r.jitter * (2.0 * n - 1.0);
    }
    var c = 1.0;
    let s = r.softness;
    if ((r.flags & FLAG_HAS_MIN) != 0u) {
        if (s == 0.0) {
            if (!(v >= r.min)) {
                c = 0.0;
            }
        } else {
            c = c * smooth01(clamp01((v - (r.min - s)) * r.invTwoSoft));
        }
    }
    if ((r.flags & FLAG_HAS_MAX) != 0u) {
        if (s == 0.0) {
            if (!(v <= r.max)) {
                c = 0.0;
            }
        } else {
            c = c * (1.0 - smooth01(clamp01((v - (r.max - s)) * r.invTwoSoft)));
        }
    }
    if ((r.flags & FLAG_INVERT) != 0u) {
        c = 1.0 - c;
    }
    return c;
}

// Per-texel state: the position and the height taps, fetched once when a rule first needs them.
var<private> gPx: f32;
var<private> gPz: f32;
var<private> gHaveTaps: bool;
var<private> gTaps: Taps;

fn taps() -> Taps {
    if (!gHaveTaps) {
        gTaps = heightTaps(gPx, gPz, P.head.gradientStep);
        gHaveTaps = true;
    }
    return gTaps;
}

fn ruleValue(r: RuleLane) -> f32 {
    switch (r.input) {
        case 0u: { return bilinear(0u, gPx, gPz); }
        case 1u: { return slopeFromTaps(taps(), P.head.gradientStep); }
        case 2u: { return curvatureFromTaps(taps(), P.head.gradientStep); }
        case 3u, 5u: { return bilinear(1u + (r.slot & 3u), gPx, gPz); }
        case 4u: { return FBM(gPx, gPz, r.featureSize, min(r.octaves, MAX_OCTAVES), r.noiseSeed); }
        default: { return 0.0; }
    }
}

// SETTLE_MARGIN is stack.settleMargin: relative slack far above float32 rounding.
const SETTLE_MARGIN: f32 = 1e-5;

// ruleSettled is stack.settleBounds.settled: where [v - jitter, v + jitter] (widened by the
// margin) lies in a flat part of the band, every noise value gives the same coverage, exactly 0 or
// 1, and it is returned without drawing the noise. -1 means the noise is needed. The result is
// identical to band() with the noise; only the cost differs.
fn ruleSettled(v: f32, r: RuleLane) -> f32 {
    if (!(r.jitter > 0.0)) {
        return -1.0;
    }
    let s = r.softness;
    let m = r.jitter * (1.0 + SETTLE_MARGIN) + abs(v) * SETTLE_MARGIN;
    let lo = v - m;
    let hi = v + m;
    var c = 1.0;
    if ((r.flags & FLAG_HAS_MIN) != 0u) {
        let mm = SETTLE_MARGIN * (abs(r.min) + s);
        if (hi < r.min - s - mm) {
            c = 0.0;
        } else if (!(lo > r.min + s + mm)) {
            return -1.0;
        }
    }
    if ((r.flags & FLAG_HAS_MAX) != 0u && c != 0.0) {
        let mm = SETTLE_MARGIN * (abs(r.max) + s);
        if (lo > r.max + s + mm) {
            c = 0.0;
        } else if (!(hi < r.max - s - mm)) {
            return -1.0;
        }
    }
    if ((r.flags & FLAG_INVERT) != 0u) {
        c = 1.0 - c;
    }
    return c;
}

fn ruleBand(ri: u32) -> f32 {
    let r = P.rules[ri];
    let v = ruleValue(r);
    var n = 0.0;
    if (r.jitter != 0.0) {
        let settled = ruleSettled(v, r);
        if (settled >= 0.0) {
            return settled;
        }
        n = FBM(gPx, gPz, r.featureSize, min(r.octaves, MAX_OCTAVES), r.seed);
    }
    return band(v, r, n);
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

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let local = id.xy;
    if (local.x >= P.head.tileSize.x || local.y >= P.head.tileSize.y) {
        return;
    }
    let gi = P.head.tileOrigin + local;
    gPx = P.head.fieldMin.x + (f32(gi.x) + 0.5) * P.head.wTexel.x;
    gPz = P.head.fieldMin.y + (f32(gi.y) + 0.5) * P.head.wTexel.y;
    gHaveTaps = false;

    // Compose, top down: each layer takes its coverage of what still shows; layer 0 the rest.
    var share: array<f32, 8>;
    var remaining = 1.0;
    for (var l = 7u; l >= 1u; l = l - 1u) {
        share[l] = 0.0;
        if (l >= P.head.layerCount || remaining == 0.0) {
            continue;
        }
        share[l] = product(l) * remaining;
        remaining = remaining - share[l];
    }
    share[0] = remaining;

    // Quantize: largest remainder to exactly 255, ties to the lower layer index.
    var q: array<i32, 8>;
    var rem: array<f32, 8>;
    var sum = 0;
    for (var k = 0u; k < 8u; k = k + 1u) {
        let v = clamp01(share[k]) * 255.0;
        let f = floor(v);
        q[k] = i32(f);
        rem[k] = v - f;
        sum = sum + q[k];
    }
    var d = 255 - sum;
    for (; d > 0; d = d - 1) {
        var best = 0u;
        for (var k = 1u; k < 8u; k = k + 1u) {
            if (rem[k] > rem[best]) {
                best = k;
            }
        }
        q[best] = q[best] + 1;
        rem[best] = -1.0;
    }
    for (; d < 0; d = d + 1) {
        var best = 8u;
        for (var k = 0u; k < 8u; k = k + 1u) {
            if (q[k] > 0 && (best == 8u || rem[k] < rem[best])) {
                best = k;
            }
        }
        if (best == 8u) {
            break;
        }
        q[best] = q[best] - 1;
        rem[best] = 2.0;
    }

    let at = vec2<i32>(gi);
    textureStore(weightsLo, at, vec4<f32>(f32(q[0]), f32(q[1]), f32(q[2]), f32(q[3])) / 255.0);
    textureStore(weightsHi, at, vec4<f32>(f32(q[4]), f32(q[5]), f32(q[6]), f32(q[7])) / 255.0);
}
