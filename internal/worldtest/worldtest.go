// Package worldtest holds what several packages' tests check of a world: that its cells are the
// blocks of one whole bake of the same sources.
package worldtest

import (
	"context"
	"fmt"

	"strata/bake"
	"strata/field"
	"strata/landscape"
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
	// The whole bake's textures, read once for every cell.
	wholeH, err := wc.Height().Read()
	if err != nil {
		return 0, err
	}
	var wholeControls [2]*terraindata.Texture
	for k := range wholeControls {
		if wholeControls[k], err = readPresent(wc.Control(k)); err != nil {
			return 0, fmt.Errorf("whole bake control%d: %w", k, err)
		}
	}
	pops, err := bake.PlaceFromContainer(context.Background(), wc, nil, nil)
	if err != nil {
		return 0, err
	}
	wholeDensity := map[string]*terraindata.Texture{}
	for _, p := range pops {
		if wholeDensity[p.Name], err = readPresent(wc.ScatterDensity(p.Name)); err != nil {
			return 0, fmt.Errorf("whole bake density %s: %w", p.Name, err)
		}
	}
	union := map[string][]float32{}
	for i, cl := range w.CellList {
		path, _ := w.Cell(i)
		cc, err := terraindata.Open(path)
		if err != nil {
			return 0, err
		}
		for k := 0; k < 2; k++ {
			if err := sameBlock(cc.Control(k), wholeControls[k], cl.WeightsRect()); err != nil {
				return 0, fmt.Errorf("cell %d control%d: %w", i, k, err)
			}
		}
		if err := sameBlock(cc.Height(), wholeH, cl.HeightRect()); err != nil {
			return 0, fmt.Errorf("cell %d height: %w", i, err)
		}
		for _, p := range pops {
			if err := sameBlock(cc.ScatterDensity(p.Name), wholeDensity[p.Name], cl.WeightsRect()); err != nil {
				return 0, fmt.Errorf("cell %d density %s: %w", i, p.Name, err)
			}
		}
		stored, ok, err := landscape.StoredInstances(cc)
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

// readPresent reads child r whole; an absent child (nil) is a nil texture.
func readPresent(r *terraindata.Ref) (*terraindata.Texture, error) {
	if r == nil {
		return nil, nil
	}
	return r.Read()
}

// sameBlock compares child a (a cell's) with block r of whole (the whole bake's texture, nil when
// the whole bake has no such child): the same size and format, rgba8 bytes or float values bit
// for bit. Two absent children agree.
func sameBlock(a *terraindata.Ref, whole *terraindata.Texture, r field.Rect) error {
	if a == nil || whole == nil {
		if (a == nil) != (whole == nil) {
			return fmt.Errorf("present in one, absent in the other")
		}
		return nil
	}
	ta, err := a.Read()
	if err != nil {
		return err
	}
	switch {
	case ta.Format != whole.Format:
		return fmt.Errorf("format %s, whole bake %s", ta.Format, whole.Format)
	case ta.Width != r.W() || ta.Height != r.H():
		return fmt.Errorf("%dx%d texels for the block %v", ta.Width, ta.Height, r)
	case r.I0 < 0 || r.J0 < 0 || r.I1 > whole.Width || r.J1 > whole.Height:
		return fmt.Errorf("block %v outside the whole bake's %dx%d", r, whole.Width, whole.Height)
	}
	i0, j0 := r.I0, r.J0
	nc := ta.Format.Components()
	for j := 0; j < ta.Height; j++ {
		for x := 0; x < ta.Width; x++ {
			if ta.RGBA8 != nil {
				ga := ta.RGBA8.Pix[ta.RGBA8.PixOffset(x, j):][:4]
				gb := whole.RGBA8.Pix[whole.RGBA8.PixOffset(i0+x, j0+j):][:4]
				if string(ga) != string(gb) {
					return fmt.Errorf("texel (%d,%d): %v, whole bake %v", i0+x, j0+j, ga, gb)
				}
				continue
			}
			for c := 0; c < nc; c++ {
				va, vb := ta.Float[(j*ta.Width+x)*nc+c], whole.Float[((j0+j)*whole.Width+i0+x)*nc+c]
				if va != vb {
					return fmt.Errorf("texel (%d,%d): %v, whole bake %v", i0+x, j0+j, va, vb)
				}
			}
		}
	}
	return nil
}
