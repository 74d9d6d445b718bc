package viewport

import (
	"image"
	"image/color"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"

	"strata/noise"
)

// bigDunes builds an n×n dunes-like scene over n metres quickly: heights once (in parallel),
// gradients by central differences of the array, sand/rock weights by slope.
func bigDunes(n int) *Scene {
	size := float64(n)
	s := &Scene{Placement: Placement{Size: [2]float64{size, size}}}
	s.Height = HeightField{W: n, H: n, Data: make([]float32, 4*n*n)}
	h := make([]float32, n*n)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := w; j < n; j += workers {
				for i := 0; i < n; i++ {
					x, z := float32(i)-float32(n)/2, float32(j)-float32(n)/2
					v := float64(noise.FBM(x, z, 180, 4, 7))
					ridge := 1 - math.Abs(2*v-1)
					h[j*n+i] = float32(34*ridge*ridge*ridge + 8*v)
				}
			}
		}(w)
	}
	wg.Wait()
	at := func(i, j int) float32 { return h[clampInt(j, 0, n-1)*n+clampInt(i, 0, n-1)] }
	ctrl := image.NewRGBA(image.Rect(0, 0, n, n))
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			o := 4 * (j*n + i)
			gx := (at(i+1, j) - at(i-1, j)) / 2
			gz := (at(i, j+1) - at(i, j-1)) / 2
			s.Height.Data[o], s.Height.Data[o+1], s.Height.Data[o+2], s.Height.Data[o+3] = h[j*n+i], gx, gz, 1
			lo, hi = math.Min(lo, float64(h[j*n+i])), math.Max(hi, float64(h[j*n+i]))
			deg := math.Atan(math.Hypot(float64(gx), float64(gz))) * 180 / math.Pi
			rb := uint8(math.Round(math.Max(0, math.Min(1, (deg-20)/6)) * 255))
			ctrl.Pix[o], ctrl.Pix[o+1], ctrl.Pix[o+3] = 255-rb, rb, 0
		}
	}
	s.HeightRange = [2]float64{lo, hi}
	s.Controls[0] = ctrl
	s.Layers = []Layer{
		{Name: "sand", Tint: color.RGBA{0xd8, 0xc0, 0x8a, 255}},
		{Name: "rock", Tint: color.RGBA{0x7a, 0x6e, 0x64, 255}},
	}
	return s
}

// benchFrame renders 1280×720 frames with readback from the default orbit camera and from a
// low, close camera (the LOD's worst case: fine chunks near the eye, the horizon far away).
func benchFrame(b *testing.B, n int) {
	s := bigDunes(n)
	r := newTestRenderer(b, 1280, 720, s)
	if v := os.Getenv("STRATA_BENCH_PXERR"); v != "" {
		r.MaxPixelError, _ = strconv.ParseFloat(v, 64)
	}
	for _, view := range []string{"orbit", "low"} {
		b.Run(view, func(b *testing.B) {
			c := OrbitCamera(s.Placement, s.HeightRange, 1280.0/720)
			if view == "low" {
				c.Distance = float64(n) / 8
				c.Pitch = 12 * math.Pi / 180
			}
			r.SetCamera(c)
			if _, err := r.Frame(); err != nil { // warm-up: pipeline compile
				b.Fatal(err)
			}
			// A GPU left idle while the field was built runs at a low clock (the H200: 345 MHz
			// against 1980), so frames are rendered untimed for about a second first, as an
			// editor does while the camera moves. STRATA_BENCH_COLD=1 skips this (the first
			// frames after idle).
			if os.Getenv("STRATA_BENCH_COLD") == "" {
				warm(b, time.Second, func() error { r.Invalidate(); _, err := r.Frame(); return err })
			}
			var gpu, sel float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.Invalidate()
				if _, err := r.Frame(); err != nil {
					b.Fatal(err)
				}
				st := r.Stats()
				gpu += st.GPUms
				sel += st.SelectMs
			}
			st := r.Stats()
			b.ReportMetric(gpu/float64(b.N), "gpu+readback-ms")
			b.ReportMetric(sel/float64(b.N), "select-ms")
			b.ReportMetric(float64(st.Chunks), "chunks")
			b.ReportMetric(float64(st.Triangles), "triangles")
		})
	}
}

func BenchmarkFrameDunes2000(b *testing.B) { benchFrame(b, 2000) }
func BenchmarkFrame4096(b *testing.B)      { benchFrame(b, 4096) }

