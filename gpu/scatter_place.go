package gpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
	"strata/scatter"
)

// PlaceJob is one terrain_scatter_place run: the population's placement parameters (spacing from
// scatter.Spacing of the density reached), the field geometry, the height grid Y is read from,
// and the tiles whose sites are placed. The density comes from the kernel's density buffer.
type PlaceJob struct {
	Params   scatter.Params
	Geometry *field.Geometry
	Height   *field.Grid
	Tiles    []field.Tile
	// Reserve is the least pool capacity in instances to start from; the pool grows past it on
	// its own when more are accepted.
	Reserve int
	// HeightUnchanged skips the height upload: the caller promises that Height is the grid the
	// previous Place or PlaceTiles of this kernel uploaded, not modified since (the editor
	// re-places after density edits without touching the height). It is honoured only when
	// Height is that same *field.Grid at the same size and the window the kernel holds covers
	// what the tiles read; otherwise the window is uploaded as usual, so a wrong promise about
	// which grid costs time, never a wrong result. A grid whose values were changed in place must
	// be placed without it.
	HeightUnchanged bool
	// HeightEdited, when not empty (and HeightUnchanged false), is a narrower promise: Height is
	// the grid the previous Place or PlaceTiles of this kernel uploaded, and its values changed
	// since only inside this rectangle of height texels (a sculpt dab's). The windows the kernel
	// holds of it stay, and only the rows of the rectangle each covers are written again — a
	// dab's few hundred kilobytes instead of the whole window (64 MiB on a 4096² field). Empty:
	// every held window of Height is uploaded again when a band reads it.
	HeightEdited image.Rectangle
	// CountLate (PlaceTiles only) does not wait for the run's count: the pool is sized for every
	// instance the run can hold (the previous count's bound plus the sites of Tiles), its count
	// stays on the device (Counter, which the viewport draws by), and the host reads it at the
	// next run (Count is then the count of a run before; Exact says whether it is this pool's).
	// A run whose bound the device cannot bind waits for its count as usual.
	CountLate bool
}

// lateGrowth is the most instances a CountLate run's bound may pass the pool's capacity by (64
// MiB of matrices a pool): a dab's few tiles are far under it; a run of many tiles would grow both
// pools by their every site, and waits for its count instead.
const lateGrowth = 1 << 20

// DefaultPlaceWindow is the most bytes of height one place submission uploads: the tiles of a
// place are cut into bands whose height windows (the texels their sites' bilinear taps reach)
// fit it, so no buffer holds a whole 16K height (1 GiB). A field whose height fits is one band
// and keeps its whole height resident between re-placements.
const DefaultPlaceWindow = 64 << 20

// Place-params layout: one struct of 28 u32 (floats by bit pattern), PlaceParams in
// terrain_scatter_place.wgsl. PlaceLayout lists it for the layout test; packPlace is the only
// writer.
const (
	placeParamsWords  = 28
	matrixBytes       = scatter.MatrixFloats * 4
	defaultPoolCap    = 1024
	keepWorkgroup     = 64
	placeWorkgroup    = 16 // sites per workgroup along each axis: WG in terrain_scatter_place.wgsl
	maxWorkgroupsAxis = 65535
	// placeBatch is the most tiles one dispatch places (workgroup_id.z picks the tile): under
	// maxWorkgroupsAxis, and a multiple of 16 so a batch's params (112 bytes a tile) start
	// 256-byte aligned (the largest minStorageBufferOffsetAlignment WebGPU allows).
	placeBatch = 65520
	// placeBatchAlign is the params elements a batch's first one is a multiple of: 16·112 bytes
	// is a multiple of 256.
	placeBatchAlign = 16
)

