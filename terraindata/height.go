package terraindata

import (
	"fmt"
	"image"
	"math"
)

// HeightGrid is the baked ground as the container stores it: a cell-centred W×H grid of metres,
// row 0 at minimum Z, with an optional hole mask. It is what the bake hands to WriteHeight.
type HeightGrid struct {
	W, H int
	// Heights holds W*H metres, row-major.
	Heights []float32
	// TexelX, TexelZ are the texel size in metres (Size / W, Size / H), used for the gradient.
	TexelX, TexelZ float64
	// Holes, when not nil, has W*H entries: true where there is NO ground.
	Holes []bool
	// Edge, when not nil, is the ground just beyond the grid (a world cell's neighbours): the
	// gradients at the grid's edges are then the central differences a grid including it has
	// there, so neighbouring cells' payloads agree with one whole payload along their seams.
	Edge *HeightEdge
}

// HeightEdge is the row or column of heights just outside each side of a HeightGrid, in metres:
// Left (x = -1) and Right (x = W) hold H values, Down (z = -1) and Up (z = H) hold W values. A nil
// side has no ground beyond it (the world's own edge).
type HeightEdge struct {
	Left, Right, Down, Up []float32
}

func (g *HeightGrid) check() error {
	if g.W <= 0 || g.H <= 0 || len(g.Heights) != g.W*g.H {
		return fmt.Errorf("terraindata: height grid %dx%d has %d values", g.W, g.H, len(g.Heights))
	}
	if g.Holes != nil && len(g.Holes) != g.W*g.H {
		return fmt.Errorf("terraindata: hole mask has %d entries for %dx%d", len(g.Holes), g.W, g.H)
	}
	if !(g.TexelX > 0) || !(g.TexelZ > 0) {
		return fmt.Errorf("terraindata: texel size %v x %v is not positive", g.TexelX, g.TexelZ)
	}
	if e := g.Edge; e != nil {
		for _, side := range []struct {
			name string
			v    []float32
			n    int
		}{{"left", e.Left, g.H}, {"right", e.Right, g.H}, {"down", e.Down, g.W}, {"up", e.Up, g.W}} {
			if side.v != nil && len(side.v) != side.n {
				return fmt.Errorf("terraindata: height edge %s has %d values, want %d", side.name, len(side.v), side.n)
			}
		}
	}
	return nil
}

func (g *HeightGrid) hole(i int) bool { return g.Holes != nil && g.Holes[i] }

// HasHoles reports whether any texel is a hole; a solid ground gets no holes child.
func (g *HeightGrid) HasHoles() bool {
	for _, h := range g.Holes {
		if h {
			return true
		}
	}
	return false
}

// Range returns the lowest and highest height over ground texels (holes are absence, not low
// ground). A grid that is all hole has range [0, 0].
func (g *HeightGrid) Range() [2]float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, h := range g.Heights {
		if g.hole(i) {
			continue
		}
		lo = math.Min(lo, float64(h))
		hi = math.Max(hi, float64(h))
	}
	if lo > hi {
		return [2]float64{0, 0}
	}
	return [2]float64{lo, hi}
}

// Row fills dst (4·W values) with row y of the rgba32f payload: R metres; G dh/dx and B dh/dz in
// metres per metre, central differences inside, one-sided at the edges (0 across a single
// texel); A coverage, 1 ground and 0 hole. Gradients use the stored heights on both sides of a
// hole edge, so a renderer lighting the rim of a cave mouth sees the ground's own slope.
func (g *HeightGrid) Row(y int, dst []float32) error {
	g.Span(y, 0, g.W, dst)
	return nil
}

// Texel is texel (x, y) of the payload, exactly as Row writes it (the viewport fills the pages
// of the height's pyramid from it, texel by texel at the level's stride).
func (g *HeightGrid) Texel(x, y int) [4]float32 {
	var t [4]float32
	g.Span(y, x, x+1, t[:])
	return t
}

