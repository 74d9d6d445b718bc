package viewport

import (
	"math"
	"time"
)

// OverlayMode picks what is painted over the shaded ground.
type OverlayMode int

const (
	OverlayNone      OverlayMode = iota
	OverlayWeight                // one layer's weight as a heat map (Overlay.Layer)
	OverlaySlope                 // slope in degrees, 0 … Overlay.SlopeMax
	OverlayCurvature             // Laplacian: blue gullies (+), red ridges (−)
	OverlayDensity               // a population's density (Renderer.SetDensity), 0 … DensityMax
	// OverlayAspect is the compass direction the downhill faces, from a grid of degrees the host
	// binds (Renderer.SetOverlayGrid; the editor's is the rule input's aspect): a colour wheel,
	// hue = aspect (north red, east yellow-green, south cyan, west violet), flat ground
	// (field.AspectFlat, any value < 0) grey.
	OverlayAspect
	// OverlayFlow is the upslope contributing area, from a grid of log10 m² the host binds
	// (Renderer.SetOverlayGrid; the editor's is the flow input, the plane a flow rule reads): the
	// viridis ramp (dark violet … yellow, lightness rising) on a log scale from Overlay.FlowMin to
	// FlowMax (default: a height texel's own area to the whole field's), so channels are bright
	// and ridges dark. A large grid is reduced by a box mean of the logs (a geometric mean of the
	// areas).
	OverlayFlow
)

// gridMode is an overlay drawn from a grid the host binds (SetDensity, SetOverlayGrid) rather than
// from the height or the weights the renderer already has: how the terrain shader numbers it and
// how a grid too large to bind is reduced (each overlay texel standing for a k×k block).
type gridMode struct {
	shader uint32
	reduce func(dst, values []float32, w, h, k int) ([]float32, int, int)
}

// gridModes are the overlays drawn from a host grid, one entry each: its shader number and its
// reduction.
var gridModes = map[OverlayMode]gridMode{
	OverlayDensity: {shader: 4, reduce: boxMean},
	OverlayAspect:  {shader: 5, reduce: circularMean},
	OverlayFlow:    {shader: 6, reduce: boxMean}, // the mean of log10 m²: in log space
}

// TileFlash marks one tile as just re-evaluated at time At; it fades out over Overlay.Fade.
type TileFlash struct {
	I, J int // tile column (along X) and row (along Z)
	At   time.Time
}

// Overlay is everything drawn on top of the terrain for the editor's feedback. The zero value
// shows nothing.
type Overlay struct {
	Mode           OverlayMode
	Layer          int     // OverlayWeight: the layer index 0..7
	SlopeMax       float64 // OverlaySlope: degrees at the top of the ramp (default 60)
	CurvatureScale float64 // OverlayCurvature: |Laplacian| (1/m) at full colour (default 0.02)
	DensityMax     float64 // OverlayDensity: instances/m² at full colour (default: the grid's maximum)
	// OverlayFlow: the ramp's ends in log10 m² (FlowMin darkest, FlowMax brightest). Unless
	// FlowMax > FlowMin they are log10 of one height texel's area and of the field's area: the
	// least and the most any texel can gather.
	FlowMin, FlowMax float64

	// TileSize is the bake tile edge in weight (control) texels; 0 hides the grid. The grid is
	// anchored at the field's minimum corner, like the bake's tiles.
	TileSize int
	Flashes  []TileFlash
	Fade     time.Duration // how long a flash takes to fade out (default 1 s)

	Brush       bool
	BrushCenter [2]float64 // world X, Z
	BrushRadius float64    // metres
	// BrushLevel, when BrushLevelOn, is the height (metres) a flatten or set-height dab moves the
	// ground toward: inside the ring the ground above it is tinted warm (a dab cuts it down), the
	// ground below cool (a dab fills it), and a contour line is drawn where the ground crosses it
	// (the edge of the plateau a stroke would make). docs/editor.md "Sculpt".
	BrushLevel   float64
	BrushLevelOn bool
}

func (o *Overlay) fade() time.Duration {
	if o.Fade <= 0 {
		return time.Second
	}
	return o.Fade
}

// flashIntensities fills one value per tile (row-major, nx × ny) for time now and reports
// whether any flash is still fading (so the renderer must draw again later).
func (o *Overlay) flashIntensities(nx, ny int, now time.Time, out []float32) ([]float32, bool) {
	out = out[:0]
	for k := 0; k < nx*ny; k++ {
		out = append(out, 0)
	}
	if len(out) == 0 {
		out = append(out, 0) // a storage binding may not be empty
	}
	fade := o.fade()
	active := false
	for _, f := range o.Flashes {
		if f.I < 0 || f.J < 0 || f.I >= nx || f.J >= ny {
			continue
		}
		age := now.Sub(f.At)
		if age < 0 {
			age = 0
		}
		if age >= fade {
			continue
		}
		active = true
		v := float32(1 - float64(age)/float64(fade))
		if k := f.J*nx + f.I; v > out[k] {
			out[k] = v
		}
	}
	return out, active
}

// flowRange is the flow ramp's ends in log10 m²: FlowMin and FlowMax when FlowMax > FlowMin (both
// finite), else log10 of one height texel's area (texel, metres) and of the field's (size).
func (o *Overlay) flowRange(size, texel [2]float64) (lo, hi float64) {
	if o.FlowMax > o.FlowMin && !math.IsInf(o.FlowMax-o.FlowMin, 0) {
		return o.FlowMin, o.FlowMax
	}
	lo, hi = math.Log10(texel[0]*texel[1]), math.Log10(size[0]*size[1])
	if !(hi > lo) { // a field of one texel
		hi = lo + 1
	}
	return lo, hi
}
