package field

import (
	"context"
	"image"
	"math"
	"testing"
)

// flowAreas runs Flow and returns the areas in m² (10^plane).
func flowAreas(t testing.TB, g *Grid, texel [2]float64) []float64 {
	t.Helper()
	p, err := Flow(context.Background(), g, texel)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(p.Data))
	for k, v := range p.Data {
		if !finiteH(v) {
			t.Fatalf("texel (%d, %d): flow plane %v", k%g.W, k/g.W, v)
		}
		out[k] = math.Pow(10, float64(v))
	}
	return out
}

func flowGrid(w, h int, fn func(i, j int) float32) *Grid {
	g := NewGrid(w, h)
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			g.Data[j*w+i] = fn(i, j)
		}
	}
	return g
}

// TestFlowTiltedPlane: on a plane falling along one axis, the analytic contributing area of a
// texel is the strip of plane above it up to the upslope edge: its own cell and every cell
// upslope in its column, (d+1)·texelX·texelZ for the d-th texel from the upslope edge. The
// analysis holds where the plane's sides do not reach: the wall at the sides keeps water from
// leaving sideways, so the columns next to them differ (MFD spreads across the slope), and the
// test reads columns at least a quarter of the width from either side. Every direction, with
// non-square texels.
func TestFlowTiltedPlane(t *testing.T) {
	const w, h = 96, 128
	texel := [2]float64{2, 3}
	cell := texel[0] * texel[1]
	for _, dir := range []string{"+Z", "-Z", "+X", "-X"} {
		// d(i, j): steps from the upslope edge along the fall.
		var gw, gh int
		var d func(i, j int) int
		switch dir {
		case "+Z":
			gw, gh, d = w, h, func(i, j int) int { return j }
		case "-Z":
			gw, gh, d = w, h, func(i, j int) int { return h - 1 - j }
		case "+X":
			gw, gh, d = h, w, func(i, j int) int { return i }
		case "-X":
			gw, gh, d = h, w, func(i, j int) int { return h - 1 - i }
		}
		g := flowGrid(gw, gh, func(i, j int) float32 { return 500 - 0.25*float32(d(i, j)) })
		a := flowAreas(t, g, texel)
		worst := 0.0
		for j := 0; j < gh; j++ {
			for i := 0; i < gw; i++ {
				across := i
				if dir == "+X" || dir == "-X" {
					across = j
				}
				if across < w/4 || across >= w-w/4 || d(i, j) == h-1 {
					continue // the sides, and the last row (a wall: it keeps what reaches it)
				}
				want := float64(d(i, j)+1) * cell
				e := math.Abs(a[j*gw+i]-want) / want
				worst = max(worst, e)
				if e > 0.02 {
					t.Fatalf("%s: texel (%d, %d): area %.1f m², want %.1f (%.2f%%)", dir, i, j, a[j*gw+i], want, 100*e)
				}
			}
		}
		t.Logf("%s: worst %.2e relative", dir, worst)
	}
}

// TestFlowVValley: two planes falling at slope a toward a channel at x = 0 that falls at s along
// +Z. Water on the sides runs down the gradient (−a·sign x, s) into the channel: a point d metres
// from the channel's edge at z reaches it at z + d·s/a. So the area that has entered the channel
// by the lower edge of its texel in row j, z = (j+1)·dz, is its own strip plus, on each side of
// half-width m·dx, ∫₀^{m·dx} (z − x·s/a) dx once z·a/s ≥ m·dx (the water from the upslope edge's
// outer corner has reached the channel: above that row the flow lines from the upslope edge and
// MFD's spreading near it decide, which the analysis does not model). Held within 2% along the
// channel from that row down to the last two rows (the downslope edge is a wall: the sides' water
// that reaches it turns back up the diagonal toward the channel), on square and rectangular texels.
func TestFlowVValley(t *testing.T) {
	const m, h = 40, 200
	const w = 2*m + 1
	const a, s = 0.5, 0.2
	for _, texel := range [][2]float64{{1, 1}, {2, 1}, {1, 1.5}} {
		dx, dz := texel[0], texel[1]
		g := flowGrid(w, h, func(i, j int) float32 {
			return float32(a*math.Abs(float64(i-m))*dx - s*float64(j)*dz + 1000)
		})
		ar := flowAreas(t, g, texel)
		half := m * dx
		worst := 0.0
		for j := 0; j < h-2; j++ {
			z := float64(j+1) * dz
			if z*a/s < half {
				continue // the upslope edge's corner: some of the sides' water is still on its way
			}
			x1 := min(half, z*a/s)
			side := z*x1 - (s/a)*x1*x1/2
			want := z*dx + 2*side
			got := ar[j*w+m]
			e := math.Abs(got-want) / want
			worst = max(worst, e)
			if e > 0.02 {
				t.Fatalf("texel %v: channel row %d: area %.1f m², want %.1f (%.2f%%)", texel, j, got, want, 100*e)
			}
		}
		t.Logf("texel %v: worst %.2e relative along the channel", texel, worst)
	}
}

