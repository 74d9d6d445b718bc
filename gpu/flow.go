package gpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
)

// FlowKernel is field.Flow's GPU twin (flow_route.wgsl; docs/design.md "Flow", "The GPU twin"):
// the same receivers and weights, the area accumulated in waves in which ready cells pull their
// donors' area in neighbour order, in f32. Make one per device; Route routes one grid at a time.
type FlowKernel struct {
	dev *Device
	set *passSet
}

// The flow passes and their bindings (flow_route.wgsl).
const (
	fP      = 0
	fHeight = 1
	fRecv   = 2
	fDistA  = 3
	fDistB  = 4
	fWsum   = 5
	fAcc    = 6
	fOut    = 7
	fDone   = 8
	fCtl    = 9
	fPlane  = 10
)

var flowPasses = []kernelPass{
	{"flow_route", "classify", []uint32{fP, fHeight, fRecv, fDistA, fDistB, fDone}},
	{"flow_route", "flats", []uint32{fP, fHeight, fDistA, fDistB, fCtl}},
	{"flow_route", "flatReceivers", []uint32{fP, fHeight, fRecv, fDistA, fWsum}},
	{"flow_route", "route", []uint32{fP, fHeight, fRecv, fWsum, fAcc, fOut, fDone, fCtl}},
	{"flow_route", "routeTile", []uint32{fP, fHeight, fRecv, fWsum, fAcc, fOut, fDone, fCtl}},
	{"flow_route", "tick", []uint32{fCtl}},
	{"flow_route", "logPlane", []uint32{fP, fAcc, fPlane}},
}

// NewFlowKernel compiles the flow passes.
func (d *Device) NewFlowKernel() (*FlowKernel, error) {
	set, err := d.newPassSet("flow", flowPasses)
	if err != nil {
		return nil, err
	}
	return &FlowKernel{dev: d, set: set}, nil
}

// Release frees the pipelines. Safe on nil and twice.
func (k *FlowKernel) Release() {
	if k == nil {
		return
	}
	k.set.release()
	k.set = nil
}

// flowChunk is how many relaxation passes or accumulation waves run between two reads of the
// counters (one submission each; the waves after the last change nothing).
var flowChunk = 64

// flatChunk is how many of the flats' relaxation passes run between two reads of their flag.
const flatChunk = 16

// flowTiles routes with routeTile (waves inside a tile, many a dispatch) rather than route (one
// wave a dispatch); a test compares the two.
var flowTiles = true

// FlowStats say how a routing went: the flats' relaxation passes and the accumulation's
// dispatches (Waves: each one wave with route, up to 32 inside each tile with routeTile).
type FlowStats struct {
	FlatPasses, Waves int
}

