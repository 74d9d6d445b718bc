package gpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/erode"
	"strata/field"
	"strata/progress"
)

// ErodeKernel is package erode's GPU twin: erode_hydraulic.wgsl and erode_thermal.wgsl, one
// pipeline per pass, each the twin of the Go pass of the same name (docs/design.md "Erosion",
// "The GPU twin"). Make one per device (NewErodeKernel); Run erodes one grid at a time.
type ErodeKernel struct {
	dev *Device
	set *passSet
}

// The erosion passes: the file each lives in and the bindings its entry point uses.
var erodePasses = []kernelPass{
	{"erode_hydraulic", "rainPass", []uint32{bP, bIter, bWater}},
	{"erode_hydraulic", "fluxRow", []uint32{bP, bGround, bDb, bWater, bSed, bFlux, bConc}},
	{"erode_hydraulic", "waterRow", []uint32{bP, bWater, bSed, bWaterNext, bSedNext, bFlux, bConc, bSpeed, bFlowAcc}},
	{"erode_hydraulic", "erodeRow", []uint32{bP, bIter, bGround, bDb, bDbNext, bWater, bSed, bSpeed}},
	{"erode_hydraulic", "layDown", []uint32{bP, bDb, bSed}},
	{"erode_thermal", "hgtRefresh", []uint32{bP, bGround, bDbNext, bHgt}},
	{"erode_thermal", "thermalOutRow", []uint32{bP, bConc, bHgt, bExcess, bTalus, bCtl, bTileA, bTileB, bTileQ}},
	{"erode_thermal", "thermalInRow", []uint32{bP, bGround, bDbNext, bConc, bHgt, bHgtNext, bExcess, bTalus, bCtl, bTileQ}},
	{"erode_thermal", "tilePlanOut", []uint32{bTalus, bTileA, bTileB, bTileQ}},
	{"erode_thermal", "tilePlanIn", []uint32{bTalus, bTileA, bTileB, bTileQ}},
	{"erode_thermal", "settleTick", []uint32{bCtl}},
	{"erode_thermal", "steep", []uint32{bP, bGround, bDbNext, bTalus, bCtl}},
}

// The bindings of the erosion shaders (erode_common.wgsl and the two kernels' declarations). In
// erode_thermal.wgsl binding 4 (bDbNext) is the ground's change the thermal passes read and
// update in place, binding 10 (bConc) the material each texel sheds.
const (
	bP         = 0
	bIter      = 1
	bGround    = 2
	bDb        = 3
	bDbNext    = 4
	bWater     = 5
	bSed       = 6
	bWaterNext = 7
	bSedNext   = 8
	bFlux      = 9
	bConc      = 10
	bSpeed     = 11
	bFlowAcc   = 12
	bHgt       = 13
	bHgtNext   = 14
	bExcess    = 15
	bTalus     = 16
	bCtl       = 17
	bTileA     = 18
	bTileB     = 19
	bTileQ     = 20
)

// NewErodeKernel compiles the erosion passes.
func (d *Device) NewErodeKernel() (*ErodeKernel, error) {
	set, err := d.newPassSet("erode", erodePasses)
	if err != nil {
		return nil, err
	}
	return &ErodeKernel{dev: d, set: set}, nil
}

// Release frees the pipelines. Safe on nil and twice.
func (k *ErodeKernel) Release() {
	if k == nil {
		return
	}
	k.set.release()
	k.set = nil
}

// erodeState is one Run's buffers and bind groups.
type erodeState struct {
	*passRun
	k            *ErodeKernel
	w, h         int
	params, iter *Buffer
	talusH       *Buffer // the hydraulic iterations' thermal step
	talusS       *Buffer // the settle's
	ground       *Buffer
	db           [2]*Buffer
	water, sed   [2]*Buffer
	flux         *Buffer
	conc, speed  *Buffer
	flowAcc      *Buffer
	hgt          [2]*Buffer
	excess, ctl  *Buffer
	// tile: the settle's per-tile flags, the last step's and this one's in turn; tileQ: what a
	// step skips (erode_thermal.wgsl).
	tile           [2]*Buffer
	tileQ          *Buffer
	tilesX, tilesY int
}

// skipQuietTiles lets the settle's steps skip quiet tiles (erode_thermal.wgsl); a test turns it
// off to check that the skip changes no byte.
var skipQuietTiles = true

// settleChunk is how many settle steps run between two reads of the settle's flags.
const settleChunk = 16

