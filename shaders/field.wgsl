// field.wgsl — taps of a height-grid channel at world positions. Twin of field.Sampler (Go):
// bilinear, slopeDeg, aspectDeg and curvature in the float32 order docs/design.md writes them.
//
// The including kernel defines
//   fn fieldTap(slot: u32, i: i32, j: i32) -> f32   // grid texel (i, j) of channel slot, clamped
//   fn fieldGeom() -> vec4<f32>                     // (fieldMin.x, fieldMin.z, invHTexel.x, invHTexel.z)
// Every position is measured from the field minimum, never from a tile origin.

const RAD_TO_DEG: f32 = 57.29578;

fn field_lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + (b - a) * t;
}

fn bilinear(slot: u32, px: f32, pz: f32) -> f32 {
    let g = fieldGeom();
    let u = (px - g.x) * g.z - 0.5;
    let v = (pz - g.y) * g.w - 0.5;
    let fu = floor(u);
    let fv = floor(v);
    let iu = i32(fu);
    let iv = i32(fv);
    let tx = u - fu;
    let tz = v - fv;
    let h00 = fieldTap(slot, iu, iv);
    let h10 = fieldTap(slot, iu + 1, iv);
    let h01 = fieldTap(slot, iu, iv + 1);
    let h11 = fieldTap(slot, iu + 1, iv + 1);
    return field_lerp(field_lerp(h00, h10, tx), field_lerp(h01, h11, tx), tz);
}

// Taps at ±g along x and z and the centre, shared by slope and curvature.
struct Taps {
    xp: f32,
    xm: f32,
    zp: f32,
    zm: f32,
    c: f32,
}

fn heightTaps(px: f32, pz: f32, g: f32) -> Taps {
    var t: Taps;
    t.xp = bilinear(0u, px + g, pz);
    t.xm = bilinear(0u, px - g, pz);
    t.zp = bilinear(0u, px, pz + g);
    t.zm = bilinear(0u, px, pz - g);
    t.c = bilinear(0u, px, pz);
    return t;
}

fn slopeFromTaps(t: Taps, g: f32) -> f32 {
    let k = 0.5 / g;
    let dx = (t.xp - t.xm) * k;
    let dz = (t.zp - t.zm) * k;
    let m = sqrt(dx * dx + dz * dz);
    return atan(m) * RAD_TO_DEG;
}

// ASPECT_FLAT is field.AspectFlat: the aspect of ground whose gradient is exactly zero.
const ASPECT_FLAT: f32 = -1.0;

// aspectFromTaps is field.AspectK: the compass direction of the downhill (-dx, -dz), degrees
// clockwise from +Z (north) towards +X (east), in [0, 360]; ASPECT_FLAT on flat ground (atan2 is
// never asked about (0, 0)).
fn aspectFromTaps(t: Taps, g: f32) -> f32 {
    let k = 0.5 / g;
    let dx = (t.xp - t.xm) * k;
    let dz = (t.zp - t.zm) * k;
    if (dx == 0.0 && dz == 0.0) {
        return ASPECT_FLAT;
    }
    var a = atan2(-dx, -dz) * RAD_TO_DEG;
    if (a < 0.0) {
        a = a + 360.0;
    }
    return a;
}

fn aspectDeg(px: f32, pz: f32, g: f32) -> f32 {
    return aspectFromTaps(heightTaps(px, pz, g), g);
}

fn curvatureFromTaps(t: Taps, g: f32) -> f32 {
    let k = 1.0 / (g * g);
    return (t.xp + t.xm + t.zp + t.zm - 4.0 * t.c) * k;
}

fn slopeDeg(px: f32, pz: f32, g: f32) -> f32 {
    return slopeFromTaps(heightTaps(px, pz, g), g);
}

fn curvature(px: f32, pz: f32, g: f32) -> f32 {
    return curvatureFromTaps(heightTaps(px, pz, g), g);
}
