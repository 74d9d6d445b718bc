// Package erode weathers a field's ground: hydraulic erosion by a virtual-pipe shallow-water
// model (after Mei, Decaudin and Hu 2007) and thermal erosion to a talus angle, both on the
// height grid with its texel sizes, deterministic (every pass is a Jacobi update: a cell computes
// its new state from the previous state of itself and its neighbours only, so the result is the
// same bytes on any number of cores). docs/design.md "Erosion" is the contract: the model, the
// parameters and their units, the presets, the boundary, what the channels hold.
package erode

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The channels an erosion leaves on the field (docs/design.md "Erosion"), each on the height
// grid, in metres.
const (
	// ChannelFlow is the water that flowed out of each texel over the run, as a depth: the volume
	// divided by the texel's area (m³/m² = m).
	ChannelFlow = "erosion.flow"
	// ChannelDeposit is the net rise of the ground where it rose (m; 0 where it fell).
	ChannelDeposit = "erosion.deposit"
	// ChannelWear is the net fall of the ground where it fell (m; 0 where it rose).
	ChannelWear = "erosion.wear"
	// ChannelPrefix begins the name of every channel an erosion leaves.
	ChannelPrefix = "erosion."
)

// Params are one erosion's parameters. Lengths the simulation moves (rain, water, sediment,
// capacity) are in texel units — metres per metre of the texel size L = √(texelX·texelZ) — so a
// preset does the same to a shape whatever the grid's scale; TimeStep is in units of √(L/g).
// docs/design.md "Erosion" gives each one's meaning and range.
type Params struct {
	// Iterations of the hydraulic model (each: rain, flux, water and sediment, erosion and
	// deposition, evaporation, a thermal step).
	Iterations int `yaml:"iterations"`
	// Rain is the water added to every texel per iteration (× L), on the first RainIterations
	// iterations (0: every iteration).
	Rain           float64 `yaml:"rain"`
	RainIterations int     `yaml:"rainIterations"`
	// RainJitter varies each texel's rain per iteration by ±RainJitter of it (0 … 1), from the seed.
	RainJitter float64 `yaml:"rainJitter"`
	// TimeStep is the step of the shallow-water model, in √(L/g) (0 < TimeStep ≤ 0.5).
	TimeStep float64 `yaml:"timeStep"`
	// Capacity (Kc) scales how much sediment moving water carries: C = Kc · max(sin α, MinTilt) · |v|
	// (× L; |v| in L per √(L/g)).
	Capacity float64 `yaml:"capacity"`
	// MinTilt is the least sin α the capacity uses, so water on flat ground still carries some.
	MinTilt float64 `yaml:"minTilt"`
	// Erosion (Ks) and Deposition (Kd) are the fractions of the gap between capacity and the
	// suspended sediment that are picked up or laid down per iteration (0 … 1).
	Erosion    float64 `yaml:"erosion"`
	Deposition float64 `yaml:"deposition"`
	// Evaporation is the fraction of the water that evaporates per iteration (0 … 1).
	Evaporation float64 `yaml:"evaporation"`
	// Talus is the angle of repose in degrees (0 < Talus < 90): thermal erosion moves material
	// from a texel to each neighbour lower than the talus slope allows. 0 turns thermal off.
	Talus float64 `yaml:"talus"`
	// ThermalRate is the fraction of the largest excess over talus moved per iteration
	// (0 … 0.5); 0 leaves thermal to the final settle only.
	ThermalRate float64 `yaml:"thermalRate"`
	// SettleIterations bounds the final thermal settle, which runs until no slope to a
	// neighbour exceeds Talus by more than SettleTolerance (degrees); 0: no settle.
	SettleIterations int     `yaml:"settleIterations"`
	SettleTolerance  float64 `yaml:"settleTolerance"`
}

// DefaultPreset is the preset an erosion uses when none is named.
const DefaultPreset = "default"

