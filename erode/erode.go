package erode

import (
	"context"
	"errors"
	"fmt"
	"math"

	"strata/field"
	"strata/internal/pool"
	"strata/internal/sysmem"
	"strata/progress"
)

// Stage is the progress stage an erosion reports, one unit per iteration (hydraulic, then the
// settle's).
const (
	Stage       = "erode"
	StageSettle = "erode: thermal settle"
)

// Options are one erosion's parameters and how it runs.
type Options struct {
	Params
	// Seed varies the rain (RainJitter); the same seed gives the same bytes.
	Seed uint32
	// Workers is the number of goroutines a pass runs on (0: GOMAXPROCS). The result does not
	// depend on it.
	Workers int
	// Progress receives Stage once per iteration (and StageSettle per settle iteration).
	Progress progress.Func
}

// Stats say what an erosion did (in metres and m³ unless named otherwise).
type Stats struct {
	Iterations       int
	SettleIterations int
	// Settled is false when the settle stopped at SettleIterations with a slope still above
	// Talus + SettleTolerance (and when there was no settle).
	Settled bool
	// Worn and Deposited are Σ wear and Σ deposit times the texel area (m³); Moved is the
	// volume thermal and hydraulic erosion picked up over the run, counted each time.
	Worn, Deposited float64
	// MaxWear and MaxDeposit are the largest values of the channels (m).
	MaxWear, MaxDeposit float32
}

// Result is the eroded ground and its channels, all on the height's grid.
type Result struct {
	Height                 *field.Grid
	Flow, Deposit, WearMap *field.Grid
	Stats
}

// bytesPerCell is what Run allocates per texel: 18 float32 planes (the ground's change twice,
// water twice, sediment twice, four fluxes, speed, the flow accumulator, thermal's out and
// excess, the input height's copy scaled, the ground's float32 copy twice) plus the four outputs.
const bytesPerCell = (18 + 4) * 4

// Run erodes the height grid g (texels texel metres along X and Z) and returns the new height and
// the three channels; g is not changed. The field's edge is a wall: no water and no material
// leaves the grid, so Σ height (plus nothing suspended at the end: the water's remaining load is
// laid down where it is) is conserved up to float rounding. A cancelled ctx stops it between
// passes with ctx's error.
func Run(ctx context.Context, g *field.Grid, texel [2]float64, o Options) (*Result, error) {
	if err := Check(g, texel, o.Params); err != nil {
		return nil, err
	}
	n := g.W * g.H
	if err := sysmem.Check(uint64(n)*bytesPerCell, fmt.Sprintf("eroding a %d×%d height grid", g.W, g.H)); err != nil {
		return nil, fmt.Errorf("erode: %w", err)
	}
	report := o.Progress
	if report == nil {
		report = progress.Nop
	}
	s := newSim(g, texel[0], texel[1], o)
	report(Stage, 0, o.Iterations)
	for it := range o.Iterations {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("erode: %w", err)
		}
		if err := s.iterate(ctx, it); err != nil {
			return nil, err
		}
		report(Stage, it+1, o.Iterations)
	}
	// What the water still carries is laid down where it is.
	if err := s.rows(ctx, func(j int) {
		for k := j * s.w; k < (j+1)*s.w; k++ {
			s.db[k] += s.sed[k]
			s.sed[k] = 0
		}
	}); err != nil {
		return nil, err
	}
	s.hgtStale = true
	st := Stats{Iterations: o.Iterations}
	if o.Talus > 0 && o.SettleIterations > 0 {
		report(StageSettle, 0, o.SettleIterations)
		done, settled, err := s.settle(ctx, o.Talus, o.SettleTolerance, o.SettleIterations, func(k int) { report(StageSettle, k, o.SettleIterations) })
		if err != nil {
			return nil, err
		}
		report(StageSettle, o.SettleIterations, o.SettleIterations)
		st.SettleIterations, st.Settled = done, settled
	}
	return s.result(ctx, g, st)
}

