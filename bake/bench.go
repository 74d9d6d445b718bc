package bake

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/stack"
)

// BenchCase is one workload of `strata bench`: a stack over a field.
type BenchCase struct {
	Name  string
	Stack *stack.Stack
	Field *field.Field
}

// BenchCases are the standard workloads: the sample stack and the 16-rule stress stack over the
// dunes shape at n×n texels (the stress field carries the channels its stack reads).
func BenchCases(n int) []BenchCase {
	sf := StressField(n)
	return []BenchCase{
		{"sample", stack.SampleDunes(), sf},
		{"stress16", stack.StressStack(), sf},
	}
}

// FlowBenchCase is the flow input's workload of `strata bench weights`: stack.FlowStack (three
// layers and a population reading flow, beside slope, height and mask.snow rules) over f, a
// StressField (it has mask.snow). The flow plane is routed once, timed on its own
// (WeightsFigures.FlowRouting), and both evaluators then read it as a channel.
func FlowBenchCase(f *field.Field) BenchCase { return BenchCase{"flow", stack.FlowStack(), f} }

// WeightsFigures is what `strata bench weights` reports for one case.
type WeightsFigures struct {
	Case             string
	W, H             int
	CPU              time.Duration // Go reference, whole field, all cores
	GPUField         time.Duration // whole field as one tile, upload + kernel + wait (no readback)
	GPUResident      time.Duration // whole field, kernel only (field already on the GPU)
	GPUTile          time.Duration // one 256² tile with its upload, averaged over repeated runs
	TileSize         int
	ReadbackWeights  time.Duration // reading both weight textures back
	GPUMatchesCPU    float64       // share of equal bytes
	GPUWorstByteDiff int
	// FlowRouting is field.Flow over the whole height (Go, the one routing a stack reading flow
	// needs per height), when the case's stack reads flow: not included in CPU nor the GPU times,
	// which read the routed plane.
	FlowRouting time.Duration
	// GPUFlowRouting is the GPU flow kernel's routing of the same height (GPU.Flow, read back),
	// FlowWaves its waves and FlowWorst the largest |Δlog10| from the Go plane.
	GPUFlowRouting time.Duration
	FlowWaves      int
	FlowWorst      float64
}

// Texels is the number of weights texels.
func (f *WeightsFigures) Texels() float64 { return float64(f.W) * float64(f.H) }

func rate(texels float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return texels / d.Seconds()
}

// timeRepeated runs f until about budget has passed (at least once, at most max times) and returns
// the mean duration.
func timeRepeated(budget time.Duration, maxRuns int, f func() error) (time.Duration, error) {
	var total time.Duration
	n := 0
	for n < maxRuns && (n == 0 || total < budget) {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		total += time.Since(t0)
		n++
	}
	return total / time.Duration(n), nil
}

