package procgen

import (
	"sort"

	"strata/erode"
	"strata/stack"
)

// nodeType is one kind of node: its input slots, its params, the checks that need several params
// at once, and how it turns its input raster into its output.
type nodeType struct {
	name   string
	doc    string
	inputs []string // every slot is required
	params []paramSpec
	// writes is true for terrain.write: it produces no raster, it writes a container.
	writes bool
	// check runs once the script has returned, on every node, before anything is evaluated.
	check func(n *node) error
	// eval produces the node's raster from its inputs (nil for terrain.write).
	eval func(e *evaluator, n *node, in map[string]*raster) (*raster, error)
}

func (t *nodeType) spec(key string) *paramSpec {
	for i := range t.params {
		if t.params[i].key == key {
			return &t.params[i]
		}
	}
	return nil
}

func (t *nodeType) paramKeys() []string {
	k := make([]string, len(t.params))
	for i := range t.params {
		k[i] = t.params[i].key
	}
	return k
}

func (t *nodeType) hasInput(slot string) bool {
	for _, s := range t.inputs {
		if s == slot {
			return true
		}
	}
	return false
}

// Shared param specs.
var (
	pSeed = paramSpec{key: "seed", kind: kInt, lo: true, min: 0, hi: true, max: 1<<32 - 1,
		doc: "noise seed, 0 … 4294967295"}
	pFeatureSize = paramSpec{key: "featureSize", kind: kNumber, lo: true, min: 0, minExclusive: true,
		doc: "metres: the wavelength of terrain_fbm's first octave"}
	pOctaves = paramSpec{key: "octaves", kind: kInt, lo: true, min: 1, hi: true, max: stack.MaxOctaves,
		doc: "terrain_fbm octaves (lacunarity 2, gain 0.5), 1 … 16"}
	pOrigin = paramSpec{key: "origin", kind: kVec2, doc: "{x, z}: the world position of the ground's centre, metres"}
	pSize   = paramSpec{key: "size", kind: kVec2, lo: true, min: 0, minExclusive: true,
		doc: "{x, z}: the ground's extent in metres along world X and Z"}
)

// nodeTypes is every node type a script may create, by name.
var nodeTypes = map[string]*nodeType{}

func register(t *nodeType) { nodeTypes[t.name] = t }