// Check refuses what Run refuses before any work: no height grid, one under 2×2 texels or with a
// non-finite height, a texel size that is not positive and finite, a parameter out of its range.
// The GPU twin (package gpu) checks with it too.
func Check(g *field.Grid, texel [2]float64, p Params) error {
	if g == nil || len(g.Data) != g.W*g.H || field.CheckSize(g.W, g.H) != nil {
		return errors.New("erode: no height grid")
	}
	if g.W < 2 || g.H < 2 {
		return fmt.Errorf("erode: height grid %d×%d: erosion needs at least 2×2 texels", g.W, g.H)
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("erode: height: %w", err)
	}
	tx, tz := texel[0], texel[1]
	if !(tx > 0 && tz > 0) || math.IsInf(tx, 0) || math.IsInf(tz, 0) {
		return fmt.Errorf("erode: texel %v×%v metres: must be positive and finite", tx, tz)
	}
	return p.Validate()
}

// Geometry is a grid's length unit and pipe lengths: L = √(texelX·texelZ) metres, px = texelX/L,
// pz = texelZ/L (px·pz = 1).
func Geometry(texel [2]float64) (L, px, pz float64) {
	L = math.Sqrt(texel[0] * texel[1])
	return L, texel[0] / L, texel[1] / L
}

// Raining reports whether rain falls on iteration it of an erosion with parameters p.
func (p Params) Raining(it int) bool {
	return p.Rain > 0 && (p.RainIterations == 0 || it < p.RainIterations)
}

// Hash is the rain jitter's 32-bit mix of three words (lowbias32 rounds), for the GPU twin's test.
func Hash(a, b, c uint32) uint32 { return hash(a, b, c) }

// Assemble builds an erosion's Result from its final state: db, the ground's change in L, and
// flowAcc, the water that left each texel in L, both on g's grid, as the GPU twin reads them
// back. The grids and the totals are computed exactly as Run computes its own.
func Assemble(ctx context.Context, g *field.Grid, texel [2]float64, db, flowAcc []float32, st Stats, workers int) (*Result, error) {
	if g == nil || len(db) != g.W*g.H || len(flowAcc) != g.W*g.H {
		return nil, errors.New("erode: assemble: the planes do not match the height grid")
	}
	L, px, pz := Geometry(texel)
	s := &sim{o: Options{Workers: workers}, w: g.W, h: g.H, tx: texel[0], tz: texel[1], L: L, px: px, pz: pz,
		db: db, flowAcc: flowAcc}
	return s.result(ctx, g, st)
}

// Erode erodes f's ground in place: the new height replaces f.Height (so the flow plane, kept for
// the old grid, is routed again when next asked for) and the three channels are added to (or
// replace those in) f.Channels.
func Erode(ctx context.Context, f *field.Field, o Options) (*Result, error) {
	r, _, err := ErodeWith(ctx, f, o, func(ctx context.Context, g *field.Grid, texel [2]float64, o Options) (*Result, string, error) {
		r, err := Run(ctx, g, texel, o)
		return r, "Go reference", err
	})
	return r, err
}

// ErodeWith is Erode with the erosion run (an evaluator's Erode: the GPU twin or Run); it
// returns what run says eroded.
func ErodeWith(ctx context.Context, f *field.Field, o Options, run func(ctx context.Context, g *field.Grid, texel [2]float64, o Options) (*Result, string, error)) (*Result, string, error) {
	if f == nil || f.Height == nil {
		return nil, "", errors.New("erode: no field")
	}
	r, backend, err := run(ctx, f.Height, f.TexelSize(), o)
	if err != nil {
		return nil, "", err
	}
	for _, c := range []struct {
		name string
		g    *field.Grid
	}{{ChannelFlow, r.Flow}, {ChannelDeposit, r.Deposit}, {ChannelWear, r.WearMap}} {
		if err := f.AddChannel(c.name, c.g); err != nil {
			return nil, "", fmt.Errorf("erode: %w", err)
		}
	}
	f.Height = r.Height
	f.InvalidateFlow()
	return r, backend, nil
}

