package viewport

import "math"

// vec3 is a world-space point or direction in float64; camera and picking math runs in float64
// so a 4 km field keeps centimetre precision, and only the final matrices are narrowed to f32.
type vec3 [3]float64

func (a vec3) add(b vec3) vec3      { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec3) sub(b vec3) vec3      { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec3) scale(s float64) vec3 { return vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a vec3) dot(b vec3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a vec3) length() float64      { return math.Sqrt(a.dot(a)) }
func (a vec3) cross(b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func (a vec3) normalize() vec3 {
	l := a.length()
	if l == 0 {
		return a
	}
	return a.scale(1 / l)
}

// mat4 is column-major (m[col*4+row]), the layout WGSL's mat4x4<f32> expects.
type mat4 [16]float64

func identity() mat4 { return mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} }

func (a mat4) mul(b mat4) mat4 {
	var r mat4
	for c := 0; c < 4; c++ {
		for row := 0; row < 4; row++ {
			var s float64
			for k := 0; k < 4; k++ {
				s += a[k*4+row] * b[c*4+k]
			}
			r[c*4+row] = s
		}
	}
	return r
}

// mulVec4 returns m·(x, y, z, w).
func (a mat4) mulVec4(v [4]float64) [4]float64 {
	var r [4]float64
	for row := 0; row < 4; row++ {
		r[row] = a[row]*v[0] + a[4+row]*v[1] + a[8+row]*v[2] + a[12+row]*v[3]
	}
	return r
}

func (a mat4) f32() [16]float32 {
	var r [16]float32
	for i, v := range a {
		r[i] = float32(v)
	}
	return r
}

// lookAt is a right-handed view matrix: the camera looks down its own −Z.
func lookAt(eye, target, up vec3) mat4 {
	f := target.sub(eye).normalize()
	s := f.cross(up).normalize()
	u := s.cross(f)
	return mat4{
		s[0], u[0], -f[0], 0,
		s[1], u[1], -f[1], 0,
		s[2], u[2], -f[2], 0,
		-s.dot(eye), -u.dot(eye), f.dot(eye), 1,
	}
}

// perspective maps view space to WebGPU clip space (depth 0 at near, 1 at far).
func perspective(fovY, aspect, near, far float64) mat4 {
	f := 1 / math.Tan(fovY/2)
	return mat4{
		f / aspect, 0, 0, 0,
		0, f, 0, 0,
		0, 0, far / (near - far), -1,
		0, 0, near * far / (near - far), 0,
	}
}

// orthographic maps the view-space box [l,r]×[b,t]×[−near,−far] to WebGPU clip space.
func orthographic(l, r, b, t, near, far float64) mat4 {
	return mat4{
		2 / (r - l), 0, 0, 0,
		0, 2 / (t - b), 0, 0,
		0, 0, -1 / (far - near), 0,
		-(r + l) / (r - l), -(t + b) / (t - b), -near / (far - near), 1,
	}
}

// inverse returns the inverse of a general 4×4 matrix and false when it is singular.
func (a mat4) inverse() (mat4, bool) {
	// Gauss-Jordan on a row-major copy.
	var m [4][8]float64
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			m[r][c] = a[c*4+r]
		}
		m[r][4+r] = 1
	}
	for c := 0; c < 4; c++ {
		p := c
		for r := c + 1; r < 4; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-300 {
			return mat4{}, false
		}
		m[c], m[p] = m[p], m[c]
		inv := 1 / m[c][c]
		for k := 0; k < 8; k++ {
			m[c][k] *= inv
		}
		for r := 0; r < 4; r++ {
			if r == c {
				continue
			}
			f := m[r][c]
			for k := 0; k < 8; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	var r mat4
	for row := 0; row < 4; row++ {
		for c := 0; c < 4; c++ {
			r[c*4+row] = m[row][4+c]
		}
	}
	return r, true
}
