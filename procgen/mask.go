package procgen

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// terrain.mask, terrain.stack and terrain.scatter: the nodes that decide where surfaces and
// populations go. A mask is a stack band rule with the stack's math (docs/stack.md): it is
// evaluated as a one-rule population of density `strength` by terrain_scatter_density (GPU) or its
// Go twin scatter.Density, whose per-texel value density · band is exactly the mask.

// maskInputs are the inputs a terrain.mask may band (a stack rule's, without `layer`).
var maskInputs = []string{"height", "slope", "aspect", "curvature", "flow", "noise", "mask", "channel"}

// combineModes say how a mask meets an existing mask of the same name.
var combineModes = []string{"replace", "multiply", "add", "subtract", "max", "min"}

// maskName is the mask layer a terrain.mask writes.
func maskName(n *node) string { return n.str("name", n.name) }

// maskSeed is the noise seed of a mask: its seed param, else one derived from its name, so two
// masks never share noise by accident and a mask keeps its noise when nodes are added around it.
func maskSeed(n *node) uint32 {
	if n.has("seed") {
		return uint32(n.num("seed", 0))
	}
	h := fnv.New32a()
	h.Write([]byte(maskName(n)))
	return h.Sum32()
}

// maskStack is the one-population stack that evaluates mask node n.
func maskStack(n *node) *stack.Stack {
	s := stack.New()
	s.Noise = stack.Noise{FeatureSize: n.num("featureSize", defaultFeatureSize), Octaves: int(n.num("octaves", defaultOctaves)), Seed: maskSeed(n)}
	if n.has("gradientStep") {
		s.GradientStep = stack.F(n.num("gradientStep", 0))
	}
	s.Layers = []stack.Layer{stack.NewLayer("ground")}
	r := stack.Rule{
		Input:    stack.Input(n.str("input", "height")),
		Channel:  n.str("channel", ""),
		Softness: n.num("feather", 0),
		Jitter:   n.num("jitter", 0),
		Invert:   n.flag("invert", false),
	}
	if n.has("min") {
		r.Min = stack.F(n.num("min", 0))
	}
	if n.has("max") {
		r.Max = stack.F(n.num("max", 0))
	}
	p := stack.NewPopulation(maskName(n))
	p.Density = n.num("strength", 1)
	p.Rules = []stack.Rule{r}
	s.Populations = []stack.Population{p}
	return s
}

func checkMask(n *node) error {
	if err := field.CheckChannelName(maskChannel(maskName(n))); err != nil {
		key := "name"
		if !n.has("name") {
			return n.errf(n.pos, "", "the mask is named after the node: %v (give it a name param)", err)
		}
		return n.paramErr(key, "%v", err)
	}
	input := n.str("input", "height")
	reads := input == "mask" || input == "channel"
	switch {
	case reads && !n.has("channel"):
		return n.paramErr("input", "input %s needs a channel param naming the %s to read", input, map[bool]string{true: "mask layer", false: "field channel"}[input == "mask"])
	case !reads && n.has("channel"):
		return n.paramErr("channel", "input %s reads no channel (only inputs mask and channel do)", input)
	case n.has("min") && n.has("max") && n.num("min", 0) > n.num("max", 0):
		return n.paramErr("max", "min %v > max %v", n.num("min", 0), n.num("max", 0))
	}
	if ps := stack.Errors(stack.Validate(maskStack(n))); len(ps) > 0 {
		return n.errf(n.pos, "", "%s", strings.TrimPrefix(ps[0].String(), `populations[0] "`+maskName(n)+`" `))
	}
	return nil
}

func evalMask(e *evaluator, n *node, in map[string]*raster) (*raster, error) {
	src := in["raster"]
	name := maskName(n)
	switch input, ch := n.str("input", "height"), n.str("channel", ""); {
	case input == "mask" && src.mask(ch) == nil:
		return nil, n.paramErr("channel", "the raster has no mask layer %q (its masks: %s)", ch, src.maskNames())
	case input == "channel" && src.field.Channels[ch] == nil:
		return nil, n.paramErr("channel", "the raster has no field channel %q (its channels: %s)", ch, src.channelNames())
	}
	e.report(e.stage(n), 0, 1)
	g, _, backend, err := bake.EvaluateDensity(e.ctx, maskStack(n), 0, src.field, e.evalOptions(n))
	if err != nil {
		return nil, e.nodeErr(n, err)
	}
	e.used(backend)
	for i, v := range g.Data {
		g.Data[i] = clamp01(v)
	}
	mode := n.str("combine", "replace")
	old := src.mask(name)
	if mode != "replace" {
		if old == nil {
			return nil, n.paramErr("combine", "there is no mask layer %q yet to %s (its masks: %s)", name, mode, src.maskNames())
		}
		combine(g.Data, old.Data, mode)
	}
	out := src.derive()
	out.setChannel(maskChannel(name), g)
	e.report(e.stage(n), 1, 1)
	return out, nil
}