// result turns the simulation's state into the output grids (metres) and the totals.
func (s *sim) result(ctx context.Context, g *field.Grid, st Stats) (*Result, error) {
	r := &Result{Height: field.NewGrid(s.w, s.h), Flow: field.NewGrid(s.w, s.h),
		Deposit: field.NewGrid(s.w, s.h), WearMap: field.NewGrid(s.w, s.h), Stats: st}
	type sums struct {
		worn, dep     float64
		maxW, maxD    float32
		nonFinite     bool
		nonFiniteCell int
	}
	rowSums := make([]sums, s.h)
	err := s.rows(ctx, func(j int) {
		var rs sums
		for k := j * s.w; k < (j+1)*s.w; k++ {
			dm := float64(s.db[k]) * s.L // metres
			h := float32(float64(g.Data[k]) + dm)
			r.Height.Data[k] = h
			change := h - g.Data[k] // what the stored float32 height changed by
			r.Flow.Data[k] = float32(float64(s.flowAcc[k]) * s.L)
			if change > 0 {
				r.Deposit.Data[k] = change
				rs.dep += float64(change)
				rs.maxD = max(rs.maxD, change)
			} else if change < 0 {
				r.WearMap.Data[k] = -change
				rs.worn -= float64(change)
				rs.maxW = max(rs.maxW, -change)
			}
			if !finite32(h) || !finite32(r.Flow.Data[k]) {
				if !rs.nonFinite {
					rs.nonFinite, rs.nonFiniteCell = true, k
				}
			}
		}
		rowSums[j] = rs
	})
	if err != nil {
		return nil, err
	}
	area := s.tx * s.tz
	for _, rs := range rowSums { // in row order: the same sums on any core count
		if rs.nonFinite {
			return nil, fmt.Errorf("erode: texel (%d, %d) became non-finite: the parameters make the model unstable (lower timeStep or rain)", rs.nonFiniteCell%s.w, rs.nonFiniteCell/s.w)
		}
		r.Worn += rs.worn * area
		r.Deposited += rs.dep * area
		r.MaxWear = max(r.MaxWear, rs.maxW)
		r.MaxDeposit = max(r.MaxDeposit, rs.maxD)
	}
	return r, nil
}

func finite32(v float32) bool { return v == v && v <= math.MaxFloat32 && v >= -math.MaxFloat32 }

// sim is one erosion's state. Lengths are in texel units (metres / L); every plane is float32,
// the arithmetic float64. Planes with a "next" twin are double-buffered: a pass reads one and
// writes the other, so no cell sees a neighbour's new value (Jacobi), whatever the order.
type sim struct {
	o      Options
	w, h   int
	tx, tz float64 // texel sizes, metres
	L      float64 // √(tx·tz): the length unit, metres
	px, pz float64 // the pipe lengths along X and Z in L (px·pz = 1: a texel's area is 1)
	ground []float32
	// db is the ground's change from the input, in L: the input (ground) stays exact and the
	// change accumulates in float32 without the height's magnitude eating its bits.
	db, dbNext       []float32
	water, waterNext []float32
	sed, sedNext     []float32
	flux             [4][]float32 // outflow to left (-X), right (+X), down (-Z), up (+Z), in L³ per unit time
	speed            []float32
	flowAcc          []float32 // water that left the texel, Σ dt·Σf (L³ over a texel area of 1: L)
	out, excess      []float32 // thermal: material leaving a texel, and its neighbours' summed excess
	// hgt is the ground (input + change) as float32, what thermal steps compare; hgtStale says
	// it must be refreshed before the next one.
	hgt, hgtNext []float32
	hgtStale     bool
	it           int // the iteration running
	// hydraulicStep is the thermal step every iteration takes (ThermalRate, no tolerance) and
	// hydraulicRows its rows' state, reset for each: both made once, not per iteration.
	hydraulicStep talusStep
	hydraulicRows rowState
}

func newSim(g *field.Grid, tx, tz float64, o Options) *sim {
	n := g.W * g.H
	L, px, pz := Geometry([2]float64{tx, tz})
	s := &sim{o: o, w: g.W, h: g.H, tx: tx, tz: tz, L: L, px: px, pz: pz}
	s.ground = make([]float32, n)
	for k, v := range g.Data {
		s.ground[k] = float32(float64(v) / L)
	}
	mk := func() []float32 { return make([]float32, n) }
	s.db, s.dbNext = mk(), mk()
	s.water, s.waterNext = mk(), mk()
	s.sed, s.sedNext = mk(), mk()
	for d := range s.flux {
		s.flux[d] = mk()
	}
	s.speed, s.flowAcc = mk(), mk()
	s.out, s.excess = mk(), mk()
	s.hgt, s.hgtNext, s.hgtStale = mk(), mk(), true
	s.hydraulicStep = s.talusStep(o.Talus, -1, o.ThermalRate)
	s.hydraulicRows = newRowState(s.h)
	return s
}

