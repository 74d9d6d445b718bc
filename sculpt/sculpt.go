// Package sculpt is the one definition of what a height brush does to the ground: raise/lower,
// smooth, flatten, set height, terrace, noise and stamp, texel by texel. The editor's brushes
// (package session: a Dab per quarter radius along a stroke) and procgen's terrain.sculpt node (the
// same operations weighted by a mask) both call it, and gpu.SculptKernel (shaders/sculpt.wgsl) is
// its twin on the GPU evaluator's resident field (docs/design.md "GPU sculpt twin").
//
// Every operation reads the heights as they were before it (a smooth reads its box from a copy
// taken first; the others read only the texel they write), so the result does not depend on the
// order the texels are visited. docs/editor.md "Sculpting the ground" writes every formula.
package sculpt

import (
	"context"
	"fmt"
	"image"
	"math"

	"strata/field"
	"strata/internal/pool"
	"strata/noise"
)

// Mode is what an operation does to the height.
type Mode int

const (
	// None is no operation (the zero value).
	None Mode = iota
	// Raise adds Lift·Strength·w metres (Invert: subtracts).
	Raise
	// Smooth moves a texel toward the mean of the (2·HalfWidth+1)² box around it by Strength·w.
	Smooth
	// Flatten moves a texel toward Height by Strength·w (the editor picks Height under the press).
	Flatten
	// Set moves a texel toward the typed Height by Strength·w: Flatten with a typed target.
	Set
	// Terrace moves a texel toward its terraced height (Terraced) by Strength·w.
	Terrace
	// Noise adds Amplitude·(2·FBM − 1)·Strength·w metres, FBM the world-anchored terrain_fbm.
	Noise
	// Stamp adds StampHeight·S·Strength·w metres (Invert: subtracts), S the stamp image's value
	// under the texel once placed at the dab's centre, scaled to its radius and rotated by Angle.
	Stamp
)

var modeNames = [...]string{None: "", Raise: "raise", Smooth: "smooth", Flatten: "flatten", Set: "set",
	Terrace: "terrace", Noise: "noise", Stamp: "stamp"}

// String is the mode's name as scripts write it ("raise", …; "" for None).
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("mode(%d)", int(m))
	}
	return modeNames[m]
}

// Modes lists every mode's name, for messages and procgen's enum.
func Modes() []string {
	out := make([]string, 0, len(modeNames)-1)
	for _, n := range modeNames[1:] {
		out = append(out, n)
	}
	return out
}

// ParseMode is the mode named s ("lower" is Raise inverted).
func ParseMode(s string) (m Mode, invert bool, err error) {
	if s == "lower" {
		return Raise, true, nil
	}
	for k, n := range modeNames {
		if k > 0 && n == s {
			return Mode(k), false, nil
		}
	}
	return None, false, fmt.Errorf("unknown sculpt mode %q", s)
}

// RaiseRate is how far one dab of a raise brush at full strength lifts the ground under its
// centre, as a fraction of the brush's radius: a 60 m brush lifts 1.2 m a dab (dabs fall every
// quarter radius along the stroke), so the same gesture shapes the same hill at any scale.
const RaiseRate = 0.02

// NoiseOctaves is the octave count of the noise mode's terrain_fbm (lacunarity 2, gain 0.5).
const NoiseOctaves = 4

// SmoothHalfWidth is the half-width in texels of the box a smooth dab averages over for a brush
// of radiusTexels: an eighth of the radius, at least 1 (a 3×3 box) and at most 16.
func SmoothHalfWidth(radiusTexels float64) int {
	return min(max(int(math.Round(radiusTexels/8)), 1), 16)
}

// Params is an operation without its footprint: what a texel of weight w (0..1) becomes.
type Params struct {
	Mode Mode
	// Strength is the fraction of the way (or of the amount) one application moves a texel, 0..1.
	Strength float64
	// Invert lowers (Raise) or subtracts the stamp (Stamp).
	Invert bool
	// Lift is Raise's metres at full strength and weight (a Dab with Lift 0 uses RaiseRate·Radius).
	Lift float64
	// HalfWidth is Smooth's box half-width in texels (a Dab with 0 uses SmoothHalfWidth).
	HalfWidth int
	// Height is Flatten's and Set's target in metres.
	Height float64
	// Step (metres, > 0) and Sharpness (0..1) are Terrace's.
	Step, Sharpness float64
	// Amplitude and FeatureSize (metres; FeatureSize > 0) and Seed are Noise's.
	Amplitude, FeatureSize float64
	Seed                   uint32
	// Image, Angle (degrees, counter-clockwise from +X toward +Z) and StampHeight (metres) are
	// Stamp's.
	Image       *field.Grid
	Angle       float64
	StampHeight float64
}

