package session

import (
	"math"

	"strata/bake"
	"strata/landscape"
)

// Probe is what the status bar shows for the ground under the cursor.
type Probe struct {
	X, Z      float64
	Height    float64 // metres
	Slope     float64 // degrees
	Curvature float64 // 1/m, + gully, − ridge
	// Aspect is the compass direction the downhill faces, degrees clockwise from north (+Z);
	// Flat is set (and Aspect is 0) where the ground is exactly flat and has none.
	Aspect float64
	Flat   bool
	// Flow is the upslope contributing area, log10(m²), bilinear on the flow plane as a rule reads
	// it; HasFlow is set when the plane is routed (a stack reading flow, once routed).
	Flow    float64
	HasFlow bool
	// Weights are the eight layers' bytes at the nearest weights texel (sum 255). They come from
	// the Go reference evaluated at that one texel (the GPU's weights stay on the GPU); for a
	// baked landscape, from its stored weights.
	Weights [8]uint8
	Layers  int
	Hole    bool
	OK      bool
}

// ProbeAt reads the ground at world (x, z) — what the rules see there, with the stack's
// gradientStep. It never waits for an evaluation: while the worker writes the field it returns
// an empty probe (OK false) rather than block the caller.
func (s *Session) ProbeAt(x, z float64) Probe {
	s.mu.Lock()
	st := s.doc.stack
	s.mu.Unlock()
	if !s.fmu.TryRLock() {
		return Probe{}
	}
	defer s.fmu.RUnlock()
	l := s.land
	if l == nil || math.IsNaN(x) || math.IsNaN(z) {
		return Probe{}
	}
	f := l.Field
	mn, sz := f.Placement.Min(), f.Size
	if x < mn[0] || z < mn[1] || x > mn[0]+sz[0] || z > mn[1]+sz[1] {
		return Probe{}
	}
	geo := l.Geometry
	if st != nil {
		g, err := landscape.NewGeometry(st, f, l.Resolution())
		if err != nil {
			return Probe{}
		}
		geo = g
	}
	fg := &geo.Field
	smp := fg.Sampler(f.Height)
	px, pz := float32(x), float32(z)
	g := geo.Stack.GradientStep
	slope, curv := smp.SlopeCurvature(px, pz, g)
	pr := Probe{X: x, Z: z, Height: float64(smp.Bilinear(px, pz)), Slope: float64(slope), Curvature: float64(curv), OK: true}
	if a := smp.Aspect(px, pz, g); a >= 0 {
		pr.Aspect = float64(a)
	} else {
		pr.Flat = true
	}
	i := min(max(int((x-mn[0])/sz[0]*float64(fg.WeightsW)), 0), fg.WeightsW-1)
	j := min(max(int((z-mn[1])/sz[1]*float64(fg.WeightsH)), 0), fg.WeightsH-1)
	hi := min(max(int((x-mn[0])/sz[0]*float64(f.Height.W)), 0), f.Height.W-1)
	hj := min(max(int((z-mn[1])/sz[1]*float64(f.Height.H)), 0), f.Height.H-1)
	pr.Hole = l.Holes != nil && l.Holes[hj*f.Height.W+hi]
	flowReady := f.HasFlow()
	if flowReady {
		if fp, err := f.FlowPlane(); err == nil {
			fs := fg.Sampler(fp)
			pr.Flow, pr.HasFlow = float64(fs.Bilinear(px, pz)), true
		}
	}
	switch {
	case st != nil && st.ReadsFlow() && !flowReady:
		// The flow is being routed (a height change): no weights until it is, rather than wait.
		pr.Layers = len(st.Layers)
	case st != nil:
		if w, err := bake.ProbeWeights(st, f, &geo, i, j); err == nil {
			pr.Weights = w
		}
		pr.Layers = len(st.Layers)
	case l.Weights != nil:
		pr.Weights = l.Weights.Texel(i, j)
		if l.Baked != nil {
			pr.Layers = len(l.Baked.Layers)
		}
	}
	return pr
}
