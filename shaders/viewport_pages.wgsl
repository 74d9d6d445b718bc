// viewport_pages.wgsl — the viewport's virtual textures (viewport/vtex.go, docs/viewport.md
// "Virtual textures"): a grid's pyramid of pages (level k: texel (i, j) is the full grid's texel
// (i·2^k, j·2^k)), the resident pages held in slots of an atlas, a page table per pyramid. The
// including file declares the height pyramid's `hpages` and `height_atlas` (and the terrain also
// `wpages`, `weights_lo`, `weights_hi`). Go twin: viewport.levelFor and vtex's table layout.
//
// A table is a header of 17 vec4<u32> — per level k at [4k]: its pages' first entry, its pages
// across, its grid's width and height; at [64] the atlas's slots across, at [65] the levels —
// then per page its slot + 1 (0: not resident).
//!include viewport_common.wgsl

const PAGE: i32 = 256;
const SLOT: i32 = 257;
const VT_HEADER: u32 = 68u;

// level_for is the level a pixel at world point p samples a grid of texel metres at: the level
// whose texels are nearest its footprint in scale (the distance over pixels per radian, or the
// map's metres per pixel; frame.lod.xy), log2 rounded, clamped to top. Twin of viewport.levelFor.
fn level_for(p: vec3<f32>, texel: f32, top: i32) -> i32 {
    var fp = frame.lod.y;
    if (frame.eye.w < 0.5) {
        fp = distance(frame.eye.xyz, p) * frame.lod.x;
    }
    let r = fp / texel;
    if (!(r > 1.41421356)) {
        return 0;
    }
    return min(i32(floor(log2(r) + 0.5)), top);
}

// PageHit is a resident page found for a point: the level it belongs to, the point's texel
// coordinate in that level (clamped to the level's grid), and where its slot starts in the atlas.
struct PageHit {
    found: bool,
    level: i32,
    u: vec2<f32>,
    origin: vec2<i32>,
    first: vec2<i32>,   // the page's first texel in level coordinates
}

// hpage finds the height page for the full-grid texel coordinate t (texel centres at integers)
// at level k or the next coarser one resident.
fn hpage(t: vec2<f32>, k0: i32) -> PageHit {
    var hit: PageHit;
    let top = i32(hpages[65]) - 1;
    for (var k = k0; k <= top; k = k + 1) {
        let h = 4u * u32(k);
        let size = vec2<f32>(f32(hpages[h + 2u]), f32(hpages[h + 3u]));
        let u = clamp(t / f32(1u << u32(k)), vec2<f32>(0.0), size - vec2<f32>(1.0));
        let pg = vec2<u32>(floor(u / f32(PAGE)));
        let e = hpages[VT_HEADER + hpages[h] + pg.y * hpages[h + 1u] + pg.x];
        if (e != 0u) {
            let s = i32(e - 1u);
            let sx = i32(hpages[64]);
            hit.found = true;
            hit.level = k;
            hit.u = u;
            hit.origin = vec2<i32>(s % sx, s / sx) * SLOT;
            hit.first = vec2<i32>(pg) * PAGE;
            return hit;
        }
    }
    return hit;
}

// height_payload is the bilinear payload (height, dh/dx, dh/dz, coverage) at world xz, from the
// level a pixel at p samples (or the next resident one coarser).
fn height_payload(xz: vec2<f32>, p: vec3<f32>) -> vec4<f32> {
    let top = i32(hpages[65]) - 1;
    let t = (xz - frame.field.xy) / frame.field.zw - vec2<f32>(0.5);
    let hit = hpage(t, level_for(p, min(frame.field.z, frame.field.w), top));
    if (!hit.found) {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let f = floor(hit.u);
    let w = hit.u - f;
    let a = hit.origin + vec2<i32>(f) - hit.first;
    let h00 = textureLoad(height_atlas, a, 0);
    let h10 = textureLoad(height_atlas, a + vec2<i32>(1, 0), 0);
    let h01 = textureLoad(height_atlas, a + vec2<i32>(0, 1), 0);
    let h11 = textureLoad(height_atlas, a + vec2<i32>(1, 1), 0);
    let r0 = h00 + (h10 - h00) * w.x;
    let r1 = h01 + (h11 - h01) * w.x;
    return r0 + (r1 - r0) * w.y;
}
