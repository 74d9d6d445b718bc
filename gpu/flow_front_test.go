package gpu

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"strata/field"
	"strata/noise"
)

// fbmGround is strata bench erode's ground at n² (terrain_fbm mountains on 4 m texels, 6
// octaves, about 600 m of relief, the feature a quarter of the field): long, branching chains.
func fbmGround(n int) *field.Grid {
	g := field.NewGrid(n, n)
	const texel = 4.0
	fs := float32(float64(n) * texel / 4)
	for j := range n {
		for i := range n {
			g.Data[j*n+i] = 600 * noise.FBM(float32((float64(i)+0.5)*texel), float32((float64(j)+0.5)*texel), fs, 6, 11)
		}
	}
	return g
}

// flowShape is routeFront's tiles: log2 of their side, threads a tile.
type flowShape struct {
	shift uint
	group int
}

// planeHash is the FNV-1a hash of a plane's float32 bytes.
func planeHash(g *field.Grid) uint64 {
	h := fnv.New64a()
	h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&g.Data[0])), 4*len(g.Data)))
	return h.Sum64()
}

// The worklist of tiles (routeFront) against one wave over the grid a dispatch (route), at
// 256² and 512², with tiles 16 and 32 texels a side, sweeps of at most 3, 16 or 64 sub-waves a
// step or unlimited: the same bytes, in far fewer dispatches. On lavapipe the planes also hash as
// the GPU twin's did before the worklist (routeTile, 16×16 tiles, up to 32 sub-waves a dispatch;
// hashes taken at 0683d4e), so no change of schedule since (the worklist; the tile held in
// workgroup memory, flow50) changed a byte.
func TestFlowFrontMatchesRoute(t *testing.T) {
	dev := testDevice(t)
	before := map[string]uint64{ // lavapipe, 4 m texels, routeTile at 0683d4e
		"256 fbm": 0x046ac93a9364cf43, "256 tilted plane": 0x9983f8996df3af88, "256 V valley": 0x039dd756947b284b,
		"256 terraces": 0xdf3703fa77bfb5d3, "256 hills with holes and pits": 0x6101848be478a157,
		"512 fbm": 0x3324513dac055a58,
	}
	lavapipe := strings.Contains(strings.ToLower(dev.Info.Name), "llvmpipe")
	kernels := map[flowShape]*FlowKernel{}
	for _, sh := range []flowShape{{4, 256}, {5, 256}, {4, 64}, {5, 128}} {
		k, err := dev.newFlowKernel(sh.shift, sh.group)
		if err != nil {
			t.Fatal(err)
		}
		defer k.Release()
		kernels[sh] = k
	}
	for _, name := range []string{"256 fbm", "256 tilted plane", "256 V valley", "256 terraces", "256 hills with holes and pits", "512 fbm"} {
		var n int
		var shape string
		fmt.Sscanf(name, "%d", &n)
		shape = name[4:]
		var g *field.Grid
		if shape == "fbm" {
			g = fbmGround(n)
		} else {
			g = flowGround(shape, n, n)
		}
		texel := [2]float64{4, 4}
		flowTiles = false
		want, wst, err := kernels[flowShape{flowTileShift, flowGroup}].Route(context.Background(), g, texel)
		flowTiles = true
		if err != nil {
			t.Fatal(err)
		}
		if lavapipe && planeHash(want) != before[name] {
			t.Errorf("%s: route's plane hashes %#016x, the GPU twin's before the worklist %#016x", name, planeHash(want), before[name])
		}
		for _, v := range []struct {
			flowShape
			sweep int
		}{
			{flowShape{4, 256}, 16}, {flowShape{4, 256}, 0}, {flowShape{4, 256}, 3}, {flowShape{5, 256}, 16},
			{flowShape{5, 256}, 64}, {flowShape{5, 256}, 0}, {flowShape{4, 64}, 32}, {flowShape{5, 128}, 32},
		} {
			shift := v.shift
			flowSweep = v.sweep
			got, st, err := kernels[v.flowShape].Route(context.Background(), g, texel)
			flowSweep = 16
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Data, want.Data) {
				i := 0
				for got.Data[i] == want.Data[i] {
					i++
				}
				t.Fatalf("%s, %d² tiles of %d threads, sweeps ≤ %d: texel (%d, %d): routeFront %v, route %v", name, 1<<shift, v.group, v.sweep, i%n, i/n, got.Data[i], want.Data[i])
			}
			if st.Waves <= 0 || st.Waves >= wst.Waves || st.SubWaves < st.Waves {
				t.Errorf("%s, %d² tiles of %d threads, sweeps ≤ %d: %d steps, %d sub-waves, route %d waves", name, 1<<shift, v.group, v.sweep, st.Waves, st.SubWaves, wst.Waves)
			}
			t.Logf("%s, %d² tiles of %d threads, sweeps ≤ %d: %d steps, %d sub-waves, %d tiles swept (route: %d waves); hash %#016x", name, 1<<shift, v.group, v.sweep, st.Waves, st.SubWaves, st.Tiles, wst.Waves, planeHash(got))
		}
	}
}

