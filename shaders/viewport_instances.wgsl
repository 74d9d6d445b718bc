// viewport_instances.wgsl — one population drawn instanced straight from the scatter pool:
// the instance's matrix is pool[instance_index] (column-major, tightly packed mat4x4<f32>).
//!include viewport_common.wgsl

@group(0) @binding(1) var height_tex: texture_2d<f32>;   // rgba32float: h, dh/dx, dh/dz, coverage
@group(1) @binding(0) var<storage, read> pool: array<mat4x4<f32>>;

struct VOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) color: vec3<f32>,
};

@vertex
fn vs_main(@builtin(instance_index) ii: u32, @location(0) p: vec3<f32>, @location(1) n: vec3<f32>, @location(2) c: vec3<f32>) -> VOut {
    let m = pool[ii * u32(frame.misc.w)];   // misc.w: every n-th instance (draft quality)
    var out: VOut;
    // An instance standing over a hole goes with the ground: its vertices leave the clip volume.
    let w = i32(frame.grid.x);
    let h = i32(frame.grid.y);
    let ti = clamp(i32(floor((m[3].x - frame.field.x) / frame.field.z)), 0, w - 1);
    let tj = clamp(i32(floor((m[3].z - frame.field.y) / frame.field.w)), 0, h - 1);
    if (textureLoad(height_tex, vec2<i32>(ti, tj), 0).a < 0.5) {
        out.pos = vec4<f32>(0.0, 0.0, -2.0, 1.0);
        out.normal = vec3<f32>(0.0, 1.0, 0.0);
        out.color = vec3<f32>(0.0);
        return out;
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
