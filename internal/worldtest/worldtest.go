// Package worldtest holds what several packages' tests check of a world: that its cells are the
// blocks of one whole bake of the same sources.
package worldtest

import (
	"context"
	"fmt"

	"strata/bake"
	"strata/scatter"
	"strata/terraindata"
	"strata/world"
)

// SameAsWhole compares every cell of w with the block of the whole bake at wholePath it covers:
// both controls and the height payload (R metres, G/B gradients, A) byte for byte, each
// population's density value for value, and the union of the cells' stored instances with the
// whole bake's placement (as sets, bit for bit). It returns the number of instances compared.
func SameAsWhole(w *world.World, wholePath string) (int, error) {
	wc, err := terraindata.Open(wholePath)
	if err != nil {
		return 0, err
	}
	wholeH, err := wc.Height().Read()
	if err != nil {
		return 0, err
	}
	pops, err := bake.PlaceFromContainer(context.Background(), wc, nil, nil)
	if err != nil {
		return 0, err
	}
	union := map[string][]float32{}
	for i, cl := range w.CellList {
		path, _ := w.Cell(i)
		cc, err := terraindata.Open(path)
		if err != nil {
			return 0, err
		}
		for k := 0; k < 2; k++ {
			if err := sameBlock(cc.Control(k), wc.Control(k), cl.WeightsRect().I0, cl.WeightsRect().J0); err != nil {
				return 0, fmt.Errorf("cell %d control%d: %w", i, k, err)
			}
		}
		h, err := cc.Height().Read()
		if err != nil {
			return 0, err
		}
		r := cl.HeightRect()
		for j := r.J0; j < r.J1; j++ {
			for x := r.I0; x < r.I1; x++ {
				g := [4]float32(h.Float[4*((j-r.J0)*r.W()+x-r.I0):][:4])
				want := [4]float32(wholeH.Float[4*(j*w.HeightGrid[0]+x):][:4])
				if g != want {
					return 0, fmt.Errorf("cell %d height texel (%d,%d): %v, whole bake %v", i, x, j, g, want)
				}
			}
		}
		for _, p := range pops {
			if err := sameBlock(cc.ScatterDensity(p.Name), wc.ScatterDensity(p.Name), cl.WeightsRect().I0, cl.WeightsRect().J0); err != nil {
				return 0, fmt.Errorf("cell %d density %s: %w", i, p.Name, err)
			}
		}
		stored, ok, err := bake.StoredInstances(cc)
		if err != nil || (!ok && len(pops) > 0) {
			return 0, fmt.Errorf("cell %d stored instances: %v (stored: %v)", i, err, ok)
		}
		for name, m := range stored {
			union[name] = append(union[name], m...)
		}
	}
	n := 0
	for _, p := range pops {
		got, want := scatter.SortMatrices(union[p.Name]), scatter.SortMatrices(p.Matrices)
		if len(got) != len(want) {
			return 0, fmt.Errorf("%s: the cells hold %d instances, the whole bake %d", p.Name, len(got)/16, len(want)/16)
		}
		for k := range got {
			if got[k] != want[k] {
				return 0, fmt.Errorf("%s: instance float %d: cells %v, whole bake %v", p.Name, k, got[k], want[k])
			}
		}
		n += len(got) / 16
	}
	return n, nil
}

// sameBlock compares child a (a cell's) with the block of child b (the whole bake's) at (i0, j0):
// rgba8 bytes or float values, bit for bit. Two absent children agree.
func sameBlock(a, b *terraindata.Ref, i0, j0 int) error {
	if a == nil || b == nil {
		if a != b {
			return fmt.Errorf("present in one, absent in the other")
		}
		return nil
	}
	ta, err := a.Read()
	if err != nil {
		return err
	}
	tb, err := b.Read()
	if err != nil {
		return err
	}
	nc := ta.Format.Components()
	for j := 0; j < ta.Height; j++ {
		for x := 0; x < ta.Width; x++ {
			if ta.RGBA8 != nil {
				ga := ta.RGBA8.Pix[ta.RGBA8.PixOffset(x, j):][:4]
				gb := tb.RGBA8.Pix[tb.RGBA8.PixOffset(i0+x, j0+j):][:4]
				if string(ga) != string(gb) {
					return fmt.Errorf("texel (%d,%d): %v, whole bake %v", i0+x, j0+j, ga, gb)
				}
				continue
			}
			for c := 0; c < nc; c++ {
				va, vb := ta.Float[(j*ta.Width+x)*nc+c], tb.Float[((j0+j)*tb.Width+i0+x)*nc+c]
				if va != vb {
					return fmt.Errorf("texel (%d,%d): %v, whole bake %v", i0+x, j0+j, va, vb)
				}
			}
		}
	}
	return nil
}