// BenchmarkFlowRoute routes bench erode's 4096² ground (fbmGround) with routeFront's tiles 16 and
// 32 texels a side of 256 or 128 threads, sweeps of at most 16 or 32 sub-waves a step or
// unlimited, the plane read back in 4 bands or 1, and reports where the time went (FlowStats: ms of each phase, the steps,
// the sub-waves on the critical path). The H200 figures are in docs/PERFORMANCE.md.
func BenchmarkFlowRoute(b *testing.B) {
	dev := testDevice(b)
	g := fbmGround(4096)
	kernels := map[flowShape]*FlowKernel{}
	for _, v := range []struct {
		flowShape
		sweep, pieces int
	}{
		{flowShape{4, 256}, 16, 4}, {flowShape{4, 256}, 32, 4}, {flowShape{4, 256}, 0, 4}, {flowShape{4, 128}, 16, 4},
		{flowShape{5, 256}, 16, 4}, {flowShape{5, 256}, 32, 4}, {flowShape{4, 256}, 16, 1},
	} {
		if kernels[v.flowShape] == nil {
			k, err := dev.newFlowKernel(v.shift, v.group)
			if err != nil {
				b.Fatal(err)
			}
			defer k.Release()
			kernels[v.flowShape] = k
		}
		b.Run(fmt.Sprintf("tiles=%d/group=%d/sweep=%d/pieces=%d", 1<<v.shift, v.group, v.sweep, v.pieces), func(b *testing.B) {
			flowSweep, flowReadPieces = v.sweep, v.pieces
			defer func() { flowSweep, flowReadPieces = 16, 4 }()
			kernels[v.flowShape].rd.Release() // a Reader of as many staging buffers as pieces
			kernels[v.flowShape].rd = nil
			var sum FlowStats
			for range b.N {
				_, st, err := kernels[v.flowShape].Route(context.Background(), g, [2]float64{4, 4})
				if err != nil {
					b.Fatal(err)
				}
				sum.Prepare += st.Prepare
				sum.Flats += st.Flats
				sum.Accumulate += st.Accumulate
				sum.Read += st.Read
				sum.Waves, sum.SubWaves, sum.FlatPasses, sum.Tiles = st.Waves, st.SubWaves, st.FlatPasses, st.Tiles
			}
			ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) }
			b.ReportMetric(ms(sum.Prepare), "prepare-ms")
			b.ReportMetric(ms(sum.Flats), "flats-ms")
			b.ReportMetric(ms(sum.Accumulate), "accumulate-ms")
			b.ReportMetric(ms(sum.Read), "read-ms")
			b.ReportMetric(float64(sum.Waves), "steps")
			b.ReportMetric(float64(sum.SubWaves), "sub-waves")
			b.ReportMetric(float64(sum.Tiles), "tiles")
			b.ReportMetric(float64(sum.FlatPasses), "flat-passes")
		})
	}
}
