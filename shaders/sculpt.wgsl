// sculpt.wgsl — one dab of a height brush on the field's height bricks (gpu.SculptKernel). Twin of
// package sculpt (Go): Weight, Terraced, boxMean, stampAt and value are its functions of the same
// names, step for step, in f32 where the Go computes in f64 (docs/design.md "GPU sculpt twin"
// states the tolerance and why). The noise is noise.wgsl's FBMInv, twin of noise.FBMInv.
//
// A dab is one submission: for a smooth, first `gather` copies the dab's rectangle and its box's
// apron (P.src) from the bricks into `src` (the heights before the dab, which every texel's box
// reads), then `dab` writes the new heights over the dab's rectangle (P.rect) — one dispatch a
// brick whose block holds texels of it, each over that part (P.part) of its block (P.buf), so the
// copies of a texel in neighbouring bricks' aprons all get the same value. The other modes read
// only the texel they write and skip the gather.

//!include noise.wgsl

const MODE_RAISE: u32 = 1u;
const MODE_SMOOTH: u32 = 2u;
const MODE_FLATTEN: u32 = 3u;
const MODE_SET: u32 = 4u;
const MODE_TERRACE: u32 = 5u;
const MODE_NOISE: u32 = 6u;
const MODE_STAMP: u32 = 7u;

// NOISE_OCTAVES is sculpt.NoiseOctaves.
const NOISE_OCTAVES: u32 = 4u;

// Dab is one dispatch's params (gpu/sculpt.go packs it: 44 words, one slot a dispatch).
struct Dab {
    mode: u32,
    invert: u32,
    halfWidth: i32,
    seed: u32,
    strength: f32,
    lift: f32,
    height: f32,
    step: f32,
    sharpness: f32,
    amplitude: f32,
    noiseInv: f32,   // 1/FeatureSize, the correctly rounded f32 noise.FBM takes
    radius: f32,
    falloff: f32,
    stampHeight: f32,
    ps: f32,         // sculpt.StampFrame
    cosA: f32,
    sinA: f32,
    halfW: f32,
    halfH: f32,
    stampMinX: f32,  // sculpt.StampGeometry: FieldMin, InvHTexel
    stampMinZ: f32,
    stampInvX: f32,
    stampInvZ: f32,
    pad0: u32,
    stampW: u32,
    stampH: u32,
    gridW: u32,
    gridH: u32,
    rect: vec4<i32>, // the dab's rectangle, height texels: min x, min y, max x, max y
    src: vec4<i32>,  // the source copy's rectangle (rect widened by the box, clipped to the grid)
    part: vec4<i32>, // this dispatch's texels: origin x, y, size x, y
    buf: vec4<i32>,  // the brick's block: BufI0, BufJ0, BufW, BufH
}

@group(0) @binding(0) var<storage, read> P: Dab;
// The brick's height plane (its apron-inclusive block, row-major, P.buf).
@group(0) @binding(1) var<storage, read_write> height: array<f32>;
// Per column and row of P.rect, from the Go's float64 (rounded once): dx = x − X for each column,
// then dz = z − Z for each row, then the world x of each column, then the world z of each row.
@group(0) @binding(2) var<storage, read> axes: array<f32>;
// The heights of P.src before the dab (a smooth's gather).
@group(0) @binding(3) var<storage, read_write> src: array<f32>;
// The stamp image, stampW × stampH, row-major.
@group(0) @binding(4) var<storage, read> stamp: array<f32>;

// Weight is sculpt.Weight: 1 within (1 − falloff)·radius, then 1 − smoothstep down to 0 at the
// radius, 0 at and beyond it.
fn Weight(d: f32, radius: f32, falloff: f32) -> f32 {
    if (d >= radius || radius <= 0.0) {
        return 0.0;
    }
    let u = d / radius;
    let inner = 1.0 - max(0.0, min(1.0, falloff));
    if (u <= inner) {
        return 1.0;
    }
    let t = (u - inner) / (1.0 - inner);
    return 1.0 - t * t * (3.0 - 2.0 * t);
}

// Terraced is sculpt.Terraced.
fn Terraced(v: f32, step: f32, k: f32) -> f32 {
    let q = floor(v / step);
    let base = q * step;
    if (k >= 1.0) {
        return base;
    }
    let f = v / step - q;
    return base + step * min(max((f - k) / (1.0 - k), 0.0), 1.0);
}

// boxMean is sculpt's boxMean: the mean height before the dab of the (2·halfWidth+1)² box around
// (i, j), clipped to the grid (= to P.src). The Go sums a float64 table; here each row's offsets
// from the centre's height v are summed, then the rows, so the f32 sums carry the box's relief,
// not the heights' magnitude.
fn boxMean(i: i32, j: i32, v: f32) -> f32 {
    let hw = P.halfWidth;
    let x0 = max(i - hw, P.src.x);
    let x1 = min(i + hw + 1, P.src.z);
    let y0 = max(j - hw, P.src.y);
    let y1 = min(j + hw + 1, P.src.w);
    let sw = P.src.z - P.src.x;
    var sum = 0.0;
    for (var y = y0; y < y1; y = y + 1) {
        let row = (y - P.src.y) * sw - P.src.x;
        var rs = 0.0;
        for (var x = x0; x < x1; x = x + 1) {
            rs = rs + (src[row + x] - v);
        }
        sum = sum + rs;
    }
    return v + sum / f32((x1 - x0) * (y1 - y0));
}

