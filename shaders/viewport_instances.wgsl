// viewport_instances.wgsl — one population drawn instanced straight from the scatter pool:
// the instance's matrix is pool[instance_index] (column-major, tightly packed mat4x4<f32>).
//!include viewport_common.wgsl

@group(1) @binding(0) var<storage, read> pool: array<mat4x4<f32>>;

struct VOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) color: vec3<f32>,
};

@vertex
fn vs_main(@builtin(instance_index) ii: u32, @location(0) p: vec3<f32>, @location(1) n: vec3<f32>, @location(2) c: vec3<f32>) -> VOut {
    let m = pool[ii];
    var out: VOut;
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
