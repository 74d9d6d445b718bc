package gpu

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"strata/erode"
	"strata/field"
)

// erodeHills is a w×h ground of ridges and valleys falling toward +X (tens of metres, slopes up
// to about 40° on 1 m texels): erode's own test ground.
func erodeHills(w, h int) *field.Grid {
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

func erodeBytes(r *erode.Result) []byte {
	var b bytes.Buffer
	for _, g := range []*field.Grid{r.Height, r.Flow, r.Deposit, r.WearMap} {
		binary.Write(&b, binary.LittleEndian, g.Data)
	}
	return b.Bytes()
}

func erodeKernel(t *testing.T) *ErodeKernel {
	t.Helper()
	k, err := testDevice(t).NewErodeKernel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Release)
	return k
}

func erodePreset(t *testing.T, name string) erode.Params {
	t.Helper()
	p, err := erode.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// maxAbsDiff is the largest |a − b| over two grids and the largest |a|.
func maxAbsDiff(a, b *field.Grid) (diff, mag float64) {
	for k := range a.Data {
		diff = max(diff, math.Abs(float64(a.Data[k])-float64(b.Data[k])))
		mag = max(mag, math.Abs(float64(a.Data[k])))
	}
	return diff, mag
}

// Two runs of the GPU erosion on one device write the same bytes (every pass is a Jacobi update,
// the settle's flag an integer OR); another seed gives other bytes.
func TestErodeGPUDeterministic(t *testing.T) {
	k := erodeKernel(t)
	g := erodeHills(70, 50)
	p := erodePreset(t, "default")
	p.Iterations = 40
	run := func(seed uint32) []byte {
		r, err := k.Run(context.Background(), g, [2]float64{1.5, 1}, erode.Options{Params: p, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return erodeBytes(r)
	}
	a, b := run(7), run(7)
	if !bytes.Equal(a, b) {
		t.Fatal("two GPU runs with seed 7 differ")
	}
	if bytes.Equal(a, run(8)) {
		t.Error("seed 8 gives seed 7's bytes: the seed changes nothing")
	}
}

// gpuAndGo erodes g with both twins.
func gpuAndGo(t *testing.T, k *ErodeKernel, g *field.Grid, texel [2]float64, o erode.Options) (rg, rc *erode.Result) {
	t.Helper()
	rg, err := k.Run(context.Background(), g, texel, o)
	if err != nil {
		t.Fatal(err)
	}
	rc, err = erode.Run(context.Background(), g, texel, o)
	if err != nil {
		t.Fatal(err)
	}
	return rg, rc
}

// meanAbsDiff is the mean |a − b| over two grids.
func meanAbsDiff(a, b *field.Grid) float64 {
	var sum float64
	for k := range a.Data {
		sum += math.Abs(float64(a.Data[k]) - float64(b.Data[k]))
	}
	return sum / float64(len(a.Data))
}

// The GPU erosion against the Go reference (docs/design.md "Erosion", "The GPU twin"). WGSL has
// no f64: the kernels compute in f32 what Go computes in float64 over the same float32 planes.
// For the presets whose runs are not chaotic at this scale ("default", "light rain") every
// texel's height and channels agree within 1 mm (flow: 1 mm + 10⁻⁵ of it; seen: 0.16 mm, 0.3 mm)
// and the settle takes the same steps. "old mountains" and "desert wash" amplify rounding: the Go
// reference itself, given heights one float32 ulp apart on half the texels, moves by a mean
// 1–9 cm and a worst metre; for them the test asks that the GPU differ from Go by no more (mean
// |Δheight| at most twice the Go run's own 1-ulp sensitivity) and that the worn volume agree
// within 1%.
func TestErodeGPUMatchesGo(t *testing.T) {
	k := erodeKernel(t)
	g := erodeHills(96, 80)
	texel := [2]float64{2, 1}
	for _, name := range erode.Presets() {
		p := erodePreset(t, name)
		o := erode.Options{Params: p, Seed: 3}
		rg, rc := gpuAndGo(t, k, g, texel, o)
		if math.Abs(rg.Worn-rc.Worn) > 0.01*rc.Worn {
			t.Errorf("%s: worn %.5g m³ on the GPU, %.5g m³ in Go: more than 1%% apart", name, rg.Worn, rc.Worn)
		}
		if name == "default" || name == "light rain" {
			for _, c := range []struct {
				n    string
				a, b *field.Grid
				rel  float64
			}{{"height", rg.Height, rc.Height, 0}, {"erosion.flow", rg.Flow, rc.Flow, 1e-5},
				{"erosion.deposit", rg.Deposit, rc.Deposit, 0}, {"erosion.wear", rg.WearMap, rc.WearMap, 0}} {
				worst := 0.0
				for i := range c.a.Data {
					d := math.Abs(float64(c.a.Data[i]) - float64(c.b.Data[i]))
					if d > 1e-3+c.rel*math.Abs(float64(c.b.Data[i])) {
						t.Fatalf("%s: %s at texel (%d, %d): GPU %v, Go %v", name, c.n, i%g.W, i/g.W, c.a.Data[i], c.b.Data[i])
					}
					worst = max(worst, d)
				}
				t.Logf("%s: %s worst |GPU − Go| %.3g m", name, c.n, worst)
			}
			if rg.SettleIterations != rc.SettleIterations || rg.Settled != rc.Settled {
				t.Errorf("%s: settle %d steps (settled %v) on the GPU, %d (%v) in Go", name, rg.SettleIterations, rg.Settled, rc.SettleIterations, rc.Settled)
			}
			continue
		}
		// The chaotic presets: Go's own sensitivity to a 1-ulp change of the input.
		g2 := g.Clone()
		for i := range g2.Data {
			if erode.Hash(1, 2, uint32(i))&1 == 0 {
				g2.Data[i] = math.Nextafter32(g2.Data[i], float32(math.Inf(1)))
			}
		}
		rp, err := erode.Run(context.Background(), g2, texel, o)
		if err != nil {
			t.Fatal(err)
		}
		own, got := meanAbsDiff(rc.Height, rp.Height), meanAbsDiff(rc.Height, rg.Height)
		t.Logf("%s: mean |GPU − Go| height %.3g m; Go vs Go 1 ulp apart %.3g m", name, got, own)
		if got > 2*own+1e-4 {
			t.Errorf("%s: mean |GPU − Go| height %.3g m, more than twice Go's own 1-ulp sensitivity %.3g m", name, got, own)
		}
	}
}

// Hydraulic erosion on the GPU conserves material: Σ height after equals Σ height before within
// 0.1% of what moved (the edge a wall, the remaining load laid down), for every preset, with and
// without the thermal steps (which move material between texels and keep it too).
func TestErodeGPUConservation(t *testing.T) {
	k := erodeKernel(t)
	g := erodeHills(100, 90)
	for _, name := range erode.Presets() {
		for _, thermal := range []bool{false, true} {
			p := erodePreset(t, name)
			if !thermal {
				p.Talus = 0
			}
			r, err := k.Run(context.Background(), g, [2]float64{2, 1}, erode.Options{Params: p, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			var before, after float64
			for i := range g.Data {
				before += float64(g.Data[i])
				after += float64(r.Height.Data[i])
			}
			diff := math.Abs(after-before) * 2
			if r.Worn <= 0 || r.MaxDeposit <= 0 {
				t.Fatalf("%s: nothing moved (worn %v m³)", name, r.Worn)
			}
			if diff > 1e-3*r.Worn {
				t.Errorf("%s (thermal %v): Σ ground changed by %.4g m³ of %.4g m³ moved (%.3g%%), want ≤ 0.1%%", name, thermal, diff, r.Worn, 100*diff/r.Worn)
			}
			t.Logf("%s (thermal %v): moved %.4g m³, Σ changed %.3g m³ (%.2g%%)", name, thermal, r.Worn, diff, 100*diff/r.Worn)
		}
	}
}

// erodeMaxSlope is the steepest slope in degrees from any texel to any of its 8 neighbours.
func erodeMaxSlope(g *field.Grid, tx, tz float64) float64 {
	most := 0.0
	for j := range g.H {
		for i := range g.W {
			for dj := -1; dj <= 1; dj++ {
				for di := -1; di <= 1; di++ {
					ni, nj := i+di, j+dj
					if (di == 0 && dj == 0) || ni < 0 || ni >= g.W || nj < 0 || nj >= g.H {
						continue
					}
					dist := math.Hypot(float64(di)*tx, float64(dj)*tz)
					drop := float64(g.At(i, j)) - float64(g.At(ni, nj))
					most = max(most, math.Atan(drop/dist)*180/math.Pi)
				}
			}
		}
	}
	return most
}

// After the GPU's thermal settle no slope to a neighbour exceeds the talus angle by more than
// 1°, on a spike, a cliff and the hills, square and rectangular texels; material is kept.
func TestErodeGPUThermalTalus(t *testing.T) {
	k := erodeKernel(t)
	spike := field.NewGrid(48, 40)
	for j := range 40 {
		for i := range 48 {
			if math.Hypot(float64(i-24), float64(j-20)) < 4 {
				spike.Set(i, j, 30)
			}
		}
	}
	cliff := field.NewGrid(64, 32)
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
	}{{"spike", spike, [2]float64{1, 1}, 35}, {"cliff", cliff, [2]float64{2, 1}, 30}, {"hills", erodeHills(80, 60), [2]float64{1, 1}, 25}} {
		p := erode.Params{Talus: c.talus, TimeStep: 0.25, SettleIterations: 5000, SettleTolerance: 0.5}
		r, err := k.Run(context.Background(), c.g, c.texel, erode.Options{Params: p})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Settled {
			t.Errorf("%s: not settled after %d steps", c.name, r.SettleIterations)
		}
		if s := erodeMaxSlope(r.Height, c.texel[0], c.texel[1]); s > c.talus+1 {
			t.Errorf("%s: steepest slope %.3f° after the settle, talus %g°", c.name, s, c.talus)
		}
		var before, after float64
		for i := range c.g.Data {
			before += float64(c.g.Data[i])
			after += float64(r.Height.Data[i])
		}
		if math.Abs(after-before) > 1e-4*math.Max(1, before) {
			t.Errorf("%s: Σ height %v before, %v after", c.name, before, after)
		}
		rc, err := erode.Run(context.Background(), c.g, c.texel, erode.Options{Params: p})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := maxAbsDiff(r.Height, rc.Height)
		t.Logf("%s: %d steps (Go %d), steepest %.3f°, worst |GPU − Go| %.3g m", c.name, r.SettleIterations, rc.SettleIterations, erodeMaxSlope(r.Height, c.texel[0], c.texel[1]), d)
	}
}

// A grid whose flux plane is past the device's storage binding is refused with ErrTooLarge; bad
// input is refused as the Go reference refuses it.
func TestErodeGPURefuses(t *testing.T) {
	k := erodeKernel(t)
	if _, err := k.Run(context.Background(), field.NewGrid(1, 5), [2]float64{1, 1}, erode.Options{Params: erodePreset(t, "default")}); err == nil || !strings.Contains(err.Error(), "2×2") {
		t.Errorf("a 1×5 grid: %v", err)
	}
	p := erodePreset(t, "default")
	p.TimeStep = 0
	if _, err := k.Run(context.Background(), erodeHills(8, 8), [2]float64{1, 1}, erode.Options{Params: p}); err == nil || !strings.Contains(err.Error(), "timeStep") {
		t.Errorf("timeStep 0: %v", err)
	}
	var nilK *ErodeKernel
	if _, err := nilK.Run(context.Background(), erodeHills(8, 8), [2]float64{1, 1}, erode.Options{Params: erodePreset(t, "default")}); err == nil {
		t.Error("a nil kernel ran")
	}
	nilK.Release()
}

// The settle's skipping of quiet tiles changes no byte: with it and without it, the same result
// (a spike that settles in a small part of the grid, where most tiles are skipped, and the
// hills under the default preset).
func TestErodeGPUQuietTilesSkipNothing(t *testing.T) {
	k := erodeKernel(t)
	spike := field.NewGrid(100, 70)
	for j := range 70 {
		for i := range 100 {
			if math.Hypot(float64(i-30), float64(j-40)) < 5 {
				spike.Set(i, j, 30)
			}
		}
	}
	p := erodePreset(t, "default")
	p.Iterations = 30
	for _, c := range []struct {
		name string
		g    *field.Grid
		p    erode.Params
	}{{"spike", spike, erode.Params{Talus: 33, TimeStep: 0.25, SettleIterations: 3000, SettleTolerance: 0.5}}, {"hills", erodeHills(90, 70), p}} {
		run := func(skip bool) *erode.Result {
			skipQuietTiles = skip
			defer func() { skipQuietTiles = true }()
			r, err := k.Run(context.Background(), c.g, [2]float64{1, 1.5}, erode.Options{Params: c.p, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		with, without := run(true), run(false)
		if !bytes.Equal(erodeBytes(with), erodeBytes(without)) || with.SettleIterations != without.SettleIterations || with.Settled != without.Settled {
			t.Errorf("%s: skipping quiet tiles changed the result (steps %d, %d)", c.name, with.SettleIterations, without.SettleIterations)
		}
		if with.SettleIterations == 0 {
			t.Errorf("%s: no settle step ran: the test shows nothing", c.name)
		}
	}
}

// A cancelled context stops the GPU erosion between iterations (and the settle between chunks)
// with the context's error; no iterations and no settle is the input back.
func TestErodeGPUCancelAndNothing(t *testing.T) {
	k := erodeKernel(t)
	g := erodeHills(40, 30)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := erodePreset(t, "default")
	iters := 0
	_, err := k.Run(ctx, g, [2]float64{1, 1}, erode.Options{Params: p, Progress: func(stage string, done, total int) {
		if stage == erode.Stage && done >= 2 {
			iters = done
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || iters != 2 {
		t.Errorf("cancelled at iteration %d: %v, want context.Canceled after 2", iters, err)
	}
	p.Iterations, p.SettleIterations = 0, 0
	r, err := k.Run(context.Background(), g, [2]float64{1, 1}, erode.Options{Params: p})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Height.Data, g.Data) || r.Worn != 0 {
		t.Errorf("no iterations and no settle changed the ground (worn %v)", r.Worn)
	}
}