// rows runs fn over every row, in bands of rows handed to the pool's workers.
func (s *sim) rows(ctx context.Context, fn func(j int)) error {
	const band = 8
	nb := (s.h + band - 1) / band
	if err := pool.Each(ctx, nb, s.o.Workers, func(b int) {
		for j := b * band; j < min((b+1)*band, s.h); j++ {
			fn(j)
		}
	}, nil); err != nil {
		return fmt.Errorf("erode: %w", err)
	}
	return nil
}

// height is the ground at k (L).
func (s *sim) height(k int) float64 { return float64(s.ground[k]) + float64(s.db[k]) }

// rain is texel k's rain on iteration it (L): Rain varied by ±RainJitter from a hash of the
// seed, the iteration and the texel.
func (s *sim) rain(it, k int) float64 {
	p := s.o.Params
	if p.RainJitter == 0 {
		return p.Rain
	}
	u := float64(hash(s.o.Seed, uint32(it), uint32(k))>>8) / (1 << 24) // [0, 1)
	return p.Rain * (1 + p.RainJitter*(2*u-1))
}

// raining reports whether rain falls on iteration it.
func (s *sim) raining(it int) bool { return s.o.Raining(it) }

// hash is a 32-bit mix of three words (lowbias32 rounds).
func hash(a, b, c uint32) uint32 {
	x := a*0x9E3779B1 ^ b*0x85EBCA77 ^ c*0xC2B2AE3D
	for range 2 {
		x ^= x >> 16
		x *= 0x7feb352d
		x ^= x >> 15
		x *= 0x846ca68b
		x ^= x >> 16
	}
	return x
}

const (
	left = iota
	right
	down
	up
)

// iterate runs one iteration: rain, flux, water and sediment, erosion and deposition with
// evaporation and a thermal step.
func (s *sim) iterate(ctx context.Context, it int) error {
	// 1. Rain (each texel adds its own: the previous iteration's last pass added it, or, on the
	// first, a pass of its own), then each texel's outflows from the water surface's drops to
	// its neighbours.
	s.it = it
	if it == 0 && s.raining(it) {
		if err := s.rows(ctx, func(j int) {
			for k := j * s.w; k < (j+1)*s.w; k++ {
				s.water[k] = float32(float64(s.water[k]) + s.rain(it, k))
			}
		}); err != nil {
			return err
		}
	}
	if err := s.rows(ctx, s.fluxRow); err != nil {
		return err
	}
	// 2. Water and sediment move along the fluxes (into the second buffers), and 3. erosion and
	// deposition, evaporation and the next rain act on what they left, row by row in one pass:
	// a texel's erosion reads only its own new water, sediment and speed and the ground before
	// the iteration, so the row's water pass is all it waits for. Beside them runs the first
	// pass of a thermal step, from the ground before the iteration; then the thermal step's
	// second pass adds its transfers (from that same ground) to the eroded ground. Erosion and
	// the thermal step are two Jacobi updates of one state.
	if s.o.Talus > 0 && s.o.ThermalRate > 0 {
		s.hydraulicRows.valid = false
		if _, err := s.thermalRows(ctx, &s.hydraulicStep, s.waterErodeRow, s.dbNext, s.dbNext, &s.hydraulicRows); err != nil {
			return err
		}
	} else {
		if err := s.rows(ctx, s.waterErodeRow); err != nil {
			return err
		}
		s.hgtStale = true
	}
	s.water, s.waterNext = s.waterNext, s.water
	s.sed, s.sedNext = s.sedNext, s.sed
	s.db, s.dbNext = s.dbNext, s.db
	return nil
}

