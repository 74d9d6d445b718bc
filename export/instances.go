package export

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"strata/bake"
	"strata/landscape"
	"strata/terraindata"
)

// Index is index.yaml beside the exported pools: each population's file, count, mesh and scale
// (the format bake writes a world cell's stored instances in).
type Index = landscape.InstanceIndex

// exportInstances places every population again from the container (the Go reference: placement
// is deterministic, so this is the bake's forest) and writes each pool as raw matrices.
func exportInstances(ct *terraindata.Container, dir string, stdout io.Writer) error {
	pops, err := bake.PlaceFromContainer(context.Background(), ct, nil, nil)
	if err != nil {
		return err
	}
	placed := make([]landscape.Population, len(pops))
	for i, p := range pops {
		placed[i] = p.Population
	}
	idx, err := landscape.WriteInstances(dir, placed)
	if err != nil {
		return err
	}
	for _, e := range idx.Populations {
		fmt.Fprintf(stdout, "wrote %s (%d instances)\n", filepath.Join(dir, e.File), e.Count)
	}
	fmt.Fprintf(stdout, "wrote %s (%d populations)\n", filepath.Join(dir, "index.yaml"), len(pops))
	return nil
}
