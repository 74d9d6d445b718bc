package session

import (
	"context"
	"image"
	"math"
	"path/filepath"
	"testing"
	"time"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
	"strata/viewport"
)

// TestFlowOverlay: the editor's flow overlay over a V valley (a landscape whose stack reads flow,
// baked and opened): chosen, it is bound by the pass that follows and shows the channel brighter
// than the slopes beside it; its grid comes from the field's flow plane, the one the flow rule
// reads (no second routing: the plane routed at open is still the field's); a rule edit moves no
// ground and computes no grid and routes nothing.
func TestFlowOverlay(t *testing.T) {
	const n, size = 64, 256.0
	p := field.Placement{Size: [2]float64{size, size}}
	g := &field.Grid{W: n, H: n, Data: make([]float32, n*n)}
	for j := range n {
		for i := range n {
			x, z := -size/2+(float64(i)+0.5)*size/n, -size/2+(float64(j)+0.5)*size/n
			g.Data[j*n+i] = float32(0.5*math.Abs(x) + 0.2*(z+size/2)) // the channel falls toward −Z
		}
	}
	f, err := field.New(p, g)
	if err != nil {
		t.Fatal(err)
	}
	st := stack.New()
	st.Layers = []stack.Layer{stack.NewLayer("ground"), stack.NewLayer("wet")}
	st.Layers[1].Rules = []stack.Rule{{Input: stack.InputFlow, Min: stack.F(3), Softness: 0.5}}
	path := filepath.Join(t.TempDir(), "valley.terrainData")
	ctx := context.Background()
	if _, err := bake.Rebake(ctx, &landscape.Landscape{Field: f, Stack: st}, path, bake.RebakeOptions{EvalOptions: bake.EvalOptions{CPU: true}}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{Evaluator: CPU, Width: 128, Height: 128})
	if err := h.s.OpenContainer(ctx, path); err != nil {
		t.Fatal(err)
	}
	h.s.FitCamera(true)
	h.waitFrame(h.s.Version())
	fl := h.s.land.Field
	if !fl.HasFlow() {
		t.Fatal("the stack reads flow but the field has no flow plane after the first frame")
	}
	plane, err := fl.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}

	m := h.mark()
	h.s.SetOverlay(Overlay{Mode: viewport.OverlayFlow})
	luma := func(img *image.RGBA, x, z float64) float64 {
		w, ht := img.Bounds().Dx(), img.Bounds().Dy()
		best, bd := [2]int{}, math.Inf(1)
		for py := 0; py < ht; py++ {
			for px := 0; px < w; px++ {
				hit, ok := h.s.PickGround((float64(px)+0.5)/float64(w), (float64(py)+0.5)/float64(ht))
				if d := math.Hypot(hit.X-x, hit.Z-z); ok && d < bd {
					best, bd = [2]int{px, py}, d
				}
			}
		}
		c := img.RGBAAt(best[0], best[1])
		return 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
	}
	// Frames until one shows the channel bright: the overlay is chosen at once, its grid bound by
	// the pass that follows (each wait is on a frame event).
	var ch, left, right float64
	h.fullFrameWhere(m, func(f *Frame) bool {
		ch, left, right = luma(f.Image, 0, -40), luma(f.Image, -48, -40), luma(f.Image, 48, -40)
		return ch > max(left, right)+30
	})
	t.Logf("at z = -40 m: channel luma %.0f, slopes %.0f / %.0f", ch, left, right)
	if ch <= max(left, right)+30 {
		t.Fatalf("the flow overlay shows the channel at luma %.0f, the slopes at %.0f / %.0f: want the channel clearly brighter", ch, left, right)
	}
	if p2, _ := fl.FlowPlane(); p2 != plane {
		t.Error("choosing the flow overlay routed the flow again: the overlay should read the rule's plane")
	}

	// A rule edit moves no ground: no grid computed, nothing routed, the bound grid's key the same.
	h.s.pipe.passMu.Lock()
	key, runs := h.s.pipe.derivedFor, h.s.pipe.derivedRuns
	h.s.pipe.passMu.Unlock()
	st2 := h.s.Stack().Clone()
	st2.Layers[1].Rules[0].Min = stack.F(3.5)
	if err := h.s.Apply("wet: min flow", st2); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	h.s.pipe.passMu.Lock()
	key2, runs2 := h.s.pipe.derivedFor, h.s.pipe.derivedRuns
	h.s.pipe.passMu.Unlock()
	if key.mode != viewport.OverlayFlow || key2 != key || runs2 != runs {
		t.Errorf("a rule edit recomputed the flow overlay: mode %v, grids computed %d → %d", key.mode, runs, runs2)
	}
	if p2, _ := fl.FlowPlane(); p2 != plane {
		t.Error("a rule edit routed the flow again")
	}
}

