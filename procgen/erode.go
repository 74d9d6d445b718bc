package procgen

import (
	"strata/erode"
)

// terrain.erode: the raster's ground eroded (package erode, docs/design.md "Erosion"), its
// height replaced and the channels erosion.flow, erosion.deposit and erosion.wear added, which
// terrain.mask (input channel) and a stack read, and terrain.write keeps when its channels name
// them. The erosion runs on the run's evaluator (bake.Evaluator.Erode): the GPU's erosion kernels,
// or the Go reference with --cpu (and, in the automatic choice, on a software adapter, where it
// is the faster); the two agree within docs/design.md "Erosion"'s tolerance, not byte for byte.

// evalErode erodes the input raster's ground with the node's preset, iterations and seed.
func evalErode(e *evaluator, n *node, in map[string]*raster) (*raster, error) {
	src := in["raster"]
	p, err := erode.Preset(n.str("preset", erode.DefaultPreset))
	if err != nil {
		return nil, n.paramErr("preset", "%v", err)
	}
	if n.has("iterations") {
		p.Iterations = int(n.num("iterations", 0))
	}
	stage := e.stage(n)
	out := src.derive()
	r, backend, err := e.ev.Erode(e.ctx, src.field.Height, src.field.TexelSize(), erode.Options{
		Params:   p,
		Seed:     uint32(n.num("seed", 1)),
		Progress: func(s string, done, total int) { e.report(stage+": "+s, done, total) },
	})
	if err != nil {
		if e.ctx.Err() != nil {
			return nil, err
		}
		return nil, n.errf(n.pos, "", "%v", err)
	}
	e.used(backend)
	out.field.Height = r.Height
	out.field.Channels[erode.ChannelFlow] = r.Flow
	out.field.Channels[erode.ChannelDeposit] = r.Deposit
	out.field.Channels[erode.ChannelWear] = r.WearMap
	return out, nil
}