// BenchWeights measures one case on the GPU (when g is not nil) and on the Go reference.
func BenchWeights(ctx context.Context, g *GPU, c BenchCase, tileSize int) (*WeightsFigures, error) {
	if tileSize <= 0 {
		tileSize = field.DefaultTileSize
	}
	geo, err := landscape.NewGeometry(c.Stack, c.Field, 0)
	if err != nil {
		return nil, err
	}
	fig := &WeightsFigures{Case: c.Name, W: geo.Field.WeightsW, H: geo.Field.WeightsH, TileSize: tileSize}
	if c.Stack.ReadsFlow() {
		// The routing on its own; then the field's plane routed, so the evaluators' times are of
		// reading it (the editor routes once per height change, not per evaluation).
		fig.FlowRouting, err = timeRepeated(2*time.Second, 3, func() error {
			_, err := field.Flow(ctx, c.Field.Height, c.Field.TexelSize())
			return err
		})
		if err != nil {
			return nil, err
		}
		if _, err := c.Field.FlowPlane(); err != nil {
			return nil, err
		}
	}
	var ref *landscape.Weights
	fig.CPU, err = timeRepeated(2*time.Second, 3, func() error {
		ref, err = Reference(ctx, c.Stack, c.Field, Options{})
		return err
	})
	if err != nil || g == nil {
		return fig, err
	}
	if c.Stack.ReadsFlow() {
		plane, _ := c.Field.FlowPlane()
		var got *field.Grid
		var st gpu.FlowStats
		if got, st, err = g.Flow(ctx, c.Field.Height, c.Field.TexelSize()); err != nil { // warm-up: the kernel compiled
			return nil, err
		}
		fig.GPUFlowRouting, err = timeRepeated(2*time.Second, 3, func() error {
			got, st, err = g.Flow(ctx, c.Field.Height, c.Field.TexelSize())
			return err
		})
		if err != nil {
			return nil, err
		}
		fig.FlowWaves = st.Waves
		for i, v := range plane.Data {
			fig.FlowWorst = max(fig.FlowWorst, math.Abs(float64(got.Data[i])-float64(v)))
		}
	}
	whole := geo.Tiles(1 << 30)
	// Warm-up: pipeline, buffers and target created, field uploaded once.
	if err := g.RunTiles(ctx, c.Stack, c.Field, &geo, whole, Options{}); err != nil {
		return nil, err
	}
	g.Dev.Wait()
	fig.GPUField, err = timeRepeated(time.Second, 20, func() error {
		err := g.RunTiles(ctx, c.Stack, c.Field, &geo, whole, Options{})
		g.Dev.Wait()
		return err
	})
	if err != nil {
		return nil, err
	}
	fig.GPUResident, err = residentTime(g)
	if err != nil {
		return nil, err
	}

	t0 := time.Now()
	w, err := g.Read()
	if err != nil {
		return nil, err
	}
	fig.ReadbackWeights = time.Since(t0)
	fig.GPUMatchesCPU, fig.GPUWorstByteDiff = CompareWeights(w, ref)

	// One tile with its upload: the first full tile, run repeatedly, waited for at the end.
	tiles := geo.Tiles(tileSize)
	tile := tiles[0]
	const reps = 50
	var total time.Duration
	for range 3 {
		t0 := time.Now()
		for range reps {
			if err := g.RunTiles(ctx, c.Stack, c.Field, &geo, []field.Tile{tile}, Options{}); err != nil {
				return nil, err
			}
		}
		g.Dev.Wait()
		d := time.Since(t0) / reps
		if total == 0 || d < total {
			total = d
		}
	}
	fig.GPUTile = total
	return fig, nil
}

// residentTime is the kernel's time for the last RunTiles' dispatch with everything resident.
// A GPU left idle through the CPU phases of a benchmark drops its clock (seen on the H200: 345 MHz
// against 1980 under load, a 3–4.5× slower kernel), so the GPU is first kept busy for about a
// second, then the best of five batches of ~0.2 s each is taken.
func residentTime(g *GPU) (time.Duration, error) {
	batch := func(n int) (time.Duration, error) {
		t0 := time.Now()
		if err := g.weights.Repeat(n); err != nil {
			return 0, err
		}
		g.Dev.Wait()
		return time.Since(t0), nil
	}
	one, err := batch(1)
	if err != nil {
		return 0, err
	}
	n := max(1, min(5000, int(200*time.Millisecond/max(one, time.Microsecond))))
	for warm := time.Now(); time.Since(warm) < time.Second; {
		if _, err := batch(n); err != nil {
			return 0, err
		}
	}
	best := time.Duration(0)
	for range 5 {
		d, err := batch(n)
		if err != nil {
			return 0, err
		}
		if best == 0 || d < best {
			best = d
		}
	}
	return best / time.Duration(n), nil
}

// CompareWeights returns the share of equal bytes between a and b and the largest difference.
func CompareWeights(a, b *landscape.Weights) (equal float64, worst int) {
	if a == nil || b == nil || len(a.Lo) != len(b.Lo) {
		return 0, 255
	}
	return compareBytes([][2][]byte{{a.Lo, b.Lo}, {a.Hi, b.Hi}})
}

// compareBytes is the share of equal bytes over the pairs of planes and the largest difference.
func compareBytes(planes [][2][]byte) (equal float64, worst int) {
	n, total := 0, 0
	for _, pl := range planes {
		for i := range pl[0] {
			d := int(pl[0][i]) - int(pl[1][i])
			if d == 0 {
				n++
			}
			worst = max(worst, d, -d)
		}
		total += len(pl[0])
	}
	return float64(n) / float64(total), worst
}

