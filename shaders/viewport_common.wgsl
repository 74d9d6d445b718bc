// viewport_common.wgsl — the per-frame uniform block and colour helpers shared by the viewport's
// terrain and instance pipelines. The Go twin is viewport.frameUniforms; a test checks that the
// member names below appear in the same order as its fields.

struct Frame {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,        // xyz world eye; w = 1 for the orthographic map
    sun: vec4<f32>,        // xyz unit vector toward the sun; w intensity
    ambient: vec4<f32>,    // rgb sky light (linear)
    field: vec4<f32>,      // min X, min Z, texel X, texel Z (metres)
    grid: vec4<f32>,       // height grid W, H; 1/size X, 1/size Z
    overlay: vec4<f32>,    // mode (0 none, 1 weight, 2 slope, 3 curvature, 4 density, 5 aspect, 6 flow), layer or 1/density max or flow's log10 m² at the ramp's foot, slope max deg or 1/(flow's log10 span), curvature scale
    tiles: vec4<f32>,      // tile size X, Z (metres; 0 = grid off), tiles across, tiles down
    brush: vec4<f32>,      // centre X, Z, radius (metres), on (1/0)
    misc: vec4<f32>,       // layer count, has albedo atlas, has normal atlas, instance stride
    lod: vec4<f32>,        // metres of footprint per metre of distance (1 / pixels per radian), the map's metres per pixel, 1 when the ground has no hole (viewport.HoleReporter), 0
    wgrid: vec4<f32>,      // weights texel X, Z (metres); weights grid W, H
    brush_level: vec4<f32>, // the level a flatten / set-height brush moves toward (metres), on (1/0), 0, 0
};

@group(0) @binding(0) var<uniform> frame: Frame;

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    return select(pow((c + 0.055) / 1.055, vec3<f32>(2.4)), c / 12.92, c <= vec3<f32>(0.04045));
}

// compass_hue is the aspect overlay's colour wheel: hue = the compass direction (0° north red,
// 90° east yellow-green, 180° south cyan, 270° west violet), saturated but not garish.
fn compass_hue(deg: f32) -> vec3<f32> {
    let h = fract(deg / 360.0);
    let p = abs(fract(vec3<f32>(h) + vec3<f32>(1.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - vec3<f32>(3.0));
    let c = clamp(p - vec3<f32>(1.0), vec3<f32>(0.0), vec3<f32>(1.0));
    return 0.95 * (vec3<f32>(1.0) + (c - vec3<f32>(1.0)) * 0.85);
}

// viridis maps 0..1 onto the viridis colour map (dark violet, blue, teal, green, yellow; linear
// RGB): perceptually uniform, its lightness rising steadily from end to end, so more is brighter
// and it reads in grey and to the colour-blind. A degree-6 polynomial fit of the sRGB table
// (Matt Zucker's, public domain; within about 1/255 of matplotlib's), then to linear.
fn viridis(t_in: f32) -> vec3<f32> {
    let t = clamp(t_in, 0.0, 1.0);
    let c0 = vec3<f32>(0.2777273272234177, 0.005407344544966578, 0.3340998053353061);
    let c1 = vec3<f32>(0.1050930431085774, 1.404613529898575, 1.384590162594685);
    let c2 = vec3<f32>(-0.3308618287255563, 0.214847559468213, 0.09509516302823659);
    let c3 = vec3<f32>(-4.634230498983486, -5.799100973351585, -19.33244095627987);
    let c4 = vec3<f32>(6.228269936347081, 14.17993336680509, 56.69055260068105);
    let c5 = vec3<f32>(4.776384997670288, -13.74514537774601, -65.35303263337234);
    let c6 = vec3<f32>(-5.435455855934631, 4.645852612178535, 26.3124352495832);
    let srgb = c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))));
    return srgb_to_linear(clamp(srgb, vec3<f32>(0.0), vec3<f32>(1.0)));
}

// ramp maps 0..1 onto a blue–cyan–green–yellow–red scale (linear RGB).
fn ramp(t_in: f32) -> vec3<f32> {
    let t = clamp(t_in, 0.0, 1.0) * 4.0;
    var stops = array<vec3<f32>, 5>(
        vec3<f32>(0.02, 0.05, 0.60),
        vec3<f32>(0.00, 0.45, 0.80),
        vec3<f32>(0.05, 0.60, 0.10),
        vec3<f32>(0.90, 0.80, 0.02),
        vec3<f32>(0.80, 0.04, 0.02),
    );
    let i = min(u32(floor(t)), 3u);
    let f = t - f32(i);
    return stops[i] + (stops[i + 1u] - stops[i]) * f;
}

fn shade(albedo: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let d = max(dot(n, frame.sun.xyz), 0.0) * frame.sun.w;
    let sky = frame.ambient.rgb * (0.6 + 0.4 * n.y);
    return albedo * (vec3<f32>(d) + sky);
}