// TestFlowDeterministic: two runs over rough ground with flats, pits and a NaN give the same
// bytes; and every cell's area is at least its own.
func TestFlowDeterministic(t *testing.T) {
	g := SampleDunesSized(160).Height
	for k := range g.Data {
		g.Data[k] = float32(math.Round(float64(g.Data[k]))) // terraces: flats everywhere
	}
	g.Data[77] = float32(math.NaN())
	p1, err := Flow(context.Background(), g, [2]float64{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := Flow(context.Background(), g, [2]float64{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	own := float32(math.Log10(4))
	for k := range p1.Data {
		if math.Float32bits(p1.Data[k]) != math.Float32bits(p2.Data[k]) {
			t.Fatalf("texel %d: %v then %v", k, p1.Data[k], p2.Data[k])
		}
		if !(p1.Data[k] >= own) {
			t.Fatalf("texel %d: %v, less than its own cell (%v)", k, p1.Data[k], own)
		}
	}
}

// TestFlowFlatsAndPits: a flat with one lower cell drains wholly into it through the flat; a
// field with no way down keeps every cell's area; a bowl gathers everything in its pit.
func TestFlowFlatsAndPits(t *testing.T) {
	const n = 33
	texel := [2]float64{1, 2}
	cell := texel[0] * texel[1]
	flat := flowGrid(n, n, func(i, j int) float32 { return 7 })
	flat.Data[n*n-1] = 6 // the corner (n−1, n−1) is the way out
	a := flowAreas(t, flat, texel)
	if got, want := a[n*n-1], float64(n*n)*cell; math.Abs(got-want) > 1e-3*want {
		t.Fatalf("the flat's outlet gathers %.3f m², want all of it, %.3f", got, want)
	}
	level := flowGrid(n, n, func(i, j int) float32 { return 3 })
	for k, v := range flowAreas(t, level, texel) {
		if math.Abs(v-cell) > 1e-5 {
			t.Fatalf("level ground: texel %d has %v m², want its own %v", k, v, cell)
		}
	}
	bowl := flowGrid(n, n, func(i, j int) float32 {
		return float32(math.Hypot(float64(i-n/2), float64(j-n/2)))
	})
	a = flowAreas(t, bowl, texel)
	if got, want := a[(n/2)*n+n/2], float64(n*n)*cell; math.Abs(got-want) > 1e-3*want {
		t.Fatalf("the bowl's pit gathers %.3f m², want all of it, %.3f", got, want)
	}
}

// TestFlowBadInput: no grid, a bad texel size, a cancelled context are errors, not panics.
func TestFlowBadInput(t *testing.T) {
	g := flowGrid(8, 8, func(i, j int) float32 { return float32(i) })
	if _, err := Flow(context.Background(), nil, [2]float64{1, 1}); err == nil {
		t.Fatal("nil grid: no error")
	}
	if _, err := Flow(context.Background(), &Grid{W: 8, H: 8}, [2]float64{1, 1}); err == nil {
		t.Fatal("short grid: no error")
	}
	for _, tx := range [][2]float64{{0, 1}, {1, math.NaN()}, {math.Inf(1), 1}} {
		if _, err := Flow(context.Background(), g, tx); err == nil {
			t.Fatalf("texel %v: no error", tx)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Flow(ctx, g, [2]float64{1, 1}); err == nil {
		t.Fatal("cancelled: no error")
	}
}

// TestFlowPlaneKept: the field keeps its plane until the height changes, RecomputeFlow reports
// the texels whose flow moved (downstream of an edit), and ChannelGrid reads it by FlowChannel.
func TestFlowPlaneKept(t *testing.T) {
	const n = 64
	f, err := New(Placement{Size: [2]float64{n, n}}, flowGrid(n, n, func(i, j int) float32 { return 100 - float32(j) }))
	if err != nil {
		t.Fatal(err)
	}
	p1, err := f.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}
	g, ok, err := f.ChannelGrid(FlowChannel)
	if err != nil || !ok || g != p1 {
		t.Fatalf("ChannelGrid(FlowChannel) = %p %v %v, want the plane %p", g, ok, err, p1)
	}
	if r, err := f.RecomputeFlow(context.Background(), image.Rectangle{}); err != nil || !r.Empty() {
		t.Fatalf("nothing changed: %v %v", r, err)
	}
	// A ridge across columns 20..23 at row 30 sends water sideways: the flow changes from row 29
	// down, never above it.
	for i := 20; i < 24; i++ {
		f.Height.Data[30*n+i] += 5
	}
	r, err := f.RecomputeFlow(context.Background(), image.Rect(20, 30, 24, 31))
	if err != nil {
		t.Fatal(err)
	}
	if r.Empty() || r.Min.Y < 29 || r.Max.Y != n {
		t.Fatalf("changed flow in %v: want rows from about 29 to the bottom", r)
	}
	if f.Channels[FlowChannel] != nil || CheckChannelName(FlowChannel) == nil {
		t.Fatal("the flow plane must not be a stored channel")
	}
}

// BenchmarkFlow routes the dunes sample's ground (smooth: few flats) and the same ground terraced
// to quarter metres (most texels on a flat): go test -run XXX -bench Flow -benchtime 3x ./field.
// docs/PERFORMANCE.md has the figures.
func BenchmarkFlow(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		for _, terraced := range []bool{false, true} {
			name := itoa(n) + "/smooth"
			if terraced {
				name = itoa(n) + "/terraced"
			}
			b.Run(name, func(b *testing.B) {
				f := SampleDunesSized(n)
				g := f.Height
				if terraced {
					for k := range g.Data {
						g.Data[k] = float32(math.Round(float64(g.Data[k])*4)) / 4
					}
				}
				b.ResetTimer()
				for range b.N {
					if _, err := Flow(context.Background(), g, f.TexelSize()); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*n), "ns/cell")
			})
		}
	}
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}
