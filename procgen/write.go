package procgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"strata/bake"
	"strata/field"
	"strata/internal/pool"
	"strata/landscape"
	"strata/stack"
	"strata/terraindata"
)

// terrain.write: the raster's masks become the container's weights (normalized to sum to one,
// then quantized to bytes summing to exactly 255, stack.Quantize's rule), the populations are
// placed over them, and landscape.WriteContext saves the whole container atomically with a copy of the script, under the
// container's lock (terraindata.LockPath) as strata bake saves.

func checkWrite(n *node) error {
	if err := requireParams(n, "name", "layers"); err != nil {
		return err
	}
	if err := checkOutputName(n.str("name", "")); err != nil {
		return n.paramErr("name", "%v", err)
	}
	if s := n.vec2("atlasSize", [2]float64{4, 2}); s[0] != math.Trunc(s[0]) || s[1] != math.Trunc(s[1]) ||
		int(s[0])%4 != 0 || int(s[1])%2 != 0 || s[0] > 16384 || s[1] > 16384 {
		return n.paramErr("atlasSize", "want whole multiples of 4 (width) and 2 (height), at most 16384, got %v", s)
	}
	return nil
}

// Normalize turns mask layers into weights the terrainData seed's way: at each texel the masks
// (clamped to 0..1) are divided by their sum, so a texel half sand and half rock reads 128/127
// whatever the masks evaluated to, then quantized with stack.Quantize (bytes summing to exactly
// 255). Where every mask is zero — their sum below MinMaskSum — the texel goes to the first
// layer. At most 8 masks, one grid.
func Normalize(masks []*field.Grid) (*landscape.Weights, error) {
	if len(masks) == 0 || len(masks) > stack.MaxLayers {
		return nil, fmt.Errorf("procgen: %d masks; want 1 to %d", len(masks), stack.MaxLayers)
	}
	w, h := masks[0].W, masks[0].H
	for _, m := range masks {
		if m.W != w || m.H != h || len(m.Data) != w*h {
			return nil, fmt.Errorf("procgen: masks of %d×%d and %d×%d", w, h, m.W, m.H)
		}
	}
	out := landscape.NewWeights(w, h)
	pool.Each(context.Background(), h, 0, func(j int) {
		for i := j * w; i < (j+1)*w; i++ {
			q := normalizeTexel(masks, i)
			o := 4 * i
			copy(out.Lo[o:o+4], q[:4])
			copy(out.Hi[o:o+4], q[4:])
		}
	}, nil)
	return out, nil
}

// MinMaskSum is the smallest sum of masks Normalize divides by; below it every mask counts as
// zero. 2⁻¹⁶ is 0.004 of a byte: nothing a control texture can show. Dividing by less would
// magnify the masks' float rounding (which differs between the GPU and the Go reference) into
// whole bytes: a mask in a band's far tail is known only to a few percent of itself.
const MinMaskSum = 1.0 / 65536

// normalizeTexel is Normalize at one texel.
func normalizeTexel(masks []*field.Grid, i int) [8]uint8 {
	var share [8]float32
	var sum float32
	for k, m := range masks {
		share[k] = clamp01(m.Data[i])
		sum += share[k]
	}
	if !(sum >= MinMaskSum) {
		return stack.Quantize([8]float32{1})
	}
	for k := range masks {
		share[k] = share[k] / sum
	}
	return stack.Quantize(share)
}

// evalWrite writes raster r as node n says: the container at e's destination for n.
func (e *evaluator) evalWrite(n *node, r *raster) error {
	path, err := e.destination(n)
	if err != nil {
		return err
	}
	layers := n.params["layers"].value.([]layerSpec)
	masks := make([]*field.Grid, len(layers))
	for i, l := range layers {
		if masks[i] = r.mask(l.Name); masks[i] == nil {
			return n.paramErr("layers", "layers[%d] %q: the raster has no mask layer of that name (its masks: %s)", i+1, l.Name, r.maskNames())
		}
	}
	stage := e.stage(n)
	e.report(stage, 0, 3)
	w, err := Normalize(masks)
	if err != nil {
		return n.paramErr("layers", "%v", err)
	}
	s, tints, err := e.writeStack(n, layers, r)
	if err != nil {
		return err
	}
	l := &landscape.Landscape{Stack: s, Field: r.field, Weights: w, Script: e.script(n, tints)}
	if n.has("holes") {
		name := n.str("holes", "")
		hm := r.mask(name)
		if hm == nil {
			return n.paramErr("holes", "the raster has no mask layer %q (its masks: %s)", name, r.maskNames())
		}
		l.Holes = make([]bool, len(hm.Data))
		for i, v := range hm.Data {
			l.Holes[i] = v >= 0.5
		}
	}
	if n.has("atlasSize") {
		a := n.vec2("atlasSize", [2]float64{})
		l.AtlasSize = [2]int{int(a[0]), int(a[1])}
	}
	e.report(stage, 1, 3)
	backend, err := bake.EvaluateScatter(e.ctx, l, e.evalOptions(n))
	if err != nil {
		return e.nodeErr(n, err)
	}
	e.used(backend)
	if l.Field, err = keepChannels(n, r); err != nil {
		return err
	}
	e.report(stage, 2, 3)
	if err := e.ctx.Err(); err != nil {
		return fmt.Errorf("procgen: node %s: not writing %s: %w", n.label(), path, err)
	}
	// Under the container's lock, as strata bake takes it: two runs writing one container take
	// turns instead of meeting in the save's renames.
	if err := landscape.WriteContext(e.ctx, path, l, landscape.WriteOptions{Lock: terraindata.LockPath(path)}); err != nil {
		return n.errf(n.pos, "", "%v", err)
	}
	e.written = append(e.written, path)
	e.report(stage, 3, 3)
	return nil
}