// Span fills dst (4·(x1−x0) values) with texels x0 … x1−1 of row y of the payload, as Row.
func (g *HeightGrid) Span(y, x0, x1 int, dst []float32) {
	w, h := g.W, g.H
	hs := g.Heights
	var e HeightEdge
	if g.Edge != nil {
		e = *g.Edge
	}
	// the neighbours along z: the rows above and below, or the edges beyond the grid
	var down, up []float32
	switch {
	case y > 0:
		down = hs[(y-1)*w : y*w]
	case e.Down != nil:
		down = e.Down
	}
	switch {
	case y < h-1:
		up = hs[(y+1)*w : (y+2)*w]
	case e.Up != nil:
		up = e.Up
	}
	row := hs[y*w : (y+1)*w]
	dst = dst[:4*(x1-x0)]
	for x := x0; x < x1; x++ {
		c := row[x]
		var m, p float32
		hasM, hasP := x > 0, x < w-1
		switch {
		case hasM:
			m = row[x-1]
		case e.Left != nil:
			m, hasM = e.Left[y], true
		}
		switch {
		case hasP:
			p = row[x+1]
		case e.Right != nil:
			p, hasP = e.Right[y], true
		}
		dx := gradient(c, m, p, hasM, hasP, g.TexelX)
		var dm, dp float32
		if down != nil {
			dm = down[x]
		}
		if up != nil {
			dp = up[x]
		}
		dz := gradient(c, dm, dp, down != nil, up != nil, g.TexelZ)
		a := float32(1)
		if g.hole(y*w + x) {
			a = 0
		}
		o := 4 * (x - x0)
		dst[o], dst[o+1], dst[o+2], dst[o+3] = c, dx, dz, a
	}
}

// gradient is dh/dk at a texel of height c with neighbours m (before) and p (after), texel metres
// apart: the central difference when both exist, one-sided when one does, 0 when none does.
func gradient(c, m, p float32, hasM, hasP bool, texel float64) float32 {
	switch {
	case hasM && hasP:
		return (p - m) / float32(2*texel)
	case hasP:
		return (p - c) / float32(texel)
	case hasM:
		return (c - m) / float32(texel)
	}
	return 0
}

// WriteHeight streams the rgba32f height payload to dir (height.texture) row by row, with the
// zero Encoder.
func WriteHeight(dir string, g *HeightGrid) (TextureInfo, error) {
	return (&Encoder{}).Height(dir, g)
}

// Height streams the rgba32f height payload to dir (height.texture) row by row.
func (e *Encoder) Height(dir string, g *HeightGrid) (TextureInfo, error) {
	if err := g.check(); err != nil {
		return TextureInfo{}, err
	}
	for i, v := range g.Heights {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return TextureInfo{}, fmt.Errorf("terraindata: height texel (%d,%d) is %v", i%g.W, i/g.W, v)
		}
	}
	return e.Float(dir, RGBA32F, g.W, g.H, g.Row)
}

// HolesImage returns the rgba8 holes mask (R 255 ground, 0 hole; G, B 0; A 255), or nil when the
// ground is solid and no holes child should be written.
func (g *HeightGrid) HolesImage() *image.NRGBA {
	if !g.HasHoles() {
		return nil
	}
	img := image.NewNRGBA(image.Rect(0, 0, g.W, g.H))
	for i := range g.Heights {
		r := uint8(255)
		if g.Holes[i] {
			r = 0
		}
		img.Pix[4*i], img.Pix[4*i+3] = r, 255
	}
	return img
}

// WriteHoles writes holes.texture to dir when the grid has a hole and reports whether it did,
// with the zero Encoder.
func WriteHoles(dir string, g *HeightGrid) (bool, error) {
	return (&Encoder{}).Holes(dir, g)
}

// Holes writes holes.texture to dir when the grid has a hole and reports whether it did.
func (e *Encoder) Holes(dir string, g *HeightGrid) (bool, error) {
	img := g.HolesImage()
	if img == nil {
		return false, nil
	}
	if _, err := e.RGBA8(dir, img, Linear); err != nil {
		return false, err
	}
	return true, nil
}