// waterErodeRow is the water pass, then the erosion pass, over row j.
func (s *sim) waterErodeRow(j int) {
	s.waterRow(j)
	s.erodeRow(j)
}

// rowOf is row j of plane p (w texels).
func rowOf(p []float32, j, w int) []float32 { return p[j*w:][:w] }

// divisor divides by a constant: by multiplying with its reciprocal where that is exact (the
// constant a power of two — 1 on square texels —, whose reciprocal is one too: both are then the
// same real number, rounded once, so the bytes are the division's), else by dividing.
type divisor struct {
	d, r  float64
	exact bool
}

func newDivisor(d float64) divisor {
	frac, exp := math.Frexp(d)
	r := 1 / d
	return divisor{d: d, r: r, exact: frac == 0.5 && exp > -1000 && exp < 1000 && r*d == 1}
}

// pick is a where cond holds, else b: a conditional move of the bits, no branch.
func pick(cond bool, a, b float64) float64 {
	ab, bb := math.Float64bits(a), math.Float64bits(b)
	if cond {
		bb = ab
	}
	return math.Float64frombits(bb)
}

// of is x / d.
func (v divisor) of(x float64) float64 {
	if v.exact {
		return x * v.r
	}
	return x / v.d
}

// fluxRow updates row j's outflows (Mei et al. eq. 2–4; the pipe to a neighbour outside the
// field is closed: the edge is a wall). The water is the water before the iteration plus its
// rain (the rain pass added it); outflows are scaled so they never take more than the texel holds.
func (s *sim) fluxRow(j int) {
	w, h := s.w, s.h
	dt := s.o.TimeStep
	// the pipe along X has cross-section pz and length px; along Z pz and px swap (g = 1).
	cx, cz := dt*s.pz/s.px, dt*s.px/s.pz
	g, db, wa, sed := rowOf(s.ground, j, w), rowOf(s.db, j, w), rowOf(s.water, j, w), rowOf(s.sed, j, w)
	// The load per unit of water goes to hgtNext, scratch until the thermal step's second pass
	// writes it: the water pass reads it, nothing else does before.
	conc := rowOf(s.hgtNext, j, w)
	fl, fr := rowOf(s.flux[left], j, w), rowOf(s.flux[right], j, w)
	fd, fu := rowOf(s.flux[down], j, w), rowOf(s.flux[up], j, w)
	// The rows below and above (this row's own where there is none: never read then).
	hasDown, hasUp := j > 0, j < h-1
	gD, dbD, waD := g, db, wa
	if hasDown {
		gD, dbD, waD = rowOf(s.ground, j-1, w), rowOf(s.db, j-1, w), rowOf(s.water, j-1, w)
	}
	gU, dbU, waU := g, db, wa
	if hasUp {
		gU, dbU, waU = rowOf(s.ground, j+1, w), rowOf(s.db, j+1, w), rowOf(s.water, j+1, w)
	}
	n := len(g)
	db, wa, sed, conc = db[:n], wa[:n], sed[:n], conc[:n]
	fl, fr, fd, fu = fl[:n], fr[:n], fd[:n], fu[:n]
	gD, dbD, waD, gU, dbU, waU = gD[:n], dbD[:n], waD[:n], gU[:n], dbU[:n], waU[:n]
	// The water surface of the texel, its left and right neighbours, slid along the row.
	prev, cur := 0.0, float64(g[0])+float64(db[0])+float64(wa[0])
	for i := range g {
		d := float64(wa[i])
		var next, a, b, c, e float64 // outflows left, right, down, up
		if i > 0 {
			a = max(0, float64(fl[i])+cx*(cur-prev))
		}
		if i+1 < len(g) {
			next = float64(g[i+1]) + float64(db[i+1]) + float64(wa[i+1])
			b = max(0, float64(fr[i])+cx*(cur-next))
		}
		if hasDown {
			c = max(0, float64(fd[i])+cz*(cur-(float64(gD[i])+float64(dbD[i])+float64(waD[i]))))
		}
		if hasUp {
			e = max(0, float64(fu[i])+cz*(cur-(float64(gU[i])+float64(dbU[i])+float64(waU[i]))))
		}
		// K = min(1, d·area / (Σf·dt)), area = px·pz = 1.
		if sum := a + b + c + e; sum*dt > d && sum > 0 {
			kk := d / (sum * dt)
			a, b, c, e = a*kk, b*kk, c*kk, e*kk
		}
		fl[i], fr[i], fd[i], fu[i] = float32(a), float32(b), float32(c), float32(e)
		// The load per unit of water, which every outflow carries: 0 under minDepth (what
		// little flows out of such a texel leaves its load behind; a vanishing film would
		// otherwise carry a concentration beyond float32).
		var cc float32
		if d > minDepth {
			cc = float32(float64(sed[i]) / d)
		}
		conc[i] = cc
		prev, cur = cur, next
	}
}

