package procgen

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync/atomic"

	"strata/field"
	"strata/internal/pool"
	"strata/landscape"
	"strata/noise"
)

// The nodes that make ground: terrain.source (flat), terrain.fbm (relief) and terrain.import (a
// heightmap). Heights are built on the CPU in both modes, so a GPU run and a --cpu run of a
// script stand on the same ground, bit for bit; only the masks, stacks and scatter use kernels.

// Defaults of the ground nodes.
const (
	defaultSourceSize  = 1024.0 // metres
	defaultResolution  = 1.0    // metres per texel
	defaultAmplitude   = 10.0   // metres
	defaultFeatureSize = 64.0   // metres (the stack's)
	defaultOctaves     = 4
	defaultFBMSeed     = 1
)

// gridFor is the grid of a ground of the given extent at res metres per texel, checked against
// the field's limits and the run's.
func (e *evaluator) gridFor(n *node, key string, size [2]float64, res float64) (int, int, error) {
	w := math.Round(size[0] / res)
	h := math.Round(size[1] / res)
	if !(w >= 1) || !(h >= 1) {
		return 0, 0, n.paramErr(key, "%v m at %v m per texel is less than one texel", size, res)
	}
	if w > field.MaxSide || h > field.MaxSide || w*h > float64(e.maxTexels()) {
		return 0, 0, n.paramErr(key, "%v m at %v m per texel is %.0f×%.0f texels, more than the %d per side and %d in all a raster may have",
			size, res, w, h, field.MaxSide, e.maxTexels())
	}
	return int(w), int(h), nil
}

func checkSource(n *node) error {
	s := n.vec2("size", [2]float64{defaultSourceSize, defaultSourceSize})
	if s[0] <= 0 || s[1] <= 0 {
		return n.paramErr("size", "must be > 0, got %v", s)
	}
	return nil
}

func evalSource(e *evaluator, n *node, _ map[string]*raster) (*raster, error) {
	size := n.vec2("size", [2]float64{defaultSourceSize, defaultSourceSize})
	res := n.num("resolution", defaultResolution)
	w, h, err := e.gridFor(n, "resolution", size, res)
	if err != nil {
		return nil, err
	}
	if err := e.checkGrids(n, 4*uint64(w)*uint64(h), w, h); err != nil {
		return nil, err
	}
	g := field.NewGrid(w, h)
	if v := float32(n.num("height", 0)); v != 0 {
		for i := range g.Data {
			g.Data[i] = v
		}
	}
	f, err := field.New(field.Placement{Size: size, Origin: n.vec2("origin", [2]float64{})}, g)
	if err != nil {
		return nil, n.errf(n.pos, "", "%v", err)
	}
	return &raster{field: f}, nil
}

// fbmNorm is Σ 0.5^k over the octaves: terrain_fbm divides its octave sum by it.
func fbmNorm(octaves int) float64 { return 2 - math.Pow(2, float64(1-octaves)) }