// Print writes the figures as the bench command shows them.
func (f *WeightsFigures) Print(w io.Writer, gpuName string) {
	tx := f.Texels()
	fmt.Fprintf(w, "weights %s, %d×%d texels\n", f.Case, f.W, f.H)
	if f.FlowRouting > 0 {
		fmt.Fprintf(w, "  flow routing      %9.2f ms   %8.2f Mtexel/s   (Go, whole height once; not in the times below)\n", ms(f.FlowRouting), rate(tx, f.FlowRouting)/1e6)
	}
	fmt.Fprintf(w, "  Go reference      %9.2f ms   %8.2f Mtexel/s\n", ms(f.CPU), rate(tx, f.CPU)/1e6)
	if f.GPUField == 0 {
		fmt.Fprintln(w, "  GPU               (none)")
		return
	}
	fmt.Fprintf(w, "  GPU %s\n", gpuName)
	if f.GPUFlowRouting > 0 {
		fmt.Fprintf(w, "    flow routing    %9.2f ms   %8.2f Mtexel/s   (%d waves, read back; worst |Δlog10| from Go %.2g)\n",
			ms(f.GPUFlowRouting), rate(tx, f.GPUFlowRouting)/1e6, f.FlowWaves, f.FlowWorst)
	}
	fmt.Fprintf(w, "    field, resident %9.3f ms   %8.3f Gtexel/s   (kernel only, field already uploaded)\n", ms(f.GPUResident), rate(tx, f.GPUResident)/1e9)
	fmt.Fprintf(w, "    field + upload  %9.3f ms   %8.3f Gtexel/s\n", ms(f.GPUField), rate(tx, f.GPUField)/1e9)
	fmt.Fprintf(w, "    %d² tile + upload %7.3f ms\n", f.TileSize, ms(f.GPUTile))
	fmt.Fprintf(w, "    readback        %9.3f ms\n", ms(f.ReadbackWeights))
	fmt.Fprintf(w, "  ratio GPU/Go      %9.1f× (resident), %.1f× (with upload)\n", f.CPU.Seconds()/f.GPUResident.Seconds(), f.CPU.Seconds()/f.GPUField.Seconds())
	fmt.Fprintf(w, "  agreement         %.4f%% of bytes equal, worst difference %d\n", 100*f.GPUMatchesCPU, f.GPUWorstByteDiff)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// OpenBenchGPU opens the GPU for a benchmark, or returns nil and a note when there is none.
func OpenBenchGPU(ctx context.Context) (*GPU, string) {
	g, err := OpenGPU(ctx)
	if err != nil {
		return nil, fmt.Sprintf("no GPU: %v", err)
	}
	return g, g.Dev.Info.String()
}

// EditFigures is what `strata bench edit` reports: the cost of re-evaluating the tiles a brush
// stroke dirtied, the loop that has to feel instant in the editor.
type EditFigures struct {
	Case          string
	W, H          int
	Strokes       int
	TilesPerEdit  float64
	TileSize      int
	CPU, GPU      time.Duration // per stroke: dirty tiles re-evaluated (GPU: upload + kernel + wait)
	GPUMatchesCPU float64
}

// BenchEdit paints strokes brush dabs (radius 30 m, +0.5 m) across the field and re-evaluates the
// dirty tiles after each, on the Go reference and (when g is not nil) on the GPU.
func BenchEdit(ctx context.Context, g *GPU, c BenchCase, tileSize, strokes int) (*EditFigures, error) {
	if tileSize <= 0 {
		tileSize = field.DefaultTileSize
	}
	// The benchmark paints a copy of the height; the caller's field stays as it was.
	f := field.Field{Placement: c.Field.Placement, Height: c.Field.Height.Clone(), Channels: c.Field.Channels}
	geo, err := landscape.NewGeometry(c.Stack, &f, 0)
	if err != nil {
		return nil, err
	}
	fig := &EditFigures{Case: c.Name, W: geo.Field.WeightsW, H: geo.Field.WeightsH, Strokes: strokes, TileSize: tileSize}
	w, err := Reference(ctx, c.Stack, &f, Options{TileSize: tileSize})
	if err != nil {
		return nil, err
	}
	if g != nil {
		if err := g.RunTiles(ctx, c.Stack, &f, &geo, geo.Tiles(tileSize), Options{}); err != nil {
			return nil, err
		}
		g.Dev.Wait()
	}
	dirty := field.NewDirtySet(geo.Field, tileSize, geo.Stack.GradientStep)
	mn, sz := f.Placement.Min(), f.Placement.Size
	ts := f.TexelSize()
	const radius = 30.0
	tilesTotal := 0
	for k := 0; k < strokes; k++ {
		// Dabs walk a diagonal so every stroke lands somewhere new and the work is repeatable.
		cx := mn[0] + sz[0]*(0.1+0.8*float64(k)/float64(max(1, strokes-1)))
		cz := mn[1] + sz[1]*(0.2+0.6*float64((k*7)%strokes)/float64(max(1, strokes)))
		paintDab(f.Height, mn, ts, cx, cz, radius, 0.5)
		dirty.MarkRect(cx-radius, cz-radius, cx+radius, cz+radius)
		idx := dirty.Drain()
		tiles := make([]field.Tile, 0, len(idx))
		for _, i := range idx {
			if t, ok := field.TileAt(&geo.Field, tileSize, geo.Stack.GradientStep, i); ok {
				tiles = append(tiles, t)
			}
		}
		tilesTotal += len(tiles)
		t0 := time.Now()
		if err := ReferenceTiles(ctx, c.Stack, &f, &geo, w, tiles, Options{TileSize: tileSize}); err != nil {
			return nil, err
		}
		fig.CPU += time.Since(t0)
		if g != nil {
			t0 = time.Now()
			if err := g.RunTiles(ctx, c.Stack, &f, &geo, tiles, Options{}); err != nil {
				return nil, err
			}
			g.Dev.Wait()
			fig.GPU += time.Since(t0)
		}
	}
	fig.TilesPerEdit = float64(tilesTotal) / float64(max(1, strokes))
	fig.CPU /= time.Duration(max(1, strokes))
	fig.GPU /= time.Duration(max(1, strokes))
	if g != nil {
		gw, err := g.Read()
		if err != nil {
			return nil, err
		}
		fig.GPUMatchesCPU, _ = CompareWeights(gw, w)
	}
	return fig, nil
}

// paintDab raises the height inside a disc by up to amount metres with a smooth falloff.
func paintDab(h *field.Grid, mn, ts [2]float64, cx, cz, r, amount float64) {
	i0 := max(0, int((cx-r-mn[0])/ts[0]))
	i1 := min(h.W-1, int((cx+r-mn[0])/ts[0])+1)
	j0 := max(0, int((cz-r-mn[1])/ts[1]))
	j1 := min(h.H-1, int((cz+r-mn[1])/ts[1])+1)
	for j := j0; j <= j1; j++ {
		z := mn[1] + (float64(j)+0.5)*ts[1]
		for i := i0; i <= i1; i++ {
			x := mn[0] + (float64(i)+0.5)*ts[0]
			d2 := ((x-cx)*(x-cx) + (z-cz)*(z-cz)) / (r * r)
			if d2 < 1 {
				u := 1 - d2
				h.Set(i, j, h.At(i, j)+float32(amount*u*u))
			}
		}
	}
}

// Print writes the figures as the bench command shows them.
func (f *EditFigures) Print(w io.Writer, gpuName string) {
	fmt.Fprintf(w, "edit %s, %d×%d texels, %d strokes, %.1f tiles of %d² per stroke\n", f.Case, f.W, f.H, f.Strokes, f.TilesPerEdit, f.TileSize)
	fmt.Fprintf(w, "  Go reference      %9.2f ms per stroke\n", ms(f.CPU))
	if f.GPU > 0 {
		fmt.Fprintf(w, "  GPU %s\n                    %9.2f ms per stroke (upload + kernel + wait)\n", gpuName, ms(f.GPU))
		fmt.Fprintf(w, "  ratio GPU/Go      %9.1f×; %.4f%% of bytes equal after all strokes\n", f.CPU.Seconds()/f.GPU.Seconds(), 100*f.GPUMatchesCPU)
	}
}