// Run erodes g (texels texel metres) on the device with o's parameters and seed: the twin of
// erode.Run, pass for pass, in f32 (docs/design.md "Erosion", "The GPU twin": what differs from
// the Go reference and by how much). The same input gives the same bytes on one device. A grid
// whose planes a storage binding cannot hold is refused with ErrTooLarge (wrapped).
func (k *ErodeKernel) Run(ctx context.Context, g *field.Grid, texel [2]float64, o erode.Options) (*erode.Result, error) {
	if k == nil || k.dev == nil || k.set == nil {
		return nil, errors.New("gpu: erode: no kernel (nil or released)")
	}
	if err := erode.Check(g, texel, o.Params); err != nil {
		return nil, err
	}
	w, h := g.W, g.H
	n := w * h
	if lim := k.dev.Limits.MaxStorageBufferBindingSize; uint64(n)*16 > lim {
		return nil, fmt.Errorf("gpu: erode: a %d×%d grid's flux plane needs %d bytes, the device binds at most %d: %w", w, h, uint64(n)*16, lim, ErrTooLarge)
	}
	report := o.Progress
	if report == nil {
		report = progress.Nop
	}
	p := o.Params
	s := &erodeState{passRun: k.set.newRun(w, h), k: k, w: w, h: h}
	defer s.release()
	if err := s.allocate(g, texel, o); err != nil {
		return nil, err
	}
	thermal := p.Talus > 0 && p.ThermalRate > 0
	hgtStale := true
	hc := 0 // the current hgt
	report(erode.Stage, 0, p.Iterations)
	for it := range p.Iterations {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("erode: %w", err)
		}
		c := it % 2 // water, sed and db swap once per iteration
		var iter [16]byte
		binary.LittleEndian.PutUint32(iter[0:], uint32(it))
		binary.LittleEndian.PutUint32(iter[4:], b2u(p.Raining(it)))
		binary.LittleEndian.PutUint32(iter[8:], b2u(it+1 < p.Iterations && p.Raining(it+1)))
		if err := s.iter.Write(0, iter[:]); err != nil {
			return nil, err
		}
		var ds []dispatch
		add := func(entry string, bufs map[uint32]*Buffer) error {
			bg, err := s.group(entry, bufs)
			ds = append(ds, dispatch{entry: entry, bg: bg})
			return err
		}
		if it == 0 && p.Raining(0) {
			if err := add("rainPass", map[uint32]*Buffer{bP: s.params, bIter: s.iter, bWater: s.water[c]}); err != nil {
				return nil, err
			}
		}
		if err := add("fluxRow", map[uint32]*Buffer{bP: s.params, bGround: s.ground, bDb: s.db[c], bWater: s.water[c],
			bSed: s.sed[c], bFlux: s.flux, bConc: s.conc}); err != nil {
			return nil, err
		}
		if err := add("waterRow", map[uint32]*Buffer{bP: s.params, bWater: s.water[c], bSed: s.sed[c], bWaterNext: s.water[1-c],
			bSedNext: s.sed[1-c], bFlux: s.flux, bConc: s.conc, bSpeed: s.speed, bFlowAcc: s.flowAcc}); err != nil {
			return nil, err
		}
		if err := add("erodeRow", map[uint32]*Buffer{bP: s.params, bIter: s.iter, bGround: s.ground, bDb: s.db[c],
			bDbNext: s.db[1-c], bWater: s.water[1-c], bSed: s.sed[1-c], bSpeed: s.speed}); err != nil {
			return nil, err
		}
		if thermal {
			if hgtStale {
				if err := add("hgtRefresh", map[uint32]*Buffer{bP: s.params, bGround: s.ground, bDbNext: s.db[c], bHgt: s.hgt[hc]}); err != nil {
					return nil, err
				}
				hgtStale = false
			}
			if err := s.thermalStep(add, s.talusH, s.db[1-c], hc, false); err != nil {
				return nil, err
			}
			hc = 1 - hc
		}
		if err := s.submit("iteration", ds); err != nil {
			return nil, err
		}
		// Each iteration is waited for: its progress is then true, a cancel takes effect within
		// one iteration, and the queue holds one iteration's work (a wait costs tens of µs).
		k.dev.Wait()
		report(erode.Stage, it+1, p.Iterations)
	}
	c := p.Iterations % 2
	bg, err := s.group("layDown", map[uint32]*Buffer{bP: s.params, bDb: s.db[c], bSed: s.sed[c]})
	if err != nil {
		return nil, err
	}
	if err := s.submit("lay down", []dispatch{{entry: "layDown", bg: bg}}); err != nil {
		return nil, err
	}
	st := erode.Stats{Iterations: p.Iterations}
	if p.Talus > 0 && p.SettleIterations > 0 {
		report(erode.StageSettle, 0, p.SettleIterations)
		done, settled, err := s.settle(ctx, p, s.db[c], func(k int) { report(erode.StageSettle, k, p.SettleIterations) })
		if err != nil {
			return nil, err
		}
		report(erode.StageSettle, p.SettleIterations, p.SettleIterations)
		st.SettleIterations, st.Settled = done, settled
	}
	db, err := s.readPlane(s.db[c])
	if err != nil {
		return nil, err
	}
	acc, err := s.readPlane(s.flowAcc)
	if err != nil {
		return nil, err
	}
	return erode.Assemble(ctx, g, texel, db, acc, st, o.Workers)
}

