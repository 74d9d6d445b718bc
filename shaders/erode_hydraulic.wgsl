// erode_hydraulic.wgsl: the hydraulic passes of package erode (erode.go), one thread a texel, each
// entry point the twin of the Go pass of the same name (a row function there, a texel here). Every
// pass is a Jacobi update (reads the previous state, writes its own texel), so the result does not
// depend on the order threads run in: no atomics.

//!include erode_common.wgsl

@group(0) @binding(1) var<uniform> I: Iter;
@group(0) @binding(2) var<storage, read_write> ground: array<f32>;
@group(0) @binding(3) var<storage, read_write> db: array<f32>;
@group(0) @binding(4) var<storage, read_write> dbNext: array<f32>;
@group(0) @binding(5) var<storage, read_write> water: array<f32>;
@group(0) @binding(6) var<storage, read_write> sed: array<f32>;
@group(0) @binding(7) var<storage, read_write> waterNext: array<f32>;
@group(0) @binding(8) var<storage, read_write> sedNext: array<f32>;
// flux: outflow to left (-X), right (+X), down (-Z), up (+Z) in x, y, z, w.
@group(0) @binding(9) var<storage, read_write> flux: array<vec4<f32>>;
// conc: the load per unit of water (sim.out, scratch between the flux and the water pass).
@group(0) @binding(10) var<storage, read_write> conc: array<f32>;
@group(0) @binding(11) var<storage, read_write> speed: array<f32>;
@group(0) @binding(12) var<storage, read_write> flowAcc: array<f32>;

// minDepth is erode.minDepth.
const minDepth: f32 = 1e-6;

// rainPass: the first iteration's rain (later iterations' is added by erodeRow).
@compute @workgroup_size(16, 16)
fn rainPass(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  water[c.k] = water[c.k] + rainAt(I.it, u32(c.k));
}

// drop is the water surface of texel k minus that of texel n, summed plane by plane (the
// differences of f32 planes lose less than the difference of f32 sums).
fn drop(k: i32, n: i32) -> f32 {
  return (ground[k] - ground[n]) + (db[k] - db[n]) + (water[k] - water[n]);
}

// fluxRow: each texel's outflows (Mei et al. eq. 2–4; a pipe out of the field is closed), scaled
// so they never take more than the texel holds, and its load per unit of water.
@compute @workgroup_size(16, 16)
fn fluxRow(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  let k = c.k;
  let w = i32(P.w);
  let d = water[k];
  let f = flux[k];
  var o = vec4<f32>(0.0);
  if (c.i > 0) { o.x = max(0.0, f.x + P.cx * drop(k, k - 1)); }
  if (c.i < w - 1) { o.y = max(0.0, f.y + P.cx * drop(k, k + 1)); }
  if (c.j > 0) { o.z = max(0.0, f.z + P.cz * drop(k, k - w)); }
  if (c.j < i32(P.h) - 1) { o.w = max(0.0, f.w + P.cz * drop(k, k + w)); }
  let sum = o.x + o.y + o.z + o.w;
  if (sum * P.dt > d && sum > 0.0) {
    o = o * (d / (sum * P.dt));
  }
  flux[k] = o;
  var cc = 0.0;
  if (d > minDepth) { cc = sed[k] / d; }
  conc[k] = cc;
}

// waterRow: water and sediment move along the new fluxes (Mei et al. eq. 6–9, the sediment
// upwind and conservative), the speed from the net flux, the flow accumulated.
@compute @workgroup_size(16, 16)
fn waterRow(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  let k = c.k;
  let w = i32(P.w);
  let dt = P.dt;
  let d1 = water[k];
  let o = flux[k];
  let fout = o.x + o.y + o.z + o.w;
  var il = 0.0; var ir = 0.0; var id = 0.0; var iu = 0.0; var sin = 0.0;
  if (c.i > 0) { il = flux[k - 1].y; sin += dt * il * conc[k - 1]; }
  if (c.i < w - 1) { ir = flux[k + 1].x; sin += dt * ir * conc[k + 1]; }
  if (c.j > 0) { id = flux[k - w].w; sin += dt * id * conc[k - w]; }
  if (c.j < i32(P.h) - 1) { iu = flux[k + w].z; sin += dt * iu * conc[k + w]; }
  let d2 = max(0.0, d1 + dt * (il + ir + id + iu - fout));
  waterNext[k] = d2;
  sedNext[k] = max(0.0, sed[k] - dt * fout * conc[k] + sin);
  var v = 0.0;
  let dbar = (d1 + d2) / 2.0;
  if (dbar > 1e-6) {
    let inv = 0.5 / dbar;
    let u = (il - o.x + o.y - ir) * inv / P.pz;
    let vz = (id - o.z + o.w - iu) * inv / P.px;
    v = sqrt(u * u + vz * vz);
  }
  speed[k] = v;
  flowAcc[k] = flowAcc[k] + dt * fout;
}

// rise is the ground at a minus the ground at b (input and change, plane by plane).
fn rise(a: i32, b: i32) -> f32 {
  return (ground[a] - ground[b]) + (db[a] - db[b]);
}

// erodeRow: sediment picked up or laid down against the water's capacity (Mei et al. eq. 10–12),
// from the previous ground's central differences; then evaporation and the next iteration's rain.
// sed and water here are the water pass's new planes (the host swapped them).
@compute @workgroup_size(16, 16)
fn erodeRow(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  let k = c.k;
  let w = i32(P.w);
  let il = max(c.i - 1, 0);
  let ir = min(c.i + 1, w - 1);
  let jd = max(c.j - 1, 0);
  let ju = min(c.j + 1, i32(P.h) - 1);
  let gx = rise(c.j * w + ir, c.j * w + il) / (f32(ir - il) * P.px);
  let gz = rise(ju * w + c.i, jd * w + c.i) / (f32(ju - jd) * P.pz);
  let g2 = gx * gx + gz * gz;
  let sinA = sqrt(g2 / (1.0 + g2));
  let cap = P.capacity * max(sinA, P.minTilt) * speed[k];
  var sd = sed[k];
  var b = db[k];
  if (cap > sd) {
    let a = P.erosion * (cap - sd);
    b -= a;
    sd += a;
  } else {
    let a = P.deposition * (sd - cap);
    b += a;
    sd -= a;
  }
  dbNext[k] = b;
  sed[k] = sd;
  var wv = water[k] * (1.0 - P.evaporation);
  if (I.rainNext != 0u) {
    wv += rainAt(I.it + 1u, u32(k));
  }
  water[k] = wv;
}

// layDown: what the water still carries at the end is laid down where it is.
@compute @workgroup_size(16, 16)
fn layDown(@builtin(global_invocation_id) gid: vec3<u32>) {
  let c = cellOf(gid);
  if (!c.ok) { return; }
  db[c.k] = db[c.k] + sed[c.k];
  sed[c.k] = 0.0;
}