// PlaceLayout is the byte layout packPlace writes, member by member (name, offset, size, WGSL
// type), checked against the WGSL struct by TestPlaceParamsLayoutMatchesWGSL.
var PlaceLayout = []struct {
	Name         string
	Offset, Size int
	Type         string
}{
	{"fieldMin", 0, 8, "vec2<f32>"}, {"fieldEnd", 8, 8, "vec2<f32>"},
	{"invWTexel", 16, 8, "vec2<f32>"}, {"invHTexel", 24, 8, "vec2<f32>"},
	{"siteOrigin", 32, 8, "vec2<i32>"}, {"siteCount", 40, 8, "vec2<u32>"},
	{"heightSize", 48, 8, "vec2<u32>"},
	{"spacing", 56, 4, "f32"}, {"spacing2", 60, 4, "f32"}, {"seed", 64, 4, "u32"}, {"capacity", 68, 4, "u32"},
	{"scaleLo", 72, 4, "f32"}, {"scaleRange", 76, 4, "f32"}, {"zeroBits", 80, 4, "u32"}, {"tile", 84, 4, "u32"},
	{"keepCount", 88, 4, "u32"}, {"pad", 92, 4, "u32"},
	{"heightOrigin", 96, 8, "vec2<i32>"}, {"heightWin", 104, 8, "vec2<u32>"},
}

// packPlace writes the place params for one dispatch: sites r of tile index tile, a pool of
// capacity instances, keepCount instances to carry over (keep pass), the height buffer holding
// window win of the height grid.
func packPlace(job *PlaceJob, r scatter.SiteRange, tile, capacity, keepCount uint32, win image.Rectangle) []uint32 {
	g := job.Geometry
	inv := scatter.InvWTexel(g)
	f := math.Float32bits
	p := job.Params
	return []uint32{
		f(g.FieldMin[0]), f(g.FieldMin[1]), f(scatter.FieldEnd(g, 0)), f(scatter.FieldEnd(g, 1)),
		f(inv[0]), f(inv[1]), f(g.InvHTexel[0]), f(g.InvHTexel[1]),
		uint32(r.I0), uint32(r.J0), uint32(r.I1 - r.I0), uint32(r.J1 - r.J0),
		uint32(g.HeightW), uint32(g.HeightH),
		f(p.Spacing), f(float32(p.Spacing * p.Spacing)), p.Seed, capacity,
		f(p.Scale[0]), f(p.Scale[1] - p.Scale[0]), 0, tile,
		keepCount, 0,
		uint32(int32(win.Min.X)), uint32(int32(win.Min.Y)), uint32(win.Dx()), uint32(win.Dy()),
	}
}

// placeWindow is the height texels the sites r read (their jittered positions lie in
// [fieldMin + I0·spacing, fieldMin + I1·spacing) along X, the same along Z, and a bilinear tap
// reads floor(u) and floor(u)+1 of u = (p − fieldMin)·invHTexel − 0.5), two texels wider each
// side for the float32 rounding of those positions, clamped to the grid as the kernel's taps are.
func placeWindow(g *field.Geometry, spacing float32, r scatter.SiteRange) image.Rectangle {
	if r.Empty() {
		return image.Rectangle{}
	}
	edge := func(k int, i int32, w int) int {
		u := float64(i)*float64(spacing)*float64(g.InvHTexel[k]) - 0.5
		return min(max(int(math.Floor(u)), 0), w)
	}
	return image.Rect(edge(0, r.I0, g.HeightW)-2, edge(1, r.J0, g.HeightH)-2, edge(0, r.I1, g.HeightW)+3, edge(1, r.J1, g.HeightH)+3).
		Intersect(image.Rect(0, 0, g.HeightW, g.HeightH))
}

// placeBand is the tiles (indices into the job's) one submission places and the height window
// they read.
type placeBand struct {
	tiles []int
	win   image.Rectangle
	buf   *Buffer // the resident window that serves it (holdWindows)
}

// placeBands cuts the tiles with sites into bands, in the job's order, each band's height window
// (the union of its tiles') within budget bytes; a tile whose own window is larger is a band of
// its own.
func placeBands(g *field.Geometry, spacing float32, ranges []scatter.SiteRange, budget int64) []placeBand {
	var bands []placeBand
	var cur placeBand
	for i, r := range ranges {
		if r.Empty() {
			continue
		}
		w := placeWindow(g, spacing, r)
		u := cur.win.Union(w)
		if len(cur.tiles) > 0 && int64(u.Dx())*int64(u.Dy())*4 > budget {
			bands = append(bands, cur)
			cur, u = placeBand{}, w
		}
		cur.tiles = append(cur.tiles, i)
		cur.win = u
	}
	if len(cur.tiles) > 0 {
		bands = append(bands, cur)
	}
	return bands
}