// BenchmarkSceneUpload4096 measures SetScene: texture upload plus building the LOD tree.
func BenchmarkSceneUpload4096(b *testing.B) {
	s := bigDunes(4096)
	r := newTestRenderer(b, 64, 64, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := r.SetScene(s); err != nil {
			b.Fatal(err)
		}
	}
}

// warm runs f for about d, untimed.
func warm(b *testing.B, d time.Duration, f func() error) {
	b.Helper()
	for t0 := time.Now(); time.Since(t0) < d; {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkViewportParts4096 takes the 1280×720 frame of the 4096² field apart, per camera:
// frame (Frame: the render pass, then gpu.ReadTexture), render (pass + wait, no readback),
// readback (the copy and map alone), clear (an empty pass), scissor (everything drawn into 1×1
// pixel: vertices and triangle set-up), flatfs (a one-line fragment shader), nodiscard (the
// terrain shader without its hole discard), noskirts, rows/band8 (the grid's quads row by row,
// as before, or in bands of 8 rows instead of 4), nocull (back faces kept, as before, where the
// frame would cull them), sorted
// (chunks sorted by distance), dfs (the walk's former depth-first order), before (all three as
// before: depth-first, row by row, no culling),
// half (every other chunk), select (the CPU chunk selection and queue writes). Each variant is
// run untimed for half a second first; ns/op is the wall time of one.
func BenchmarkViewportParts4096(b *testing.B) {
	const n = 4096
	s := bigDunes(n)
	r := newTestRenderer(b, 1280, 720, s)
	d := r.dev
	swapPipe := func(spec pipelineSpec) func() {
		p, err := newRenderPipeline(d, spec)
		if err != nil {
			b.Fatal(err)
		}
		old := r.terrain.pipe
		r.terrain.pipe = p
		if err := r.terrain.rebind(d, r.frameBuf); err != nil {
			b.Fatal(err)
		}
		return func() {
			r.terrain.pipe = old
			if err := r.terrain.rebind(d, r.frameBuf); err != nil {
				b.Fatal(err)
			}
			p.Release()
		}
	}
	flat := terrainSpec()
	flat.extra = "\n@fragment\nfn fs_flat(in: VOut) -> @location(0) vec4<f32> {\n    return vec4<f32>(fract(in.world.y * 0.1), 0.5, 0.5, 1.0);\n}\n"
	flat.fsEntry = "fs_flat"
	nodiscard := terrainSpec()
	nodiscard.rewrite = func(src string) string {
		if !strings.Contains(src, "discard;") {
			b.Fatal("no discard in the terrain shader")
		}
		return strings.Replace(src, "discard;", "return vec4<f32>(0.0, 0.0, 0.0, 1.0);", 1)
	}
	// bandIB is the chunk grid's index buffer with the quads in bands of rows (0: row by row).
	bandIB := func(rows int) *gpu.Buffer { return indexOrder(b, d, rows) }
	submit := func(o encodeOptions) func() error {
		return func() error {
			var st FrameStats
			if err := d.Submit("bench frame", func(enc *wgpu.CommandEncoder) error { return r.encodeFrame(enc, &st, o) }); err != nil {
				return err
			}
			d.Wait()
			return nil
		}
	}
	nearFirst := func(c []chunkInst) []chunkInst {
		eye := r.cam.frame(r.w, r.h, r.bounds).eye
		mn, tx := s.Placement.Min(), s.texel()
		dist := func(k chunkInst) float64 {
			half := float64(k.Step) * chunkCells / 2
			x := mn[0] + (float64(k.X0)+half+0.5)*tx[0] - eye[0]
			z := mn[1] + (float64(k.Z0)+half+0.5)*tx[1] - eye[2]
			return x*x + z*z
		}
		sort.SliceStable(c, func(i, j int) bool { return dist(c[i]) < dist(c[j]) })
		return c
	}
	dfs := depthFirst
	everyOther := func(c []chunkInst) []chunkInst {
		out := c[:0]
		for i := 0; i < len(c); i += 2 {
			out = append(out, c[i])
		}
		return out
	}
	for _, view := range []string{"orbit", "low"} {
		c := OrbitCamera(s.Placement, s.HeightRange, 1280.0/720)
		if view == "low" {
			c.Distance = float64(n) / 8
			c.Pitch = 12 * math.Pi / 180
		}
		r.SetCamera(c)
		type variant struct {
			name  string
			order func([]chunkInst) []chunkInst
			spec  *pipelineSpec
			ib    *gpu.Buffer
			run   func() error
		}
		vs := []variant{
			{name: "frame", run: func() error { r.Invalidate(); _, err := r.Frame(); return err }},
			{name: "render", run: submit(encodeOptions{})},
			{name: "readback", run: func() error { _, err := d.ReadTexture(r.color); return err }},
			{name: "clear", run: submit(encodeOptions{noTerrain: true})},
			{name: "scissor", run: submit(encodeOptions{scissor: true})},
			{name: "flatfs", spec: &flat, run: submit(encodeOptions{})},
			{name: "nodiscard", spec: &nodiscard, run: submit(encodeOptions{})},
			{name: "noskirts", run: submit(encodeOptions{noSkirts: true})},
			{name: "rows", ib: bandIB(0), run: submit(encodeOptions{})},
			{name: "band8", ib: bandIB(8), run: submit(encodeOptions{})},
			{name: "nocull", run: submit(encodeOptions{noCull: true})},
			{name: "before", order: dfs, ib: bandIB(0), run: submit(encodeOptions{noCull: true})},
			{name: "sorted", order: nearFirst, run: submit(encodeOptions{})},
			{name: "dfs", order: dfs, run: submit(encodeOptions{})},
			{name: "half", order: everyOther, run: submit(encodeOptions{})},
			{name: "select", run: func() error { _, err := r.prepare(nil); return err }},
		}
		for _, v := range vs {
			b.Run(view+"/"+v.name, func(b *testing.B) {
				var restore func()
				if v.spec != nil {
					restore = swapPipe(*v.spec)
					defer restore()
				}
				if v.ib != nil {
					old := r.terrain.gridIB
					r.terrain.gridIB = v.ib
					defer func() { r.terrain.gridIB = old }()
				}
				st, err := r.prepare(v.order)
				if err != nil {
					b.Fatal(err)
				}
				warm(b, time.Second/2, v.run)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := v.run(); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(st.Chunks), "chunks")
				b.ReportMetric(float64(st.Chunks*gridTriangles), "triangles")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms")
			})
		}
	}
}

// depthFirst puts chunks in the quadtree's plain depth-first order (children by index, as the
// walk did before it went near first): the Morton order of the chunks' first texels.
func depthFirst(c []chunkInst) []chunkInst {
	morton := func(k chunkInst) uint64 {
		var m uint64
		x, z := uint64(k.X0), uint64(k.Z0)
		for b := 0; b < 32; b++ {
			m |= (x>>b&1)<<(2*b) | (z>>b&1)<<(2*b+1)
		}
		return m
	}
	sort.SliceStable(c, func(i, j int) bool { return morton(c[i]) < morton(c[j]) })
	return c
}

// indexOrder is the chunk grid's index buffer with the quads in bands of rows (0: row by row,
// with the skirts wound as before culling), for comparisons with gridMesh's.
func indexOrder(t testing.TB, d *gpu.Device, rows int) *gpu.Buffer {
	t.Helper()
	_, idx := gridMesh()
	const nv = chunkCells + 1
	var out []uint32
	band := rows
	if band == 0 {
		band = 1
	}
	for b0 := 0; b0 < chunkCells; b0 += band {
		for a := 0; a < chunkCells; a++ {
			for bb := b0; bb < min(b0+band, chunkCells); bb++ {
				v00 := uint32(bb*nv + a)
				v10, v01, v11 := v00+1, v00+nv, v00+nv+1
				out = append(out, v00, v10, v11, v00, v11, v01)
			}
		}
	}
	skirts := idx[len(out):]
	if rows == 0 { // the skirts of edges 1 and 2 as they were wound before
		skirts = append([]uint32(nil), skirts...)
		for k := 0; k < 2*chunkCells*6; k += 6 {
			t0, s1, t1, s0 := skirts[k], skirts[k+1], skirts[k+2], skirts[k+4]
			copy(skirts[k:k+6], []uint32{t0, t1, s1, t0, s1, s0})
		}
	}
	out = append(out, skirts...)
	ib, err := d.NewBuffer("test index order", uint64(4*len(out)), wgpu.BufferUsageIndex)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ib.Release)
	if err := ib.Write(0, wgpu.ToBytes(out)); err != nil {
		t.Fatal(err)
	}
	return ib
}
