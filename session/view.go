package session

import (
	"context"
	"fmt"
	"math"
	"time"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
	"strata/viewport"
)

// Mouse-to-camera rates: the UI hands over pixels and wheel steps, the session turns them into
// camera motion, so the same drag feels the same whatever the field's size.
const (
	orbitPerPixel = 0.006 // radians
	zoomPerStep   = 1.15  // factor per wheel notch
)

// OrbitBy turns the camera by a mouse drag of dx, dy pixels (right and down).
func (s *Session) OrbitBy(dx, dy float64) {
	c := s.Camera()
	if c.Mode == viewport.ViewMap {
		s.PanBy(dx, dy)
		return
	}
	c.Orbit(-dx*orbitPerPixel, dy*orbitPerPixel)
	s.SetCamera(c, true)
}

// PanBy drags the ground by dx, dy pixels: the point under the mouse stays under it.
func (s *Session) PanBy(dx, dy float64) {
	c := s.Camera()
	_, h := s.rend.size()
	var mpp float64 // metres per pixel at the target
	if c.Mode == viewport.ViewMap {
		mpp = c.MapHeight / float64(max(h, 1))
	} else {
		fov := c.FovY
		if fov <= 0 {
			fov = 45 * math.Pi / 180
		}
		mpp = 2 * c.Distance * math.Tan(fov/2) / float64(max(h, 1))
	}
	fwd := dy * mpp
	if c.Mode != viewport.ViewMap {
		fwd /= math.Max(0.2, math.Sin(c.Pitch))
	}
	c.Pan(-dx*mpp, fwd)
	s.SetCamera(c, true)
}

// ZoomBy zooms by wheel steps (positive: closer) toward the ground under the viewport point
// (u, v) given as fractions of its size.
func (s *Session) ZoomBy(steps, u, v float64) {
	c := s.Camera()
	f := math.Pow(zoomPerStep, steps)
	if hit, ok := s.Pick(u, v); ok {
		// Move the target a share of the way toward the point, so it stays under the cursor.
		k := 1 - 1/f
		if c.Mode == viewport.ViewMap {
			c.MapCenter[0] += (hit.X - c.MapCenter[0]) * k
			c.MapCenter[1] += (hit.Z - c.MapCenter[1]) * k
		} else {
			c.Target[0] += (hit.X - c.Target[0]) * k
			c.Target[1] += (hit.Height - c.Target[1]) * k
			c.Target[2] += (hit.Z - c.Target[2]) * k
		}
	}
	c.Zoom(f)
	s.SetCamera(c, true)
}

// FocusAt centres the camera on the ground under the viewport point (u, v).
func (s *Session) FocusAt(u, v float64) bool {
	hit, ok := s.Pick(u, v)
	if !ok {
		return false
	}
	c := s.Camera()
	c.Focus(hit.X, hit.Height, hit.Z)
	s.SetCamera(c, false)
	return true
}

// ToggleMap switches between the orbit camera and the top-down map, keeping the centre.
func (s *Session) ToggleMap() {
	c := s.Camera()
	if c.Mode == viewport.ViewMap {
		c.Mode = viewport.ViewOrbit
		c.Target[0], c.Target[2] = c.MapCenter[0], c.MapCenter[1]
	} else {
		c.Mode = viewport.ViewMap
		c.MapCenter = [2]float64{c.Target[0], c.Target[2]}
	}
	s.SetCamera(c, false)
}

// Overlay says what the viewport paints over the ground.
type Overlay struct {
	Mode viewport.OverlayMode
	// Layer is the layer whose weight OverlayWeight shows.
	Layer int
	// Population names the population whose density OverlayDensity shows.
	Population string
	// Channel, with OverlayDensity, shows that field channel instead (a painted mask, 0…1 at
	// full colour, unpainted ground untinted), refreshed after every stroke.
	Channel string
	// Tiles draws the tile grid and flashes the tiles each pass re-evaluates.
	Tiles bool
}

// viewState is what the session composes into the viewport's overlay. Session.mu guards it.
type viewState struct {
	overlay Overlay
	brush   bool
	brushAt [2]float64
	radius  float64
	// level, when levelOn, is the height a flatten or set-height dab moves the ground toward.
	level   float64
	levelOn bool
	flashes []viewport.TileFlash
}

// SetOverlay chooses the overlay; a density overlay is bound once the population is placed.
func (s *Session) SetOverlay(o Overlay) {
	s.mu.Lock()
	s.viewSt.overlay = o
	s.pipe.overlayChanged = true
	s.mu.Unlock()
	s.applyOverlay()
	s.pipe.kick() // binds a density grid
}

// Overlay returns the current overlay.
func (s *Session) Overlay() Overlay {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewSt.overlay
}

// SetBrushCursor shows (or hides) the brush ring at world (x, z) with radius metres.
func (s *Session) SetBrushCursor(on bool, x, z, radius float64) {
	s.mu.Lock()
	s.viewSt.brush, s.viewSt.brushAt, s.viewSt.radius = on, [2]float64{x, z}, radius
	s.mu.Unlock()
	s.applyOverlay()
	s.rend.request(true)
}

// SetBrushLevel shows (on) or hides the level of a flatten or set-height brush inside its ring:
// the ground above it tinted warm, below it cool, and its contour drawn (viewport.Overlay
// BrushLevel). The level is metres of height.
func (s *Session) SetBrushLevel(on bool, level float64) {
	s.mu.Lock()
	same := s.viewSt.levelOn == on && (!on || s.viewSt.level == level)
	s.viewSt.level, s.viewSt.levelOn = level, on
	s.mu.Unlock()
	if !same {
		s.applyOverlay()
	}
}

