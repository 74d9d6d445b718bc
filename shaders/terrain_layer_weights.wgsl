// terrain_layer_weights — a layer stack's rules into two RGBA8 weight textures (layers 0-3 in
// weightsLo, 4-7 in weightsHi; the eight bytes of a texel sum to exactly 255), for stacks whose
// layers draw no noise (no jitter, no noise input above layer 0); terrain_layer_weights_noise is
// the same kernel with a per-workgroup lattice cache for those that do (gpu.WeightsKernel picks
// one on the host from the params; both write the same bytes).
//
// One thread per destination weight texel, dispatched per tile in 16×16 workgroups (each warp of
// 32 threads covers an 8×4 block, so neighbouring texels, which take the same branches, share a
// warp). Every read is placed from the field minimum and the texel sizes (never from the tile
// origin), through the tile's apron-inclusive buffers, so any tiling gives the same bytes. The
// per-texel body is weights_texel.wgsl. Without the cache's prologue and workgroup memory this
// kernel is what the sample stack ran before the cache: 0.396 ms for 4096² on the H200 against
// 0.470 ms with it.
//
//!include noise.wgsl
//!include field.wgsl
//!include stack_rules.wgsl
//!include weights_texel.wgsl

// ruleNoise is rule r's fbm of the given kind (0 jitter, 1 noise input), hashed in-thread
// (noise.wgsl's FBMPre: same values as FBM).
fn ruleNoise(r: RuleLane, ri: u32, kind: u32) -> f32 {
    var seed = r.seed;
    if (kind == 1u) {
        seed = r.noiseSeed;
    }
    return FBMPre(gPx, gPz, r.invFeatureSize, min(r.octaves, MAX_OCTAVES), seed);
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    weightsTexel(texelLocal(wg, li));
}
