package bake

import (
	"context"

	"strata/field"
	"strata/internal/pool"
	"strata/noise"
)

// StressField is the dunes sample at n×n texels with the two channels stack.StressStack reads:
// mask.snow (0..1) and sediment (0..1.2, a stored unit), both smooth noise over world position.
// Benchmarks and tests in several packages share it so their figures describe the same work.
func StressField(n int) *field.Field {
	f := field.SampleDunesSized(n)
	snow := field.NewGrid(n, n)
	sed := field.NewGrid(n, n)
	tx, tz := f.TexelSize()[0], f.TexelSize()[1]
	mn := f.Placement.Min()
	// Row by row on every core: a 16384² field's two channels are half a billion fbm samples.
	pool.Each(context.Background(), n, 0, func(j int) {
		z := float32(mn[1] + (float64(j)+0.5)*tz)
		for i := 0; i < n; i++ {
			x := float32(mn[0] + (float64(i)+0.5)*tx)
			snow.Set(i, j, noise.FBM(x, z, 300, 3, 11))
			sed.Set(i, j, 1.2*noise.FBM(x, z, 150, 2, 12))
		}
	}, nil)
	// The sizes match the height grid by construction, so AddChannel cannot fail here.
	_ = f.AddChannel("mask.snow", snow)
	_ = f.AddChannel("sediment", sed)
	return f
}