// presets are the documented presets (docs/design.md "Erosion" lists them with their numbers).
var presets = map[string]Params{
	// default: a moderate rain that cuts gullies and lays fans below them; talus 40°.
	"default": {Iterations: 120, Rain: 0.004, RainJitter: 0.5, TimeStep: 0.25, Capacity: 0.05, MinTilt: 0.05,
		Erosion: 0.3, Deposition: 0.3, Evaporation: 0.02, Talus: 40, ThermalRate: 0.1, SettleIterations: 200, SettleTolerance: 0.5},
	// light rain: a little water for a short while; the ground is only touched, cliffs are kept.
	"light rain": {Iterations: 60, Rain: 0.002, RainJitter: 0.5, TimeStep: 0.25, Capacity: 0.015, MinTilt: 0.02,
		Erosion: 0.2, Deposition: 0.3, Evaporation: 0.05, Talus: 60, ThermalRate: 0, SettleIterations: 0, SettleTolerance: 0.5},
	// old mountains: long weathering — much water, strong erosion and a low talus that rounds
	// ridges and fills valleys with scree.
	"old mountains": {Iterations: 300, Rain: 0.003, RainJitter: 0.3, TimeStep: 0.25, Capacity: 0.1, MinTilt: 0.05,
		Erosion: 0.4, Deposition: 0.2, Evaporation: 0.015, Talus: 30, ThermalRate: 0.25, SettleIterations: 400, SettleTolerance: 0.5},
	// desert wash: one cloudburst — heavy rain for the first iterations, then the flood runs off
	// and dries, dropping its load in fans and washes; steep talus.
	"desert wash": {Iterations: 150, Rain: 0.02, RainIterations: 15, RainJitter: 0.8, TimeStep: 0.25, Capacity: 0.15, MinTilt: 0.03,
		Erosion: 0.5, Deposition: 0.15, Evaporation: 0.04, Talus: 45, ThermalRate: 0.05, SettleIterations: 100, SettleTolerance: 0.5},
}

