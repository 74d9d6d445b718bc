package sculpt

import (
	"fmt"

	"strata/field"
)

// LoadStamp reads a stamp image with field's importers: an 8- or 16-bit grayscale PNG (codes map
// onto 0 … 1), a float TIFF or EXR (values kept as they are), or any other format
// field.LoadHeight reads. Image row 0 is the stamp's −v edge (as a heightmap's row 0 is the
// field's minimum Z). The stamp brush multiplies the values by its StampHeight metres.
func LoadStamp(path string) (*field.Grid, error) {
	g, err := field.LoadHeight(path, field.ImportOptions{Range: [2]float64{0, 1}})
	if err != nil {
		return nil, fmt.Errorf("stamp: %w", err)
	}
	return g, nil
}
