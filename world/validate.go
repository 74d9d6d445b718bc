package world

import (
	"context"
	"fmt"
	"path/filepath"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
	"strata/terraindata"
)

// Validate checks every cell of the world and every seam between two baked cells, listing each
// problem as FILE: FIELD: what is wrong. A cell: it is baked; landscape.Validate accepts its container
// (every payload decoded); its placement, grids, layers and populations are the plan's; its stored
// instances lie in the cell's sites' reach. A seam: the height gradients on both sides are the
// central differences across it (the two cells hold the same ground there), and the weights of
// the texels on both sides, evaluated again from the heights and channels the cells store, are
// the bytes they hold — a seam exactly as one whole bake writes it.
func (w *World) Validate(ctx context.Context) (terraindata.Problems, error) {
	s, _, _, err := w.LoadStack()
	if err != nil {
		return nil, err
	}
	geo, err := w.geometry(s)
	if err != nil {
		return nil, err
	}
	var probs terraindata.Problems
	bands := make([]*cellBands, len(w.CellList))
	b, bw := w.bandDepth(&geo)
	for i := range w.CellList {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("world: %w", err)
		}
		path, _ := w.Cell(i)
		c, err := w.openCell(i)
		if err != nil {
			probs = append(probs, terraindata.Problem{File: path, Field: "container", Msg: err.Error()})
			continue
		}
		if c == nil {
			probs = append(probs, terraindata.Problem{File: path, Field: "container", Msg: fmt.Sprintf("cell %d is not baked (strata world bake %s --cell %d)", i, w.Dir, i)})
			continue
		}
		cp := w.checkCell(i, c, s)
		probs = append(probs, cp...)
		if len(cp) > 0 {
			continue
		}
		if bands[i], err = w.readCellBands(i, c, b, bw); err != nil {
			probs = append(probs, terraindata.Problem{File: path, Field: "edges", Msg: err.Error()})
		}
	}
	all := &cellBands{chans: map[string][]patch[float32]{}}
	for _, cb := range bands {
		if cb == nil {
			continue
		}
		all.height = append(all.height, cb.height...)
		for n, p := range cb.chans {
			all.chans[n] = append(all.chans[n], p...)
		}
		all.controls[0], all.controls[1] = append(all.controls[0], cb.controls[0]...), append(all.controls[1], cb.controls[1]...)
	}
	for i := range w.CellList {
		for _, k := range []int{w.rightOf(i), w.upOf(i)} {
			if k < 0 || bands[i] == nil || bands[k] == nil {
				continue
			}
			probs = append(probs, w.checkSeam(ctx, s, &geo, bands, all, i, k)...)
		}
	}
	return probs, nil
}

// rightOf and upOf are the neighbours across cell i's +X and +Z edges, -1 at the world's edge.
func (w *World) rightOf(i int) int {
	if i%w.Cells[0] == w.Cells[0]-1 {
		return -1
	}
	return i + 1
}

func (w *World) upOf(i int) int {
	if i/w.Cells[0] == w.Cells[1]-1 {
		return -1
	}
	return i + w.Cells[0]
}

// bandDepth is how deep the edge bands must be: in height texels, the apron of a seam texel (what
// its evaluation reads) and a texel more; in weights texels, one.
func (w *World) bandDepth(geo *landscape.Geometry) (b, bw int) {
	c := field.Rect{I0: w.WeightsGrid[0] / 2, J0: w.WeightsGrid[1] / 2, I1: w.WeightsGrid[0]/2 + 1, J1: w.WeightsGrid[1]/2 + 1}
	a := geo.Field.ApronRect(c, geo.Stack.GradientStep)
	return max(a.W(), a.H()) + 2, 1
}