// applyOverlay hands the composed overlay to the viewport.
func (s *Session) applyOverlay() {
	s.mu.Lock()
	v := s.viewSt
	o := viewport.Overlay{Mode: v.overlay.Mode, Layer: v.overlay.Layer, Brush: v.brush, BrushCenter: v.brushAt, BrushRadius: v.radius,
		BrushLevel: v.level, BrushLevelOn: v.levelOn}
	if v.overlay.Tiles {
		o.TileSize = s.opts.TileSize
		o.Flashes = v.flashes
	}
	s.mu.Unlock()
	s.view.SetOverlay(o)
	s.rend.request(false)
}

// flash marks tiles as just re-evaluated for the tile overlay. s.mu is not held.
func (s *Session) flash(tiles []field.Tile) {
	s.mu.Lock()
	if !s.viewSt.overlay.Tiles {
		s.mu.Unlock()
		return
	}
	now := s.now()
	kept := s.viewSt.flashes[:0]
	for _, f := range s.viewSt.flashes {
		if now.Sub(f.At) < time.Second {
			kept = append(kept, f)
		}
	}
	nx, _ := field.TileGrid(s.pipe.geo.Field.WeightsW, s.pipe.geo.Field.WeightsH, s.opts.TileSize)
	for _, t := range tiles {
		kept = append(kept, viewport.TileFlash{I: t.Index % nx, J: t.Index / nx, At: now})
	}
	s.viewSt.flashes = kept
	s.mu.Unlock()
	s.applyOverlay()
}

// bindDensity binds the overlay's grid — a population's density or a painted channel — when it
// changed (the pass placed instances or edited the field) or the overlay did: a pass that did
// neither uploads nothing (the worker, after scatter).
func (p *pipeline) bindDensity(changed bool) {
	if err := p.bindOverlayGrid(changed); err != nil {
		p.s.emit(Event{Kind: EventError, Err: fmt.Errorf("overlay: %w", err)})
	}
}

// bindOverlayGrid is bindDensity's work; it returns what the viewport refused.
func (p *pipeline) bindOverlayGrid(changed bool) error {
	s := p.s
	s.mu.Lock()
	o := s.viewSt.overlay
	reselected := p.overlayChanged
	changed = changed || p.overlayChanged
	p.overlayChanged = false
	s.mu.Unlock()
	if in, ok := derivedOverlays[o.Mode]; ok {
		return p.bindDerived(o.Mode, in, reselected)
	}
	if o.Mode != viewport.OverlayDensity || !changed {
		return nil
	}
	if o.Channel != "" {
		s.fmu.RLock()
		g := s.land.Field.Channels[o.Channel]
		defer s.fmu.RUnlock()
		if g == nil {
			return s.view.SetDensity(nil, 0, 0, nil, 0)
		}
		return s.view.SetDensity(nil, g.W, g.H, g.Data, 1)
	}
	var ps *popState
	for _, q := range p.pops {
		if q.name == o.Population || (o.Population == "" && ps == nil) {
			ps = q
		}
	}
	fg := &p.geo.Field
	switch {
	case ps == nil:
		return s.view.SetDensity(nil, 0, 0, nil, 0)
	case ps.kernel != nil:
		return s.view.SetDensity(ps.kernel.DensityBuffer(), fg.WeightsW, fg.WeightsH, nil, ps.kernel.MaxDensity())
	case ps.dens != nil:
		var mx float32
		for _, m := range ps.tileMax {
			mx = max(mx, m)
		}
		return s.view.SetDensity(nil, ps.dens.W, ps.dens.H, ps.dens.Data, mx)
	}
	return nil
}

// derivedOverlays are the overlays whose grid the session computes from the field as a rule input
// reads it (bake.InputMap over the weights grid, the pass's geometry and gradientStep), one entry
// each. Flow's is the field's flow plane (Field.ChannelGrid, routed only when the height changed
// since: the plane a flow rule reads, shared with the evaluation) sampled on the weights grid.
var derivedOverlays = map[viewport.OverlayMode]stack.Input{
	viewport.OverlayAspect: stack.InputAspect,
	viewport.OverlayFlow:   stack.InputFlow,
}

// derivedKey is what a derived overlay's grid was computed from: the mode, the height's version
// and the geometry (grid, gradientStep). A rule edit changes none of them and recomputes nothing.
type derivedKey struct {
	mode      viewport.OverlayMode
	heightVer uint64
	geo       landscape.Geometry
}

// bindDerived computes and binds a derived overlay's grid when the height or the geometry changed
// since it was bound, or the overlay was chosen again (another grid may be bound since).
func (p *pipeline) bindDerived(mode viewport.OverlayMode, in stack.Input, reselected bool) error {
	key := derivedKey{mode: mode, heightVer: p.heightVer, geo: p.geo}
	if !reselected && p.derivedFor == key {
		return nil
	}
	s := p.s
	s.fmu.RLock()
	g, err := bake.InputMap(context.Background(), &p.geo, s.land.Field, in, "", nil)
	s.fmu.RUnlock()
	if err != nil {
		p.derivedFor = derivedKey{}
		return err
	}
	p.derivedRuns++
	if err := s.view.SetOverlayGrid(mode, g.W, g.H, g.Data); err != nil {
		p.derivedFor = derivedKey{}
		return err
	}
	p.derivedFor = key
	return nil
}

// BrushCursor is where the brush ring was last put (world X, Z).
func (s *Session) BrushCursor() [2]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewSt.brushAt
}

// BrushLevel is the level shown inside the brush ring (SetBrushLevel), and whether one is.
func (s *Session) BrushLevel() (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewSt.level, s.viewSt.levelOn
}