// Check reports the first parameter the mode needs that is missing or out of range, named as the
// editor and procgen name it.
func (p *Params) Check() error {
	finite := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s %v must be a finite number", name, v)
		}
		return nil
	}
	if p.Mode <= None || p.Mode > Stamp {
		return fmt.Errorf("unknown sculpt mode %d", int(p.Mode))
	}
	if !(p.Strength >= 0 && p.Strength <= 1) {
		return fmt.Errorf("strength %v must be within 0 … 1", p.Strength)
	}
	switch p.Mode {
	case Raise:
		return finite("lift", p.Lift)
	case Smooth:
		if p.HalfWidth < 0 || p.HalfWidth > 1024 {
			return fmt.Errorf("smooth half-width %d must be within 0 … 1024 texels", p.HalfWidth)
		}
	case Flatten, Set:
		return finite("height", p.Height)
	case Terrace:
		if !(p.Step > 0) || math.IsInf(p.Step, 0) {
			return fmt.Errorf("step %v must be a positive number of metres", p.Step)
		}
		if !(p.Sharpness >= 0 && p.Sharpness <= 1) {
			return fmt.Errorf("sharpness %v must be within 0 … 1", p.Sharpness)
		}
	case Noise:
		if err := finite("amplitude", p.Amplitude); err != nil {
			return err
		}
		if !(p.FeatureSize > 0) || math.IsInf(p.FeatureSize, 0) {
			return fmt.Errorf("feature size %v must be a positive number of metres", p.FeatureSize)
		}
	case Stamp:
		if p.Image == nil || p.Image.W < 1 || p.Image.H < 1 || len(p.Image.Data) != p.Image.W*p.Image.H {
			return fmt.Errorf("a stamp needs an image")
		}
		if err := finite("angle", p.Angle); err != nil {
			return err
		}
		return finite("stamp height", p.StampHeight)
	}
	return nil
}

// Terraced is the terraced height of v for steps of step metres (anchored at 0 m) and sharpness
// k: with f = v/step − ⌊v/step⌋, the height ⌊v/step⌋·step + step·clamp((f − k)/(1 − k), 0, 1);
// k = 0 is v itself, k = 1 the hard step ⌊v/step⌋·step, and between them each step is flat for
// its lower fraction k and rises linearly to the next over the rest (continuous).
func Terraced(v, step, k float64) float64 {
	q := math.Floor(v / step)
	base := q * step
	if k >= 1 {
		return base
	}
	f := v/step - q
	return base + step*min(max((f-k)/(1-k), 0), 1)
}

// Place is where a grid lies in the world: its minimum corner and texel size, metres.
type Place struct {
	Min, Texel [2]float64
}

// PlaceOf is a field's height placement.
func PlaceOf(f *field.Field) Place { return Place{Min: f.Placement.Min(), Texel: f.TexelSize()} }

// centre is texel (i, j)'s centre in world metres.
func (pl Place) centre(i, j int) (float64, float64) {
	return pl.Min[0] + (float64(i)+0.5)*pl.Texel[0], pl.Min[1] + (float64(j)+0.5)*pl.Texel[1]
}

// Dab is one press of a brush: Params over a disc.
type Dab struct {
	Params
	// X, Z is the centre in world metres; Radius (> 0) metres; Falloff 0 (a hard disc) … 1 (soft
	// from the centre out), as the mask brush has it.
	X, Z, Radius, Falloff float64
}