// checkCell is cell i's own checks.
func (w *World) checkCell(i int, c *terraindata.Container, s *stack.Stack) terraindata.Problems {
	path, _ := w.Cell(i)
	probs, stored := landscape.ValidateContainer(c)
	if len(probs) > 0 {
		return probs
	}
	cl := &w.CellList[i]
	mf := filepath.Join(path, terraindata.ManifestFile)
	add := func(field, format string, a ...any) {
		probs = append(probs, terraindata.Problem{File: mf, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	m := c.Manifest()
	if m.Size != cl.Size || m.Origin != cl.Origin {
		add("size/origin", "%v at %v, the plan's cell %d is %v at %v", m.Size, m.Origin, i, cl.Size, cl.Origin)
	}
	if info, err := c.Height().Info(); err == nil && (info.Width != cl.HeightRect().W() || info.Height != cl.HeightRect().H()) {
		add("height", "%dx%d, the plan's cell is %dx%d height texels", info.Width, info.Height, cl.HeightRect().W(), cl.HeightRect().H())
	}
	if info, err := c.Control(0).Info(); err == nil && (info.Width != cl.WeightsRect().W() || info.Height != cl.WeightsRect().H()) {
		add("controls", "%dx%d, the plan's cell is %dx%d weights texels", info.Width, info.Height, cl.WeightsRect().W(), cl.WeightsRect().H())
	}
	if len(m.Layers) != len(s.Layers) {
		add("layers", "%d layers, the world's stack has %d", len(m.Layers), len(s.Layers))
	} else {
		for k := range m.Layers {
			if m.Layers[k].Name != s.Layers[k].Name {
				add(fmt.Sprintf("layers[%d]", k), "%q, the world's stack has %q", m.Layers[k].Name, s.Layers[k].Name)
			}
		}
	}
	if len(m.Scatter) != len(w.Populations) {
		add("scatter", "%d populations, the plan has %d", len(m.Scatter), len(w.Populations))
		return probs
	}
	if len(m.Scatter) > 0 && stored == nil {
		add("instances", "a world cell stores its instances (%s/), this one does not", landscape.InstancesDir)
		return probs
	}
	for k, p := range m.Scatter {
		pp := w.Populations[k]
		if p.Name != pp.Name || float32(p.Spacing) != float32(pp.Spacing) {
			add(fmt.Sprintf("scatter[%d]", k), "%q at spacing %v, the plan's is %q at %v", p.Name, p.Spacing, pp.Name, pp.Spacing)
			continue
		}
		if msg := instancesOutside(stored[p.Name], cl, float64(pp.Spacing)); msg != "" {
			add(fmt.Sprintf("instances.%s", p.Name), "%s", msg)
		}
	}
	return probs
}

// instancesOutside names the first instance that no site of the cell can carry: beyond the
// cell's rectangle by more than one spacing.
func instancesOutside(m []float32, cl *Cell, spacing float64) string {
	lo := [2]float64{cl.Origin[0] - cl.Size[0]/2 - spacing, cl.Origin[1] - cl.Size[1]/2 - spacing}
	hi := [2]float64{cl.Origin[0] + cl.Size[0]/2 + spacing, cl.Origin[1] + cl.Size[1]/2 + spacing}
	for k := 0; k+scatter.MatrixFloats <= len(m); k += scatter.MatrixFloats {
		x, z := float64(m[k+12]), float64(m[k+14])
		if x < lo[0] || x > hi[0] || z < lo[1] || z > hi[1] {
			return fmt.Sprintf("instance %d stands at (%g, %g), outside the cell's sites (%v … %v)", k/scatter.MatrixFloats, x, z, lo, hi)
		}
	}
	return ""
}

// checkSeam checks the seam between baked cells i and k (k right of or above i).
func (w *World) checkSeam(ctx context.Context, s *stack.Stack, geo *landscape.Geometry, bands []*cellBands, all *cellBands, i, k int) terraindata.Problems {
	a := &w.CellList[i]
	pa, _ := w.Cell(i)
	pb, _ := w.Cell(k)
	where := fmt.Sprintf("seam with %s", filepath.Base(pb))
	var probs terraindata.Problems
	fail := func(format string, x ...any) terraindata.Problems {
		return append(probs, terraindata.Problem{File: pa, Field: where, Msg: fmt.Sprintf(format, x...)})
	}
	across := k == i+1 // the seam runs along Z between i (left) and k (right)
	// The seam's texels: one row or column on each side.
	var strip, hstrip field.Rect
	if across {
		wr, hr := a.WeightsRect(), a.HeightRect()
		strip = field.Rect{I0: wr.I1 - 1, J0: wr.J0, I1: wr.I1 + 1, J1: wr.J1}
		hstrip = field.Rect{I0: hr.I1 - 1, J0: hr.J0, I1: hr.I1 + 1, J1: hr.J1}
	} else {
		wr, hr := a.WeightsRect(), a.HeightRect()
		strip = field.Rect{I0: wr.I0, J0: wr.J1 - 1, I1: wr.I1, J1: wr.J1 + 1}
		hstrip = field.Rect{I0: hr.I0, J0: hr.J1 - 1, I1: hr.I1, J1: hr.J1 + 1}
	}
	hp, chp, cp := all.height, all.chans, all.controls
	// Heights: each side's gradient across the seam is the central difference over it.
	wide := hstrip.Grow(1).Intersect(field.Rect{I1: w.HeightGrid[0], J1: w.HeightGrid[1]})
	hv, err := stitch(hp, wide)
	if err != nil {
		return fail("%v", err)
	}
	at := func(x, z int) [4]float32 { return hv[(z-wide.J0)*wide.W()+x-wide.I0] }
	for z := hstrip.J0; z < hstrip.J1; z++ {
		for x := hstrip.I0; x < hstrip.I1; x++ {
			owner := bands[i]
			if (across && x >= a.HeightRect().I1) || (!across && z >= a.HeightRect().J1) {
				owner = bands[k]
			}
			var got, want float32
			if across {
				got, want = at(x, z)[1], (at(x+1, z)[0]-at(x-1, z)[0])/float32(2*owner.texel[0])
			} else {
				got, want = at(x, z)[2], (at(x, z+1)[0]-at(x, z-1)[0])/float32(2*owner.texel[1])
			}
			inside := wide.I0 <= x-1 && x+1 < wide.I1
			if !across {
				inside = wide.J0 <= z-1 && z+1 < wide.J1
			}
			if inside && got != want {
				return fail("height texel (%d, %d): gradient %v, the central difference across the seam is %v (the cells hold different ground)", x, z, got, want)
			}
		}
	}
	// Weights: evaluate the seam's texels again from the stored ground.
	need := geo.Field.ApronRect(strip, geo.Stack.GradientStep)
	hvals, err := stitch(hp, need)
	if err != nil {
		return fail("%v", err)
	}
	wins := &bake.Windows{Height: &field.Window{Grid: &field.Grid{W: need.W(), H: need.H(), Data: make([]float32, len(hvals))}, I0: need.I0, J0: need.J0},
		Channels: map[string]*field.Window{}}
	for n, v := range hvals {
		wins.Height.Data[n] = v[0]
	}
	for name, ps := range chp {
		v, err := stitch(ps, need)
		if err != nil {
			return fail("channel %s: %v", name, err)
		}
		wins.Channels[name] = &field.Window{Grid: &field.Grid{W: need.W(), H: need.H(), Data: v}, I0: need.I0, J0: need.J0}
	}
	got, err := bake.ReferenceWindow(ctx, s, geo, wins, strip, bake.Options{})
	if err != nil {
		return fail("%v", err)
	}
	for c := 0; c < 2; c++ {
		stored, err := stitch(cp[c], strip)
		if err != nil {
			return fail("%v", err)
		}
		ev := got.Lo
		if c == 1 {
			ev = got.Hi
		}
		for n, q := range stored {
			if [4]byte(ev[4*n:4*n+4]) != q {
				x, z := strip.I0+n%strip.W(), strip.J0+n/strip.W()
				return fail("weights texel (%d, %d), control%d: stored %v, evaluated from the cells' ground %v", x, z, c, q, ev[4*n:4*n+4])
			}
		}
	}
	return probs
}