// minDepth is the least water (L) that carries sediment out of a texel.
const minDepth = 1e-6

// waterRow moves water and sediment along the new fluxes (Mei et al. eq. 6–9) into the second
// buffers. Sediment is carried in proportion to the water each outflow takes from the texel —
// dt·f times the texel's load per unit of water, computed by the flux pass (an upwind,
// conservative transport: what leaves one texel is what its neighbour receives, so Σ sediment
// is kept) — not by Mei's semi-Lagrangian step, which does not conserve it.
func (s *sim) waterRow(j int) {
	w, h := s.w, s.h
	dt := s.o.TimeStep
	byPx, byPz := newDivisor(s.px), newDivisor(s.pz)
	wa, sed := rowOf(s.water, j, w), rowOf(s.sed, j, w)
	wn, sn, conc := rowOf(s.waterNext, j, w), rowOf(s.sedNext, j, w), rowOf(s.hgtNext, j, w)
	fl, fr := rowOf(s.flux[left], j, w), rowOf(s.flux[right], j, w)
	fd, fu := rowOf(s.flux[down], j, w), rowOf(s.flux[up], j, w)
	speed, acc := rowOf(s.speed, j, w), rowOf(s.flowAcc, j, w)
	// The row below's up pipes and loads, the row above's down pipes and loads (this row's own
	// where there is none: never read then).
	hasDown, hasUp := j > 0, j < h-1
	fuD, concD := fu, conc
	if hasDown {
		fuD, concD = rowOf(s.flux[up], j-1, w), rowOf(s.hgtNext, j-1, w)
	}
	fdU, concU := fd, conc
	if hasUp {
		fdU, concU = rowOf(s.flux[down], j+1, w), rowOf(s.hgtNext, j+1, w)
	}
	n := len(wa)
	sed, wn, sn, conc, fl, fr, fd, fu = sed[:n], wn[:n], sn[:n], conc[:n], fl[:n], fr[:n], fd[:n], fu[:n]
	speed, acc, fuD, concD, fdU, concU = speed[:n], acc[:n], fuD[:n], concD[:n], fdU[:n], concU[:n]
	// Slid along the row: the left neighbour's right pipe and load, the texel's own pipes along
	// X and load (a float32's float64 is exact: the values are those read in place).
	var frL, concL float64
	ol, or, concC := float64(fl[0]), float64(fr[0]), float64(conc[0])
	for i := range wa {
		d1 := float64(wa[i])
		od, ou := float64(fd[i]), float64(fu[i])
		fout := ol + or + od + ou
		// Inflows: the left neighbour's right pipe, etc. Sediment comes with each: the water it
		// takes times the neighbour's load per unit of water.
		var il, ir, id, iu, sin float64
		var flR, frR, concR float64 // the right neighbour's
		if i > 0 {
			il = frL
			sin += dt * il * concL
		}
		if i+1 < len(wa) {
			flR, frR, concR = float64(fl[i+1]), float64(fr[i+1]), float64(conc[i+1])
			ir = flR
			sin += dt * ir * concR
		}
		if hasDown {
			id = float64(fuD[i])
			sin += dt * id * float64(concD[i])
		}
		if hasUp {
			iu = float64(fdU[i])
			sin += dt * iu * float64(concU[i])
		}
		d2 := max(0, d1+dt*(il+ir+id+iu-fout))
		wn[i] = float32(d2)
		// Sediment: what the outflows take leaves, what the inflows bring arrives.
		sn[i] = float32(max(0, float64(sed[i])-dt*fout*concC+sin))
		// Velocity from the net flux through the texel (eq. 8, 9), over the mean depth.
		var v float64
		if dbar := (d1 + d2) / 2; dbar > 1e-6 {
			inv := 0.5 / dbar
			u := byPz.of((il - ol + or - ir) * inv)
			vz := byPx.of((id - od + ou - iu) * inv)
			v = math.Sqrt(u*u + vz*vz)
		}
		speed[i] = float32(v)
		acc[i] += float32(dt * fout)
		frL, concL = or, concC
		ol, or, concC = flR, frR, concR
	}
}

