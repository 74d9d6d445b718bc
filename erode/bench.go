package erode

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"strata/field"
)

// BenchFigures are one timed erosion (`strata bench erode`).
type BenchFigures struct {
	W, H       int
	Texel      [2]float64
	Preset     string
	Iterations int
	Workers    int
	// Backend is what eroded: "Go reference", or the GPU and its adapter.
	Backend string
	// Hydraulic is the iterations' wall time; PerIteration its mean, Median and P95 of the
	// iterations one by one.
	Hydraulic, PerIteration, Median, P95 time.Duration
	// Settle is the final thermal settle's wall time and steps; Total the whole Run.
	Settle      time.Duration
	SettleSteps int
	HasSettle   bool
	Settled     bool
	Total       time.Duration
	// CellsPerSecond is W·H·Iterations / Hydraulic.
	CellsPerSecond float64
	Worn           float64
}

// Runner is an erosion with Run's contract: Run itself, or its GPU twin (bake's evaluator's Erode).
type Runner func(ctx context.Context, g *field.Grid, texel [2]float64, o Options) (*Result, error)

// Bench erodes g (texels texel metres) with the named preset (iterations ≥ 0 replaces the
// preset's) and times it, iteration by iteration (from its progress reports), with run (nil:
// Run, on GOMAXPROCS workers); backend names what run erodes with.
func Bench(ctx context.Context, g *field.Grid, texel [2]float64, preset string, iterations int, run Runner, backend string) (*BenchFigures, error) {
	if run == nil {
		run, backend = Run, "Go reference"
	}
	p, err := Preset(preset)
	if err != nil {
		return nil, err
	}
	if preset == "" {
		preset = DefaultPreset
	}
	if iterations >= 0 {
		p.Iterations = iterations
	}
	f := &BenchFigures{W: g.W, H: g.H, Texel: texel, Preset: preset, Iterations: p.Iterations, Workers: runtime.GOMAXPROCS(0), Backend: backend,
		HasSettle: p.Talus > 0 && p.SettleIterations > 0}
	var its []time.Duration
	t0 := time.Now()
	last, hydraulicEnd, settleStart := t0, t0, time.Time{}
	r, err := run(ctx, g, texel, Options{Params: p, Seed: 1, Progress: func(stage string, done, total int) {
		now := time.Now()
		switch {
		case stage == Stage && done > 0:
			its = append(its, now.Sub(last))
			hydraulicEnd = now
		case stage == StageSettle && done == 0:
			settleStart = now
		}
		last = now
	}})
	if err != nil {
		return nil, err
	}
	f.Total = time.Since(t0)
	f.Hydraulic = hydraulicEnd.Sub(t0)
	if !settleStart.IsZero() {
		f.Settle = time.Since(settleStart)
	}
	f.SettleSteps, f.Settled, f.Worn = r.SettleIterations, r.Settled, r.Worn
	if n := len(its); n > 0 {
		f.PerIteration = f.Hydraulic / time.Duration(n)
		slices.Sort(its)
		f.Median = its[n/2]
		f.P95 = its[min(n-1, (n*95+99)/100-1)]
		f.CellsPerSecond = float64(g.W) * float64(g.H) * float64(n) / f.Hydraulic.Seconds()
	}
	return f, nil
}

// Print writes the figures, one block.
func (f *BenchFigures) Print(w io.Writer) {
	fmt.Fprintf(w, "erode %d×%d (%g×%g m texels), preset %q, %s (%d CPU workers):\n",
		f.W, f.H, f.Texel[0], f.Texel[1], f.Preset, f.Backend, f.Workers)
	fmt.Fprintf(w, "  hydraulic: %d iterations in %v: %v per iteration (median %v, p95 %v), %.1f M cells/s\n",
		f.Iterations, f.Hydraulic.Round(time.Millisecond), f.PerIteration.Round(10*time.Microsecond),
		f.Median.Round(10*time.Microsecond), f.P95.Round(10*time.Microsecond), f.CellsPerSecond/1e6)
	switch {
	case !f.HasSettle:
		fmt.Fprintf(w, "  thermal settle: none (the preset has none)\n")
	case f.Settled:
		fmt.Fprintf(w, "  thermal settle: %d steps in %v (settled)\n", f.SettleSteps, f.Settle.Round(time.Millisecond))
	default:
		fmt.Fprintf(w, "  thermal settle: %d steps in %v (stopped at its bound, not settled)\n", f.SettleSteps, f.Settle.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "  total: %v; %.4g m³ worn\n", f.Total.Round(time.Millisecond), f.Worn)
}
