package field

import (
	"math"
	"testing"
)

// angleDiff is the distance between two compass angles in degrees, along the circle.
func angleDiff(a, b float64) float64 {
	d := math.Mod(math.Abs(a-b), 360)
	return math.Min(d, 360-d)
}

// compass is the aspect of the downhill direction (dx, dz) in world X, Z: degrees clockwise from
// +Z (north) towards +X (east), in [0, 360).
func compass(dx, dz float64) float64 {
	a := math.Atan2(dx, dz) * 180 / math.Pi
	if a < 0 {
		a += 360
	}
	return a
}

// Planes whose downhill faces each of the eight compass points (and two in between), read at
// texel centres, between them and with a step that is not the texel size: the aspect is the
// plane's within 0.5° (in fact to float32 rounding: central differences are exact on a plane).
func TestAspectPlanes(t *testing.T) {
	p := Placement{Size: [2]float64{128, 96}, Origin: [2]float64{-40, 25}}
	geo := mustGeo(t, p, 64, 48, 64, 48)
	for _, tc := range []struct {
		name   string
		facing float64 // degrees, the downhill's compass direction
	}{
		{"north", 0}, {"north-east", 45}, {"east", 90}, {"south-east", 135},
		{"south", 180}, {"south-west", 225}, {"west", 270}, {"north-west", 315},
		{"just west of north", 359.7}, {"east by north", 78.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rad := tc.facing * math.Pi / 180
			dx, dz := math.Sin(rad), math.Cos(rad) // the downhill direction
			plane := func(x, z float64) float64 { return 50 - 0.4*(dx*x+dz*z) }
			s := geo.Sampler(gridOf(p, 64, 48, plane))
			mn := p.Min()
			for _, g := range []float32{2, 3.3} {
				for _, pos := range [][2]float64{{10.5, 10.5}, {30, 20}, {41.7, 33.1}, {100, 70}} {
					x, z := float32(mn[0]+pos[0]), float32(mn[1]+pos[1])
					got := float64(s.Aspect(x, z, g))
					if d := angleDiff(got, tc.facing); d > 0.5 || got < 0 || got > 360 {
						t.Errorf("g %v at (%v, %v): aspect %.4f°, want %.4f° (off by %.4f°)", g, x, z, got, tc.facing, d)
					}
				}
			}
		})
	}
}

// A cone (height falling with the distance from its apex) faces away from the apex everywhere:
// away from the apex by a few texels its aspect is the direction from the apex within 0.5°, all
// around the compass, and it agrees with AspectFromTaps, AspectK and a bowl facing the other way.
func TestAspectCone(t *testing.T) {
	const n = 96
	p := Placement{Size: [2]float64{n, n}, Origin: [2]float64{12, -7}}
	geo := mustGeo(t, p, n, n, n, n)
	cx, cz := p.Origin[0], p.Origin[1]
	cone := geo.Sampler(gridOf(p, n, n, func(x, z float64) float64 { return 30 - 0.5*math.Hypot(x-cx, z-cz) }))
	bowl := geo.Sampler(gridOf(p, n, n, func(x, z float64) float64 { return 0.5 * math.Hypot(x-cx, z-cz) }))
	mn := p.Min()
	seen := [8]bool{}
	worst := 0.0
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			x, z := mn[0]+float64(i)+0.5, mn[1]+float64(j)+0.5
			if r := math.Hypot(x-cx, z-cz); r < 8 || r > 40 {
				continue
			}
			want := compass(x-cx, z-cz)
			got := float64(cone.Aspect(float32(x), float32(z), 1))
			worst = math.Max(worst, angleDiff(got, want))
			seen[int(want/45)%8] = true
			if b := float64(bowl.Aspect(float32(x), float32(z), 1)); angleDiff(b, want+180) > 0.5 {
				t.Fatalf("bowl at (%v, %v): %.3f°, want %.3f°", x, z, b, math.Mod(want+180, 360))
			}
		}
	}
	if worst > 0.5 {
		t.Errorf("cone: worst aspect error %.4f°, want ≤ 0.5°", worst)
	}
	for k, ok := range seen {
		if !ok {
			t.Errorf("no texel faced %d..%d°", k*45, k*45+45)
		}
	}
	t.Logf("cone: worst aspect error %.4f°", worst)
}

// Flat ground has no aspect: AspectFlat, outside [0, 360], however high it stands; the taps of
// a gradient of exactly zero in one axis still give the other axis's direction.
func TestAspectFlat(t *testing.T) {
	for _, h := range []float32{0, 17.25, -3e4} {
		if got := AspectK(h, h, h, h, 0.5); got != AspectFlat {
			t.Errorf("flat at %v m: aspect %v, want AspectFlat (%v)", h, got, AspectFlat)
		}
	}
	if AspectFlat >= 0 {
		t.Fatal("AspectFlat must lie outside [0, 360]")
	}
	for _, tc := range []struct {
		hxp, hxm, hzp, hzm float32
		want               float32
	}{
		{5, 5, 4, 6, 0},   // falls towards +Z: north
		{4, 6, 5, 5, 90},  // falls towards +X: east
		{5, 5, 6, 4, 180}, // south
		{6, 4, 5, 5, 270}, // west
	} {
		if got := AspectK(tc.hxp, tc.hxm, tc.hzp, tc.hzm, 0.5); got != tc.want {
			t.Errorf("AspectK(%v, %v, %v, %v) = %v, want %v", tc.hxp, tc.hxm, tc.hzp, tc.hzm, got, tc.want)
		}
	}
	p := Placement{Size: [2]float64{32, 32}}
	geo := mustGeo(t, p, 16, 16, 16, 16)
	s := geo.Sampler(gridOf(p, 16, 16, func(x, z float64) float64 { return 12 }))
	if got := s.Aspect(3, -2, 2); got != AspectFlat {
		t.Errorf("flat field: aspect %v, want AspectFlat", got)
	}
	if got := AspectFromTaps(1, 1, 1, 1, 2); got != AspectFlat {
		t.Errorf("AspectFromTaps on flat taps: %v", got)
	}
}
