package procgen

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"strata/field"
	"strata/sculpt"
)

// terrain.sculpt: the editor's sculpt brushes (package sculpt, docs/editor.md "Sculpting the
// ground") applied to the raster's height over a mask-shaped region: each texel's weight is the
// mask layer's value there (every texel 1 without a mask), where a brush's weight is its falloff.
// The arithmetic is sculpt's, the same in both modes of a run.

// sculptModes are the modes a terrain.sculpt takes: sculpt's and "lower" (raise inverted).
var sculptModes = append([]string{"raise", "lower"}, slices.DeleteFunc(sculpt.Modes(), func(s string) bool { return s == "raise" })...)

// sculptParamModes says which modes take each mode-specific param (the others refuse it).
var sculptParamModes = map[string][]string{
	"amount":      {"raise", "lower"},
	"radius":      {"smooth"},
	"height":      {"flatten", "set"},
	"step":        {"terrace"},
	"sharpness":   {"terrace"},
	"amplitude":   {"noise"},
	"featureSize": {"noise"},
	"seed":        {"noise"},
	"file":        {"stamp"},
	"at":          {"stamp"},
	"size":        {"stamp"},
	"angle":       {"stamp"},
	"stampHeight": {"stamp"},
	"invert":      {"stamp"},
}

// Defaults of terrain.sculpt.
const (
	defaultSculptAmount = 1.0 // metres: raise/lower at full strength and weight
	defaultSmoothTexels = 4   // smooth's box half-width, in texels, without radius
	defaultStampHeight  = 10.0
)

func checkSculpt(n *node) error {
	if err := requireParams(n, "mode"); err != nil {
		return err
	}
	mode := n.str("mode", "")
	for key, modes := range sculptParamModes {
		if n.has(key) && !slices.Contains(modes, mode) {
			return n.paramErr(key, "the %s mode does not take it (only %s)", mode, strings.Join(modes, ", "))
		}
	}
	switch mode {
	case "set":
		return requireParams(n, "height")
	case "terrace":
		return requireParams(n, "step")
	case "stamp":
		return requireParams(n, "file")
	}
	return nil
}

// evalSculpt applies the node's operation to a copy of the input raster's height.
func evalSculpt(e *evaluator, n *node, in map[string]*raster) (*raster, error) {
	src := in["raster"]
	f := src.field
	mode, invert, err := sculpt.ParseMode(n.str("mode", ""))
	if err != nil {
		return nil, n.paramErr("mode", "%v", err)
	}
	var weight *field.Grid
	if n.has("mask") {
		name := n.str("mask", "")
		if weight = src.mask(name); weight == nil {
			return nil, n.paramErr("mask", "the raster has no mask layer %q (it has: %s)", name, src.maskNames())
		}
	} else {
		weight = field.NewGrid(f.Height.W, f.Height.H)
		for k := range weight.Data {
			weight.Data[k] = 1
		}
	}
	pl := sculpt.PlaceOf(f)
	size := [2]float64{pl.Texel[0] * float64(f.Height.W), pl.Texel[1] * float64(f.Height.H)}
	d := &sculpt.Dab{Params: sculpt.Params{
		Mode: mode, Strength: n.num("strength", 1), Invert: invert,
		Lift:        n.num("amount", defaultSculptAmount),
		Height:      n.num("height", 0),
		Step:        n.num("step", 0),
		Sharpness:   n.num("sharpness", 1),
		Amplitude:   n.num("amplitude", defaultAmplitude),
		FeatureSize: n.num("featureSize", defaultFeatureSize),
		Seed:        uint32(n.num("seed", defaultFBMSeed)),
		Angle:       n.num("angle", 0),
		StampHeight: n.num("stampHeight", defaultStampHeight),
	}}
	switch mode {
	case sculpt.Smooth:
		d.HalfWidth = defaultSmoothTexels
		if n.has("radius") {
			d.HalfWidth = int(math.Round(n.num("radius", 0) / math.Min(pl.Texel[0], pl.Texel[1])))
			if d.HalfWidth < 1 || d.HalfWidth > 1024 {
				return nil, n.paramErr("radius", "%v m is %d texels of this raster: want 1 … 1024", n.num("radius", 0), d.HalfWidth)
			}
		}
	case sculpt.Flatten:
		if !n.has("height") {
			// The mask-weighted mean height: the level a press over the region would pick.
			var sw, sh float64
			for k, w := range weight.Data {
				if w > 0 {
					w := math.Min(float64(w), 1)
					sw, sh = sw+w, sh+w*float64(f.Height.Data[k])
				}
			}
			if sw == 0 {
				return src.derive(), nil // nothing under the mask: the ground as it was
			}
			d.Height = sh / sw
		}
	case sculpt.Stamp:
		d.Invert = n.flag("invert", false)
		a, err := e.res.resolve(n, n.str("file", ""), heightExt)
		if err != nil {
			return nil, n.paramErr("file", "%v", err)
		}
		img, err := sculpt.LoadStamp(a.Path)
		if err != nil {
			return nil, n.paramErr("file", "%v", err)
		}
		d.Image = img
		at := n.vec2("at", f.Placement.Origin)
		d.X, d.Z = at[0], at[1]
		d.Radius = n.num("size", math.Max(size[0], size[1])) / 2
	}
	e.report(e.stage(n), 0, 1)
	g := f.Height.Clone()
	if _, err := sculpt.ApplyWeighted(e.ctx, g, pl, d, weight); err != nil {
		if e.ctx.Err() != nil {
			return nil, err
		}
		return nil, n.errf(n.pos, "", "%v", err)
	}
	e.report(e.stage(n), 1, 1)
	out := src.derive()
	out.setHeight(g)
	return out, nil
}

// sculptDoc is terrain.sculpt's one-line description.
var sculptDoc = fmt.Sprintf("sculpts the raster's height as the editor's brushes do (%s), weighted by a mask layer", strings.Join(sculptModes, ", "))
