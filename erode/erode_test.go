package erode

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"strata/field"
)

// hills is a w×h ground of ridges and valleys falling toward +X (heights tens of metres, slopes
// up to about 40° on 1 m texels).
func hills(w, h int) *field.Grid {
	g := field.NewGrid(w, h)
	for j := range h {
		for i := range w {
			x, z := float64(i), float64(j)
			v := 60 - 0.3*x + 6*math.Sin(x*0.21)*math.Cos(z*0.17) + 4*math.Sin(z*0.33+x*0.05) + 2*math.Cos(x*0.5+z*0.4)
			g.Set(i, j, float32(v))
		}
	}
	return g
}

func gridBytes(gs ...*field.Grid) []byte {
	var b bytes.Buffer
	for _, g := range gs {
		binary.Write(&b, binary.LittleEndian, g.Data)
	}
	return b.Bytes()
}

func mustPreset(t *testing.T, name string) Params {
	t.Helper()
	p, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Every preset validates; "" is the default; an unknown name is refused naming it and the
// presets; a parameter out of range is named.
func TestPresets(t *testing.T) {
	want := []string{"default", "desert wash", "light rain", "old mountains"}
	if got := Presets(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Presets() = %q, want %q", got, want)
	}
	for _, name := range want {
		if err := mustPreset(t, name).Validate(); err != nil {
			t.Errorf("preset %q: %v", name, err)
		}
	}
	if d, _ := Preset(""); d != mustPreset(t, DefaultPreset) {
		t.Errorf(`Preset("") is not the default preset`)
	}
	_, err := Preset("heavy snow")
	if err == nil || !strings.Contains(err.Error(), `"heavy snow"`) || !strings.Contains(err.Error(), `"old mountains"`) {
		t.Errorf("unknown preset: err %v, want it named with the presets", err)
	}
	bad := mustPreset(t, "default")
	bad.Evaporation = 1.5
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "evaporation = 1.5") {
		t.Errorf("evaporation 1.5: err %v, want it named", err)
	}
	bad = mustPreset(t, "default")
	bad.TimeStep = math.NaN()
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "timeStep") {
		t.Errorf("timeStep NaN: err %v, want it named", err)
	}
}