// Weight is the brush's coverage at distance d from its centre: 1 within (1 − Falloff)·Radius,
// then 1 − smoothstep down to 0 at the radius, 0 at and beyond it.
func Weight(d, radius, falloff float64) float64 {
	if d >= radius || radius <= 0 {
		return 0
	}
	u := d / radius
	inner := 1 - math.Max(0, math.Min(1, falloff))
	if u <= inner {
		return 1
	}
	t := (u - inner) / (1 - inner)
	return 1 - t*t*(3-2*t)
}

// Rect is the dab's disc bounds in texels of a w×h grid placed at pl (clipped; maybe empty).
// Only texels whose centre lies strictly inside the radius change.
func (d *Dab) Rect(w, h int, pl Place) image.Rectangle {
	return image.Rect(
		int(math.Floor((d.X-d.Radius-pl.Min[0])/pl.Texel[0])), int(math.Floor((d.Z-d.Radius-pl.Min[1])/pl.Texel[1])),
		int(math.Ceil((d.X+d.Radius-pl.Min[0])/pl.Texel[0]))+1, int(math.Ceil((d.Z+d.Radius-pl.Min[1])/pl.Texel[1]))+1,
	).Intersect(image.Rect(0, 0, w, h))
}

// Resolved is d's Params with the radius-derived defaults filled in (Lift, HalfWidth): what Apply
// and the GPU twin (gpu.SculptKernel) apply.
func (d *Dab) Resolved(pl Place) Params {
	p := d.Params
	if p.Mode == Raise && p.Lift == 0 {
		p.Lift = RaiseRate * d.Radius
	}
	if p.Mode == Smooth && p.HalfWidth == 0 {
		p.HalfWidth = SmoothHalfWidth(d.Radius / math.Min(pl.Texel[0], pl.Texel[1]))
	}
	return p
}

// Check is Params.Check with the dab's radius and falloff.
func (d *Dab) Check() error {
	if !(d.Radius > 0) || math.IsInf(d.Radius, 0) {
		return fmt.Errorf("radius %v must be a positive number of metres", d.Radius)
	}
	if math.IsNaN(d.X) || math.IsNaN(d.Z) || math.IsInf(d.X, 0) || math.IsInf(d.Z, 0) {
		return fmt.Errorf("the dab's centre (%v, %v) is not a place", d.X, d.Z)
	}
	if math.IsNaN(d.Falloff) {
		return fmt.Errorf("falloff must be a number")
	}
	p := d.Params
	if p.Mode == Raise && p.Lift == 0 {
		p.Lift = RaiseRate * d.Radius
	}
	return p.Check()
}

// Apply applies the dab to g (placed at pl) and returns the rectangle of texels it changed.
func (d *Dab) Apply(g *field.Grid, pl Place) (image.Rectangle, error) {
	if err := d.Check(); err != nil {
		return image.Rectangle{}, err
	}
	rect := d.Rect(g.W, g.H, pl)
	if rect.Empty() {
		return image.Rectangle{}, nil
	}
	p := d.Resolved(pl)
	k := newKernel(&p, g, pl, rect, d)
	weight := func(i int, x, z float64) float64 {
		return Weight(math.Hypot(x-d.X, z-d.Z), d.Radius, d.Falloff)
	}
	var changed image.Rectangle
	if rect.Dx()*rect.Dy() < parallelTexels {
		for j := rect.Min.Y; j < rect.Max.Y; j++ {
			changed = changed.Union(k.row(j, rect.Min.X, rect.Max.X, weight))
		}
		return changed, nil
	}
	// A texel's result reads only the grid as it was before the dab (the smooth's table is taken
	// first), so the rows go on every core and the result is the same bit for bit: a dab of 80
	// texels' radius cost its host 2–5 ms on one core, on the GPU evaluator's critical path
	// (docs/PERFORMANCE.md "indirect16").
	rows := make([]image.Rectangle, rect.Dy())
	pool.Each(context.Background(), rect.Dy(), 0, func(r int) { // a background context: no error
		rows[r] = k.row(rect.Min.Y+r, rect.Min.X, rect.Max.X, weight)
	}, nil)
	for _, r := range rows {
		changed = changed.Union(r)
	}
	return changed, nil
}

// parallelTexels is the least dab (texels of its rectangle) whose rows Apply spreads over the
// cores: a small one costs less than the goroutines.
const parallelTexels = 64 * 64

