// viewport_terrain.wgsl — the terrain pipeline: one shared chunk grid (location 0: grid a, b,
// skirt edge 0..4) instanced per selected chunk (location 1: first texel X, Z, texel step, skirt
// depth; location 2: its height page's slot origin in the atlas and the page's first texel),
// displaced by the height pyramid's pages; per-pixel normal, layer blend from the weights
// pyramid's pages (viewport_pages.wgsl), and overlays.
//!include viewport_pages.wgsl

@group(0) @binding(1) var height_atlas: texture_2d<f32>;   // rgba32float: h, dh/dx, dh/dz, coverage
@group(0) @binding(2) var weights_lo: texture_2d<f32>;     // layers 0–3, in slots
@group(0) @binding(3) var weights_hi: texture_2d<f32>;     // layers 4–7
@group(0) @binding(4) var linear_clamp: sampler;
@group(0) @binding(5) var atlas_albedo: texture_2d<f32>;
@group(0) @binding(6) var atlas_normal: texture_2d<f32>;
@group(0) @binding(7) var atlas_sampler: sampler;
@group(0) @binding(8) var<uniform> layers: array<vec4<f32>, 16>;  // [2i] tint (linear rgb), [2i+1] tiling, textured
@group(0) @binding(9) var<storage, read> tile_flash: array<f32>;  // per tile 0..1, row-major
// density overlay: [0] max (f32 bits), [1] width, [2] height, [3] 0, then width×height f32 —
// the scatter kernel's density buffer as it is (terrain_scatter_density.wgsl); the aspect
// overlay's grid of degrees and the flow overlay's of log10 m² in the same layout.
@group(0) @binding(10) var<storage, read> density: array<f32>;
@group(0) @binding(11) var<storage, read> hpages: array<u32>;   // the height pyramid's page table
@group(0) @binding(12) var<storage, read> wpages: array<u32>;   // the weights pyramid's page table

struct VOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) world: vec3<f32>,
};

@vertex
fn vs_main(@location(0) grid: vec3<f32>, @location(1) chunk: vec4<f32>, @location(2) page: vec4<u32>) -> VOut {
    let w = i32(frame.grid.x);
    let h = i32(frame.grid.y);
    // The chunk's vertices are texels of level m of the height pyramid (its step is 2^m): texel
    // a of the chunk is the level's texel first + a, clamped to the one just past the level's
    // last, which holds the grid's edge (vtex's page fill).
    let m = u32(round(log2(chunk.z)));
    let lw = i32(hpages[4u * m + 2u]);
    let lh = i32(hpages[4u * m + 3u]);
    let ia = min(i32(chunk.x / chunk.z) + i32(grid.x), lw);
    let ja = min(i32(chunk.y / chunk.z) + i32(grid.y), lh);
    let s = textureLoad(height_atlas, vec2<i32>(page.xy) + vec2<i32>(ia, ja) - vec2<i32>(page.zw), 0);
    let ti = min(ia * i32(chunk.z), w - 1);
    let tj = min(ja * i32(chunk.z), h - 1);
    var y = s.r;
    let edge = u32(grid.z + 0.5);
    if (edge != 0u) {
        let span = f32(32) * chunk.z;
        // No skirt on the field's own border: nothing there to hide, and a curtain would show.
        var border = false;
        switch edge {
            case 1u: { border = chunk.y <= 0.0; }
            case 2u: { border = chunk.x + span >= f32(w - 1); }
            case 3u: { border = chunk.y + span >= f32(h - 1); }
            default: { border = chunk.x <= 0.0; }
        }
        if (!border) {
            y = y - chunk.w;
        }
    }
    let x = frame.field.x + (f32(ti) + 0.5) * frame.field.z;
    let z = frame.field.y + (f32(tj) + 0.5) * frame.field.w;
    var out: VOut;
    out.world = vec3<f32>(x, y, z);
    out.pos = frame.view_proj * vec4<f32>(x, y, z, 1.0);
    return out;
}

// Weights are the eight layer shares at a point: layers 0–3 in lo, 4–7 in hi.
struct Weights {
    lo: vec4<f32>,
    hi: vec4<f32>,
    found: bool,
}

