package stack

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidateSamples(t *testing.T) {
	for name, s := range map[string]*Stack{"dunes": SampleDunes(), "stress": StressStack()} {
		if ps := Validate(s); len(ps) > 0 {
			t.Errorf("%s: %v", name, ps)
		}
	}
}

// TestValidateEachKind checks one message per problem kind, each naming where it is.
func TestValidateEachKind(t *testing.T) {
	base := func() *Stack {
		s := SampleDunes()
		s.Layers = append(s.Layers, NewLayer("snow"))
		s.Layers[2].Rules = []Rule{{Input: InputHeight, Min: F(5)}, {Input: InputHeight, Max: F(9)}}
		s.Populations = []Population{NewPopulation("pines")}
		s.Populations[0].Rules = []Rule{{Input: InputLayer, Layer: "rock"}}
		return s
	}
	tests := []struct {
		desc string
		edit func(s *Stack)
		want string
		warn bool
	}{
		{"min > max", func(s *Stack) { s.Layers[2].Rules[1] = Rule{Input: InputHeight, Min: F(5), Max: F(3)} },
			`layers[2] "snow" rules[1]: min 5 > max 3`, false},
		{"negative softness", func(s *Stack) { s.Layers[2].Rules[0].Softness = -1 }, `layers[2] "snow" rules[0]: negative softness -1`, false},
		{"negative jitter", func(s *Stack) { s.Layers[1].Rules[0].Jitter = -2 }, `layers[1] "rock" rules[0]: negative jitter -2`, false},
		{"NaN", func(s *Stack) { s.Layers[2].Rules[0].Min = F(math.NaN()) }, `layers[2] "snow" rules[0]: min is .nan`, false},
		{"Inf", func(s *Stack) { s.Layers[2].Rules[0].Jitter = math.Inf(1) }, `rules[0]: jitter is .inf`, false},
		{"float32 overflow", func(s *Stack) { s.Layers[2].Rules[0].Max = F(1e300) }, `rules[0]: max is 1e+300 (must be a finite float32)`, false},
		{"unknown input", func(s *Stack) { s.Layers[2].Rules[0].Input = "wind" }, `layers[2] "snow" rules[0]: unknown input "wind"`, false},
		{"mask without channel", func(s *Stack) { s.Layers[2].Rules[0] = Rule{Input: InputMask} }, `rules[0]: mask rule without a channel`, false},
		{"channel without channel", func(s *Stack) { s.Layers[2].Rules[0] = Rule{Input: InputChannel} }, `rules[0]: channel rule without a channel`, false},
		{"layer input on a layer", func(s *Stack) { s.Layers[2].Rules[0] = Rule{Input: InputLayer, Layer: "rock"} },
			`layers[2] "snow" rules[0]: the layer input reads final layer weights and is only for populations`, false},
		{"population unknown layer", func(s *Stack) { s.Populations[0].Rules[0].Layer = "fern" }, `populations[0] "pines" rules[0]: unknown layer "fern"`, false},
		{"population layer rule without layer", func(s *Stack) { s.Populations[0].Rules[0].Layer = "" }, `rules[0]: layer rule without a layer`, false},
		{"duplicate layer", func(s *Stack) { s.Layers[2].Name = "rock" }, `layers[2] "rock": duplicate name (also layers[1])`, false},
		{"empty name", func(s *Stack) { s.Layers[2].Name = "" }, `layers[2] "": empty name`, false},
		{"no layers", func(s *Stack) { s.Layers = nil; s.Populations = nil }, `layers: no layers`, false},
		{"too many layers", func(s *Stack) {
			for i := 0; i < 6; i++ {
				s.Layers = append(s.Layers, NewLayer(string(rune('a'+i))))
			}
		}, `layers: 9 layers, at most 8`, false},
		{"too many channels", func(s *Stack) {
			for _, c := range []string{"a", "b", "c"} {
				s.Layers[2].Rules = append(s.Layers[2].Rules, Rule{Input: InputChannel, Channel: c})
			}
			s.Populations[0].Rules = append(s.Populations[0].Rules, Rule{Input: InputMask, Channel: "snow"})
			s.Populations[0].Rules = append(s.Populations[0].Rules, Rule{Input: InputChannel, Channel: "mask.snow"}) // same channel
			s.Populations[0].Rules = append(s.Populations[0].Rules, Rule{Input: InputChannel, Channel: "sediment"})
		}, `5 distinct channels (a, b, c, mask.snow, sediment), at most 4 can be bound`, false},
		{"featureSize", func(s *Stack) { s.Noise.FeatureSize = 0 }, `noise.featureSize: must be a finite number > 0, got 0`, false},
		{"octaves low", func(s *Stack) { s.Noise.Octaves = 0 }, `noise.octaves: must be 1..16, got 0`, false},
		{"octaves high", func(s *Stack) { s.Noise.Octaves = 17 }, `noise.octaves: must be 1..16, got 17`, false},
		{"gradientStep", func(s *Stack) { s.GradientStep = F(-1) }, `gradientStep: must be a finite number > 0 metres`, false},
		{"rule featureSize", func(s *Stack) { s.Layers[2].Rules[0].FeatureSize = F(0) }, `rules[0]: featureSize must be > 0`, false},
		{"strength", func(s *Stack) { s.Layers[1].Strength = 1.5 }, `layers[1] "rock": strength must be in [0, 1], got 1.5`, false},
		{"tiling", func(s *Stack) { s.Layers[1].Tiling = 0 }, `layers[1] "rock": tiling must be`, false},
		{"density", func(s *Stack) { s.Populations[0].Density = -1 }, `populations[0] "pines": density must be 0 … 100 instances/m²`, false},
		{"scale order", func(s *Stack) { s.Populations[0].Scale = [2]float64{2, 1} }, `populations[0] "pines": scale 2 > 1`, false},
		{"mesh", func(s *Stack) { s.Populations[0].Mesh = "cactus" }, `unknown mesh "cactus"`, false},
		{"version", func(s *Stack) { s.Version = 2 }, `version: unsupported version 2`, false},
		{"rules on layer 0", func(s *Stack) { s.Layers[0].Rules = []Rule{{Input: InputSlope, Max: F(5)}} },
			`warning: layers[0] "sand": layer 0 takes whatever remains; its rules cannot change that`, true},
	}
	for _, tc := range tests {
		s := base()
		tc.edit(s)
		ps := Validate(s)
		found := false
		var all []string
		for _, p := range ps {
			all = append(all, p.String())
			if strings.Contains(p.String(), tc.want) {
				found = true
				if (p.Severity == Warning) != tc.warn {
					t.Errorf("%s: severity %v", tc.desc, p.Severity)
				}
			}
		}
		if !found {
			t.Errorf("%s: want %q among %q", tc.desc, tc.want, all)
		}
		if _, err := Pack(s, testGeom); tc.warn == (err != nil) {
			t.Errorf("%s: Pack error %v, warning-only %v", tc.desc, err, tc.warn)
		}
	}
}