// Route routes the flow over g (texels texel metres) on the device and returns the flow plane
// (log10 of the contributing area in m², as field.Flow) and how many passes it took. A grid
// whose planes a storage binding cannot hold is refused with ErrTooLarge (wrapped).
func (k *FlowKernel) Route(ctx context.Context, g *field.Grid, texel [2]float64) (*field.Grid, FlowStats, error) {
	var st FlowStats
	if k == nil || k.dev == nil || k.set == nil {
		return nil, st, errors.New("gpu: flow: no kernel (nil or released)")
	}
	if err := field.CheckFlow(g, texel); err != nil {
		return nil, st, err
	}
	w, h := g.W, g.H
	n := uint64(w * h)
	if lim := k.dev.Limits.MaxStorageBufferBindingSize; 4*n > lim {
		return nil, st, fmt.Errorf("gpu: flow: a %d×%d grid's planes need %d bytes each, the device binds at most %d: %w", w, h, 4*n, lim, ErrTooLarge)
	}
	r := k.set.newRun(w, h)
	defer r.release()
	var err error
	mk := func(label string, size uint64, usage wgpu.BufferUsage) *Buffer {
		if err != nil {
			return nil
		}
		var b *Buffer
		b, err = r.buffer("flow "+label, size, usage)
		return b
	}
	storage := wgpu.BufferUsageStorage
	params := mk("params", 48, wgpu.BufferUsageUniform)
	height := mk("height", 4*n, storage)
	recv := mk("receivers", 4*n, storage)
	dist := [2]*Buffer{mk("flat distance", 4*n, storage), mk("flat distance", 4*n, storage)}
	wsum := mk("weight sum", 4*n, storage)
	acc := mk("area", 4*n, storage)
	out := mk("area per weight", 4*n, storage)
	done := mk("done", 4*n, storage)
	ctl := mk("counters", 16, storage)
	plane := mk("plane", 4*n, storage)
	if err != nil {
		return nil, st, err
	}
	coef := field.FlowCoefficients(texel)
	head := u32bytes(uint32(w), uint32(h))
	head = append(head, f32bytes(float32(texel[0]*texel[1]), 0)...)
	for _, c := range coef {
		head = append(head, f32bytes(float32(c))...)
	}
	if err := params.Write(0, head); err != nil {
		return nil, st, err
	}
	if err := height.Write(0, f32bytes(g.Data...)); err != nil {
		return nil, st, err
	}
	all := map[uint32]*Buffer{fP: params, fHeight: height, fRecv: recv, fDistA: dist[0], fDistB: dist[1], fWsum: wsum,
		fAcc: acc, fOut: out, fDone: done, fCtl: ctl, fPlane: plane}
	pass := func(entry string, swap bool) (dispatch, error) {
		bufs := all
		if swap {
			bufs = map[uint32]*Buffer{}
			for b, buf := range all {
				bufs[b] = buf
			}
			bufs[fDistA], bufs[fDistB] = dist[1], dist[0]
		}
		bg, err := r.group(entry, bufs)
		return dispatch{entry: entry, bg: bg, one: entry == "tick"}, err
	}
	readCtl := func() ([4]uint32, error) {
		var c [4]uint32
		raw, err := k.dev.ReadBuffer(ctl, 0, 16)
		if err != nil {
			return c, err
		}
		for i := range c {
			c[i] = binary.LittleEndian.Uint32(raw[4*i:])
		}
		return c, nil
	}

	// 1. Lower neighbours; 2. the flats' distances, relaxed until a pass changes nothing.
	d, err := pass("classify", false)
	if err != nil {
		return nil, st, err
	}
	if err := r.submit("classify", []dispatch{d}); err != nil {
		return nil, st, err
	}
	cur := 0 // the distance buffer the next pass reads
	for {
		if err := ctx.Err(); err != nil {
			return nil, st, fmt.Errorf("gpu: flow: %w", err)
		}
		if err := ctl.Write(0, u32bytes(0, 0, 0, 0)); err != nil {
			return nil, st, err
		}
		// A chunk of passes, the buffers swapping; the flag says whether any changed a distance.
		// The chunk that changes nothing leaves both buffers holding the final distances.
		ds := make([]dispatch, 0, flatChunk)
		for range flatChunk {
			d, err := pass("flats", cur == 1)
			if err != nil {
				return nil, st, err
			}
			ds = append(ds, d)
			cur = 1 - cur
		}
		if err := r.submit("flats", ds); err != nil {
			return nil, st, err
		}
		st.FlatPasses += flatChunk
		c, err := readCtl()
		if err != nil {
			return nil, st, err
		}
		if c[2] == 0 {
			break
		}
	}
	// 3. Receivers of the flats, every cell's weight sum; 4. the waves.
	d, err = pass("flatReceivers", cur == 1)
	if err != nil {
		return nil, st, err
	}
	if err := r.submit("receivers", []dispatch{d}); err != nil {
		return nil, st, err
	}
	first := uint32(1) // route numbers waves from 1, routeTile dispatches from 0
	if flowTiles {
		first = 0
	}
	if err := ctl.Write(0, u32bytes(first, 0, 0, 0)); err != nil {
		return nil, st, err
	}
	entry := "route"
	if flowTiles {
		entry = "routeTile"
	}
	route, err := pass(entry, false)
	if err != nil {
		return nil, st, err
	}
	tick, err := pass("tick", false)
	if err != nil {
		return nil, st, err
	}
	chunk := make([]dispatch, 0, 2*flowChunk)
	for range flowChunk {
		chunk = append(chunk, route, tick)
	}
	var doneBefore uint32
	for {
		if err := ctx.Err(); err != nil {
			return nil, st, fmt.Errorf("gpu: flow: %w", err)
		}
		if err := r.submit("route", chunk); err != nil {
			return nil, st, err
		}
		c, err := readCtl()
		if err != nil {
			return nil, st, err
		}
		st.Waves = int(c[0] - first)
		if uint64(c[1]) == n {
			break
		}
		if c[1] == doneBefore {
			return nil, st, fmt.Errorf("field: flow: %d of %d cells were never routed (a cycle in the routing)", n-uint64(c[1]), n)
		}
		doneBefore = c[1]
	}
	d, err = pass("logPlane", false)
	if err != nil {
		return nil, st, err
	}
	if err := r.submit("plane", []dispatch{d}); err != nil {
		return nil, st, err
	}
	raw, err := k.dev.ReadBuffer(plane, 0, 4*n)
	if err != nil {
		return nil, st, err
	}
	res := field.NewGrid(w, h)
	for i := range res.Data {
		res.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return res, st, nil
}