// placeState is the place half of a ScatterKernel: two pools (and their tile tags) used in turn,
// so a partial re-placement can copy the surviving instances from the previous pool.
type placeState struct {
	dev    *Device
	pipe   *ComputePipeline
	keep   *ComputePipeline
	params *Buffer
	height *Buffer
	dirty  *Buffer
	pools  [2]*Buffer
	tags   [2]*Buffer
	// counters[i] is pools[i]'s instance count on the device (the place and keep passes' atomic
	// counter while the pool is filled): cleared inside the submission that fills the pool.
	counters [2]*Buffer
	cur      int
	count    int // instances in pools[cur], as the host knows them (a run late after CountLate)
	capacity int // instances pools[cur] (and the next pool) hold; 0 until the first run
	grows    int
	// late is the runs whose count the host has not read (CountLate), and the newest count read.
	late lateCounts
	// wins are the height windows kept on the device, least recently used first: a re-placement
	// whose bands' windows are held (and whose height is unchanged) uploads nothing.
	wins          []*placeWin
	heightUploads int
	heightEdits   int // runs that wrote an edited rectangle into a held window (HeightEdited)
	// window is the most bytes of height one band reads (DefaultPlaceWindow; the tests make it
	// small to cut small fields into bands).
	window int64
	// resident is the most bytes of windows kept between runs (DefaultPlaceResident).
	resident int64
}

// DefaultPlaceResident is the most bytes of height windows a scatter kernel keeps between runs: a
// 16K height (1 GiB) stays on the device in its bands, as the whole height stayed before it was
// cut, so re-placing after a release uploads nothing.
const DefaultPlaceResident = 1280 << 20

func (s *placeState) init(d *Device) error {
	s.dev = d
	s.window, s.resident = DefaultPlaceWindow, DefaultPlaceResident
	if lim := int64(d.Limits.MaxStorageBufferBindingSize); lim > 0 {
		s.window = min(s.window, lim)
	}
	var err error
	if s.pipe, err = d.LoadComputePipeline("terrain_scatter_place", "main", nil); err != nil {
		return err
	}
	mk := func(label string, size uint64, usage wgpu.BufferUsage) *Buffer {
		if err != nil {
			return nil
		}
		var b *Buffer
		b, err = d.NewBuffer(label, size, usage)
		return b
	}
	s.params = mk("scatter place params", placeParamsWords*4, wgpu.BufferUsageStorage)
	s.dirty = mk("scatter dirty tiles", 4, wgpu.BufferUsageStorage)
	for i := range s.pools {
		s.pools[i] = mk(fmt.Sprintf("scatter pool %d", i), defaultPoolCap*matrixBytes, wgpu.BufferUsageStorage|wgpu.BufferUsageVertex)
		s.tags[i] = mk(fmt.Sprintf("scatter pool tags %d", i), defaultPoolCap*4, wgpu.BufferUsageStorage)
		s.counters[i] = mk(fmt.Sprintf("scatter pool counter %d", i), 4, wgpu.BufferUsageStorage)
	}
	return err
}

func (s *placeState) release() {
	for _, w := range s.wins {
		w.buf.Release()
	}
	s.wins = nil
	s.late.release(s.dev)
	for _, b := range []*Buffer{s.params, s.dirty, s.pools[0], s.pools[1], s.tags[0], s.tags[1], s.counters[0], s.counters[1]} {
		b.Release()
	}
	s.pipe.Release()
	s.keep.Release()
	s.pipe, s.keep = nil, nil
}

// Pool is the instance pool: Count() column-major mat4x4<f32> from offset 0, usage
// Storage|Vertex|CopySrc, so the viewport draws straight from it. The buffer changes after every
// Place or PlaceTiles (the kernel alternates two pools), so fetch it again after each run.
func (k *ScatterKernel) Pool() *Buffer {
	if k == nil {
		return nil
	}
	return k.place.pools[k.place.cur]
}