// stampBilinear is field.Sampler.Bilinear over the stamp image placed by sculpt.StampGeometry.
fn stampBilinear(px: f32, pz: f32) -> f32 {
    let u = (px - P.stampMinX) * P.stampInvX - 0.5;
    let v = (pz - P.stampMinZ) * P.stampInvZ - 0.5;
    let fu = floor(u);
    let fv = floor(v);
    let tx = u - fu;
    let tz = v - fv;
    let iu = i32(fu);
    let iv = i32(fv);
    let maxI = i32(P.stampW) - 1;
    let maxJ = i32(P.stampH) - 1;
    let a0 = clamp(iu, 0, maxI);
    let a1 = clamp(iu + 1, 0, maxI);
    let r0 = clamp(iv, 0, maxJ) * i32(P.stampW);
    let r1 = clamp(iv + 1, 0, maxJ) * i32(P.stampW);
    let h00 = stamp[r0 + a0];
    let h10 = stamp[r0 + a1];
    let h01 = stamp[r1 + a0];
    let h11 = stamp[r1 + a1];
    let l0 = h00 + (h10 - h00) * tx;
    let l1 = h01 + (h11 - h01) * tx;
    return l0 + (l1 - l0) * tz;
}

// stampAt is sculpt's stampAt: the image's value under the texel (dx, dz) metres from the dab's
// centre, turned by −Angle into the image's frame, in image texels from its centre; 0 outside.
fn stampAt(dx: f32, dz: f32) -> f32 {
    let u = (dx * P.cosA + dz * P.sinA) / P.ps;
    let v = (-dx * P.sinA + dz * P.cosA) / P.ps;
    if (abs(u) > P.halfW || abs(v) > P.halfH) {
        return 0.0;
    }
    return stampBilinear(u, v);
}

// value is sculpt's value: texel (i, j) at world (x, z), (dx, dz) from the centre, height v,
// weight w after the operation.
fn value(i: i32, j: i32, dx: f32, dz: f32, x: f32, z: f32, v: f32, w: f32) -> f32 {
    let s = P.strength * w;
    switch (P.mode) {
        case MODE_RAISE: {
            if (P.invert != 0u) {
                return v - P.lift * s;
            }
            return v + P.lift * s;
        }
        case MODE_SMOOTH: {
            return v + (boxMean(i, j, v) - v) * s;
        }
        case MODE_FLATTEN, MODE_SET: {
            return v + (P.height - v) * s;
        }
        case MODE_TERRACE: {
            return v + (Terraced(v, P.step, P.sharpness) - v) * s;
        }
        case MODE_NOISE: {
            let n = FBMInv(x, z, P.noiseInv, NOISE_OCTAVES, P.seed);
            return v + P.amplitude * (2.0 * n - 1.0) * s;
        }
        case MODE_STAMP: {
            let a = P.stampHeight * stampAt(dx, dz) * s;
            if (P.invert != 0u) {
                return v - a;
            }
            return v + a;
        }
        default: {
            return v;
        }
    }
}

// finite32 is "neither NaN nor infinite", read from the bits (a driver may fold x != x away).
fn finite32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// gather copies this brick's part of P.src into src.
@compute @workgroup_size(16, 16)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (i32(gid.x) >= P.part.z || i32(gid.y) >= P.part.w) {
        return;
    }
    let i = P.part.x + i32(gid.x);
    let j = P.part.y + i32(gid.y);
    src[(j - P.src.y) * (P.src.z - P.src.x) + (i - P.src.x)] = height[(j - P.buf.y) * P.buf.z + (i - P.buf.x)];
}

// dab is sculpt's row over this brick's part of the dab's rectangle: a texel of weight > 0 takes
// value's result when that is a finite f32 other than its height (the Go's rule).
@compute @workgroup_size(16, 16)
fn dab(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (i32(gid.x) >= P.part.z || i32(gid.y) >= P.part.w) {
        return;
    }
    let i = P.part.x + i32(gid.x);
    let j = P.part.y + i32(gid.y);
    let rw = P.rect.z - P.rect.x;
    let rh = P.rect.w - P.rect.y;
    let a = i - P.rect.x;
    let b = j - P.rect.y;
    let dx = axes[a];
    let dz = axes[rw + b];
    let w = Weight(sqrt(dx * dx + dz * dz), P.radius, P.falloff);
    if (!(w > 0.0)) {
        return;
    }
    let x = axes[rw + rh + a];
    let z = axes[2 * rw + rh + b];
    let k = (j - P.buf.y) * P.buf.z + (i - P.buf.x);
    let old = height[k];
    let nv = value(i, j, dx, dz, x, z, old, w);
    if (finite32(nv) && nv != old) {
        height[k] = nv;
    }
}