// weights_at is the bilinear weights at world xz from the level a pixel at p samples, or the
// next coarser level resident (found is false when none is: no weights evaluated yet).
fn weights_at(xz: vec2<f32>, p: vec3<f32>) -> Weights {
    var out: Weights;
    let top = i32(wpages[65]) - 1;
    let t = (xz - frame.field.xy) / frame.wgrid.xy - vec2<f32>(0.5);
    for (var k = level_for(p, min(frame.wgrid.x, frame.wgrid.y), top); k <= top; k = k + 1) {
        let h = 4u * u32(k);
        let size = vec2<f32>(f32(wpages[h + 2u]), f32(wpages[h + 3u]));
        let u = clamp(t / f32(1u << u32(k)), vec2<f32>(0.0), size - vec2<f32>(1.0));
        let pg = vec2<u32>(floor(u / f32(PAGE)));
        let e = wpages[VT_HEADER + wpages[h] + pg.y * wpages[h + 1u] + pg.x];
        if (e != 0u) {
            // A bilinear tap of our own rather than the sampler's: its weights do not depend on
            // where in the atlas the page happens to sit, so the same page gives the same picture
            // in any slot (and a settled frame the picture of the same state drawn anywhere).
            let sl = i32(e - 1u);
            let sx = i32(wpages[64]);
            let f = floor(u);
            let w = u - f;
            let a = vec2<i32>(sl % sx, sl / sx) * SLOT + vec2<i32>(f) - vec2<i32>(pg) * PAGE;
            let l00 = textureLoad(weights_lo, a, 0);
            let l10 = textureLoad(weights_lo, a + vec2<i32>(1, 0), 0);
            let l01 = textureLoad(weights_lo, a + vec2<i32>(0, 1), 0);
            let l11 = textureLoad(weights_lo, a + vec2<i32>(1, 1), 0);
            let lr0 = l00 + (l10 - l00) * w.x;
            let lr1 = l01 + (l11 - l01) * w.x;
            out.lo = lr0 + (lr1 - lr0) * w.y;
            // Layers 4–7 only when the stack has them (a uniform branch: most stacks do not).
            if (frame.misc.x > 4.5) {
                let h00 = textureLoad(weights_hi, a, 0);
                let h10 = textureLoad(weights_hi, a + vec2<i32>(1, 0), 0);
                let h01 = textureLoad(weights_hi, a + vec2<i32>(0, 1), 0);
                let h11 = textureLoad(weights_hi, a + vec2<i32>(1, 1), 0);
                let hr0 = h00 + (h10 - h00) * w.x;
                let hr1 = h01 + (h11 - h01) * w.x;
                out.hi = hr0 + (hr1 - hr0) * w.y;
            }
            out.found = true;
            return out;
        }
    }
    return out;
}