// evalFBM adds amplitude · Σ 0.5^k · n_k to the height, n_k being terrain_fbm's octave k of
// gradient noise scaled to ±1: the textbook fbm, whose first octave rises and falls by amplitude
// metres. It is computed through noise.FBM itself (the same terrain_fbm the rules read): that
// maps the octave sum onto 0..1, so the sum is amplitude · norm · (2·fbm − 1).
func evalFBM(e *evaluator, n *node, in map[string]*raster) (*raster, error) {
	src := in["raster"]
	amp := n.num("amplitude", defaultAmplitude)
	fs := float32(n.num("featureSize", defaultFeatureSize))
	oct := int(n.num("octaves", defaultOctaves))
	seed := uint32(n.num("seed", defaultFBMSeed))
	scale := float32(amp * fbmNorm(oct))
	out := src.derive()
	geo, err := src.field.Geometry(0)
	if err != nil {
		return nil, n.errf(n.pos, "", "%v", err)
	}
	if inv := 1 / fs; !(fs > 0) || math.IsInf(float64(inv), 0) {
		return nil, n.paramErr("featureSize", "%v m: too small for float32 evaluation (its inverse is not finite)", fs)
	}
	old := src.field.Height
	g := field.NewGrid(old.W, old.H)
	var noiseBad atomic.Bool // the noise itself went non-finite: featureSize's doing, not amplitude's
	err = e.rows(n, old.H, func(j int) {
		for i := 0; i < old.W; i++ {
			x, z := geo.WeightPos(i, j)
			v := noise.FBM(x, z, fs, uint32(oct), seed)
			if v != v || math.IsInf(float64(v), 0) {
				noiseBad.Store(true)
			}
			g.Data[j*old.W+i] = old.Data[j*old.W+i] + scale*(2*v-1)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		if noiseBad.Load() {
			return nil, n.paramErr("featureSize", "%v m: the noise is no longer finite at this field's positions: %v", fs, err)
		}
		return nil, n.paramErr("amplitude", "the height is no longer finite: %v", err)
	}
	out.setHeight(g)
	return out, nil
}

// rows runs fn for every row 0..h-1 on every core, reporting progress for node n and stopping
// when the run is cancelled.
func (e *evaluator) rows(n *node, h int, fn func(j int)) error {
	stage := e.stage(n)
	e.report(stage, 0, h)
	err := pool.Each(e.ctx, h, 0, fn, func(d int) {
		if d%64 == 0 || d == h {
			e.report(stage, d, h)
		}
	})
	if err != nil {
		return fmt.Errorf("procgen: node %s: %w", n.label(), context.Cause(e.ctx))
	}
	return nil
}

func checkImport(n *node) error {
	if err := requireParams(n, "file"); err != nil {
		return err
	}
	if r := n.vec2("range", field.DefaultRange); !(r[0] < r[1]) {
		return n.paramErr("range", "want {lo, hi} with lo < hi, got %v", r)
	}
	if s := n.vec2("heightSize", [2]float64{1, 1}); s[0] != math.Trunc(s[0]) || s[1] != math.Trunc(s[1]) || s[0] > field.MaxSide || s[1] > field.MaxSide {
		return n.paramErr("heightSize", "want whole texel counts up to %d, got %v", field.MaxSide, s)
	}
	if n.has("channels") {
		for name := range n.params["channels"].value.(map[string]string) {
			if err := field.CheckChannelName(name); err != nil {
				return n.paramErr("channels", "%v", err)
			}
		}
	}
	return nil
}

func evalImport(e *evaluator, n *node, _ map[string]*raster) (*raster, error) {
	e.report(e.stage(n), 0, 1)
	a, err := e.res.resolve(n, n.str("file", ""), heightExt)
	if err != nil {
		return nil, n.paramErr("file", "%v", err)
	}
	opt := field.ImportOptions{Range: n.vec2("range", [2]float64{})}
	if n.has("heightSize") {
		s := n.vec2("heightSize", [2]float64{})
		opt.Size = [2]int{int(s[0]), int(s[1])}
	}
	var size *[2]float64
	if n.has("size") {
		s := n.vec2("size", [2]float64{})
		size = &s
	}
	f, err := landscape.LoadField(a.Path, opt, size)
	if err != nil {
		return nil, n.paramErr("file", "%v", err)
	}
	if f.Height.W*f.Height.H > e.maxTexels() {
		return nil, n.paramErr("file", "%d×%d texels, more than the %d a raster may have", f.Height.W, f.Height.H, e.maxTexels())
	}
	f.Placement.Origin = n.vec2("origin", [2]float64{})
	if n.has("channels") {
		chans := n.params["channels"].value.(map[string]string)
		names := make([]string, 0, len(chans))
		for k := range chans {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, name := range names {
			ca, err := e.res.resolve(n, chans[name], heightExt)
			if err != nil {
				return nil, n.paramErr("channels", "%s: %v", name, err)
			}
			if err := landscape.AddChannelFile(f, name, ca.Path); err != nil {
				return nil, n.paramErr("channels", "%v", err)
			}
		}
	}
	if n.has("resolution") {
		if f, err = e.resample(n, f, n.num("resolution", 0)); err != nil {
			return nil, err
		}
	}
	e.report(e.stage(n), 1, 1)
	return &raster{field: f}, nil
}

// resample returns f on a grid of res metres per texel over the same ground, every grid read
// bilinearly at the new texel centres (field's sampler: the same taps the kernels use).
func (e *evaluator) resample(n *node, f *field.Field, res float64) (*field.Field, error) {
	w, h, err := e.gridFor(n, "resolution", f.Size, res)
	if err != nil {
		return nil, err
	}
	src, err := field.NewGeometry(f.Placement, f.Height.W, f.Height.H, w, h)
	if err != nil {
		return nil, n.paramErr("resolution", "%v", err)
	}
	grid := func(g *field.Grid) (*field.Grid, error) {
		s := src.Sampler(g)
		out := field.NewGrid(w, h)
		err := e.rows(n, h, func(j int) {
			for i := 0; i < w; i++ {
				x, z := src.WeightPos(i, j)
				out.Data[j*w+i] = s.Bilinear(x, z)
			}
		})
		return out, err
	}
	hg, err := grid(f.Height)
	if err != nil {
		return nil, err
	}
	out, err := field.New(f.Placement, hg)
	if err != nil {
		return nil, n.paramErr("resolution", "%v", err)
	}
	for name, c := range f.Channels {
		g, err := grid(c)
		if err != nil {
			return nil, err
		}
		out.Channels[name] = g
	}
	return out, nil
}
