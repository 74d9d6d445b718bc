package world

import (
	"fmt"
	"path"

	"strata/field"
	"strata/scatter"
	"strata/terraindata"
)

// The partition of a world into cells. Along each axis the height grid (hn texels) and the weights
// grid (wn texels) must be cut at the same world positions, so a cut falls where a height texel
// edge and a weights texel edge coincide: every multiple of hn/g height texels (= wn/g weights
// texels, g = gcd(hn, wn)). With the default resolution (weights grid = height grid) that is every
// texel. Cut k of an axis of n cells is at unit ⌊k·g/n⌋: cells differ by at most one unit.

// Spacing modes of a plan (Spec.Spacing).
const (
	SpacingMeasured = "measured"
	SpacingDeclared = "declared"
)

// spacingOf is the site spacing for a maximum density (scatter.Spacing of its float32).
func spacingOf(maxDensity float64) float32 { return scatter.Spacing(float32(maxDensity)) }

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// cuts returns the n+1 cut positions along one axis in height and weights texels.
func cuts(hn, wn, n int, axis string) (hc, wc []int, err error) {
	g := gcd(hn, wn)
	if n < 1 || n > g {
		return nil, nil, fmt.Errorf("%d cells along %s: the %d-texel height grid and %d-texel weights grid can be cut at %d places at most (every %d height texels)",
			n, axis, hn, wn, g, hn/g)
	}
	uh, uw := hn/g, wn/g
	for k := 0; k <= n; k++ {
		u := int(int64(k) * int64(g) / int64(n))
		hc = append(hc, u*uh)
		wc = append(wc, u*uw)
	}
	for k := 0; k < n; k++ {
		if h := hc[k+1] - hc[k]; h < terraindata.MinHeightSide || h > field.MaxSide || wc[k+1]-wc[k] > field.MaxSide {
			return nil, nil, fmt.Errorf("%d cells along %s: cell %d would be %d height × %d weights texels; a cell holds %d … %d",
				n, axis, k, h, wc[k+1]-wc[k], terraindata.MinHeightSide, field.MaxSide)
		}
	}
	return hc, wc, nil
}

// layout is the cell list the plan's grids and Cells define.
func layout(p *Spec) ([]Cell, error) {
	n, m := p.Cells[0], p.Cells[1]
	if n < 1 || m < 1 || n > MaxCells || m > MaxCells || n*m > MaxCells { // each side first: n·m may overflow
		return nil, fmt.Errorf("%dx%d: want at least 1x1 and at most %d cells", n, m, MaxCells)
	}
	hx, wx, err := cuts(p.HeightGrid[0], p.WeightsGrid[0], n, "X")
	if err != nil {
		return nil, err
	}
	hz, wz, err := cuts(p.HeightGrid[1], p.WeightsGrid[1], m, "Z")
	if err != nil {
		return nil, err
	}
	mn := field.Placement{Size: p.Size, Origin: p.Origin}.Min()
	tx, tz := p.Size[0]/float64(p.HeightGrid[0]), p.Size[1]/float64(p.HeightGrid[1])
	out := make([]Cell, 0, n*m)
	for j := 0; j < m; j++ {
		for i := 0; i < n; i++ {
			c := Cell{
				Index:     j*n + i,
				Container: path.Clean(CellName(i, j)),
				Height:    [4]int{hx[i], hz[j], hx[i+1], hz[j+1]},
				Weights:   [4]int{wx[i], wz[j], wx[i+1], wz[j+1]},
				Size:      [2]float64{float64(hx[i+1]-hx[i]) * tx, float64(hz[j+1]-hz[j]) * tz},
			}
			c.Origin = [2]float64{mn[0] + float64(hx[i])*tx + c.Size[0]/2, mn[1] + float64(hz[j])*tz + c.Size[1]/2}
			if err := (field.Placement{Size: c.Size, Origin: c.Origin}).Validate(); err != nil {
				return nil, fmt.Errorf("cell %d: %w", c.Index, err)
			}
			out = append(out, c)
		}
	}
	return out, nil
}
