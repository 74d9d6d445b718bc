package session

import (
	"image"
	"math"
)

// SculptMode is what a height brush does to the ground (Brush.Sculpt). The zero value paints
// the brush's Target (a mask or the holes) instead.
type SculptMode int

const (
	// SculptNone: not a sculpt; the brush paints its Target.
	SculptNone SculptMode = iota
	// SculptRaise lifts the ground by RaiseRate·Radius·Strength·falloff metres a dab (Erase
	// lowers it by as much).
	SculptRaise
	// SculptSmooth moves each texel toward the mean of the box around it (SmoothHalfWidth), by
	// Strength·falloff of the way.
	SculptSmooth
	// SculptFlatten moves each texel toward the height of the texel under the press (the
	// stroke's first point), by Strength·falloff of the way.
	SculptFlatten
)

// RaiseRate is how far one dab of a raise brush at full strength lifts the ground under its
// centre, as a fraction of the brush's radius: a 60 m brush lifts 1.2 m a dab (dabs fall every
// quarter radius along the stroke), so the same gesture shapes the same hill at any scale.
const RaiseRate = 0.02

// SculptLabel is the history step's name for a stroke of mode (erase: lower).
func SculptLabel(mode SculptMode, erase bool) string {
	switch mode {
	case SculptRaise:
		if erase {
			return "Lower ground"
		}
		return "Raise ground"
	case SculptSmooth:
		return "Smooth ground"
	case SculptFlatten:
		return "Flatten ground"
	}
	return ""
}

// SmoothHalfWidth is the half-width in texels of the box a smooth dab averages over for a brush
// of radiusTexels: an eighth of the radius, at least 1 (a 3×3 box) and at most 16.
func SmoothHalfWidth(radiusTexels float64) int {
	return min(max(int(math.Round(radiusTexels/8)), 1), 16)
}

// sculpt applies one dab of a height brush at the stroke's (o.x, o.z) on rect (height texels,
// the dab's disc bounds, clipped to the grid): the worker, with the field's write lock held.
// Only texels whose centre lies inside the radius change; a smooth dab reads the box around
// them (outside the radius too) from the height as it was before the dab, so the dab does not
// depend on the order it visits the texels.
func (o *dabOp) sculpt(p *pipeline, rect image.Rectangle) (fieldChange, error) {
	f := p.s.land.Field
	g := f.Height
	b := &o.rec.brush
	mn, ts := f.Placement.Min(), f.TexelSize()
	get := func(k int) float32 { return g.Data[k] }
	o.rec.remember(rect, g.W, g.H, get)
	if b.Sculpt == SculptFlatten && !o.rec.hasFlat {
		i := min(max(int(math.Floor((o.x-mn[0])/ts[0])), 0), g.W-1)
		j := min(max(int(math.Floor((o.z-mn[1])/ts[1])), 0), g.H-1)
		o.rec.flat, o.rec.hasFlat = float64(g.At(i, j)), true
	}
	// smooth: a summed-area table of the height over rect widened by the box's half-width.
	var sat []float64
	var src image.Rectangle
	hw := 0
	if b.Sculpt == SculptSmooth {
		hw = SmoothHalfWidth(b.Radius / math.Min(ts[0], ts[1]))
		src = rect.Inset(-hw).Intersect(image.Rect(0, 0, g.W, g.H))
		sw := src.Dx() + 1
		sat = make([]float64, sw*(src.Dy()+1))
		for j := 0; j < src.Dy(); j++ {
			row := 0.0
			for i := 0; i < src.Dx(); i++ {
				row += float64(g.Data[(src.Min.Y+j)*g.W+src.Min.X+i])
				sat[(j+1)*sw+i+1] = sat[j*sw+i+1] + row
			}
		}
	}
	boxMean := func(i, j int) float64 {
		r := image.Rect(i-hw, j-hw, i+hw+1, j+hw+1).Intersect(src).Sub(src.Min)
		sw := src.Dx() + 1
		s := sat[r.Max.Y*sw+r.Max.X] - sat[r.Min.Y*sw+r.Max.X] - sat[r.Max.Y*sw+r.Min.X] + sat[r.Min.Y*sw+r.Min.X]
		return s / float64(r.Dx()*r.Dy())
	}
	lift := RaiseRate * b.Radius * b.Strength
	if b.Erase {
		lift = -lift
	}
	var changed image.Rectangle
	for j := rect.Min.Y; j < rect.Max.Y; j++ {
		z := mn[1] + (float64(j)+0.5)*ts[1]
		for i := rect.Min.X; i < rect.Max.X; i++ {
			x := mn[0] + (float64(i)+0.5)*ts[0]
			w := b.weight(math.Hypot(x-o.x, z-o.z))
			if w <= 0 {
				continue
			}
			k := j*g.W + i
			v := float64(g.Data[k])
			switch b.Sculpt {
			case SculptRaise:
				v += lift * w
			case SculptSmooth:
				v += (boxMean(i, j) - v) * b.Strength * w
			case SculptFlatten:
				v += (o.rec.flat - v) * b.Strength * w
			}
			if nv := float32(v); nv != g.Data[k] && !math.IsNaN(v) && !math.IsInf(float64(nv), 0) {
				g.Data[k] = nv
				changed = changed.Union(image.Rect(i, j, i+1, j+1))
			}
		}
	}
	return fieldChange{target: "", rect: changed}, nil
}
