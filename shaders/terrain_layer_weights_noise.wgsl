// terrain_layer_weights_noise — terrain_layer_weights for stacks whose layers draw noise (jitter
// or a noise input on layers 1..): the same per-texel body (weights_texel.wgsl), with the corner
// hashes of the fbm read from a per-workgroup lattice cache. 5.02 → 4.47 ms for the 4096² stress
// field on the H200; a stack without noise would only pay for the cache's prologue and the larger
// kernel (0.396 → 0.470 ms for the sample), so gpu.WeightsKernel runs terrain_layer_weights for
// those.
//
// The lattice cache. Every texel of a workgroup lies in one small world rectangle, so per rule,
// noise kind (0 the jitter fbm, 1 a noise input) and octave its texels touch only a few lattice
// corners. Before the per-texel work the 256 threads hash, once, an 8×8 block of corners per
// (rule, kind, octave) slot for the first NC_RULES rules and NC_OCT octaves: the block starts at the
// lattice cell of the workgroup's lowest texel, in absolute lattice coordinates (never
// tile-relative, so any tiling gives the same bytes). A corner keeps its gradient selector (the
// hash's low 3 bits) in a nibble: one u32 per lattice row of a slot. A texel whose cell is not
// inside the block (a slot whose octave spans more than 7 cells over the workgroup, rules or
// octaves past the cap) hashes in-thread as before; the hashes are the same integers either way.
//
//!include noise.wgsl
//!include field.wgsl
//!include stack_rules.wgsl
//!include weights_texel.wgsl

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

// ruleNoise is rule r's fbm of the given kind through the cache slots.
fn ruleNoise(r: RuleLane, ri: u32, kind: u32) -> f32 {
    var seed = r.seed;
    if (kind == 1u) {
        seed = r.noiseSeed;
    }
    return fbmWG(r.invFeatureSize, min(r.octaves, MAX_OCTAVES), seed, ri, kind);
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let local = texelLocal(wg, li);

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
        let st = max(P.head.stride, 1u);
        let g0 = (P.head.tileOrigin + min(vec2<u32>(wg.x * WG_X, wg.y * WG_Y), ts - vec2<u32>(1u))) * st;
        let g1 = (P.head.tileOrigin + min(vec2<u32>(wg.x * WG_X + WG_X - 1u, wg.y * WG_Y + WG_Y - 1u), ts - vec2<u32>(1u))) * st;
        ncFillSlots(li,
            P.head.fieldMin.x + (f32(g0.x) + 0.5) * P.head.wTexel.x,
            P.head.fieldMin.y + (f32(g0.y) + 0.5) * P.head.wTexel.y,
            P.head.fieldMin.x + (f32(g1.x) + 0.5) * P.head.wTexel.x,
            P.head.fieldMin.y + (f32(g1.y) + 0.5) * P.head.wTexel.y);
        workgroupBarrier();
        ncFillRows(li);
        workgroupBarrier();
    }

    weightsTexel(local);
}
