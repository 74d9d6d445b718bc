// viewport_instances.wgsl — one population drawn instanced straight from the scatter pool:
// the instance's matrix is pool[instance_index] (column-major, tightly packed mat4x4<f32>).
//!include viewport_pages.wgsl

@group(0) @binding(1) var height_atlas: texture_2d<f32>;   // rgba32float: h, dh/dx, dh/dz, coverage
@group(0) @binding(2) var<storage, read> hpages: array<u32>;   // the height pyramid's page table
@group(1) @binding(0) var<storage, read> pool: array<mat4x4<f32>>;

// The normal and colour are the face's, from its first vertex (the meshes are indexed: the
// other two vertices of a face may belong to another face).
struct VOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) normal: vec3<f32>,
    @location(1) @interpolate(flat) color: vec3<f32>,
};

@vertex
fn vs_main(@builtin(instance_index) ii: u32, @location(0) p: vec3<f32>, @location(1) n: vec3<f32>, @location(2) c: vec3<f32>) -> VOut {
    let m = pool[ii * u32(frame.misc.w)];   // misc.w: every n-th instance (draft quality)
    var out: VOut;
    // An instance standing over a hole goes with the ground: its vertices leave the clip volume.
    // The coverage of the texel it stands in, at the finest level resident there (not looked up
    // when the ground has no hole: frame.lod.z).
    if (frame.lod.z < 0.5) {
        let t = floor((m[3].xz - frame.field.xy) / frame.field.zw);
        let hit = hpage(t, 0);
        if (hit.found && textureLoad(height_atlas, hit.origin + vec2<i32>(floor(hit.u)) - hit.first, 0).a < 0.5) {
            out.pos = vec4<f32>(0.0, 0.0, -2.0, 1.0);
            out.normal = vec3<f32>(0.0, 1.0, 0.0);
            out.color = vec3<f32>(0.0);
            return out;
        }
    }
    out.pos = frame.view_proj * (m * vec4<f32>(p, 1.0));
    out.normal = (m * vec4<f32>(n, 0.0)).xyz;
    out.color = c;
    return out;
}

@fragment
fn fs_main(in: VOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    return vec4<f32>(shade(in.color, n), 1.0);
}
