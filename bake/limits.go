package bake

import (
	"fmt"

	"strata/internal/sysmem"
	"strata/landscape"
)

// What a bake holds per texel beyond the field it was given, calibrated on the 8192² bakes of
// docs/PERFORMANCE.md ("Peak memory of an 8192² bake": 1.58 GiB for two layers and no population,
// 2.12 GiB with one population, the 256 MiB height included): the two RGBA8 weight images and the
// evaluation's scratch per weights texel, a density grid and its placement scratch per population,
// tile buffers (apron included) and upload staging per height texel.
const (
	bakeBytesPerWeightsTexel    = 12
	bakeBytesPerPopulationTexel = 8
	bakeBytesPerHeightTexel     = 8
)

// checkMemory refuses a bake of l whose working set would not fit in the memory the machine can
// give now (internal/sysmem: MemAvailable, the cgroup limit, STRATA_MEMORY_LIMIT), before anything is
// allocated: the texel count grows with --size and --resolution far faster than the inputs do.
func checkMemory(l *landscape.Landscape) error {
	fg := &l.Geometry.Field
	wt := uint64(fg.WeightsW) * uint64(fg.WeightsH)
	ht := uint64(fg.HeightW) * uint64(fg.HeightH)
	pops := uint64(len(l.Stack.Populations))
	what := fmt.Sprintf("a bake of %d×%d weights over a %d×%d height with %d population(s)", fg.WeightsW, fg.WeightsH, fg.HeightW, fg.HeightH, pops)
	// The two weight images go on disk with the field's planes when together they would pass
	// half the budget (landscape.NewWeightsFor): they are then checked against the disk.
	perWeights, perPop := uint64(bakeBytesPerWeightsTexel), uint64(bakeBytesPerPopulationTexel)
	onDisk, err := sysmem.PlanesOnDisk(landscape.FieldPlaneBytes(l.Field) + 8*wt)
	if err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	if onDisk {
		perWeights -= 8
		if err := sysmem.CheckPlanes(8*wt, true, what+": its weights"); err != nil {
			return fmt.Errorf("bake: %w", err)
		}
	}
	// Each population's density grid (4 bytes a texel) is on disk with the height
	// (field.NewPlaneLike).
	if l.Field.Height.OnDisk() && pops > 0 {
		perPop -= 4
		if err := sysmem.CheckPlanes(4*pops*wt, true, what+": its densities"); err != nil {
			return fmt.Errorf("bake: %w", err)
		}
	}
	need := wt*(perWeights+pops*perPop) + ht*bakeBytesPerHeightTexel
	if err := sysmem.Check(need, what); err != nil {
		return fmt.Errorf("bake: %w (lower --resolution or the heightmap's size, or free memory)", err)
	}
	return nil
}
