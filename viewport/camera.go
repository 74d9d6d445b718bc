package viewport

import "math"

// ViewMode chooses between the perspective orbit camera and the top-down map.
type ViewMode int

const (
	// ViewOrbit is a perspective camera orbiting Target.
	ViewOrbit ViewMode = iota
	// ViewMap is a top-down orthographic map: image x along world +X, image row 0 toward the
	// field's minimum Z (the project's one orientation, SPEC "Orientation").
	ViewMap
)

// Camera is plain data: the UI edits it through the helper methods and hands it to the
// renderer with SetCamera. World axes: X east, Y up, Z south (north is −Z, toward image row 0).
type Camera struct {
	Mode     ViewMode
	Target   [3]float64 // orbit centre, world X, Y, Z
	Yaw      float64    // radians around +Y; 0 puts the eye south (+Z) of the target, π/2 east (+X)
	Pitch    float64    // radians above the horizon, kept inside (−89°, 89°)
	Distance float64    // metres from the eye to Target
	FovY     float64    // vertical field of view in radians; 0 means 45°

	MapCenter [2]float64 // map mode: world X, Z at the image centre
	MapHeight float64    // map mode: metres of world Z the image's height covers
}

const maxPitch = 89 * math.Pi / 180

// OrbitCamera frames the whole field from the south-east at about 35° elevation, for an image
// of the given aspect (width / height): the eye is moved back until every corner of the field's
// box lies inside the image with a small margin.
func OrbitCamera(p Placement, heightRange [2]float64, aspect float64) Camera {
	lo, hi := heightRange[0], heightRange[1]
	if hi < lo {
		lo, hi = hi, lo
	}
	if !(aspect > 0) {
		aspect = 16.0 / 9
	}
	c := Camera{
		Mode:   ViewOrbit,
		Target: [3]float64{p.Origin[0], (lo + hi) / 2, p.Origin[1]},
		Yaw:    math.Pi / 4,
		Pitch:  35 * math.Pi / 180,
		FovY:   45 * math.Pi / 180,
	}
	c.MapCenter = p.Origin
	c.MapHeight = math.Max(p.Size[1], p.Size[0]/aspect)
	mn := p.Min()
	b := bounds{min: vec3{mn[0], lo, mn[1]}, max: vec3{mn[0] + p.Size[0], hi, mn[1] + p.Size[1]}}
	// The bounding sphere always fits at r/sin(fov/2): search below that for the tightest
	// distance, then slide the target so the box sits in the middle of the image, and repeat.
	r := 0.5 * math.Sqrt(p.Size[0]*p.Size[0]+p.Size[1]*p.Size[1]+(hi-lo)*(hi-lo))
	sphere := r / math.Sin(math.Min(c.FovY, 2*math.Atan(math.Tan(c.FovY/2)*aspect))/2)
	extent := func(d float64) (x0, x1, y0, y1 float64, ok bool) {
		c.Distance = d
		f := c.frame(1000, int(math.Max(1, 1000/aspect)), b)
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for i := 0; i < 8; i++ {
			q := vec3{pick3(i&1, b.min[0], b.max[0]), pick3(i&2, b.min[1], b.max[1]), pick3(i&4, b.min[2], b.max[2])}
			cl := f.viewProj.mulVec4([4]float64{q[0], q[1], q[2], 1})
			if cl[3] <= 0 {
				return 0, 0, 0, 0, false
			}
			x, y := cl[0]/cl[3], cl[1]/cl[3]
			x0, x1, y0, y1 = math.Min(x0, x), math.Max(x1, x), math.Min(y0, y), math.Max(y1, y)
		}
		return x0, x1, y0, y1, true
	}
	fits := func(d float64) bool {
		x0, x1, y0, y1, ok := extent(d)
		return ok && x0 >= -0.94 && x1 <= 0.94 && y0 >= -0.94 && y1 <= 0.94
	}
	for pass := 0; pass < 4; pass++ {
		near, far := 0.0, 2*sphere
		for k := 0; k < 40; k++ {
			m := (near + far) / 2
			if fits(m) {
				far = m
			} else {
				near = m
			}
		}
		x0, x1, y0, y1, _ := extent(far)
		half := far * math.Tan(c.FovY/2) // metres per unit of NDC y at the target
		c.Pan((x0+x1)/2*half*aspect, (y0+y1)/2*half/math.Sin(c.Pitch))
	}
	near, far := 0.0, 2*sphere
	for k := 0; k < 40; k++ {
		m := (near + far) / 2
		if fits(m) {
			far = m
		} else {
			near = m
		}
	}
	c.Distance = far
	return c
}

// MapCamera is the top-down map covering the whole field in an image of the given aspect
// (width / height).
func MapCamera(p Placement, heightRange [2]float64, aspect float64) Camera {
	c := OrbitCamera(p, heightRange, aspect)
	c.Mode = ViewMap
	return c
}

func (c *Camera) fov() float64 {
	if c.FovY <= 0 || c.FovY >= math.Pi {
		return 45 * math.Pi / 180
	}
	return c.FovY
}

// Orbit turns the eye around Target by dYaw and dPitch radians.
func (c *Camera) Orbit(dYaw, dPitch float64) {
	c.Yaw = math.Mod(c.Yaw+dYaw, 2*math.Pi)
	c.Pitch = math.Max(-maxPitch, math.Min(maxPitch, c.Pitch+dPitch))
}

