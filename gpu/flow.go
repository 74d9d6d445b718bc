package gpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
	"strata/internal/sysmem"
)

// FlowKernel is field.Flow's GPU twin (flow_route.wgsl; docs/design.md "Flow", "The GPU twin"):
// the same receivers and weights, the area accumulated by cells that pull their donors' area in
// neighbour order once their donors are done, in f32, scheduled over a worklist of tiles. Make
// one per device; Route routes one grid at a time.
type FlowKernel struct {
	dev   *Device
	set   *passSet
	shift uint // log2 of routeFront's tile side
	group int  // routeFront's threads a workgroup
	// run holds the last routing's buffers and bind groups, re-used by the next routing of a grid
	// the same size (six planes of 4 bytes a texel: 384 MiB at 4096²) until Release.
	run  *passRun
	bufs flowBuffers
	w, h int
	// up writes the height, rd reads the plane back; their staging buffers are kept too.
	up *Uploader
	rd *Reader
}

// flowBuffers are a routing's buffers. The planes used apart in time share a buffer: the flats'
// distances become the area and the area per weight once flatReceivers has read them, and the
// plane is written over the area per weight.
type flowBuffers struct {
	params, height, recv, wsum, acc, out, done, ctl, front, args *Buffer
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
	fFront  = 11
	fArgs   = 12
)

var flowPasses = []kernelPass{
	{"flow_route", "classify", []uint32{fP, fHeight, fRecv, fDistA, fDistB, fDone}},
	{"flow_route", "flats", []uint32{fP, fHeight, fDistA, fDistB, fCtl}},
	{"flow_route", "flatReceivers", []uint32{fP, fHeight, fRecv, fDistA, fWsum}},
	{"flow_route", "route", []uint32{fP, fHeight, fRecv, fWsum, fAcc, fOut, fDone, fCtl}},
	{"flow_route", "tick", []uint32{fCtl}},
	{"flow_route", "routeFront", []uint32{fP, fHeight, fRecv, fWsum, fAcc, fOut, fDone, fCtl, fFront}},
	{"flow_route", "frontTick", []uint32{fP, fCtl, fFront, fArgs}},
	{"flow_route", "logPlane", []uint32{fP, fAcc, fPlane}},
	{"flow_route", "clearFlag", []uint32{fCtl}},
}

// flowTileShift is log2 of the side of routeFront's tiles, as flow_route.wgsl declares it (16²:
// one cell a thread of 256; the tile and its ring in workgroup memory, 6 KiB). On the H200
// (BenchmarkFlowRoute, 4096², sweeps ≤ 16) 16² tiles accumulated in 31–44 ms, 32² in 42–53 ms:
// a step loads the whole of every tile it sweeps, and most of its cells are done already
// (docs/PERFORMANCE.md "flow50"); 64² tiles would need 75 KiB of workgroup memory.
const flowTileShift = 4

// flowTileStorage is the workgroup memory routeFront declares with tiles 2^shift texels a side:
// the tile and its ring of one cell (height, area per weight, receivers: 12 bytes a cell), the
// tile's weight sums (4), its counts, queue and donors (3.5 bytes a cell), 16 bytes of counters.
func flowTileStorage(shift uint) uint64 {
	side := uint64(1) << shift
	ring := (side + 2) * (side + 2)
	return 12*ring + 4*side*side + side*side/2 + 2*side*side + side*side + 16
}

// NewFlowKernel compiles the flow passes.
func (d *Device) NewFlowKernel() (*FlowKernel, error) {
	return d.newFlowKernel(flowTileShift, flowGroup)
}

// flowGroup is routeFront's threads a workgroup, as flow_route.wgsl declares it (groupSize).
const flowGroup = 256