// TestValidateAllAtOnce: every problem of testdata/invalid.yaml is reported in one pass.
func TestValidateAllAtOnce(t *testing.T) {
	s, err := Load("testdata/invalid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ps := Validate(s)
	wants := []string{
		"noise.featureSize", "noise.octaves", `warning: layers[0] "ground"`, `layers[1] "snow": strength`,
		`layers[1] "snow" rules[0]: min 5 > max 3`, `layers[1] "snow" rules[0]: negative softness`,
		`layers[1] "snow" rules[1]: mask rule without a channel`, `layers[1] "snow" rules[2]: the layer input`,
		`layers[1] "snow" rules[3]: unknown input "wind"`, `layers[1] "snow" rules[3]: jitter is .nan`,
		`layers[2] "snow": duplicate name`, `populations[0] "pines": density`, `populations[0] "pines": scale 2 > 1`,
		`unknown mesh "cactus"`, `populations[0] "pines" rules[0]: unknown layer "nowhere"`,
	}
	text := ""
	for _, p := range ps {
		text += p.String() + "\n"
	}
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("missing %q in:\n%s", w, text)
		}
	}
	if len(ps) != len(wants) {
		t.Errorf("%d problems, want %d:\n%s", len(ps), len(wants), text)
	}
	err = &ValidationError{File: "invalid.yaml", Problems: Errors(ps)}
	if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "stack: invalid.yaml: 14 problems:") {
		t.Errorf("ValidationError: %v", err)
	}
}