// Count is the number of instances in Pool as the host knows it: exact after Place and a
// PlaceTiles that waited for it; after a PlaceTiles with CountLate, the count of the newest run
// the host has read (a run or more late; Exact says which). Counter holds the exact one.
func (k *ScatterKernel) Count() int {
	if k == nil {
		return 0
	}
	return k.place.count
}

// Exact reports whether Count is Pool's own count (no CountLate run's count is still to be
// read).
func (k *ScatterKernel) Exact() bool {
	return k != nil && len(k.place.late.runs) == 0
}

// Bound is the most instances Pool can hold as far as the host knows: Count when Exact, else the
// newest count read plus the sites of the runs after it.
func (k *ScatterKernel) Bound() int {
	if k == nil {
		return 0
	}
	if len(k.place.late.runs) == 0 {
		return k.place.count
	}
	return k.place.late.bound()
}

// Counter is Pool's instance count on the device: one u32 at offset 0 (Storage|CopySrc|CopyDst),
// exact once the run's submission is done — the viewport copies it into its indirect draw's
// arguments, so it draws a CountLate run's instances without the host reading their count. Like
// Pool, it changes after every run.
func (k *ScatterKernel) Counter() *Buffer {
	if k == nil {
		return nil
	}
	return k.place.counters[k.place.cur]
}

// Settle reads the count of every CountLate run still in flight (waiting for them) and returns
// the exact Count.
func (k *ScatterKernel) Settle() (int, error) {
	if k == nil || k.place.pipe == nil {
		return 0, fmt.Errorf("gpu: scatter settle: nil or released kernel")
	}
	return k.place.count, k.place.landLate(true)
}

// LateCounts is the number of CountLate runs' counts read back so far.
func (k *ScatterKernel) LateCounts() int { return k.place.late.landed }

// landLate reads the late counts whose maps are done (wait: all of them) into count.
func (s *placeState) landLate(wait bool) error {
	if len(s.late.runs) == 0 {
		return nil
	}
	_, err := s.late.land(s.dev, wait)
	s.count = s.late.known
	return err
}

// Capacity is the number of instances Pool holds.
func (k *ScatterKernel) Capacity() int { return k.place.capacity }

// Grows is the number of times a run found the pool too small and ran again.
func (k *ScatterKernel) Grows() int { return k.place.grows }

// HeightUploads is the number of times a run uploaded the height grid (PlaceJob.HeightUnchanged
// runs that were honoured did not).
func (k *ScatterKernel) HeightUploads() int { return k.place.heightUploads }

// HeightEdits is the number of held windows a run brought up to date by writing the rows of a
// PlaceJob.HeightEdited rectangle (instead of uploading the window again).
func (k *ScatterKernel) HeightEdits() int { return k.place.heightEdits }