// thermalStep adds a thermal step's two passes over change db, reading hgt[hc] and writing
// hgt[1-hc].
// With the settle's talus (plan), the steps skip quiet tiles: tilePlanOut and tilePlanIn decide
// which before each pass, from the tile flags tile[hc] (the last step's) and tile[1-hc] (this
// step's).
func (s *erodeState) thermalStep(add func(string, map[uint32]*Buffer) error, talus, db *Buffer, hc int, plan bool) error {
	tiles := map[uint32]*Buffer{bTalus: talus, bTileA: s.tile[hc], bTileB: s.tile[1-hc], bTileQ: s.tileQ}
	if plan {
		if err := add("tilePlanOut", tiles); err != nil {
			return err
		}
	}
	if err := add("thermalOutRow", map[uint32]*Buffer{bP: s.params, bConc: s.conc, bHgt: s.hgt[hc], bExcess: s.excess,
		bTalus: talus, bCtl: s.ctl, bTileA: s.tile[hc], bTileB: s.tile[1-hc], bTileQ: s.tileQ}); err != nil {
		return err
	}
	if plan {
		if err := add("tilePlanIn", tiles); err != nil {
			return err
		}
	}
	return add("thermalInRow", map[uint32]*Buffer{bP: s.params, bGround: s.ground, bDbNext: db, bConc: s.conc,
		bHgt: s.hgt[hc], bHgtNext: s.hgt[1-hc], bExcess: s.excess, bTalus: talus, bCtl: s.ctl, bTileQ: s.tileQ})
}

// settle is sim.settle on the device: steps in chunks of settleChunk, each step's "too steep"
// flag kept on the device (settleTick), the flags read once a chunk. It returns the steps done
// (as Go counts them) and whether the ground settled.
func (s *erodeState) settle(ctx context.Context, p erode.Params, db *Buffer, step func(k int)) (int, bool, error) {
	if err := s.ctl.Write(0, u32bytes(1, 0, 0, 0, 0, 0, 0, 0)); err != nil {
		return 0, false, err
	}
	hc := 0
	var ds []dispatch
	add := func(entry string, bufs map[uint32]*Buffer) error {
		bg, err := s.group(entry, bufs)
		ds = append(ds, dispatch{entry: entry, bg: bg, one: entry == "settleTick", tiles: entry == "tilePlanOut" || entry == "tilePlanIn"})
		return err
	}
	// Every tile "shed" before the first step: it computes everything.
	ones := make([]uint32, s.tilesX*s.tilesY)
	for i := range ones {
		ones[i] = 1
	}
	if err := s.tile[0].Write(0, u32bytes(ones...)); err != nil {
		return 0, false, err
	}
	if err := add("hgtRefresh", map[uint32]*Buffer{bP: s.params, bGround: s.ground, bDbNext: db, bHgt: s.hgt[0]}); err != nil {
		return 0, false, err
	}
	for k := 0; k < p.SettleIterations; {
		if err := ctx.Err(); err != nil {
			return k, false, fmt.Errorf("erode: %w", err)
		}
		n := min(settleChunk, p.SettleIterations-k)
		for range n {
			if err := s.thermalStep(add, s.talusS, db, hc, skipQuietTiles); err != nil {
				return k, false, err
			}
			if err := add("settleTick", map[uint32]*Buffer{bCtl: s.ctl}); err != nil {
				return k, false, err
			}
			hc = 1 - hc
		}
		if err := s.submit("settle", ds); err != nil {
			return k, false, err
		}
		ds = ds[:0]
		k += n
		ctl, err := s.k.dev.ReadBuffer(s.ctl, 0, 32)
		if err != nil {
			return k, false, err
		}
		if binary.LittleEndian.Uint32(ctl[0:]) == 0 { // ended: no slope too steep at that step
			return int(binary.LittleEndian.Uint32(ctl[12:])), true, nil
		}
		step(k)
	}
	// Every step found a slope too steep: is one still?
	bg, err := s.group("steep", map[uint32]*Buffer{bP: s.params, bGround: s.ground, bDbNext: db, bTalus: s.talusS, bCtl: s.ctl})
	if err != nil {
		return p.SettleIterations, false, err
	}
	if err := s.submit("steep", []dispatch{{entry: "steep", bg: bg}}); err != nil {
		return p.SettleIterations, false, err
	}
	ctl, err := s.k.dev.ReadBuffer(s.ctl, 0, 32)
	if err != nil {
		return p.SettleIterations, false, err
	}
	return p.SettleIterations, binary.LittleEndian.Uint32(ctl[16:]) == 0, nil
}