// fullFrameWhere looks at every full frame drawn after mark, in order, as each arrives (waiting on
// the events), and returns the first for which ok holds, or the last seen when none does within
// 60 s. Unlike re-marking after each frameAfter, it misses no frame that arrived in between.
func (h *harness) fullFrameWhere(mark int, ok func(*Frame) bool) *Frame {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	var last *Frame
	for {
		h.mu.Lock()
		evs := h.ev[mark:]
		mark = len(h.ev)
		h.mu.Unlock()
		for _, e := range evs {
			if f := e.Frame; f != nil && !f.Draft && f.Scale == 1 && !f.Refining {
				if last = f; ok(f) {
					return f
				}
			}
		}
		select {
		case <-h.ch:
		case <-deadline:
			return last
		}
	}
}

// TestFlowOverlayHeightChange: the flow overlay on a stack that reads no flow routes the plane
// for itself; a reload of the heightmap (a dam across the valley's head) computes its grid again
// from a plane routed over the new ground — the channel below the dam gathers less — and the
// overlay shows it, without any rule reading flow.
func TestFlowOverlayHeightChange(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU, TileSize: 32, Width: 96, Height: 96})
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "h.f32")
	const n = 64
	g := field.NewGrid(n, n) // a valley down −Z along column 32, 4 m texels
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			g.Set(i, j, float32(100+2*math.Abs(float64(i)-31.5)+0.8*float64(j)))
		}
	}
	writeF32(t, src, g)
	size := [2]float64{4 * n, 4 * n}
	if err := h.s.OpenHeightmap(ctx, src, HeightmapOptions{Import: field.ImportOptions{Size: [2]int{n, n}}, Size: &size}); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Watch(); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	if h.s.Stack().ReadsFlow() {
		t.Fatal("the starter stack reads flow")
	}
	m := h.mark()
	h.s.SetOverlay(Overlay{Mode: viewport.OverlayFlow})
	runs := func() (int, derivedKey) {
		h.s.pipe.passMu.Lock()
		defer h.s.pipe.passMu.Unlock()
		return h.s.pipe.derivedRuns, h.s.pipe.derivedFor
	}
	h.fullFrameWhere(m, func(*Frame) bool { r, k := runs(); return r > 0 && k.mode == viewport.OverlayFlow })
	r0, k0 := runs()
	if r0 == 0 || k0.mode != viewport.OverlayFlow {
		t.Fatalf("the flow overlay was not bound (grids computed %d)", r0)
	}
	fl := h.s.land.Field
	before, err := fl.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}

	m = h.mark()
	dam := g.Clone()
	for i := 0; i < n; i++ { // a wall across the valley two thirds of the way up
		dam.Set(i, 44, dam.At(i, 44)+40)
		dam.Set(i, 45, dam.At(i, 45)+40)
	}
	writeF32(t, src, dam)
	// Every frame after the reload event until one whose pass has bound the new ground's grid.
	reloaded := false
	h.fullFrameWhere(m, func(*Frame) bool {
		h.mu.Lock()
		for _, e := range h.ev[m:] {
			reloaded = reloaded || e.Kind == EventReloaded
		}
		h.mu.Unlock()
		r, _ := runs()
		return reloaded && r > r0
	})
	if !reloaded {
		t.Fatal("no reload within 60 s of the heightmap changing")
	}
	r1, k1 := runs()
	if r1 <= r0 || k1.heightVer == k0.heightVer {
		t.Fatalf("after the reload: grids computed %d → %d, height version %d → %d: want the grid computed again", r0, r1, k0.heightVer, k1.heightVer)
	}
	h.s.fmu.RLock()
	fl = h.s.land.Field
	h.s.fmu.RUnlock()
	after, err := fl.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Fatal("the overlay's plane was not routed again over the new ground")
	}
	// Below the dam the channel no longer gathers what lay above it.
	if b, a := before.At(31, 10), after.At(31, 10); !(a < b-0.1) {
		t.Errorf("the channel below the dam: log10 area %v before, %v after; want less after", b, a)
	}
}
