package field

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"

	"strata/internal/pool"
	"strata/internal/sysmem"
)

// FlowChannel is the name under which rules read the flow plane through a channel slot
// (stack.Stack.Channels lists it like a stored channel). It is not a name a stored channel may
// have (CheckChannelName refuses '@'), so it can never clash with one: the plane is derived from
// the height, never stored in Field.Channels nor in a container.
const FlowChannel = "@flow"

// flowBytesPerCell is what Flow allocates per height texel: the lower-neighbour mask and the
// donor count (1 byte each), the flat distance and the queue (int32), the area accumulator
// (float64) and the plane written (float32).
const flowBytesPerCell = 1 + 1 + 4 + 4 + 8 + 4

// Flow routes the upslope contributing area over the height grid g, whose texels are texel
// metres along X and Z, and returns the flow plane: at every texel log10 of the area in m² that
// drains through it, its own cell included (so the smallest value is log10(texel X · texel Z)).
//
// The scheme (docs/design.md "Flow") is Quinn et al. (1991) multiple flow direction over the 8
// neighbours: a cell hands its area to every strictly lower neighbour k in proportion to
// tanβ_k·L_k, tanβ_k = (h − h_k)/d_k with d_k the centre distance from the texel sizes and L_k
// the contour length (half the cell's side across a cardinal step, a quarter of the diagonal for
// a diagonal one). A cell with no lower neighbour on a flat (equal-height neighbours) that
// reaches lower ground through the flat hands its area, in the same geometric proportions, to
// its equal-height neighbours one step nearer (8-connected) to that lower ground; a pit (no lower
// neighbour, no way out through a flat) keeps its area. The field's edge is a wall: nothing flows
// out of it. A non-finite height is a wall too (neither routes nor receives).
//
// Cells are taken in a topological order of that routing (a cell once every donor has handed it
// its area: depth first from each donorless cell, those in index order), a fixed order, so the
// result is the same bytes on every run and machine. The classification passes and
// the final plane run on every core; the routing itself is one sequential sweep (docs/PERFORMANCE.md).
func Flow(ctx context.Context, g *Grid, texel [2]float64) (*Grid, error) {
	if err := CheckFlow(g, texel); err != nil {
		return nil, err
	}
	dx, dz := texel[0], texel[1]
	w, h := g.W, g.H
	n := w * h
	need := uint64(flowBytesPerCell)
	if g.OnDisk() {
		need -= 4 // the plane written is on disk with the height
	}
	if err := sysmem.Check(uint64(n)*need, fmt.Sprintf("routing flow over a %d×%d height grid", w, h)); err != nil {
		return nil, fmt.Errorf("field: flow: %w", err)
	}
	r := flowRouter{g: g, w: w, h: h}
	r.geometry(dx, dz)
	r.low = make([]uint8, n)
	r.dist = make([]int32, n)
	if err := r.rows(ctx, r.classify); err != nil {
		return nil, err
	}
	queue := make([]int32, n)
	r.flats(queue)
	if err := r.rows(ctx, r.flatReceivers); err != nil {
		return nil, err
	}
	r.dist = nil
	r.indeg = make([]uint8, n)
	if err := r.rows(ctx, r.donors); err != nil {
		return nil, err
	}
	acc := make([]float64, n)
	if err := r.route(ctx, queue, acc, dx*dz); err != nil {
		return nil, err
	}
	out, err := NewPlaneLike(w, h, g) // on disk with the height it is routed over
	if err != nil {
		return nil, fmt.Errorf("field: flow: %w", err)
	}
	err = r.rows(ctx, func(j int) {
		for k := j * w; k < (j+1)*w; k++ {
			out.Data[k] = float32(math.Log10(acc[k]))
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// flowRouter holds one Flow call's grids.
type flowRouter struct {
	g     *Grid
	w, h  int
	off   [8][2]int  // neighbour k is (i+off[k][0], j+off[k][1])
	coef  [8]float64 // a drop of 1 m to neighbour k weighs coef[k] (geometry)
	low   []uint8    // bit k: neighbour k exists and is strictly lower (both finite); later: a receiver
	dist  []int32    // 0: has a lower neighbour; d > 0: d steps over a flat to one; -1: none
	indeg []uint8    // donors not yet taken (the sweep counts them down)
}

// geometry fills the neighbour offsets and the weights' geometric factors. On square texels they
// are Quinn's L/d: ½ for a cardinal step, ¼ for a diagonal one (L = ½ side or ¼ diagonal, d the
// step). On rectangular texels (r = texelZ/texelX ≠ 1) the diagonal's is min(r, 1/r)/4 and a
// cardinal step's r − 2·diag (along X) or 1/r − 2·diag (along Z): the choice that keeps, on any
// plane, the mean direction in which area is handed on the plane's steepest descent, as Quinn's
// factors do on square texels (docs/design.md "Flow" derives it); all three stay positive.
func (r *flowRouter) geometry(dx, dz float64) {
	r.off = flowOffsets
	r.coef = FlowCoefficients([2]float64{dx, dz})
}

// flowOffsets are the 8 neighbours in Flow's order: neighbour 7−k of a cell's neighbour k is the
// cell.
var flowOffsets = [8][2]int{{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}}

// FlowCoefficients are Flow's geometric factors for texels texel metres along X and Z, one per
// neighbour in the order (-1,-1), (0,-1), (1,-1), (-1,0), (1,0), (-1,1), (0,1), (1,1): what the
// GPU twin weighs receivers with.
func FlowCoefficients(texel [2]float64) [8]float64 {
	var coef [8]float64
	q := texel[1] / texel[0]
	diag := min(q, 1/q) / 4
	for k, o := range flowOffsets {
		switch {
		case o[0] != 0 && o[1] != 0:
			coef[k] = diag
		case o[0] != 0:
			coef[k] = q - 2*diag
		default:
			coef[k] = 1/q - 2*diag
		}
	}
	return coef
}

// CheckFlow refuses what Flow refuses before any work: no height grid, a texel size that is not
// positive and finite.
func CheckFlow(g *Grid, texel [2]float64) error {
	if g == nil || len(g.Data) != g.W*g.H || CheckSize(g.W, g.H) != nil {
		return errors.New("field: flow: no height grid")
	}
	dx, dz := texel[0], texel[1]
	if !(dx > 0 && dz > 0) || math.IsInf(dx, 0) || math.IsInf(dz, 0) {
		return fmt.Errorf("field: flow: texel %v×%v metres: must be positive and finite", dx, dz)
	}
	return nil
}

// rows runs fn over every row on every core.
func (r *flowRouter) rows(ctx context.Context, fn func(j int)) error {
	const band = 16
	nb := (r.h + band - 1) / band
	err := pool.Each(ctx, nb, 0, func(b int) {
		for j := b * band; j < min((b+1)*band, r.h); j++ {
			fn(j)
		}
	}, nil)
	if err != nil {
		return fmt.Errorf("field: flow: %w", err)
	}
	return nil
}

func finiteH(v float32) bool { return v == v && v <= math.MaxFloat32 && v >= -math.MaxFloat32 }

// classify fills row j's lower-neighbour masks and marks cells with one at distance 0, the others
// -1 (flats compute theirs).
func (r *flowRouter) classify(j int) {
	w, d := r.w, r.g.Data
	for i := 0; i < w; i++ {
		c := j*w + i
		hc := d[c]
		var m uint8
		if finiteH(hc) {
			for k, o := range r.off {
				ni, nj := i+o[0], j+o[1]
				if ni < 0 || nj < 0 || ni >= w || nj >= r.h {
					continue
				}
				if hn := d[nj*w+ni]; finiteH(hn) && hn < hc {
					m |= 1 << k
				}
			}
		}
		r.low[c] = m
		if m != 0 {
			r.dist[c] = 0
		} else {
			r.dist[c] = -1
		}
	}
}

// flats gives every cell without a lower neighbour that reaches one over equal-height cells its
// distance (8-connected steps) to the nearest such cell: a breadth-first search from the flat
// cells next to lower ground, seeded in index order. queue is scratch of one int32 a cell.
func (r *flowRouter) flats(queue []int32) {
	w, h, d := r.w, r.h, r.g.Data
	head, tail := 0, 0
	for c := range r.low {
		if r.low[c] != 0 || !finiteH(d[c]) {
			continue
		}
		i, j := c%w, c/w
		for _, o := range r.off {
			ni, nj := i+o[0], j+o[1]
			if ni < 0 || nj < 0 || ni >= w || nj >= h {
				continue
			}
			if nc := nj*w + ni; r.low[nc] != 0 && d[nc] == d[c] {
				r.dist[c] = 1
				queue[tail] = int32(c)
				tail++
				break
			}
		}
	}
	for head < tail {
		c := int(queue[head])
		head++
		i, j := c%w, c/w
		for _, o := range r.off {
			ni, nj := i+o[0], j+o[1]
			if ni < 0 || nj < 0 || ni >= w || nj >= h {
				continue
			}
			if nc := nj*w + ni; r.dist[nc] == -1 && d[nc] == d[c] {
				r.dist[nc] = r.dist[c] + 1
				queue[tail] = int32(nc)
				tail++
			}
		}
	}
}

// flatReceivers gives each flat cell of row j that has a way out (dist > 0) its receivers in low:
// the equal-height neighbours one step nearer the way out. From here on low[c] is the mask of the
// cells c hands area to (its lower neighbours, or these), the dist of other cells is not read.
func (r *flowRouter) flatReceivers(j int) {
	w, h, d := r.w, r.h, r.g.Data
	for i := 0; i < w; i++ {
		c := j*w + i
		dc := r.dist[c]
		if dc <= 0 {
			continue
		}
		var m uint8
		for k, o := range r.off {
			ni, nj := i+o[0], j+o[1]
			if ni < 0 || nj < 0 || ni >= w || nj >= h {
				continue
			}
			if nc := nj*w + ni; r.dist[nc] == dc-1 && d[nc] == d[c] {
				m |= 1 << k
			}
		}
		r.low[c] = m
	}
}

// donors counts the cells of row j's neighbours that hand area to each cell of row j.
func (r *flowRouter) donors(j int) {
	w, h := r.w, r.h
	for i := 0; i < w; i++ {
		n := j*w + i
		var cnt uint8
		for k, o := range r.off {
			ci, cj := i+o[0], j+o[1]
			if ci < 0 || cj < 0 || ci >= w || cj >= h {
				continue
			}
			// n is neighbour 7−k of c (the offsets are symmetric about their middle).
			if r.low[cj*w+ci]&(1<<(7-k)) != 0 {
				cnt++
			}
		}
		r.indeg[n] = cnt
	}
}

// route sweeps the cells in a topological order, each handing its area to its receivers once
// every donor has handed it its own: cells are scanned in index order and each donorless one
// starts a depth-first sweep (a receiver whose last donor was just taken is taken next, last in
// first out), which keeps the sweep among neighbours in memory. stackBuf is the sweep's stack.
func (r *flowRouter) route(ctx context.Context, stackBuf []int32, acc []float64, cell float64) error {
	const taken = 0xff // indeg of a cell already routed (a count is at most 8)
	w, d := r.w, r.g.Data
	for c := range acc {
		acc[c] = cell
	}
	var wt [8]float64
	var delta [8]int // neighbour k of cell c is c + delta[k]
	for k, o := range r.off {
		delta[k] = o[1]*w + o[0]
	}
	routed := 0
	for c0 := range acc {
		if r.indeg[c0] != 0 {
			continue
		}
		if c0&0xffff == 0 && ctx.Err() != nil {
			return fmt.Errorf("field: flow: %w", ctx.Err())
		}
		top := 0
		stackBuf[top] = int32(c0)
		top++
		for top > 0 {
			top--
			c := int(stackBuf[top])
			r.indeg[c] = taken
			routed++
			hc := float64(d[c])
			m := r.low[c]
			var sum float64
			for k := range wt {
				wt[k] = 0
				if m&(1<<k) == 0 {
					continue // not a receiver (the mask holds only neighbours inside the field)
				}
				// A lower receiver weighs its drop times the geometric factor, a flat one (equal
				// height) the factor alone.
				wt[k] = r.coef[k]
				if drop := hc - float64(d[c+delta[k]]); drop > 0 {
					wt[k] *= drop
				}
				sum += wt[k]
			}
			if m == 0 {
				continue // a pit keeps its area
			}
			a := acc[c] / sum
			for k := range wt {
				if m&(1<<k) == 0 {
					continue
				}
				nc := c + delta[k]
				acc[nc] += a * wt[k]
				if r.indeg[nc]--; r.indeg[nc] == 0 {
					stackBuf[top] = int32(nc)
					top++
				}
			}
		}
	}
	if routed != len(acc) {
		return fmt.Errorf("field: flow: %d of %d cells were never routed (a cycle in the routing)", len(acc)-routed, len(acc))
	}
	return nil
}

// A FlowRouter routes a flow plane with Flow's contract: Flow itself, or its GPU twin (what the
// editor's evaluator routes with, bake.Evaluator.Flow). It is handed in from above: package field
// knows no device.
type FlowRouter func(ctx context.Context, g *Grid, texel [2]float64) (*Grid, error)

// SetFlowRouter makes r route the field's plane from the next routing on (nil: Flow). The plane
// already routed is kept.
func (f *Field) SetFlowRouter(r FlowRouter) {
	f.flowMu.Lock()
	f.flowRouter = r
	f.flowMu.Unlock()
}

// router is the field's router (flowMu held).
func (f *Field) router() FlowRouter {
	if f.flowRouter != nil {
		return f.flowRouter
	}
	return Flow
}

// FlowPlane returns the field's flow plane (Flow — or the router SetFlowRouter set — over its
// height and texel size), computed on the
// first call and kept until the height grid is replaced or InvalidateFlow is called. Safe for
// concurrent use; a caller that edits the height in place must call InvalidateFlow (or
// RecomputeFlow).
func (f *Field) FlowPlane() (*Grid, error) {
	f.flowMu.Lock()
	defer f.flowMu.Unlock()
	if f.flow != nil && f.flowOf == f.Height {
		return f.flow, nil
	}
	if f.Height == nil {
		return nil, errors.New("field: flow: no height grid")
	}
	g, err := f.router()(context.Background(), f.Height, f.TexelSize())
	if err != nil {
		return nil, err
	}
	f.flow, f.flowOf = g, f.Height
	return g, nil
}

// HasFlow reports whether the flow plane is computed and current, so FlowPlane would return at
// once. It never waits: while the plane is being routed it reports false.
func (f *Field) HasFlow() bool {
	if !f.flowMu.TryLock() {
		return false
	}
	defer f.flowMu.Unlock()
	return f.flow != nil && f.flowOf == f.Height
}

// InvalidateFlow forgets the flow plane: the next FlowPlane computes it again.
func (f *Field) InvalidateFlow() {
	f.flowMu.Lock()
	f.flow, f.flowOf = nil, nil
	f.flowMu.Unlock()
}

// RecomputeFlow routes the flow again after the height changed inside rect (height texels) and
// returns the rectangle of texels whose flow plane changed (empty: none). Flow is global — a
// change anywhere can move the area of every texel downstream — so the recompute is of the whole
// field, conservatively; rect only decides whether anything can have changed (an empty rect with
// a current plane does nothing). The plane is a new grid (the old one is not written), so a
// reader holding the old plane keeps a consistent one.
func (f *Field) RecomputeFlow(ctx context.Context, rect image.Rectangle) (image.Rectangle, error) {
	f.flowMu.Lock()
	defer f.flowMu.Unlock()
	if f.Height == nil {
		return image.Rectangle{}, errors.New("field: flow: no height grid")
	}
	old := f.flow
	if old != nil && f.flowOf == f.Height && rect.Empty() {
		return image.Rectangle{}, nil
	}
	g, err := f.router()(ctx, f.Height, f.TexelSize())
	if err != nil {
		return image.Rectangle{}, err
	}
	f.flow, f.flowOf = g, f.Height
	full := image.Rect(0, 0, g.W, g.H)
	if old == nil || old.W != g.W || old.H != g.H {
		return full, nil
	}
	return diffRect(old, g), nil
}

// diffRect is the bounding rectangle of the texels where a and b (of one size) differ.
func diffRect(a, b *Grid) image.Rectangle {
	var r image.Rectangle
	for j := 0; j < a.H; j++ {
		row := j * a.W
		first := -1
		last := -1
		for i := 0; i < a.W; i++ {
			if math.Float32bits(a.Data[row+i]) != math.Float32bits(b.Data[row+i]) {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first >= 0 {
			r = r.Union(image.Rect(first, j, last+1, j+1))
		}
	}
	return r
}

// ChannelGrid returns the grid a rule reading channel name samples: a stored channel, or for
// FlowChannel the flow plane (computed now when it is not current). ok is false (with a nil
// error) when the field has no such channel.
func (f *Field) ChannelGrid(name string) (g *Grid, ok bool, err error) {
	if name == FlowChannel {
		g, err := f.FlowPlane()
		return g, err == nil, err
	}
	g, ok = f.Channels[name]
	return g, ok && g != nil, nil
}
