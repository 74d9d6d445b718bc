// terrain_scatter_density — a population's density channel: density · Π band(rule), instances per
// square metre, on the weights grid; and the largest value written, reduced with an atomicMax on
// the float's bit pattern (for non-negative floats the u32 order is the float order).
//
// One thread per weights texel of a tile, dispatched per tile like terrain_layer_weights: every read
// is placed from the field minimum and the texel sizes, through the tile's apron-inclusive buffers,
// so any tiling writes the same values. A `layer` rule reads the final (quantized) weight of its
// layer from weightsLo/weightsHi as byte/255. Twin of scatter.Density (Go); params come from
// stack.PackPopulation (the population rides in layer lane 0) patched by stack.PackTile. The grid
// and the weights textures may hold a band of the field: they start at the global texel
// head.targetOrigin (stack.PackTarget; 0 for a whole-field grid), and the grid header's width is the
// band's.
//
//!include noise.wgsl
//!include field.wgsl
//!include stack_rules.wgsl

// The density grid: a 16-byte header (the max's bits, the grid size) then W×H f32, row 0 at the
// field's minimum Z. terrain_scatter_place reads the same buffer.
struct DensityGrid {
    maxBits: atomic<u32>,
    width: u32,
    height: u32,
    pad: u32,
    values: array<f32>,
}

@group(0) @binding(0) var<storage, read> P: Params;
@group(0) @binding(1) var<storage, read> height: array<f32>;
@group(0) @binding(2) var<storage, read> chan0: array<f32>;
@group(0) @binding(3) var<storage, read> chan1: array<f32>;
@group(0) @binding(4) var<storage, read> chan2: array<f32>;
@group(0) @binding(5) var<storage, read> chan3: array<f32>;
@group(0) @binding(6) var weightsLo: texture_2d<f32>;
@group(0) @binding(7) var weightsHi: texture_2d<f32>;
@group(0) @binding(8) var<storage, read_write> D: DensityGrid;

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

var<private> gPx: f32;
var<private> gPz: f32;
var<private> gTexel: vec2<i32>;
var<private> gHaveTaps: bool;
var<private> gTaps: Taps;

fn taps() -> Taps {
    if (!gHaveTaps) {
        gTaps = heightTaps(gPx, gPz, P.head.gradientStep);
        gHaveTaps = true;
    }
    return gTaps;
}

// layerWeight is the final weight of layer l at this texel, byte/255 (the rgba8unorm value is
// rounded back to its byte first, so the driver's unorm conversion cannot matter).
fn layerWeight(l: u32) -> f32 {
    var w: vec4<f32>;
    if (l < 4u) {
        w = textureLoad(weightsLo, gTexel, 0);
    } else {
        w = textureLoad(weightsHi, gTexel, 0);
    }
    let b = round(w[l & 3u] * 255.0);
    return b / 255.0;
}

fn ruleValue(r: RuleLane) -> f32 {
    switch (r.input) {
        case 0u: { return bilinear(0u, gPx, gPz); }
        case 1u: { return slopeFromTaps(taps(), P.head.gradientStep); }
        case 2u: { return curvatureFromTaps(taps(), P.head.gradientStep); }
        case 3u, 5u, 8u: { return bilinear(1u + (r.slot & 3u), gPx, gPz); } // 8: flow, its plane in a slot
        case 4u: { return FBMPre(gPx, gPz, r.invFeatureSize, min(r.octaves, MAX_OCTAVES), r.noiseSeed); }
        case 6u: { return layerWeight(r.slot & 7u); }
        case 7u: { return aspectFromTaps(taps(), P.head.gradientStep); }
        default: { return 0.0; }
    }
}

fn ruleBand(ri: u32) -> f32 {
    let r = P.rules[ri];
    return ruleBandAt(ruleValue(r), r, gPx, gPz);
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let local = id.xy;
    if (local.x >= P.head.tileSize.x || local.y >= P.head.tileSize.y) {
        return;
    }
    let gi = P.head.tileOrigin + local;
    let gs = gi * max(P.head.stride, 1u);
    gPx = P.head.fieldMin.x + (f32(gs.x) + 0.5) * P.head.wTexel.x;
    gPz = P.head.fieldMin.y + (f32(gs.y) + 0.5) * P.head.wTexel.y;
    gTexel = vec2<i32>(gi - P.head.targetOrigin); // the weights and the grid start at targetOrigin
    gHaveTaps = false;

    // density · Π band, stopping once the product reaches 0 (as stack.Compiled.DensityAt).
    let L = P.layers[0];
    var v = L.strength;
    for (var ri = L.ruleStart; ri < L.ruleStart + L.ruleCount && v != 0.0; ri = ri + 1u) {
        v = v * ruleBand(ri);
    }
    D.values[u32(gTexel.y) * D.width + u32(gTexel.x)] = v;
    if (v > 0.0) {
        atomicMax(&D.maxBits, bitcast<u32>(v));
    }
}