// erodeRow picks up or lays down sediment against the water's capacity (Mei et al. eq. 10–12),
// then evaporates (eq. 15) and adds the next iteration's rain, on the water and sediment the
// water pass left (the second buffers); the ground's change goes to dbNext. The ground's tilt is
// from central differences of the previous ground.
func (s *sim) erodeRow(j int) {
	w, h := s.w, s.h
	p := &s.o.Params
	it := s.it + 1
	rainNext := it < p.Iterations && s.raining(it)
	rain, jitter, seed := p.Rain, p.RainJitter, s.o.Seed
	capacity, minTilt, kErode, kDeposit := p.Capacity, p.MinTilt, p.Erosion, p.Deposition
	keep := 1 - p.Evaporation
	jd, ju := max(j-1, 0), min(j+1, h-1)
	// The differences' lengths: one texel at an edge, two inside.
	byDx1, byDx2, byDz := newDivisor(1*s.px), newDivisor(2*s.px), newDivisor(float64(ju-jd)*s.pz)
	g, db := rowOf(s.ground, j, w), rowOf(s.db, j, w)
	gD, dbD := rowOf(s.ground, jd, w), rowOf(s.db, jd, w)
	gU, dbU := rowOf(s.ground, ju, w), rowOf(s.db, ju, w)
	speed, sed, water, dbNext := rowOf(s.speed, j, w), rowOf(s.sedNext, j, w), rowOf(s.waterNext, j, w), rowOf(s.dbNext, j, w)
	n := len(g)
	db, gD, dbD, gU, dbU = db[:n], gD[:n], dbD[:n], gU[:n], dbU[:n]
	speed, sed, water, dbNext = speed[:n], sed[:n], water[:n], dbNext[:n]
	row := j * w
	// The ground (L) left of, at and right of the texel, slid along the row.
	hl, hc := 0.0, float64(g[0])+float64(db[0])
	for i := range g {
		var gx float64
		switch {
		case i == 0:
			hr := float64(g[1]) + float64(db[1]) // w ≥ 2
			gx = byDx1.of(hr - hc)
			hl, hc = hc, hr
		case i+1 < len(g):
			hr := float64(g[i+1]) + float64(db[i+1])
			gx = byDx2.of(hr - hl)
			hl, hc = hc, hr
		default:
			gx = byDx1.of(hc - hl)
		}
		gz := byDz.of((float64(gU[i]) + float64(dbU[i])) - (float64(gD[i]) + float64(dbD[i])))
		g2 := gx*gx + gz*gz
		sinA := math.Sqrt(g2 / (1 + g2))
		c := capacity * max(sinA, minTilt) * float64(speed[i])
		sd := float64(sed[i])
		d := float64(db[i])
		// Where the capacity exceeds the load, erode·(C − s) is taken up, else deposit·(s − C)
		// laid down: both computed, one chosen by a conditional move (a branch would wait on
		// the capacity's division and square root, and guesses wrong often).
		aE, aD := kErode*(c-sd), kDeposit*(sd-c)
		up := c > sd
		dbNext[i] = float32(pick(up, d-aE, d+aD))
		sed[i] = float32(pick(up, sd+aE, sd-aD))
		wv := float64(water[i]) * keep
		if rainNext { // the next iteration's rain (s.rain)
			r := rain
			if jitter != 0 {
				u := float64(hash(seed, uint32(it), uint32(row+i))>>8) / (1 << 24) // [0, 1)
				r = rain * (1 + jitter*(2*u-1))
			}
			wv += r
		}
		water[i] = float32(wv)
	}
}