// Two runs give identical bytes, with one worker or two, and with GOMAXPROCS 1 or 2.
func TestDeterministic(t *testing.T) {
	g := hills(96, 80)
	p := mustPreset(t, "default")
	p.Iterations = 30
	p.SettleIterations = 20
	run := func(workers int) []byte {
		r, err := Run(context.Background(), g, [2]float64{1.5, 1}, Options{Params: p, Seed: 7, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		return gridBytes(r.Height, r.Flow, r.Deposit, r.WearMap)
	}
	first := run(2)
	if !bytes.Equal(first, run(2)) {
		t.Fatal("two runs with 2 workers differ")
	}
	if !bytes.Equal(first, run(1)) {
		t.Fatal("1 worker and 2 workers differ")
	}
	prev := runtime.GOMAXPROCS(1)
	one := run(0)
	runtime.GOMAXPROCS(2)
	two := run(0)
	runtime.GOMAXPROCS(prev)
	if !bytes.Equal(first, one) || !bytes.Equal(first, two) {
		t.Fatal("GOMAXPROCS 1 and 2 differ")
	}
	r, _ := Run(context.Background(), g, [2]float64{1.5, 1}, Options{Params: p, Seed: 8})
	if bytes.Equal(first, gridBytes(r.Height, r.Flow, r.Deposit, r.WearMap)) {
		t.Error("seed 8 gives seed 7's bytes: the seed changes nothing")
	}
}

// Hydraulic erosion conserves material: with the edge a wall and the remaining load laid down at
// the end, Σ height after equals Σ height before within 0.1% of the material it moved (and so far
// within 0.1% of the ground's volume).
func TestConservation(t *testing.T) {
	g := hills(100, 90)
	for _, name := range Presets() {
		p := mustPreset(t, name)
		p.Talus = 0 // hydraulic alone
		p.Iterations = min(p.Iterations, 80)
		r, err := Run(context.Background(), g, [2]float64{2, 1}, Options{Params: p, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var before, after float64
		for k := range g.Data {
			before += float64(g.Data[k])
			after += float64(r.Height.Data[k])
		}
		area := 2.0
		moved := r.Worn // m³ the ground lost where it fell (= what it gained where it rose)
		diff := math.Abs(after-before) * area
		if moved <= 0 || r.MaxWear <= 0 || r.MaxDeposit <= 0 {
			t.Fatalf("%s: nothing moved (worn %v m³, max wear %v, max deposit %v)", name, moved, r.MaxWear, r.MaxDeposit)
		}
		if diff > 1e-3*moved {
			t.Errorf("%s: Σ ground changed by %.4g m³ of %.4g m³ moved (%.3g%%), want ≤ 0.1%%", name, diff, moved, 100*diff/moved)
		}
		t.Logf("%s: moved %.4g m³, Σ changed %.3g m³ (%.2g%%), max wear %.3g m, max deposit %.3g m", name, moved, diff, 100*diff/moved, r.MaxWear, r.MaxDeposit)
	}
}

// maxSlope is the steepest slope in degrees from any texel to any of its 8 neighbours.
func maxSlope(g *field.Grid, tx, tz float64) float64 {
	most := 0.0
	for j := range g.H {
		for i := range g.W {
			for d, o := range nbOff {
				ni, nj := i+o[0], j+o[1]
				if ni < 0 || ni >= g.W || nj < 0 || nj >= g.H {
					continue
				}
				dist := [3]float64{tx, tz, math.Hypot(tx, tz)}[nbKind[d]]
				drop := float64(g.At(i, j)) - float64(g.At(ni, nj))
				most = max(most, math.Atan(drop/dist)*180/math.Pi)
			}
		}
	}
	return most
}

// After the thermal pass no slope to a neighbour exceeds the talus angle by more than 1°, on a
// spike, a cliff and the hills, square and rectangular texels; material is kept.
func TestThermalTalus(t *testing.T) {
	spike := field.NewGrid(48, 40)
	cliff := field.NewGrid(64, 32)
	for j := range 40 {
		for i := range 48 {
			if math.Hypot(float64(i-24), float64(j-20)) < 4 {
				spike.Set(i, j, 30)
			}
		}
	}
	for j := range 32 {
		for i := range 64 {
			if i >= 32 {
				cliff.Set(i, j, 25)
			}
		}
	}
	for _, c := range []struct {
		name  string
		g     *field.Grid
		texel [2]float64
		talus float64
	}{
		{"spike", spike, [2]float64{1, 1}, 35},
		{"cliff", cliff, [2]float64{1, 2}, 30},
		{"hills", hills(64, 64), [2]float64{1, 1}, 20},
	} {
		before := maxSlope(c.g, c.texel[0], c.texel[1])
		out, settled, err := Thermal(context.Background(), c.g, c.texel, c.talus, 0.5, 5000, 0)
		if err != nil {
			t.Fatal(err)
		}
		after := maxSlope(out, c.texel[0], c.texel[1])
		if !settled || after > c.talus+1 {
			t.Errorf("%s: steepest slope %.2f° (settled %v), talus %v°: want ≤ %v°", c.name, after, settled, c.talus, c.talus+1)
		}
		var s0, s1 float64
		for k := range out.Data {
			s0 += float64(c.g.Data[k])
			s1 += float64(out.Data[k])
		}
		if math.Abs(s1-s0) > 1e-4*math.Abs(s0)+1e-3 {
			t.Errorf("%s: Σ height %v → %v: thermal erosion lost material", c.name, s0, s1)
		}
		t.Logf("%s: steepest %.1f° → %.2f° (talus %v°)", c.name, before, after, c.talus)
	}
}

// Erode replaces the field's height and adds the three channels; progress counts every
// iteration; a cancel (here from the progress after the third iteration) returns ctx's error and
// leaves the field as it was.
func TestErodeFieldAndCancel(t *testing.T) {
	f, err := field.New(field.Placement{Size: [2]float64{64, 64}}, hills(32, 32))
	if err != nil {
		t.Fatal(err)
	}
	old := f.Height
	p := mustPreset(t, "light rain")
	p.Iterations = 10
	var last int
	r, err := Erode(context.Background(), f, Options{Params: p, Progress: func(stage string, done, total int) {
		if stage == Stage {
			last = done
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if last != 10 || f.Height != r.Height || f.Height == old {
		t.Errorf("progress reached %d of 10; height replaced %v", last, f.Height == r.Height)
	}
	for _, name := range []string{ChannelFlow, ChannelDeposit, ChannelWear} {
		if f.Channels[name] == nil {
			t.Errorf("channel %s missing", name)
		}
	}
	if err := f.Validate(); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := f.Height
	_, err = Erode(ctx, f, Options{Params: p, Progress: func(stage string, done, total int) {
		if done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || f.Height != h {
		t.Errorf("cancelled: err %v, height replaced %v", err, f.Height != h)
	}
}

// Bad input is an error naming what is wrong, never a panic.
func TestBadInput(t *testing.T) {
	p := mustPreset(t, "default")
	nan := hills(8, 8)
	nan.Data[9] = float32(math.NaN())
	for _, c := range []struct {
		name  string
		g     *field.Grid
		texel [2]float64
		p     Params
		want  string
	}{
		{"nil", nil, [2]float64{1, 1}, p, "no height grid"},
		{"short", &field.Grid{W: 4, H: 4, Data: make([]float32, 3)}, [2]float64{1, 1}, p, "no height grid"},
		{"1×5", field.NewGrid(1, 5), [2]float64{1, 1}, p, "at least 2×2"},
		{"NaN", nan, [2]float64{1, 1}, p, "texel (1, 1)"},
		{"texel", hills(8, 8), [2]float64{0, 1}, p, "texel 0×1"},
		{"params", hills(8, 8), [2]float64{1, 1}, Params{Iterations: -1}, "iterations = -1"},
	} {
		_, err := Run(context.Background(), c.g, c.texel, Options{Params: c.p})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, _, err := Thermal(context.Background(), hills(8, 8), [2]float64{1, 1}, 90, 0.5, 10, 0); err == nil || !strings.Contains(err.Error(), "talus = 90") {
		t.Errorf("talus 90: err %v", err)
	}
}

// The smallest grids (every texel on an edge) erode without a panic and keep their material.
func TestTinyGrids(t *testing.T) {
	p := mustPreset(t, "old mountains")
	p.Iterations, p.SettleIterations = 12, 50
	for _, sz := range [][2]int{{2, 2}, {3, 2}, {2, 7}, {9, 3}} {
		g := hills(sz[0], sz[1])
		g.Data[0] += 40 // a spike for the thermal passes
		r, err := Run(context.Background(), g, [2]float64{1, 3}, Options{Params: p, Seed: 2})
		if err != nil {
			t.Fatalf("%v: %v", sz, err)
		}
		var s0, s1 float64
		for k := range g.Data {
			s0 += float64(g.Data[k])
			s1 += float64(r.Height.Data[k])
		}
		if math.Abs(s1-s0) > 1e-5*math.Abs(s0) {
			t.Errorf("%v: Σ height %v → %v", sz, s0, s1)
		}
	}
}

// The settle's skipping of quiet rows changes no byte (on ground where some rows settle early
// and others keep shedding).
func TestSettleSkipsQuietRows(t *testing.T) {
	g := field.NewGrid(40, 96)
	for j := range g.H {
		for i := range g.W {
			v := 0.2 * float64(i)
			if j > 60 && j < 70 && i > 10 && i < 30 {
				v += 25 // a block whose sides are far above talus
			}
			g.Set(i, j, float32(v))
		}
	}
	run := func() []byte {
		out, settled, err := Thermal(context.Background(), g, [2]float64{1, 1}, 30, 0.5, 3000, 2)
		if err != nil || !settled {
			t.Fatalf("settled %v, err %v", settled, err)
		}
		return gridBytes(out)
	}
	with := run()
	skipQuietRows = false
	without := run()
	skipQuietRows = true
	if !bytes.Equal(with, without) {
		t.Error("skipping quiet rows changed the settled ground")
	}
}
