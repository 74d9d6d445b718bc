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
	w, h := g.W, g.H
	at := func(x, z int) float32 { return g.Heights[z*w+x] }
	for x := 0; x < w; x++ {
		var dx, dz float32
		switch {
		case w == 1:
		case x == 0:
			dx = (at(1, y) - at(0, y)) / float32(g.TexelX)
		case x == w-1:
			dx = (at(w-1, y) - at(w-2, y)) / float32(g.TexelX)
		default:
			dx = (at(x+1, y) - at(x-1, y)) / float32(2*g.TexelX)
		}
		switch {
		case h == 1:
		case y == 0:
			dz = (at(x, 1) - at(x, 0)) / float32(g.TexelZ)
		case y == h-1:
			dz = (at(x, h-1) - at(x, h-2)) / float32(g.TexelZ)
		default:
			dz = (at(x, y+1) - at(x, y-1)) / float32(2*g.TexelZ)
		}
		a := float32(1)
		if g.hole(y*w + x) {
			a = 0
		}
		dst[4*x], dst[4*x+1], dst[4*x+2], dst[4*x+3] = at(x, y), dx, dz, a
	}
	return nil
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