// combine folds the existing mask old into the new band b, in place.
func combine(b, old []float32, mode string) {
	for i, v := range b {
		o := old[i]
		switch mode {
		case "multiply":
			v = o * v
		case "add":
			v = clamp01(o + v)
		case "subtract":
			v = clamp01(o - v)
		case "max":
			v = max(o, v)
		case "min":
			v = min(o, v)
		}
		b[i] = v
	}
}

func clamp01(v float32) float32 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}

// evalStack evaluates a stack.yaml over the raster with the bake's evaluator; each layer's final
// weight (byte/255, what both twins agree on) becomes the mask layer of the layer's name, and the
// stack's populations join the raster's.
func evalStack(e *evaluator, n *node, in map[string]*raster) (*raster, error) {
	src := in["raster"]
	a, err := e.res.resolve(n, n.str("stack", ""), stackExts)
	if err != nil {
		return nil, n.paramErr("stack", "%v", err)
	}
	s, err := stack.Load(a.Path)
	if err != nil {
		return nil, n.paramErr("stack", "%v", err)
	}
	warnings, err := landscape.CheckStack(s, a.Rel)
	if err != nil {
		return nil, n.paramErr("stack", "%v", err)
	}
	for _, w := range warnings {
		e.warnf("node %s: %s: %s", n.label(), a.Rel, w)
	}
	for _, l := range s.Layers {
		if err := field.CheckChannelName(maskChannel(l.Name)); err != nil {
			return nil, n.paramErr("stack", "%s: layer %q cannot name a mask layer: %v", a.Rel, l.Name, err)
		}
	}
	layersOnly := *s
	layersOnly.Populations = nil
	l := &landscape.Landscape{Stack: &layersOnly, StackDir: filepath.Dir(a.Path), Field: src.field}
	opt := e.evalOptions(n)
	e.report(e.stage(n), 0, 1)
	backend, err := bake.Evaluate(e.ctx, l, opt)
	if err != nil {
		return nil, e.nodeErr(n, err)
	}
	e.used(backend)
	out := src.derive()
	for k, layer := range s.Layers {
		b := l.Weights.Layer(k)
		g := field.NewGrid(l.Weights.W, l.Weights.H)
		for i, v := range b {
			g.Data[i] = float32(v) / 255
		}
		out.setChannel(maskChannel(layer.Name), g)
	}
	for _, p := range s.Populations {
		out.populations = append(out.populations, population{spec: p, node: n})
	}
	e.report(e.stage(n), 1, 1)
	return out, nil
}

// scatterSpec is the population a terrain.scatter node adds.
func scatterSpec(n *node) stack.Population {
	p := stack.NewPopulation(n.str("name", n.name))
	p.Density = n.num("density", stack.DefaultDensity)
	p.Seed = uint32(n.num("seed", 0))
	p.Scale = n.vec2("scale", stack.DefaultScale)
	p.Mesh = n.str("mesh", stack.DefaultMesh)
	if n.has("rules") {
		p.Rules = n.params["rules"].value.([]stack.Rule)
	}
	return p
}

func checkScatter(n *node) error {
	p := scatterSpec(n)
	// Validate the population on its own: the layers its `layer` rules read are the written
	// ones, checked when it is written, so each named layer stands in here.
	s := stack.New()
	s.Layers = []stack.Layer{stack.NewLayer("ground")}
	for _, r := range p.Rules {
		if r.Input == stack.InputLayer && r.Layer != "" && s.LayerIndex(r.Layer) < 0 {
			s.Layers = append(s.Layers, stack.NewLayer(r.Layer))
		}
	}
	s.Populations = []stack.Population{p}
	for _, pr := range stack.Errors(stack.Validate(s)) {
		if strings.HasPrefix(pr.Where, "populations[0]") {
			msg := strings.TrimPrefix(strings.TrimPrefix(pr.String(), fmt.Sprintf("populations[0] %q", p.Name)), ": ")
			return n.paramErr(paramOf(pr.Where, pr.Message), "%s", strings.TrimSpace(msg))
		}
		if pr.Where == "" { // the channel count
			return n.paramErr("rules", "%s", pr.Message)
		}
	}
	return nil
}

// paramOf is the scatter param a stack problem about a population points at.
func paramOf(where, msg string) string {
	if strings.Contains(where, "rules[") {
		return "rules"
	}
	for _, key := range []string{"density", "scale", "mesh"} {
		if strings.Contains(msg, key) {
			return key
		}
	}
	return "name"
}

func evalScatter(e *evaluator, n *node, in map[string]*raster) (*raster, error) {
	out := in["raster"].derive()
	out.populations = append(out.populations, population{spec: scatterSpec(n), node: n})
	return out, nil
}

// nodeErr wraps an evaluation failure of node n (a cancelled run stays recognisable).
func (e *evaluator) nodeErr(n *node, err error) error {
	if ce := e.ctx.Err(); ce != nil && errors.Is(err, ce) {
		return fmt.Errorf("procgen: node %s: %w", n.label(), context.Cause(e.ctx))
	}
	return n.errf(n.pos, "", "%v", err)
}