// writeStack is the layer table and the populations as a stack with no layer rules (the weights
// are the masks'), its maps resolved to files, and the tints the script gave ("" where none).
// An unresolved map is a warning: its atlas cell keeps the neutral.
func (e *evaluator) writeStack(n *node, layers []layerSpec, r *raster) (*stack.Stack, []string, error) {
	s := stack.New()
	tints := make([]string, len(layers))
	for i, ls := range layers {
		l := stack.NewLayer(ls.Name)
		if ls.Tiling > 0 {
			l.Tiling = ls.Tiling
		}
		if ls.Tint != "" {
			c, _ := stack.ParseColor(ls.Tint) // checked when the param was set
			l.Tint, tints[i] = c, c.String()
		}
		for _, m := range []struct {
			role string
			ref  string
			dst  *string
		}{{"albedo", ls.Albedo, &l.Albedo}, {"normal", ls.Normal, &l.Normal}, {"mask", ls.Mask, &l.Mask}} {
			if m.ref == "" {
				continue
			}
			a, err := e.res.resolve(n, m.ref, imageExts)
			var nf *notFound
			switch {
			case errors.As(err, &nf):
				e.warnf("%s: node %s: param \"layers\": layers[%d] %q %s: %v; its atlas cell keeps the neutral",
					n.paramPos("layers"), n.label(), i+1, ls.Name, m.role, err)
				continue
			case err != nil:
				return nil, nil, n.paramErr("layers", "layers[%d] %q %s: %v", i+1, ls.Name, m.role, err)
			}
			abs, err := filepath.Abs(a.Path)
			if err != nil {
				return nil, nil, n.paramErr("layers", "%v", err)
			}
			*m.dst = abs
		}
		s.Layers = append(s.Layers, l)
	}
	area := r.field.Size[0] * r.field.Size[1]
	for _, p := range r.populations {
		if sites := area * p.spec.Density; sites > e.maxSites() {
			key := "density"
			if p.node.typ.name == "terrain.stack" {
				key = "stack"
			}
			return nil, nil, p.node.paramErr(key, "population %q: %.3g instances/m² over %.3g m² is up to %.3g candidate sites, more than the %.3g a write places (lower the density)",
				p.spec.Name, p.spec.Density, area, sites, e.maxSites())
		}
		s.Populations = append(s.Populations, p.spec)
	}
	if _, err := landscape.CheckStack(s, ""); err != nil {
		var ve *stack.ValidationError
		if errors.As(err, &ve) && len(ve.Problems) > 0 {
			return nil, nil, populationErr(n, r, ve.Problems[0])
		}
		return nil, nil, n.paramErr("layers", "%v", err)
	}
	return s, tints, nil
}

// maxSites bounds a population's candidate sites (area × density): placement counts every site
// before it places, so a density meant per hectare typed per m² would otherwise run for hours
// before the bake refuses more than bake.MaxInstances instances.
const maxSites = 8 * bake.MaxInstances

var popIndex = regexp.MustCompile(`^populations\[(\d+)\]`)

// populationErr blames a stack problem on the scatter (or stack) node whose population it is,
// else on the write's layers.
func populationErr(n *node, r *raster, p stack.Problem) error {
	if m := popIndex.FindStringSubmatch(p.Where); m != nil {
		if i, _ := strconv.Atoi(m[1]); i < len(r.populations) {
			pn := r.populations[i].node
			msg := strings.TrimPrefix(p.String(), m[0]+" ")
			if pn.typ.name == "terrain.stack" {
				return pn.paramErr("stack", "population %s (written by node %s)", msg, n.label())
			}
			return pn.paramErr("rules", "%s (written by node %s)", msg, n.label())
		}
	}
	return n.paramErr("layers", "%s", p.String())
}

// keepChannels is r's field with only the channels the write keeps.
func keepChannels(n *node, r *raster) (*field.Field, error) {
	f := field.Field{Placement: r.field.Placement, Height: r.field.Height, Channels: map[string]*field.Grid{}}
	if !n.has("channels") {
		return &f, nil
	}
	for _, name := range n.params["channels"].value.([]string) {
		g := r.field.Channels[name]
		if g == nil {
			return nil, n.paramErr("channels", "the raster has no field channel %q (its channels: %s; a mask layer is mask.<name>)", name, r.channelNames())
		}
		f.Channels[name] = g
	}
	return &f, nil
}

// paramPos is where param key was set (where the node was made, when it was not).
func (n *node) paramPos(key string) Pos {
	if p, ok := n.params[key]; ok {
		return p.pos
	}
	return n.pos
}

// script is the copy of the script a container written by n carries: the source, the write's
// name and every file the nodes it depends on read.
func (e *evaluator) script(n *node, tints []string) *landscape.Script {
	s := &landscape.Script{Name: e.src.name, Source: e.src.text, Write: n.str("name", ""), Assets: map[string]string{}, Tints: tints}
	deps, _ := order([]*node{n}) // already ordered once: cannot fail
	for _, d := range deps {
		for _, a := range e.res.used[d] {
			s.Assets[a.Rel] = a.Path
		}
	}
	return s
}