@fragment
fn fs_main(in: VOut) -> @location(0) vec4<f32> {
    let xz = in.world.xz;
    // Derivatives and implicit-lod samples first, in uniform control flow.
    let dx = dpdx(xz);
    let dy = dpdy(xz);
    let uv = (xz - frame.field.xy) * frame.grid.zw;
    // Screen-space widths for the grid lines and the brush ring.
    let tc = (xz - frame.field.xy) / max(frame.tiles.xy, vec2<f32>(1e-6));
    let tfw = max(fwidth(tc), vec2<f32>(1e-9));
    let bd = distance(xz, frame.brush.xy);
    let bfw = max(fwidth(bd), 1e-9);
    // The ground's height against the brush's level, in pixels (the level's contour line).
    let ld = in.world.y - frame.brush_level.x;
    let lfw = max(fwidth(in.world.y), 1e-6);

    let hs = height_payload(xz, in.world);
    if (hs.a < 0.5) {
        discard;
    }
    let wt = weights_at(xz, in.world);
    var w0 = wt.lo;
    let w1 = wt.hi;
    if (!wt.found) {
        w0 = vec4<f32>(1.0, 0.0, 0.0, 0.0);   // nothing evaluated yet: the ground layer
    }
    var n = normalize(vec3<f32>(-hs.g, 1.0, -hs.b));

    var wts = array<f32, 8>(w0.r, w0.g, w0.b, w0.a, w1.r, w1.g, w1.b, w1.a);
    let count = u32(frame.misc.x);
    var albedo = vec3<f32>(0.0);
    var bump = vec2<f32>(0.0);
    var total = 0.0;
    for (var i = 0u; i < 8u; i = i + 1u) {
        if (i >= count) {
            break;
        }
        let wt = wts[i];
        if (wt < 0.002) {
            continue;
        }
        var col = layers[2u * i].rgb;
        let lp = layers[2u * i + 1u];
        if (lp.y > 0.5 && (frame.misc.y > 0.5 || frame.misc.z > 0.5)) {
            let tiling = max(lp.x, 1e-3);
            let cell = vec2<f32>(f32(i % 4u), f32(i / 4u));
            let cuv = clamp(fract(xz / tiling), vec2<f32>(0.002), vec2<f32>(0.998));
            let auv = (cell + cuv) / vec2<f32>(4.0, 2.0);
            let gx = dx / tiling / vec2<f32>(4.0, 2.0);
            let gy = dy / tiling / vec2<f32>(4.0, 2.0);
            if (frame.misc.y > 0.5) {
                col = col * textureSampleGrad(atlas_albedo, atlas_sampler, auv, gx, gy).rgb;
            }
            if (frame.misc.z > 0.5) {
                let t = textureSampleGrad(atlas_normal, atlas_sampler, auv, gx, gy).rgb * 2.0 - vec3<f32>(1.0);
                bump = bump + t.xy * wt;
            }
        }
        albedo = albedo + col * wt;
        total = total + wt;
    }
    if (total < 0.002) {
        albedo = layers[0].rgb;   // no weights at all: the ground layer
    }
    if (frame.misc.z > 0.5) {
        n = normalize(vec3<f32>(n.x + bump.x, n.y, n.z + bump.y));
    }
    var col = shade(albedo, n);

    // Overlays.
    let mode = u32(frame.overlay.x);
    let lit = 0.35 + 0.65 * max(dot(n, frame.sun.xyz), 0.0);
    if (mode == 1u) {
        let k = min(u32(frame.overlay.y), 7u);
        col = mix(col, ramp(wts[k]) * lit, 0.8);
    } else if (mode == 2u) {
        let deg = degrees(atan(length(hs.gb)));
        col = mix(col, ramp(deg / max(frame.overlay.z, 1e-3)) * lit, 0.8);
    } else if (mode == 3u) {
        let g = max(frame.field.z, frame.field.w);
        let c = (height_payload(xz + vec2<f32>(g, 0.0), in.world).r + height_payload(xz - vec2<f32>(g, 0.0), in.world).r
            + height_payload(xz + vec2<f32>(0.0, g), in.world).r + height_payload(xz - vec2<f32>(0.0, g), in.world).r - 4.0 * hs.r) / (g * g);
        // + gully (blue), − ridge (red), grey when flat.
        let v = clamp(c / max(frame.overlay.w, 1e-9), -1.0, 1.0);
        let base = vec3<f32>(0.45);
        let tint = select(vec3<f32>(0.85, 0.08, 0.04), vec3<f32>(0.04, 0.20, 0.85), v > 0.0);
        col = mix(col, (base + (tint - base) * abs(v)) * lit, 0.85);
    } else if (mode == 4u) {
        let dw = i32(bitcast<u32>(density[1]));
        let dh = i32(bitcast<u32>(density[2]));
        let dp = clamp(vec2<i32>(floor(uv * vec2<f32>(f32(dw), f32(dh)))), vec2<i32>(0), vec2<i32>(dw - 1, dh - 1));
        let d = density[4 + dp.y * dw + dp.x];
        col = mix(col, ramp(d * frame.overlay.y) * lit, select(0.0, 0.8, d > 0.0));
    } else if (mode == 5u) {
        // Aspect: the host grid's degrees (the same buffer layout as density), nearest texel —
        // a blend across north would pass through south. Flat ground (< 0) grey.
        let dw = i32(bitcast<u32>(density[1]));
        let dh = i32(bitcast<u32>(density[2]));
        let dp = clamp(vec2<i32>(floor(uv * vec2<f32>(f32(dw), f32(dh)))), vec2<i32>(0), vec2<i32>(dw - 1, dh - 1));
        let a = density[4 + dp.y * dw + dp.x];
        let tint = select(vec3<f32>(0.5), compass_hue(a), a >= 0.0);
        col = mix(col, tint * lit, 0.85);
    } else if (mode == 6u) {
        // Flow: the host grid's log10 m² (the same buffer layout as density), nearest texel, on
        // viridis from overlay.y (a texel's own area) over 1/overlay.z decades (to the field's).
        let dw = i32(bitcast<u32>(density[1]));
        let dh = i32(bitcast<u32>(density[2]));
        let dp = clamp(vec2<i32>(floor(uv * vec2<f32>(f32(dw), f32(dh)))), vec2<i32>(0), vec2<i32>(dw - 1, dh - 1));
        let v = density[4 + dp.y * dw + dp.x];
        col = mix(col, viridis((v - frame.overlay.y) * frame.overlay.z) * lit, 0.85);
    }
    if (frame.tiles.x > 0.0 && frame.tiles.y > 0.0) {
        let cell = floor(tc);
        let ci = i32(cell.x);
        let cj = i32(cell.y);
        let nx = i32(frame.tiles.z);
        let ny = i32(frame.tiles.w);
        if (ci >= 0 && cj >= 0 && ci < nx && cj < ny) {
            let flash = clamp(tile_flash[cj * nx + ci], 0.0, 1.0);
            col = mix(col, vec3<f32>(1.0, 0.45, 0.05), 0.6 * flash);
        }
        let f = tc - cell;
        let edge_px = min(min(f.x, 1.0 - f.x) / tfw.x, min(f.y, 1.0 - f.y) / tfw.y);
        if (edge_px < 1.0) {
            col = mix(col, vec3<f32>(0.95, 0.95, 0.95), 0.75);
        }
    }
    if (frame.brush.w > 0.5) {
        let r = frame.brush.z;
        if (bd < r) {
            col = col * 1.12 + vec3<f32>(0.015);
            if (frame.brush_level.y > 0.5) {
                // A flatten / set-height level: warm where a dab cuts the ground down to it, cool
                // where it fills up to it, and its contour (the plateau's edge) drawn bright.
                if (abs(ld) / lfw < 1.0) {
                    col = vec3<f32>(1.0, 0.96, 0.75);
                } else if (ld > 0.0) {
                    col = mix(col, vec3<f32>(0.95, 0.45, 0.2), 0.28);
                } else {
                    col = mix(col, vec3<f32>(0.2, 0.5, 0.95), 0.28);
                }
            }
        }
        let ring = abs(bd - r) / bfw;   // pixels from the circle
        if (ring < 1.2) {
            col = vec3<f32>(1.0, 1.0, 1.0);
        } else if (ring < 2.4) {
            col = vec3<f32>(0.02, 0.02, 0.02);
        }
    }
    return vec4<f32>(col, 1.0);
}