// newFlowKernel compiles the flow passes with routeFront's tiles 2^shift texels a side (4 or 5;
// flowTileStorage must fit the device's workgroup memory) and group threads a tile (64, 128 or
// 256).
func (d *Device) newFlowKernel(shift uint, group int) (*FlowKernel, error) {
	if shift < 4 || shift > 5 {
		return nil, fmt.Errorf("gpu: flow: tile shift %d: want 4 or 5", shift)
	}
	if group != 64 && group != 128 && group != 256 {
		return nil, fmt.Errorf("gpu: flow: %d threads a tile: want 64, 128 or 256", group)
	}
	if need, lim := flowTileStorage(shift), uint64(d.Limits.MaxComputeWorkgroupStorageSize); need > lim {
		return nil, fmt.Errorf("gpu: flow: %d² tiles need %d bytes of workgroup memory, the device gives %d", 1<<shift, need, lim)
	}
	var edit func(string) (string, error) // the source as embedded declares flowTileShift, flowGroup
	if shift != flowTileShift || group != flowGroup {
		decls := [][2]string{
			{fmt.Sprintf("const tileShift: u32 = %du;", flowTileShift), fmt.Sprintf("const tileShift: u32 = %du;", shift)},
			{fmt.Sprintf("const groupSize: u32 = %du;", flowGroup), fmt.Sprintf("const groupSize: u32 = %du;", group)},
		}
		edit = func(src string) (string, error) {
			for _, d := range decls {
				if !strings.Contains(src, d[0]) {
					return "", errors.New("flow_route.wgsl declares no " + d[0])
				}
				src = strings.Replace(src, d[0], d[1], 1)
			}
			return src, nil
		}
	}
	set, err := d.newPassSetEdited("flow", flowPasses, edit)
	if err != nil {
		return nil, err
	}
	return &FlowKernel{dev: d, set: set, shift: shift, group: group}, nil
}

// Release frees the pipelines. Safe on nil and twice.
func (k *FlowKernel) Release() {
	if k == nil {
		return
	}
	k.dropRun()
	k.up.Release()
	k.rd.Release()
	k.up, k.rd = nil, nil
	k.set.release()
	k.set = nil
}

func (k *FlowKernel) dropRun() {
	if k.run != nil {
		k.run.release()
	}
	k.run, k.bufs, k.w, k.h = nil, flowBuffers{}, 0, 0
}

// buffers returns the buffers of a w×h routing (nt tiles in the larger tiling), those of the last
// routing when it was the same size.
func (k *FlowKernel) buffers(w, h int, nt uint64) (*passRun, flowBuffers, error) {
	if k.run != nil && k.w == w && k.h == h {
		return k.run, k.bufs, nil
	}
	k.dropRun()
	r := k.set.newRun(w, h)
	n := uint64(w * h)
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
	b := flowBuffers{
		params: mk("params", 48, wgpu.BufferUsageUniform),
		height: mk("height", 4*n, storage),
		recv:   mk("receivers", 4*n, storage),
		wsum:   mk("weight sum", 4*n, storage),
		acc:    mk("flat distance, then area", 4*n, storage),
		out:    mk("flat distance, then area per weight, then plane", 4*n, storage),
		done:   mk("done", 4*n, storage),
		ctl:    mk("counters", 16, storage),
		front:  mk("tile worklist", 4*(2+3*nt+frontSteps+1), storage),
		args:   mk("worklist dispatch", 32, storage|wgpu.BufferUsageIndirect),
	}
	if err != nil {
		r.release()
		return nil, flowBuffers{}, err
	}
	k.run, k.bufs, k.w, k.h = r, b, w, h
	return r, b, nil
}

// flowChunk is how many relaxation passes or accumulation waves run between two reads of the
// counters with route (one submission each; the waves after the last change nothing).
var flowChunk = 64

// frontChunk is how many routeFront steps the first submission runs before the host reads the
// counters; each further submission runs twice as many, up to frontChunkMax (both even: the
// steps alternate their lists). Steps after the last dispatch no workgroup (a few µs each), a
// read of the counters is a round trip.
var frontChunk, frontChunkMax = 64, 256

