package stack

// SampleDunes is the built-in sample's stack: sand on the ground and rock on slopes above 18° with
// a 4° feather, and a population of trees in groves on the flats. Sand has no rule because layer 0
// takes whatever rock leaves, which is exactly "below 18°". It goes with field's "dunes" sample
// (4000 m square, 2 m texels).
func SampleDunes() *Stack {
	s := New()
	sand := NewLayer("sand")
	sand.Tint = Color{0xc8, 0xa8, 0x72}
	rock := NewLayer("rock")
	rock.Tint = Color{0x7a, 0x6e, 0x64}
	rock.Rules = []Rule{{Input: InputSlope, Min: F(18), Softness: 4}}
	s.Layers = []Layer{sand, rock}
	// Groves of trees on the flat sand between the dunes: clustered by a broad noise band, never
	// on rock, so a render shows where the population put them.
	trees := NewPopulation("trees")
	trees.Density = 0.02
	trees.Seed = 7
	trees.Scale = [2]float64{1.2, 2} // the tree mesh is 7 m tall at scale 1
	trees.Mesh = MeshTree
	trees.Rules = []Rule{
		{Input: InputLayer, Layer: "rock", Max: F(0.1), Softness: 0.05},
		{Input: InputSlope, Max: F(8), Softness: 3},
		{Input: InputNoise, Min: F(0.6), Softness: 0.04, FeatureSize: F(300)},
	}
	s.Populations = []Population{trees}
	return s
}

// StressStack is the benchmark worst case shared by stack, bake and gpu: eight layers, 16 layer
// rules covering every layer input (height, slope, curvature, mask, noise, channel) with jitter on
// every rule, reading channels mask.snow and sediment, plus a population "shrubs" whose two rules
// read a layer's weight and the slope. The values are tuned to the dunes sample (0–18 m, 0–35°) so
// every layer shows somewhere and no rule is trivially 0 or 1.
func StressStack() *Stack {
	s := New()
	mk := func(name string, tint Color, rules ...Rule) Layer {
		l := NewLayer(name)
		l.Tint = tint
		l.Rules = rules
		return l
	}
	s.Layers = []Layer{
		mk("sand", Color{0xc8, 0xa8, 0x72}),
		mk("wet", Color{0x6a, 0x5a, 0x40},
			Rule{Input: InputHeight, Max: F(4), Softness: 3, Jitter: 2},
			Rule{Input: InputChannel, Channel: "sediment", Min: F(0.2), Softness: 0.1, Jitter: 0.05},
			Rule{Input: InputNoise, Min: F(0.3), Softness: 0.1, Jitter: 0.05}),
		mk("ripples", Color{0xd8, 0xb8, 0x80},
			Rule{Input: InputCurvature, Min: F(0), Softness: 0.01, Jitter: 0.005},
			Rule{Input: InputSlope, Max: F(10), Softness: 3, Jitter: 2},
			Rule{Input: InputNoise, Min: F(0.45), Max: F(0.8), Softness: 0.05, Jitter: 0.05, FeatureSize: F(30)}),
		mk("gravel", Color{0x90, 0x88, 0x80},
			Rule{Input: InputSlope, Min: F(8), Max: F(20), Softness: 3, Jitter: 2},
			Rule{Input: InputHeight, Min: F(2), Softness: 4, Jitter: 3}),
		mk("rock", Color{0x7a, 0x6e, 0x64},
			Rule{Input: InputSlope, Min: F(18), Softness: 4, Jitter: 3},
			Rule{Input: InputCurvature, Max: F(0.02), Softness: 0.01, Jitter: 0.005}),
		mk("crest", Color{0xe0, 0xc8, 0x98},
			Rule{Input: InputHeight, Min: F(8), Softness: 3, Jitter: 2},
			Rule{Input: InputCurvature, Max: F(-0.005), Softness: 0.005, Jitter: 0.002}),
		mk("snow", Color{0xf0, 0xf0, 0xf4},
			Rule{Input: InputMask, Channel: "snow", Min: F(0.5), Softness: 0.2, Jitter: 0.1},
			Rule{Input: InputHeight, Min: F(4), Softness: 4, Jitter: 3}),
		mk("moss", Color{0x5a, 0x6a, 0x3a},
			Rule{Input: InputChannel, Channel: "sediment", Max: F(0.6), Softness: 0.1, Jitter: 0.05, Invert: true},
			Rule{Input: InputMask, Channel: "snow", Max: F(0.3), Softness: 0.1, Jitter: 0.05}),
	}
	shrubs := NewPopulation("shrubs")
	shrubs.Density = 0.02
	shrubs.Seed = 7
	shrubs.Scale = [2]float64{0.8, 1.3}
	shrubs.Mesh = MeshBush
	shrubs.Rules = []Rule{
		{Input: InputLayer, Layer: "gravel", Min: F(0.3), Softness: 0.1, Jitter: 0.05},
		{Input: InputSlope, Max: F(25), Softness: 5, Jitter: 3},
	}
	s.Populations = []Population{shrubs}
	return s
}