// ReadMatrices reads the pool back: Count()·16 floats, in slot order (which varies between runs;
// sort with scatter.SortMatrices to compare).
func (k *ScatterKernel) ReadMatrices() ([]float32, error) {
	if k == nil || k.Pool() == nil || k.Pool().Buf == nil {
		return nil, fmt.Errorf("gpu: scatter read matrices: nil or released kernel")
	}
	if _, err := k.Settle(); err != nil {
		return nil, err
	}
	n := uint64(k.place.count) * matrixBytes
	b, err := k.dev.ReadBuffer(k.Pool(), 0, n)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// Place places the sites of every tile of job into a fresh pool, reading the density buffer Density
// (or UploadDensity) filled. When more instances are accepted than the pool holds, the counter
// keeps counting; Place reads the total, grows the pool to it and runs again, so the result is
// always complete. It returns the number of instances.
func (k *ScatterKernel) Place(ctx context.Context, job PlaceJob) (int, error) {
	return k.runPlace(ctx, job, false)
}

// PlaceTiles re-places only job.Tiles (after an edit changed their density): the instances of
// every other tile are copied from the current pool unchanged, those of job.Tiles dropped and
// placed again. job.Params and the geometry must be those of the Place that filled the pool.
func (k *ScatterKernel) PlaceTiles(ctx context.Context, job PlaceJob) (int, error) {
	return k.runPlace(ctx, job, true)
}

func (k *ScatterKernel) runPlace(ctx context.Context, job PlaceJob, keep bool) (int, error) {
	if k == nil || k.place.pipe == nil {
		return 0, fmt.Errorf("gpu: scatter place: nil or released kernel")
	}
	s := &k.place
	g := job.Geometry
	if g == nil {
		return 0, fmt.Errorf("gpu: scatter place: no geometry")
	}
	if job.Height == nil || job.Height.W != g.HeightW || job.Height.H != g.HeightH || len(job.Height.Data) < g.HeightW*g.HeightH {
		return 0, fmt.Errorf("gpu: scatter place: the height grid is not the geometry's %dx%d", g.HeightW, g.HeightH)
	}
	if uint32(g.WeightsW) != k.gridW || uint32(g.WeightsH) != k.gridH || k.gridAt != [2]uint32{} {
		return 0, fmt.Errorf("gpu: scatter place: the density grid is %dx%d, the geometry's weights grid %dx%d", k.gridW, k.gridH, g.WeightsW, g.WeightsH)
	}
	ranges := make([]scatter.SiteRange, len(job.Tiles))
	maxTile := 0
	for i, t := range job.Tiles {
		if job.Params.Spacing > 0 {
			r, err := scatter.Sites(g, job.Params.Spacing, t)
			if err != nil {
				return 0, fmt.Errorf("gpu: %w", err)
			}
			if (r.I1-r.I0+placeWorkgroup-1)/placeWorkgroup > maxWorkgroupsAxis || (r.J1-r.J0+placeWorkgroup-1)/placeWorkgroup > maxWorkgroupsAxis {
				return 0, fmt.Errorf("gpu: scatter place: tile %d has %dx%d sites, more than one dispatch covers", t.Index, r.I1-r.I0, r.J1-r.J0)
			}
			ranges[i] = r
		}
		maxTile = max(maxTile, t.Index)
	}
	bands := placeBands(g, job.Params.Spacing, ranges, s.window)
	if len(bands) == 1 && int64(g.HeightW)*int64(g.HeightH)*4 <= s.window {
		bands[0].win = image.Rect(0, 0, g.HeightW, g.HeightH) // the whole height, kept for the next run
	}
	if err := k.holdWindows(job, bands); err != nil {
		return 0, err
	}
	if err := s.landLate(false); err != nil { // the late counts that have come in
		return 0, err
	}
	keepBound := 0 // the keep pass's threads: at least the previous pool's count
	if keep && s.keep == nil {
		// The keep pass only serves re-placing some tiles (the editor): compiled on first use, so
		// a bake does not pay for it.
		var err error
		if s.keep, err = k.dev.LoadComputePipeline("terrain_scatter_place", "keep", nil); err != nil {
			return 0, err
		}
	}
	if keep {
		keepBound = k.Bound()
		if err := k.uploadDirty(job.Tiles, maxTile); err != nil {
			return 0, err
		}
	}
	capacity := max(s.capacity, job.Reserve, 1)
	if s.capacity == 0 && job.Reserve == 0 {
		capacity = max(capacity, defaultPoolCap)
	}
	if keep && job.CountLate {
		// Every instance the run can hold: the kept ones (at most the previous count's bound) and
		// one per site of the tiles placed.
		var sites int64
		for _, r := range ranges {
			sites += int64(r.I1-r.I0) * int64(r.J1-r.J0)
		}
		need := int64(keepBound) + sites
		lim := int64(k.dev.Limits.MaxStorageBufferBindingSize) / matrixBytes
		if (lim <= 0 || need <= lim) && need <= int64(capacity)+lateGrowth {
			if need > int64(capacity) {
				// An eighth more than the run needs, so the next dabs' runs fit the pool too.
				capacity = int(need + max(need/8, 1<<16))
				if lim > 0 {
					capacity = int(min(int64(capacity), lim))
				}
			}
			if err := ctx.Err(); err != nil {
				return 0, fmt.Errorf("gpu: scatter place: %w", err)
			}
			if _, err := k.placeOnce(&job, ranges, bands, capacity, keepBound, true, int(sites)); err != nil {
				s.trimWindows()
				return 0, err
			}
			s.cur, s.capacity = 1-s.cur, capacity
			s.trimWindows()
			return s.count, nil
		}
		// A bound past what the device binds, or far past the pool (a run of many tiles): the run
		// reads its count and grows to it as any.
	}
	for {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("gpu: scatter place: %w", err)
		}
		total, err := k.placeOnce(&job, ranges, bands, capacity, keepBound, false, 0)
		if err != nil {
			s.trimWindows()
			return 0, err
		}
		if total <= capacity {
			s.cur, s.count, s.capacity = 1-s.cur, total, capacity
			s.trimWindows()
			// The late runs before it (long done) are read and forgotten: this count is exact.
			return total, s.late.reset(s.dev, total)
		}
		capacity = total
		s.grows++
	}
}