// Presets lists the presets' names, sorted.
func Presets() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Preset returns the named preset's parameters ("" is DefaultPreset). An unknown name is an
// error that names it and the presets there are.
func Preset(name string) (Params, error) {
	if name == "" {
		name = DefaultPreset
	}
	p, ok := presets[name]
	if !ok {
		return Params{}, fmt.Errorf("erode: preset %q: no such preset (presets: %s)", name, quoteList(Presets()))
	}
	return p, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// MaxIterations bounds Iterations and SettleIterations (docs/limits.md).
const MaxIterations = 100000

// A Param is one of Params' fields as the editor shows it: its name (Validate's and the YAML
// key), its unit and its valid range as docs/design.md "Erosion" gives them (Range is the text
// Validate reports after "want"), whether it is a whole number, and how to read and set it.
type Param struct {
	Name, Unit, Range string
	Integer           bool
	Get               func(p Params) float64
	Set               func(p *Params, v float64)
}

// ParamList lists Params' fields in the order of docs/design.md's table, with their units and
// ranges; Validate reports a field out of its range with the same Range text.
func ParamList() []Param { return slices.Clone(paramList) }

// ParamNamed returns the Param of that name (false if none).
func ParamNamed(name string) (Param, bool) {
	for _, q := range paramList {
		if q.Name == name {
			return q, true
		}
	}
	return Param{}, false
}

var paramList = []Param{
	{"iterations", "iterations", fmt.Sprintf("0 … %d", MaxIterations), true,
		func(p Params) float64 { return float64(p.Iterations) }, func(p *Params, v float64) { p.Iterations = int(v) }},
	{"rain", "× L per iteration", "0 … 1 texel per iteration", false,
		func(p Params) float64 { return p.Rain }, func(p *Params, v float64) { p.Rain = v }},
	{"rainIterations", "iterations (0: every one)", "0 (every iteration) or more", true,
		func(p Params) float64 { return float64(p.RainIterations) }, func(p *Params, v float64) { p.RainIterations = int(v) }},
	{"rainJitter", "fraction of the rain", "0 … 1", false,
		func(p Params) float64 { return p.RainJitter }, func(p *Params, v float64) { p.RainJitter = v }},
	{"timeStep", "√(L/g)", "more than 0, at most 0.5", false,
		func(p Params) float64 { return p.TimeStep }, func(p *Params, v float64) { p.TimeStep = v }},
	{"capacity", "× L per (L/√(L/g))", "0 … 100", false,
		func(p Params) float64 { return p.Capacity }, func(p *Params, v float64) { p.Capacity = v }},
	{"minTilt", "sin α", "0 … 1 (a sine)", false,
		func(p Params) float64 { return p.MinTilt }, func(p *Params, v float64) { p.MinTilt = v }},
	{"erosion", "share of the gap per iteration", "0 … 1", false,
		func(p Params) float64 { return p.Erosion }, func(p *Params, v float64) { p.Erosion = v }},
	{"deposition", "share of the gap per iteration", "0 … 1", false,
		func(p Params) float64 { return p.Deposition }, func(p *Params, v float64) { p.Deposition = v }},
	{"evaporation", "share of the water per iteration", "0 … 1", false,
		func(p Params) float64 { return p.Evaporation }, func(p *Params, v float64) { p.Evaporation = v }},
	{"talus", "degrees (0: no thermal)", "0 (no thermal erosion) or an angle under 90 degrees", false,
		func(p Params) float64 { return p.Talus }, func(p *Params, v float64) { p.Talus = v }},
	{"thermalRate", "share of the excess per iteration", "0 … 0.5", false,
		func(p Params) float64 { return p.ThermalRate }, func(p *Params, v float64) { p.ThermalRate = v }},
	{"settleIterations", "steps (0: no settle)", fmt.Sprintf("0 … %d", MaxIterations), true,
		func(p Params) float64 { return float64(p.SettleIterations) }, func(p *Params, v float64) { p.SettleIterations = int(v) }},
	{"settleTolerance", "degrees", "more than 0, at most 10 degrees", false,
		func(p Params) float64 { return p.SettleTolerance }, func(p *Params, v float64) { p.SettleTolerance = v }},
}

// wanted is a parameter's range as Validate reports it (ParamList's Range).
func wanted(name string) string {
	q, _ := ParamNamed(name)
	return q.Range
}

// Validate reports the first parameter out of its range, by name, with the value and why.
func (p Params) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	checks := []struct {
		name string
		v    float64
		ok   bool
	}{
		{"iterations", float64(p.Iterations), p.Iterations >= 0 && p.Iterations <= MaxIterations},
		{"rain", p.Rain, finite(p.Rain) && p.Rain >= 0 && p.Rain <= 1},
		{"rainIterations", float64(p.RainIterations), p.RainIterations >= 0},
		{"rainJitter", p.RainJitter, finite(p.RainJitter) && p.RainJitter >= 0 && p.RainJitter <= 1},
		{"timeStep", p.TimeStep, finite(p.TimeStep) && p.TimeStep > 0 && p.TimeStep <= 0.5},
		{"capacity", p.Capacity, finite(p.Capacity) && p.Capacity >= 0 && p.Capacity <= 100},
		{"minTilt", p.MinTilt, finite(p.MinTilt) && p.MinTilt >= 0 && p.MinTilt <= 1},
		{"erosion", p.Erosion, finite(p.Erosion) && p.Erosion >= 0 && p.Erosion <= 1},
		{"deposition", p.Deposition, finite(p.Deposition) && p.Deposition >= 0 && p.Deposition <= 1},
		{"evaporation", p.Evaporation, finite(p.Evaporation) && p.Evaporation >= 0 && p.Evaporation <= 1},
		{"talus", p.Talus, finite(p.Talus) && p.Talus >= 0 && p.Talus < 90},
		{"thermalRate", p.ThermalRate, finite(p.ThermalRate) && p.ThermalRate >= 0 && p.ThermalRate <= 0.5},
		{"settleIterations", float64(p.SettleIterations), p.SettleIterations >= 0 && p.SettleIterations <= MaxIterations},
		{"settleTolerance", p.SettleTolerance, finite(p.SettleTolerance) && p.SettleTolerance > 0 && p.SettleTolerance <= 10},
	}
	for _, c := range checks {
		if !c.ok {
			return fmt.Errorf("erode: %s = %v: want %s", c.name, c.v, wanted(c.name))
		}
	}
	return nil
}