// allocate makes the run's buffers and writes the ground (f32(height / L)) and the constants.
func (s *erodeState) allocate(g *field.Grid, texel [2]float64, o erode.Options) error {
	n := uint64(s.w * s.h)
	storage := wgpu.BufferUsageStorage
	uniform := wgpu.BufferUsageUniform
	var err error
	mk := func(label string, size uint64, usage wgpu.BufferUsage) *Buffer {
		if err != nil {
			return nil
		}
		var b *Buffer
		b, err = s.buffer("erode "+label, size, usage)
		return b
	}
	s.params = mk("params", 64, uniform)
	s.iter = mk("iteration", 16, uniform)
	s.talusH = mk("talus (iterations)", 80, uniform)
	s.talusS = mk("talus (settle)", 80, uniform)
	s.ground = mk("ground", 4*n, storage)
	for i := range 2 {
		s.db[i] = mk("change", 4*n, storage)
		s.water[i] = mk("water", 4*n, storage)
		s.sed[i] = mk("sediment", 4*n, storage)
		s.hgt[i] = mk("ground f32", 4*n, storage)
	}
	s.flux = mk("flux", 16*n, storage)
	s.conc = mk("load", 4*n, storage)
	s.speed = mk("speed", 4*n, storage)
	s.flowAcc = mk("flow", 4*n, storage)
	s.excess = mk("excess", 4*n, storage)
	s.ctl = mk("settle flags", 32, storage)
	s.tilesX, s.tilesY = (s.w+15)/16, (s.h+15)/16
	nt := uint64(s.tilesX * s.tilesY)
	s.tile = [2]*Buffer{mk("settle tiles", 4*nt, storage), mk("settle tiles", 4*nt, storage)}
	s.tileQ = mk("settle skips", 4*nt, storage)
	if err != nil {
		return err
	}
	L, px, pz := erode.Geometry(texel)
	p := o.Params
	ground := make([]float32, n)
	for k, v := range g.Data {
		ground[k] = float32(float64(v) / L)
	}
	if err := s.ground.Write(0, f32bytes(ground...)); err != nil {
		return err
	}
	dt := p.TimeStep
	head := u32bytes(uint32(s.w), uint32(s.h), o.Seed, 0)
	head = append(head, f32bytes(float32(dt), float32(dt*pz/px), float32(dt*px/pz), float32(px),
		float32(pz), float32(p.Rain), float32(p.RainJitter), float32(p.Capacity),
		float32(p.MinTilt), float32(p.Erosion), float32(p.Deposition), float32(p.Evaporation))...)
	if err := s.params.Write(0, head); err != nil {
		return err
	}
	var skip bool
	talus := func(b *Buffer, tol, rate float64) error {
		lim, limTol := erode.TalusDrops(texel, p.Talus, tol)
		data := append(f32bytes(lim[:]...), f32bytes(limTol[:]...)...)
		data = append(data, f32bytes(float32(rate))...)
		data = append(data, u32bytes(b2u(skip), uint32(s.tilesX), uint32(s.tilesY))...)
		return b.Write(0, data)
	}
	skip = false
	if err := talus(s.talusH, -1, p.ThermalRate); err != nil {
		return err
	}
	skip = skipQuietTiles
	if err := talus(s.talusS, p.SettleTolerance, erode.SettleRate); err != nil {
		return err
	}
	return s.ctl.Write(0, u32bytes(1, 0, 0, 0, 0, 0, 0, 0))
}

// readPlane reads one f32 plane back.
func (s *erodeState) readPlane(b *Buffer) ([]float32, error) {
	raw, err := s.k.dev.ReadBuffer(b, 0, uint64(4*s.w*s.h))
	if err != nil {
		return nil, err
	}
	out := make([]float32, s.w*s.h)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out, nil
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func u32bytes(v ...uint32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], x)
	}
	return out
}

func f32bytes(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}