// Zoom divides the distance (orbit) or the covered height (map) by factor: factor > 1 moves
// closer.
func (c *Camera) Zoom(factor float64) {
	if !(factor > 0) {
		return
	}
	c.Distance /= factor
	c.MapHeight /= factor
}

// Pan moves the target (or the map centre) across the ground by right and forward metres, in
// the camera's own horizontal frame: forward is the direction the eye looks, flattened; in map
// mode, "forward" is up the image (−Z).
func (c *Camera) Pan(right, forward float64) {
	if c.Mode == ViewMap {
		c.MapCenter[0] += right
		c.MapCenter[1] -= forward
		return
	}
	sy, cy := math.Sincos(c.Yaw)
	// Eye offset direction on the ground is (sin yaw, cos yaw); looking toward −that.
	fx, fz := -sy, -cy
	rx, rz := cy, -sy
	c.Target[0] += right*rx + forward*fx
	c.Target[2] += right*rz + forward*fz
}

// Focus centres the camera on a world point (the orbit target and the map centre).
func (c *Camera) Focus(x, y, z float64) {
	c.Target = [3]float64{x, y, z}
	c.MapCenter = [2]float64{x, z}
}

// Eye returns the eye position in world space (map mode: above the map centre).
func (c *Camera) Eye() [3]float64 {
	e := c.eye(0)
	return [3]float64(e)
}

func (c *Camera) eye(top float64) vec3 {
	if c.Mode == ViewMap {
		return vec3{c.MapCenter[0], top, c.MapCenter[1]}
	}
	sp, cp := math.Sincos(c.Pitch)
	sy, cy := math.Sincos(c.Yaw)
	t := vec3(c.Target)
	return t.add(vec3{cp * sy, sp, cp * cy}.scale(c.Distance))
}

// frame holds one frame's derived camera matrices.
type frame struct {
	view, proj, viewProj, inv mat4
	eye                       vec3
	w, h                      int
	ortho                     bool
	pxPerRad                  float64 // perspective: pixels per radian at the image centre
	near                      float64 // perspective: the near plane's distance
	metresPerPx               float64 // map mode
}

// bounds is the world-space box the scene occupies: used for near/far planes.
type bounds struct{ min, max vec3 }

func (c *Camera) frame(w, h int, b bounds) frame {
	if w < 1 {
		w = 1
	}
	if h < 1 {
		h = 1
	}
	aspect := float64(w) / float64(h)
	f := frame{w: w, h: h}
	if c.Mode == ViewMap {
		top := b.max[1] + 10 + 0.01*(b.max[1]-b.min[1])
		f.eye = c.eye(top)
		f.view = lookAt(f.eye, f.eye.sub(vec3{0, 1, 0}), vec3{0, 0, -1})
		mh := c.MapHeight
		if !(mh > 0) {
			mh = 1
		}
		hh, hw := mh/2, mh/2*aspect
		depth := top - b.min[1] + 10
		f.proj = orthographic(-hw, hw, -hh, hh, 1, depth+1)
		f.ortho = true
		f.metresPerPx = mh / float64(h)
	} else {
		f.eye = c.eye(0)
		far := 0.0
		for i := 0; i < 8; i++ {
			p := vec3{pick3(i&1, b.min[0], b.max[0]), pick3(i&2, b.min[1], b.max[1]), pick3(i&4, b.min[2], b.max[2])}
			far = math.Max(far, p.sub(f.eye).length())
		}
		far = far*1.05 + 1
		near := math.Max(c.Distance*0.005, far*2e-5)
		up := vec3{0, 1, 0}
		f.view = lookAt(f.eye, vec3(c.Target), up)
		f.proj = perspective(c.fov(), aspect, near, far)
		f.near = near
		f.pxPerRad = float64(h) / 2 / math.Tan(c.fov()/2)
	}
	f.viewProj = f.proj.mul(f.view)
	f.inv, _ = f.viewProj.inverse()
	return f
}

func pick3(bit int, a, b float64) float64 {
	if bit != 0 {
		return b
	}
	return a
}

// ray returns the world-space ray through image point (px, py) (pixels, (0,0) the top-left
// corner of the image, so a pixel's centre is at +0.5).
func (f *frame) ray(px, py float64) (origin, dir vec3) {
	nx := 2*px/float64(f.w) - 1
	ny := 1 - 2*py/float64(f.h)
	p0 := f.inv.mulVec4([4]float64{nx, ny, 0, 1})
	p1 := f.inv.mulVec4([4]float64{nx, ny, 1, 1})
	a := vec3{p0[0] / p0[3], p0[1] / p0[3], p0[2] / p0[3]}
	b := vec3{p1[0] / p1[3], p1[1] / p1[3], p1[2] / p1[3]}
	return a, b.sub(a).normalize()
}

// project maps a world point to image pixels (x right, y down) and reports whether it lies in
// front of the camera.
func (f *frame) project(p vec3) (px, py float64, ok bool) {
	c := f.viewProj.mulVec4([4]float64{p[0], p[1], p[2], 1})
	if c[3] <= 0 {
		return 0, 0, false
	}
	nx, ny := c[0]/c[3], c[1]/c[3]
	return (nx + 1) / 2 * float64(f.w), (1 - ny) / 2 * float64(f.h), true
}