// flowSweep is the most sub-waves routeFront sweeps a tile in one step (0: as far as it goes).
// The steps are bulk-synchronous, each as long as its longest sweep, so unlimited sweeps add up
// every step's longest chain: on bench erode's 512² ground, 1754 sub-waves on the critical path
// unlimited, 552 with 16 (and 35 steps instead of 13), 493 with 8, 464 with 4 (lavapipe).
var flowSweep = 16

// frontSteps is how many steps' sweep lengths routeFront records (FlowStats.SubWaves).
const frontSteps = 4096

// flatChunk is how many of the flats' relaxation passes the first chunk runs before the host
// reads their flag (which says whether the chunk's last pass changed a distance); each further
// chunk runs twice as many, up to flatChunkMax. A pass over a 4096² grid costs ~70 µs on the
// H200, a read of the flag a round trip.
const (
	flatChunk    = 8
	flatChunkMax = 64
)

// flowReadPieces is how many bands of rows the plane is read back in (each its own staging
// buffer and map), so that copying one out on the host overlaps the device's copy of the next.
var flowReadPieces = 4

// flowTiles routes with routeFront (a worklist of tiles, each swept as far as it goes) rather than
// route (one wave over the grid a dispatch); a test compares the two.
var flowTiles = true

// FlowStats say how a routing went: the flats' relaxation passes, the accumulation's dispatches
// (Waves: each one wave over the grid with route, one step of the tile worklist with
// routeFront), and where the time went, each phase up to a point where the host waited for the
// device: Prepare (buffers, the height's upload and the classification recorded), Flats (the
// flats' distances converged), Accumulate (receivers, every cell done), Read (the plane computed
// and read back).
type FlowStats struct {
	FlatPasses, Waves int
	// SubWaves is routeFront's critical path: over the steps, the sum of the longest sweep of a
	// tile (sub-waves, each a barrier-separated round of gathers; the first 4096 steps).
	SubWaves int
	// Tiles is how many tiles routeFront's steps swept in all (step 1: every tile).
	Tiles int

	Prepare, Flats, Accumulate, Read time.Duration
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
	t0 := time.Now()
	lap := func(d *time.Duration) {
		now := time.Now()
		*d = now.Sub(t0)
		t0 = now
	}
	w, h := g.W, g.H
	n := uint64(w * h)
	if lim := k.dev.Limits.MaxStorageBufferBindingSize; 4*n > lim {
		return nil, st, fmt.Errorf("gpu: flow: a %d×%d grid's planes need %d bytes each, the device binds at most %d: %w", w, h, 4*n, lim, ErrTooLarge)
	}
	// routeFront's tilings: nt0 tiles from (0, 0) (odd steps), nt of them shifted half a tile
	// (even steps; the larger count, what the worklist is sized for).
	side := 1 << k.shift
	nt0 := uint64((w+side-1)/side) * uint64((h+side-1)/side)
	nt := uint64((w+side/2+side-1)/side) * uint64((h+side/2+side-1)/side)
	r, b, err := k.buffers(w, h, nt)
	if err != nil {
		return nil, st, err
	}
	params, height, recv, wsum, acc, out, done, ctl, front, args := b.params, b.height, b.recv, b.wsum, b.acc, b.out, b.done, b.ctl, b.front, b.args
	dist := [2]*Buffer{acc, out}
	plane := out
	coef := field.FlowCoefficients(texel)
	head := u32bytes(uint32(w), uint32(h))
	head = append(head, f32bytes(float32(texel[0]*texel[1]))...)
	head = append(head, u32bytes(uint32(flowSweep))...)
	for _, c := range coef {
		head = append(head, f32bytes(float32(c))...)
	}
	if err := params.Write(0, head); err != nil {
		return nil, st, err
	}
	// The height through an Uploader: copied into mapped staging buffers on every core
	// (Queue.WriteBuffer copies on one, about 1.3 GB/s on the H200: 50 ms at 4096²).
	if k.up == nil {
		k.up = k.dev.NewUploader("flow height", 4)
	}
	var sc scratch
	if err := k.up.Write(height, 0, sc.floats(g.Data)); err != nil {
		return nil, st, err
	}
	all := map[uint32]*Buffer{fP: params, fHeight: height, fRecv: recv, fDistA: dist[0], fDistB: dist[1], fWsum: wsum,
		fAcc: acc, fOut: out, fDone: done, fCtl: ctl, fPlane: plane, fFront: front, fArgs: args}
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
		return dispatch{entry: entry, bg: bg, one: entry == "tick" || entry == "frontTick" || entry == "clearFlag"}, err
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
	lap(&st.Prepare)
	cur := 0 // the distance buffer the next pass reads
	clear, err := pass("clearFlag", false)
	if err != nil {
		return nil, st, err
	}
	for passes := flatChunk; ; passes = min(2*passes, flatChunkMax) {
		if err := ctx.Err(); err != nil {
			return nil, st, fmt.Errorf("gpu: flow: %w", err)
		}
		// A chunk of passes, the buffers swapping; the flag, cleared before the last, says whether
		// that pass changed a distance. A pass that changes nothing leaves both buffers holding the
		// final distances (a fixed point of the relaxation).
		ds := make([]dispatch, 0, passes+1)
		for p := range passes {
			if p == passes-1 {
				ds = append(ds, clear)
			}
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
		st.FlatPasses += passes
		c, err := readCtl()
		if err != nil {
			return nil, st, err
		}
		if c[2] == 0 {
			break
		}
	}
	lap(&st.Flats)
	// The plane's grid, allocated and its pages faulted in on other goroutines while the device
	// accumulates: fresh memory's page faults cost the read back 5–10 ms at 4096², and an
	// allocation that re-uses freed memory zeroes its 64 MiB — not on this goroutine, which must
	// submit the accumulation (the H200's second flow50 run allocated it here, ahead of the
	// submissions: its accumulation took ~10–20 ms longer than the first run's).
	var res *field.Grid
	var resErr error
	var touched sync.WaitGroup
	touched.Add(1)
	go func() {
		defer touched.Done()
		if res, resErr = field.NewPlaneLike(w, h, g); resErr == nil { // on disk with the height it is routed over
			touchPages(res.Data)
		}
	}()
	defer touched.Wait() // an early return leaves no goroutine writing into res
	// 3. Receivers of the flats, every cell's weight sum; 4. the accumulation.
	d, err = pass("flatReceivers", cur == 1)
	if err != nil {
		return nil, st, err
	}
	if err := r.submit("receivers", []dispatch{d}); err != nil {
		return nil, st, err
	}
	var chunk []dispatch
	if flowTiles {
		// Step 1's list is every tile of its tiling; ctl[0] is the step's stamp.
		if err := ctl.Write(0, u32bytes(1, 0, 0, 0)); err != nil {
			return nil, st, err
		}
		init := make([]uint32, 2+3*nt+frontSteps+1)
		init[0] = uint32(nt0)
		for t := range nt0 {
			init[2+nt+t] = uint32(t)
		}
		if err := front.Write(0, u32bytes(init...)); err != nil {
			return nil, st, err
		}
		const row = 32768 // frontRow
		if err := args.Write(0, u32bytes(uint32(min(nt0, row)), uint32((nt0+row-1)/row), 1, 0)); err != nil {
			return nil, st, err
		}
		step, err := pass("routeFront", false)
		if err != nil {
			return nil, st, err
		}
		tick, err := pass("frontTick", false)
		if err != nil {
			return nil, st, err
		}
		for i := range frontChunkMax + frontChunkMax&1 { // even: each chunk starts on an odd step
			// Step s reads the list (s−1)&1, whose arguments are at 16·((s−1)&1).
			s := step
			s.indirect, s.offset = args, uint64(16*(i&1))
			chunk = append(chunk, s, tick)
		}
	} else {
		if err := ctl.Write(0, u32bytes(1, 0, 0, 0)); err != nil {
			return nil, st, err
		}
		route, err := pass("route", false)
		if err != nil {
			return nil, st, err
		}
		tick, err := pass("tick", false)
		if err != nil {
			return nil, st, err
		}
		for range flowChunk {
			chunk = append(chunk, route, tick)
		}
	}
	sub := len(chunk) // the dispatches of the next submission
	if flowTiles {
		sub = min(2*(frontChunk+frontChunk&1), len(chunk))
	}
	var doneBefore uint32
	for {
		if err := ctx.Err(); err != nil {
			return nil, st, fmt.Errorf("gpu: flow: %w", err)
		}
		if err := r.submit("route", chunk[:sub]); err != nil {
			return nil, st, err
		}
		sub = min(2*sub, len(chunk))
		c, err := readCtl()
		if err != nil {
			return nil, st, err
		}
		st.Waves = int(c[0] - 1)
		if flowTiles {
			st.Waves = int(c[3]) // the last step that completed a cell
		}
		if uint64(c[1]) == n {
			break
		}
		if c[1] == doneBefore {
			return nil, st, fmt.Errorf("field: flow: %d of %d cells were never routed (a cycle in the routing)", n-uint64(c[1]), n)
		}
		doneBefore = c[1]
	}
	lap(&st.Accumulate)
	if flowTiles {
		raw, err := k.dev.ReadBuffer(front, 4*(2+3*nt), 4*(frontSteps+1))
		if err != nil {
			return nil, st, err
		}
		for i := range frontSteps {
			st.SubWaves += int(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		st.Tiles = int(nt0) + int(binary.LittleEndian.Uint32(raw[4*frontSteps:]))
	}
	d, err = pass("logPlane", false)
	if err != nil {
		return nil, st, err
	}
	if err := r.submit("plane", []dispatch{d}); err != nil {
		return nil, st, err
	}
	touched.Wait()
	if resErr != nil {
		return nil, st, fmt.Errorf("gpu: flow: %w", resErr)
	}
	// A Reader copies the rows out of the staging buffer on every core: the grid is fresh memory,
	// whose page faults one core alone cannot keep up with (64 MiB at 4096²).
	// The plane in flowReadPieces bands of rows, each its own staging buffer: the host copies a
	// band out while the device copies the next ones.
	if k.rd == nil {
		k.rd = k.dev.NewReader("flow plane", flowReadPieces)
	}
	rd := k.rd
	dst := unsafe.Slice((*byte)(unsafe.Pointer(&res.Data[0])), 4*n)
	row := 4 * uint64(w)
	pieces := uint64(min(flowReadPieces, h))
	for p := range pieces {
		y0, y1 := uint64(h)*p/pieces, uint64(h)*(p+1)/pieces
		if err := rd.BufferRowsInto(plane, y0*row, y1-y0, row, dst[y0*row:], row); err != nil {
			return nil, st, err
		}
	}
	if err := rd.Flush(); err != nil {
		return nil, st, err
	}
	if !littleEndian { // the buffer holds little-endian f32
		raw := unsafe.Slice((*byte)(unsafe.Pointer(&res.Data[0])), 4*n)
		for i := range res.Data {
			res.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	lap(&st.Read)
	return res, st, nil
}

// touchPages faults every page of data in (sysmem.Populate: nothing written, nothing on a plane on
// disk), on all cores but one, so that the page faults of fresh memory are taken now rather than
// while something waits for them.
func touchPages(data []float32) {
	const page = 1024 // float32s in 4 KiB
	workers := max(1, runtime.GOMAXPROCS(0)-1)
	workers = min(workers, max(1, len(data)/(256*page))) // shares of at least 1 MiB
	var wg sync.WaitGroup
	for k := range workers {
		lo, hi := len(data)*k/workers, len(data)*(k+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			sysmem.Populate(unsafe.Slice((*byte)(unsafe.Pointer(&data[lo])), 4*(hi-lo))) // not a plane on disk
		}()
	}
	wg.Wait()
}