// ApplyWeighted applies d's Params to every texel of g (placed at pl) with weight[k] (clamped to
// 0..1) as its w instead of the dab's disc, on every core: procgen's terrain.sculpt. weight is g's
// size. d's centre and radius only place a Stamp (its image's larger side across the diameter);
// Lift and HalfWidth are taken as given (no radius-derived defaults). It returns the rectangle of
// texels it changed.
func ApplyWeighted(ctx context.Context, g *field.Grid, pl Place, d *Dab, weight *field.Grid) (image.Rectangle, error) {
	if weight == nil || weight.W != g.W || weight.H != g.H {
		return image.Rectangle{}, fmt.Errorf("the weight grid is not the height's size")
	}
	p := d.Params
	if err := p.Check(); err != nil {
		return image.Rectangle{}, err
	}
	if p.Mode == Stamp && (!(d.Radius > 0) || math.IsInf(d.Radius, 0)) {
		return image.Rectangle{}, fmt.Errorf("the stamp's radius %v must be a positive number of metres", d.Radius)
	}
	// Only the bounds of the weighted texels are visited (and a smooth's table covers only them,
	// widened by its box).
	var area image.Rectangle
	for j := 0; j < g.H; j++ {
		lo, hi := -1, -1
		for i, w := range weight.Data[j*g.W : (j+1)*g.W] {
			if w > 0 {
				if lo < 0 {
					lo = i
				}
				hi = i
			}
		}
		if lo >= 0 {
			area = area.Union(image.Rect(lo, j, hi+1, j+1))
		}
	}
	if area.Empty() {
		return image.Rectangle{}, nil
	}
	k := newKernel(&p, g, pl, area, d)
	rows := make([]image.Rectangle, area.Dy())
	err := pool.Each(ctx, area.Dy(), 0, func(r int) {
		j := area.Min.Y + r
		rows[r] = k.row(j, area.Min.X, area.Max.X, func(i int, _, _ float64) float64 {
			w := float64(weight.Data[j*g.W+i])
			if math.IsNaN(w) {
				return 0
			}
			return min(max(w, 0), 1)
		})
	}, nil)
	if err != nil {
		return image.Rectangle{}, err
	}
	var changed image.Rectangle
	for _, r := range rows {
		changed = changed.Union(r)
	}
	return changed, nil
}

// kernel is one operation prepared over a rectangle of a grid: the smooth's summed-area table and
// the stamp's sampler taken before any texel is written.
type kernel struct {
	p   *Params
	g   *field.Grid
	pl  Place
	sat []float64
	src image.Rectangle
	// stamp: the image's sampler (its texels 1 unit apart, the image centred on 0), metres per
	// image texel, the rotation, the dab's centre and the image's half extent in texels.
	stamp      field.Sampler
	ps         float64
	cos, sin   float64
	cx, cz     float64
	halfW, hfH float64
	noiseFS    float32
}

func newKernel(p *Params, g *field.Grid, pl Place, rect image.Rectangle, d *Dab) *kernel {
	k := &kernel{p: p, g: g, pl: pl}
	switch p.Mode {
	case Smooth:
		hw := p.HalfWidth
		k.src = rect.Inset(-hw).Intersect(image.Rect(0, 0, g.W, g.H))
		sw := k.src.Dx() + 1
		k.sat = make([]float64, sw*(k.src.Dy()+1))
		for j := 0; j < k.src.Dy(); j++ {
			row := 0.0
			for i := 0; i < k.src.Dx(); i++ {
				row += float64(g.Data[(k.src.Min.Y+j)*g.W+k.src.Min.X+i])
				k.sat[(j+1)*sw+i+1] = k.sat[j*sw+i+1] + row
			}
		}
	case Stamp:
		if geo, err := StampGeometry(p.Image); err == nil {
			k.stamp = geo.Sampler(p.Image)
		}
		fr := d.StampFrame()
		k.ps, k.cos, k.sin, k.halfW, k.hfH = fr.PS, fr.Cos, fr.Sin, fr.HalfW, fr.HalfH
		k.cx, k.cz = d.X, d.Z
	case Noise:
		k.noiseFS = float32(p.FeatureSize)
	}
	return k
}

