package session

import (
	"strata/landscape"
	"strata/terraindata"
	"strata/viewport"
)

// ground is an open landscape's height and holes as the viewport reads them
// (viewport.HeightSource): the pages of the height payload a frame samples are computed from the
// field where it is, never copied whole (a 16K field's payload is 4 GiB). The worker writes the
// field under Session.fmu and then tells the viewport what changed (Renderer.HeightChanged);
// the viewport reads it under the read side of the same lock.
type ground struct {
	s *Session
	l *landscape.Landscape
}

var (
	_ viewport.HeightSource = (*ground)(nil)
	_ viewport.HoleReporter = (*ground)(nil)
)

func (g *ground) GridSize() (int, int) { return g.l.Field.Height.W, g.l.Field.Height.H }

func (g *ground) HeightRow(j int) []float32 {
	h := g.l.Field.Height
	return h.Data[j*h.W : (j+1)*h.W]
}

func (g *ground) Texel(i, j int) [4]float32 {
	f := g.l.Field
	ts := f.TexelSize()
	hg := terraindata.HeightGrid{W: f.Height.W, H: f.Height.H, Heights: f.Height.Data, TexelX: ts[0], TexelZ: ts[1], Holes: g.l.Holes}
	return hg.Texel(i, j)
}

// HasHoles reports whether the landscape has a holes mask (viewport.HoleReporter): without one the
// viewport's instances skip their coverage test. It takes the field's read lock itself.
func (g *ground) HasHoles() bool {
	g.s.fmu.RLock()
	defer g.s.fmu.RUnlock()
	return g.l.Holes != nil
}

func (g *ground) Lock()   { g.s.fmu.RLock() }
func (g *ground) Unlock() { g.s.fmu.RUnlock() }