// typeNames lists the node types, sorted, for messages and docs.
func typeNames() []string {
	n := make([]string, 0, len(nodeTypes))
	for k := range nodeTypes {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func init() {
	register(&nodeType{
		name: "terrain.source",
		doc:  "a flat raster: the ground's extent, grid and height",
		params: []paramSpec{
			pSize,
			{key: "resolution", kind: kNumber, lo: true, min: 0, minExclusive: true, doc: "metres per texel (default 1)"},
			pOrigin,
			{key: "height", kind: kNumber, doc: "metres: the flat ground's height (default 0)"},
		},
		check: checkSource,
		eval:  evalSource,
	})
	register(&nodeType{
		name:   "terrain.fbm",
		doc:    "adds terrain_fbm relief to the raster's height",
		inputs: []string{"raster"},
		params: []paramSpec{
			{key: "amplitude", kind: kNumber, doc: "metres: the first octave's amplitude (default 10)"},
			pFeatureSize, pOctaves, pSeed,
		},
		eval: evalFBM,
	})
	register(&nodeType{
		name: "terrain.import",
		doc:  "a raster from a heightmap file, read with `strata bake`'s import options",
		params: []paramSpec{
			{key: "file", kind: kString, doc: "the heightmap: a path or asset reference below the script's folder or --assets"},
			{key: "range", kind: kVec2, doc: "{lo, hi}: metres that integer codes 0 … max map onto (default {0, 1000})"},
			{key: "heightSize", kind: kVec2, lo: true, min: 1, doc: "{w, h}: the grid of a .r16/.f32/.raw file that is not square"},
			pSize, pOrigin,
			{key: "resolution", kind: kNumber, lo: true, min: 0, minExclusive: true, doc: "metres per texel to resample to (default: the file's own grid)"},
			{key: "channels", kind: kFileMap, doc: "{name = \"file\", …}: extra field channels (mask.<name> or any name), the heightmap's grid"},
		},
		check: checkImport,
		eval:  evalImport,
	})
	register(&nodeType{
		name:   "terrain.erode",
		doc:    "erodes the raster's ground (hydraulic, then thermal) and adds the channels erosion.flow, erosion.deposit, erosion.wear",
		inputs: []string{"raster"},
		params: []paramSpec{
			{key: "preset", kind: kEnum, enum: erode.Presets(), doc: "the erosion's parameters (default \"default\"; docs/design.md \"Erosion\")"},
			{key: "iterations", kind: kInt, lo: true, min: 0, hi: true, max: erode.MaxIterations, doc: "hydraulic iterations instead of the preset's, 0 … 100000"},
			{key: "seed", kind: kInt, lo: true, min: 0, hi: true, max: 1<<32 - 1, doc: "varies the rain, 0 … 4294967295 (default 1)"},
		},
		eval: evalErode,
	})
	register(&nodeType{
		name:   "terrain.sculpt",
		doc:    sculptDoc,
		inputs: []string{"raster"},
		params: []paramSpec{
			{key: "mode", kind: kEnum, enum: sculptModes, doc: "the operation (required; docs/editor.md \"Sculpting the ground\")"},
			{key: "mask", kind: kString, doc: "the mask layer whose value is each texel's weight (default: 1 everywhere)"},
			{key: "strength", kind: kNumber, lo: true, min: 0, hi: true, max: 1, doc: "the fraction of the way (or of the amount) a texel of weight 1 moves, 0 … 1 (default 1)"},
			{key: "amount", kind: kNumber, doc: "raise, lower: metres at full strength and weight (default 1)"},
			{key: "radius", kind: kNumber, lo: true, min: 0, minExclusive: true, doc: "smooth: the half-width of the box averaged, metres (default 4 texels)"},
			{key: "height", kind: kNumber, doc: "set: the height, metres (required); flatten: the level (default the mask-weighted mean height)"},
			{key: "step", kind: kNumber, lo: true, min: 0, minExclusive: true, doc: "terrace: metres between terraces, anchored at 0 m (required)"},
			{key: "sharpness", kind: kNumber, lo: true, min: 0, hi: true, max: 1, doc: "terrace: 0 no change … 1 hard steps (default 1)"},
			{key: "amplitude", kind: kNumber, doc: "noise: metres (default 10)"},
			{key: "featureSize", kind: kNumber, lo: true, min: 0, minExclusive: true, doc: "noise: the first octave's wavelength, metres (default 64)"},
			{key: "seed", kind: kInt, lo: true, min: 0, hi: true, max: 1<<32 - 1, doc: "noise: seed, 0 … 4294967295 (default 1)"},
			{key: "file", kind: kString, doc: "stamp: the image, an asset (PNG 8/16-bit onto 0 … 1, EXR/TIFF/float as stored; required)"},
			{key: "at", kind: kVec2, doc: "stamp: {x, z}, the world position of its centre (default the raster's centre)"},
			{key: "size", kind: kNumber, lo: true, min: 0, minExclusive: true, doc: "stamp: metres its larger side spans (default the raster's larger extent)"},
			{key: "angle", kind: kNumber, doc: "stamp: degrees, counter-clockwise from +X toward +Z (default 0)"},
			{key: "stampHeight", kind: kNumber, doc: "stamp: metres where the image is 1 (default 10)"},
			{key: "invert", kind: kBool, doc: "stamp: cut it in instead (default false)"},
		},
		check: checkSculpt,
		eval:  evalSculpt,
	})
	register(&nodeType{
		name:   "terrain.mask",
		doc:    "writes a named mask layer: a band over one input, like a stack rule",
		inputs: []string{"raster"},
		params: []paramSpec{
			{key: "name", kind: kString, doc: "the mask layer written (default: the node's name)"},
			{key: "input", kind: kEnum, enum: maskInputs, doc: "what is banded (default height)"},
			{key: "channel", kind: kString, doc: "input mask: the mask layer read; input channel: the field channel read"},
			{key: "min", kind: kNumber, doc: "lower edge in the input's unit (omitted: open)"},
			{key: "max", kind: kNumber, doc: "upper edge in the input's unit (omitted: open)"},
			{key: "feather", kind: kNumber, lo: true, min: 0, doc: "the band's softness: half-width of the smooth edge, input unit (default 0, a hard step)"},
			{key: "jitter", kind: kNumber, lo: true, min: 0, doc: "how far noise moves the value before banding, input unit (default 0)"},
			{key: "invert", kind: kBool, doc: "take 1 − coverage (default false)"},
			{key: "strength", kind: kNumber, lo: true, min: 0, hi: true, max: 1, doc: "multiplies the band, 0 … 1 (default 1)"},
			pFeatureSize, pOctaves,
			{key: "seed", kind: kInt, lo: true, min: 0, hi: true, max: 1<<32 - 1, doc: "noise seed for jitter and the noise input (default: from the mask's name)"},
			{key: "gradientStep", kind: kNumber, lo: true, min: 0, minExclusive: true, doc: "metres between slope/curvature taps (default: the texel size)"},
			{key: "combine", kind: kEnum, enum: combineModes, doc: "how the band meets an existing mask of that name (default replace)"},
		},
		check: checkMask,
		eval:  evalMask,
	})
	register(&nodeType{
		name:   "terrain.stack",
		doc:    "evaluates a stack.yaml over the raster; each of its layers becomes a mask layer",
		inputs: []string{"raster"},
		params: []paramSpec{
			{key: "stack", kind: kString, doc: "the stack.yaml: a path or asset reference below the script's folder or --assets"},
		},
		check: func(n *node) error { return requireParams(n, "stack") },
		eval:  evalStack,
	})
	register(&nodeType{
		name:   "terrain.scatter",
		doc:    "adds a scatter population, placed when the raster is written",
		inputs: []string{"raster"},
		params: []paramSpec{
			{key: "name", kind: kString, doc: "the population's name (default: the node's name)"},
			{key: "density", kind: kNumber, lo: true, min: 0, doc: "instances per m² at full coverage (default 0.01)"},
			{key: "seed", kind: kInt, lo: true, min: 0, hi: true, max: 1<<32 - 1, doc: "placement seed (default 0)"},
			{key: "scale", kind: kVec2, lo: true, min: 0, minExclusive: true, doc: "{lo, hi}: uniform scale range (default {1, 1})"},
			{key: "mesh", kind: kEnum, enum: stack.Meshes, doc: "what the viewport draws (default tree)"},
			{key: "rules", kind: kRules, doc: "band rules: stack.yaml's rule keys (feather = softness); input layer reads a written layer's weight"},
		},
		check: checkScatter,
		eval:  evalScatter,
	})
	register(&nodeType{
		name:   "terrain.write",
		doc:    "writes the raster as a terrainData container",
		inputs: []string{"raster"},
		writes: true,
		params: []paramSpec{
			{key: "name", kind: kString, doc: "the container: --out/<name>.terrainData (slashes make folders below --out)"},
			{key: "layers", kind: kLayers, doc: "the surfaces, bottom first: mask names, or tables {name, tint, tiling, albedo, normal, mask}"},
			{key: "channels", kind: kNames, doc: "field channels to keep in the container (masks are mask.<name>; default none)"},
			{key: "holes", kind: kString, doc: "a mask layer: where it is ≥ 0.5 there is no ground (default: solid)"},
			{key: "atlasSize", kind: kVec2, lo: true, min: 1, doc: "{w, h}: the atlas sheets' size in texels (default {2048, 1024})"},
		},
		check: checkWrite,
	})
}

// requireParams reports the first of keys that n does not set.
func requireParams(n *node, keys ...string) error {
	for _, k := range keys {
		if !n.has(k) {
			return n.errf(n.pos, "param "+quote(k), "is required")
		}
	}
	return nil
}

func quote(s string) string { return `"` + s + `"` }