// AspectStack exercises the aspect input for the twins' parity and tiling tests: a north-facing
// layer on the wrapping band 315..45 with jitter, an east-facing one, an inverted south band (so
// flat ground, which passes no aspect band, shows it), one beside a slope rule, and a population
// "ferns" on the west-facing half. Every band is feathered, as in StressStack: a hard edge is
// where the twins' atan2 may round apart.
func AspectStack() *Stack {
	s := New()
	mk := func(name string, tint Color, rules ...Rule) Layer {
		l := NewLayer(name)
		l.Tint = tint
		l.Rules = rules
		return l
	}
	s.Layers = []Layer{
		mk("sand", Color{0xc8, 0xa8, 0x72}),
		mk("north", Color{0xe8, 0xe8, 0xf0},
			Rule{Input: InputAspect, Min: F(315), Max: F(45), Softness: 10, Jitter: 8}),
		mk("east", Color{0xa0, 0x80, 0x50},
			Rule{Input: InputAspect, Min: F(60), Max: F(120), Softness: 15}),
		mk("notsouth", Color{0x70, 0x60, 0x50},
			Rule{Input: InputAspect, Min: F(150), Max: F(210), Softness: 20, Jitter: 5, Invert: true},
			Rule{Input: InputHeight, Max: F(-4), Softness: 3}),
		mk("westcliff", Color{0x60, 0x58, 0x50},
			Rule{Input: InputAspect, Min: F(240), Max: F(300), Softness: 12},
			Rule{Input: InputSlope, Min: F(8), Softness: 3}),
	}
	ferns := NewPopulation("ferns")
	ferns.Density = 0.02
	ferns.Seed = 11
	ferns.Mesh = MeshBush
	ferns.Rules = []Rule{{Input: InputAspect, Min: F(180), Max: F(360), Softness: 15, Jitter: 6}}
	s.Populations = []Population{ferns}
	return s
}

// FlowStack exercises the flow input (bands in log10 m²) for the twins' parity and tiling tests:
// "wet" where more than about 10^2.6 m² gathers (jittered), "reeds" in the wetter beds beside a
// slope rule and a mask.snow rule (so the flow plane shares the slots with a stored channel:
// "@flow" in chan0, mask.snow in chan1), "dry" on the ridges (little area) above a height, and a
// population "rushes" on the wet ground. Every band is feathered. The fields it is evaluated on
// need mask.snow (internal/fixture's StressField and AspectField have it).
func FlowStack() *Stack {
	s := New()
	mk := func(name string, tint Color, rules ...Rule) Layer {
		l := NewLayer(name)
		l.Tint = tint
		l.Rules = rules
		return l
	}
	s.Layers = []Layer{
		mk("sand", Color{0xc8, 0xa8, 0x72}),
		mk("wet", Color{0x6a, 0x5a, 0x40},
			Rule{Input: InputFlow, Min: F(2.6), Softness: 0.4, Jitter: 0.3}),
		mk("reeds", Color{0x50, 0x70, 0x30},
			Rule{Input: InputFlow, Min: F(3.2), Softness: 0.25},
			Rule{Input: InputSlope, Max: F(14), Softness: 3},
			Rule{Input: InputMask, Channel: "snow", Max: F(0.65), Softness: 0.1}),
		mk("dry", Color{0xd8, 0xc8, 0x98},
			Rule{Input: InputFlow, Max: F(1.4), Softness: 0.2},
			Rule{Input: InputHeight, Min: F(-2), Softness: 2}),
	}
	rushes := NewPopulation("rushes")
	rushes.Density = 0.03
	rushes.Seed = 5
	rushes.Mesh = MeshBush
	rushes.Rules = []Rule{{Input: InputFlow, Min: F(2.4), Softness: 0.5, Jitter: 0.2}}
	s.Populations = []Population{rushes}
	return s
}

// Starter is the stack a landscape made from a bare heightmap starts with: ground everywhere,
// and rock where the slope passes 35° with a 5° feather — something to see at once and a rule to
// start editing from.
func Starter() *Stack {
	s := New()
	ground := NewLayer("ground")
	ground.Tint = Color{0x8a, 0x7a, 0x5a}
	rock := NewLayer("rock")
	rock.Tint = Color{0x7a, 0x6e, 0x64}
	rock.Rules = []Rule{{Input: InputSlope, Min: F(35), Softness: 5}}
	s.Layers = []Layer{ground, rock}
	return s
}