// StampFrame is where a stamp's image lies under a dab: PS metres per image texel (the image's
// larger side across the diameter), the rotation's cosine and sine (Angle counter-clockwise from
// +X toward +Z) and the image's half extent in texels. The GPU twin takes these very numbers.
type StampFrame struct {
	PS, Cos, Sin, HalfW, HalfH float64
}

// StampFrame is d's stamp frame (d.Image set).
func (d *Dab) StampFrame() StampFrame {
	img := d.Image
	a := d.Angle * math.Pi / 180
	return StampFrame{PS: 2 * d.Radius / float64(max(img.W, img.H)), Cos: math.Cos(a), Sin: math.Sin(a),
		HalfW: float64(img.W) / 2, HalfH: float64(img.H) / 2}
}

// StampGeometry places a stamp image with its texels 1 unit apart and its centre on 0: the frame
// stampAt reads it in (its Sampler; the GPU twin's FieldMin and InvHTexel).
func StampGeometry(img *field.Grid) (field.Geometry, error) {
	return field.NewGeometry(field.Placement{Size: [2]float64{float64(img.W), float64(img.H)}}, img.W, img.H, img.W, img.H)
}

// boxMean is the mean height of the (2·HalfWidth+1)² box around (i, j), clipped to the grid.
func (k *kernel) boxMean(i, j int) float64 {
	hw := k.p.HalfWidth
	r := image.Rect(i-hw, j-hw, i+hw+1, j+hw+1).Intersect(k.src).Sub(k.src.Min)
	sw := k.src.Dx() + 1
	s := k.sat[r.Max.Y*sw+r.Max.X] - k.sat[r.Min.Y*sw+r.Max.X] - k.sat[r.Max.Y*sw+r.Min.X] + k.sat[r.Min.Y*sw+r.Min.X]
	return s / float64(r.Dx()*r.Dy())
}

// stampAt is the stamp image's value under world (x, z): the point turned by −Angle about the
// centre into the image's frame (u along the image's rows, v down its columns), in image texels
// from its centre, read bilinearly; 0 outside the image.
func (k *kernel) stampAt(x, z float64) float64 {
	dx, dz := x-k.cx, z-k.cz
	u := (dx*k.cos + dz*k.sin) / k.ps
	v := (-dx*k.sin + dz*k.cos) / k.ps
	if math.Abs(u) > k.halfW || math.Abs(v) > k.hfH {
		return 0
	}
	return float64(k.stamp.Bilinear(float32(u), float32(v)))
}

// value is texel (i, j) at (x, z), height v, weight w after the operation.
func (k *kernel) value(i, j int, x, z, v, w float64) float64 {
	p := k.p
	s := p.Strength * w
	switch p.Mode {
	case Raise:
		if p.Invert {
			return v - p.Lift*s
		}
		return v + p.Lift*s
	case Smooth:
		return v + (k.boxMean(i, j)-v)*s
	case Flatten, Set:
		return v + (p.Height-v)*s
	case Terrace:
		return v + (Terraced(v, p.Step, p.Sharpness)-v)*s
	case Noise:
		n := float64(noise.FBM(float32(x), float32(z), k.noiseFS, NoiseOctaves, p.Seed))
		return v + p.Amplitude*(2*n-1)*s
	case Stamp:
		a := p.StampHeight * k.stampAt(x, z) * s
		if p.Invert {
			return v - a
		}
		return v + a
	}
	return v
}

// row applies the operation to texels i0 … i1-1 of row j with weight(i, x, z) and returns the
// changed texels' bounds. A result that is not a finite float32 leaves the texel as it was.
func (k *kernel) row(j, i0, i1 int, weight func(i int, x, z float64) float64) image.Rectangle {
	var changed image.Rectangle
	g := k.g
	for i := i0; i < i1; i++ {
		x, z := k.pl.centre(i, j)
		w := weight(i, x, z)
		if w <= 0 {
			continue
		}
		idx := j*g.W + i
		v := k.value(i, j, x, z, float64(g.Data[idx]), w)
		if nv := float32(v); nv != g.Data[idx] && !math.IsNaN(v) && !math.IsInf(float64(nv), 0) {
			g.Data[idx] = nv
			changed = changed.Union(image.Rect(i, j, i+1, j+1))
		}
	}
	return changed
}
