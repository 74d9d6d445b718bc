// stack_rules — what every kernel that evaluates stack rules shares: the params lanes as
// stack.Pack / stack.PackPopulation write them (docs/params.md; one Go function produces them and
// TestParamsLayoutMatchesWGSL holds these structs to it), and the band of a rule, twin of
// stack.Band and stack.settleBounds. Included by terrain_layer_weights and terrain_scatter_density
// after noise.wgsl.

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
    targetOrigin: vec2<u32>,
    stride: u32,
    headPad: u32,
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
    invFeatureSize: f32,
    octaves: u32,
    invTwoSoft: f32,
    noiseSeed: u32,
}

struct Params {
    head: Head,
    layers: array<LayerLane, 8>,
    rules: array<RuleLane>,
}

const FLAG_INVERT: u32 = 1u;
const FLAG_HAS_MIN: u32 = 2u;
const FLAG_HAS_MAX: u32 = 4u;
const MAX_OCTAVES: u32 = 16u;
// INPUT_ASPECT is the aspect input's lane code (stack.InputAspect): its band is aspectBand.
const INPUT_ASPECT: u32 = 7u;

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

// The turn an aspect band is measured in (stack's aspectFull, aspectHalf, aspectInvFull).
const ASPECT_FULL: f32 = 360.0;
const ASPECT_HALF: f32 = 180.0;
const ASPECT_INV_FULL: f32 = 0.0027777778;

// aspectArc is stack.aspectArc: the coverage of a defined aspect v by the arc from min clockwise
// to max (min > max crosses north), both edges feathered by softness along the circle.
fn aspectArc(v: f32, r: RuleLane) -> f32 {
    let hasMin = (r.flags & FLAG_HAS_MIN) != 0u;
    let hasMax = (r.flags & FLAG_HAS_MAX) != 0u;
    if (!hasMin && !hasMax) {
        return 1.0;
    }
    let lo = select(0.0, r.min, hasMin);
    let hi = select(ASPECT_FULL, r.max, hasMax);
    var w = hi - lo;
    if (w < 0.0) {
        w = w + ASPECT_FULL;
    }
    if (w >= ASPECT_FULL) {
        return 1.0;
    }
    let hw = w * 0.5;
    var d = v - (lo + hw);
    d = d - ASPECT_FULL * floor((d + ASPECT_HALF) * ASPECT_INV_FULL);
    d = abs(d);
    let s = r.softness;
    if (s == 0.0) {
        return select(0.0, 1.0, d <= hw);
    }
    return 1.0 - smooth01(clamp01((d - (hw - s)) * r.invTwoSoft));
}

// aspectBand is stack.AspectBand: 0 on flat ground (v is ASPECT_FLAT; before invert), else v
// jittered as band() does and banded circularly by aspectArc; then invert.
fn aspectBand(v0: f32, r: RuleLane, n: f32) -> f32 {
    var c = 0.0;
    if (v0 >= 0.0) {
        var v = v0;
        if (r.jitter != 0.0) {
            v = v + r.jitter * (2.0 * n - 1.0);
        }
        c = aspectArc(v, r);
    }
    if ((r.flags & FLAG_INVERT) != 0u) {
        c = 1.0 - c;
    }
    return c;
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

// ruleBandAt is rule r's band for input value v at world (px, pz): exactly band(v, r, its jitter
// noise), drawing the noise only when ruleSettled cannot decide without it.
fn ruleBandAt(v: f32, r: RuleLane, px: f32, pz: f32) -> f32 {
    if (r.input == INPUT_ASPECT) {
        var n = 0.0;
        if (r.jitter != 0.0 && v >= 0.0) {
            n = FBMPre(px, pz, r.invFeatureSize, min(r.octaves, MAX_OCTAVES), r.seed);
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
    return band(v, r, FBMPre(px, pz, r.invFeatureSize, min(r.octaves, MAX_OCTAVES), r.seed));
}