// uploadDirty writes the bitmask of tile indices being re-placed (the keep pass drops them).
func (k *ScatterKernel) uploadDirty(tiles []field.Tile, maxTile int) error {
	mask := make([]uint32, maxTile/32+1)
	for _, t := range tiles {
		mask[t.Index/32] |= 1 << (t.Index % 32)
	}
	// A tag beyond the mask reads as clean (the shader checks arrayLength).
	_, err := k.place.dirty.Upload(k.scratch.words(mask))
	return err
}

// placeOnce runs the keep pass (when keepBound > 0: its threads, at least the previous pool's
// count, which the pass reads from that pool's counter) and every band's tiles into the spare
// pool sized for capacity instances, all in one submission that first clears the spare pool's
// counter, and returns the counter's total — or, late, requests its map and returns -1 (the run's
// sites are its bound over the previous count: lateCounts). Each band reads its resident height
// window (holdWindows); its tiles go in one dispatch for up to placeBatch tiles (each tile's
// params are one element of the params array, picked by workgroup_id.z).
func (k *ScatterKernel) placeOnce(job *PlaceJob, ranges []scatter.SiteRange, bands []placeBand, capacity, keepBound int, late bool, sites int) (int, error) {
	s := &k.place
	dst, src := 1-s.cur, s.cur
	if lim := k.dev.Limits.MaxStorageBufferBindingSize; lim > 0 && uint64(capacity)*matrixBytes > lim {
		return 0, fmt.Errorf("gpu: scatter place: %d instances need %d bytes, the device binds at most %d: %w", capacity, uint64(capacity)*matrixBytes, lim, ErrTooLarge)
	}
	if _, err := s.pools[dst].Ensure(uint64(capacity) * matrixBytes); err != nil {
		return 0, err
	}
	if _, err := s.tags[dst].Ensure(uint64(capacity) * 4); err != nil {
		return 0, err
	}
	// One params element per tile with sites, band after band (element 0 also serves the keep
	// pass), and the largest site block, which every tile's dispatch covers.
	words := make([]uint32, 0, placeParamsWords*max(len(ranges), 1))
	starts := make([]int, len(bands)) // the params element of each band's first tile
	var gx, gy uint32
	for bi, b := range bands {
		// A band's params start at a multiple of placeBatchAlign elements: a binding's offset
		// must respect minStorageBufferOffsetAlignment (the filler elements are never read).
		for len(words)/placeParamsWords%placeBatchAlign != 0 {
			words = append(words, make([]uint32, placeParamsWords)...)
		}
		starts[bi] = len(words) / placeParamsWords
		for _, i := range b.tiles {
			r := ranges[i]
			words = append(words, packPlace(job, r, uint32(job.Tiles[i].Index), uint32(capacity), uint32(keepBound), b.win)...)
			gx = max(gx, uint32(r.I1-r.I0+placeWorkgroup-1)/placeWorkgroup)
			gy = max(gy, uint32(r.J1-r.J0+placeWorkgroup-1)/placeWorkgroup)
		}
	}
	if len(words) == 0 {
		// The keep pass's params (or none read: the submission only clears the counter of an
		// empty pool).
		words = packPlace(job, scatter.SiteRange{}, 0, uint32(capacity), uint32(keepBound), image.Rectangle{})
	}
	if _, err := s.params.Upload(k.scratch.words(words)); err != nil {
		return 0, err
	}
	var groups []*wgpu.BindGroup
	defer func() {
		for _, bg := range groups {
			bg.Release()
		}
	}()
	var keepBG *wgpu.BindGroup
	if keepBound > 0 {
		bg, err := s.keep.BindGroup("terrain_scatter_place keep group0",
			BufferEntry(0, s.params), BufferEntry(3, s.pools[dst]), BufferEntry(4, s.counters[dst]), BufferEntry(5, s.tags[dst]),
			BufferEntry(6, s.pools[src]), BufferEntry(7, s.tags[src]), BufferEntry(8, s.dirty), BufferEntry(9, s.counters[src]))
		if err != nil {
			return 0, err
		}
		groups = append(groups, bg)
		keepBG = bg
	}
	// submit records the counter's clear, the keep pass and the batches in one submission (a
	// queued write of the counter would land before the submissions queued ahead of it — a
	// frame's copy of the counter among them), and the late count's copy after them.
	var staging *Buffer
	if late { // made before the submission: a buffer is made under the device's scope lock
		var err error
		if staging, err = s.late.staging(k.dev); err != nil {
			return 0, err
		}
	}
	submit := func(batches []placeDispatch) (wgpu.SubmissionIndex, error) {
		return k.dev.submitIndexed("terrain_scatter_place", func(enc *wgpu.CommandEncoder) error {
			if err := enc.ClearBuffer(s.counters[dst].Buf, 0, 4); err != nil {
				return err
			}
			if keepBG != nil || len(batches) > 0 {
				if err := k.recordPlace(enc, keepBG, batches, keepBound, gx, gy); err != nil {
					return err
				}
			}
			if late {
				return enc.CopyBufferToBuffer(s.counters[dst].Buf, 0, staging.Buf, 0, 4)
			}
			return nil
		})
	}
	var batches []placeDispatch
	for bi, band := range bands {
		first := starts[bi]
		for t0 := 0; t0 < len(band.tiles); t0 += placeBatch {
			n := min(len(band.tiles)-t0, placeBatch)
			bg, err := s.pipe.BindGroup(fmt.Sprintf("terrain_scatter_place band %d group0", bi),
				wgpu.BindGroupEntry{Binding: 0, Buffer: s.params.Buf, Offset: uint64(first+t0) * placeParamsWords * 4, Size: uint64(n) * placeParamsWords * 4},
				BufferEntry(1, k.grid), BufferEntry(2, band.buf),
				BufferEntry(3, s.pools[dst]), BufferEntry(4, s.counters[dst]), BufferEntry(5, s.tags[dst]))
			if err != nil {
				return 0, err
			}
			groups = append(groups, bg)
			batches = append(batches, placeDispatch{bg, uint32(n)})
		}
	}
	index, err := submit(batches) // every band (and the keep pass) in one submission
	if err != nil {
		if staging != nil {
			s.late.free = append(s.late.free, staging)
		}
		return 0, err
	}
	if late {
		return -1, s.late.requested(k.dev, staging, index, sites)
	}
	b, err := k.dev.ReadBuffer(s.counters[dst], 0, 4)
	if err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint32(b)), nil
}

// placeDispatch is one dispatch of the place pass: its bind group and tiles.
type placeDispatch struct {
	bg *wgpu.BindGroup
	n  uint32
}

// recordPlace records the keep pass (keepBG not nil: keepBound threads) and the batches, each
// over gx×gy workgroups a tile, in one compute pass.
func (k *ScatterKernel) recordPlace(enc *wgpu.CommandEncoder, keepBG *wgpu.BindGroup, batches []placeDispatch, keepBound int, gx, gy uint32) error {
	s := &k.place
	return ComputePass(enc, "terrain_scatter_place", func(pass *wgpu.ComputePassEncoder) {
		if keepBG != nil {
			n := uint32((keepBound + keepWorkgroup - 1) / keepWorkgroup)
			kx := min(n, maxWorkgroupsAxis)
			pass.SetPipeline(s.keep.Pipeline)
			pass.SetBindGroup(0, keepBG, nil)
			pass.DispatchWorkgroups(kx, (n+kx-1)/kx, 1)
		}
		if len(batches) > 0 {
			pass.SetPipeline(s.pipe.Pipeline)
		}
		for _, b := range batches {
			pass.SetBindGroup(0, b.bg, nil)
			pass.DispatchWorkgroups(gx, gy, b.n)
		}
	})
}
