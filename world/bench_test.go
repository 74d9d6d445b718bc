package world_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/world"
)

// benchWorld writes a 2×1 world of n² cells: a 2n×n float32 heightmap of the dunes' shape (the
// sample's ground at 2 m texels), samples/dunes.yaml (sand, rock, trees), planned with the
// declared spacing (no density pass). STRATA_BENCH_KEEP=DIR writes it into DIR and keeps it, so
// `strata world bake DIR/bench.world --cell 0` can be timed (and its memory read) on its own.
func benchWorld(b *testing.B, n int) *world.World {
	b.Helper()
	dir := os.Getenv("STRATA_BENCH_KEEP")
	if dir == "" {
		dir = b.TempDir()
	}
	src := filepath.Join(dir, fmt.Sprintf("dunes%dx%d.f32", 2*n, n))
	if _, err := os.Stat(src); err != nil {
		g := field.SampleDunesSized(2 * n).Height
		g.H, g.Data = n, g.Data[:2*n*n]
		f, err := os.Create(src)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriter(f)
		if err := field.EncodeF32(bw, g); err != nil {
			b.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	stack, err := filepath.Abs("../samples/dunes.yaml")
	if err != nil {
		b.Fatal(err)
	}
	size := [2]float64{float64(4 * n), float64(2 * n)} // 2 m texels
	w, err := world.Plan(context.Background(), world.PlanOptions{
		Sources: landscape.Sources{StackPath: stack, Height: src, Import: field.ImportOptions{Size: [2]int{2 * n, n}}, Size: &size},
		Cells:   [2]int{2, 1}, Out: filepath.Join(dir, fmt.Sprintf("bench%d.world", n)), Spacing: world.SpacingDeclared})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkBakeCell bakes cell 0 of a 2×1 world of n² cells with the Go reference (cpu) and the
// GPU (gpu), reporting each phase (read, evaluate, place, write) in ms per cell and the
// evaluation's rate. STRATA_BENCH_CELL=8192 (a comma list) picks other sizes; the default is
// 512, 1024 and 2048.
func BenchmarkBakeCell(b *testing.B) {
	sizes := []int{512, 1024, 2048}
	if v := os.Getenv("STRATA_BENCH_CELL"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 2 {
				b.Fatalf("STRATA_BENCH_CELL=%q", v)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		for _, mode := range []string{"cpu", "gpu"} {
			b.Run(fmt.Sprintf("cell%d/%s", n, mode), func(b *testing.B) {
				w := benchWorld(b, n)
				sum := map[string]float64{}
				var order []string
				backend := ""
				b.ResetTimer()
				for range b.N {
					res, err := w.BakeCell(context.Background(), 0, world.Options{CPU: mode == "cpu", Warn: func(m string) { b.Log(m) }})
					if err != nil {
						b.Fatal(err)
					}
					backend = res.Backend
					for _, p := range res.Phases {
						if _, ok := sum[p.Name]; !ok {
							order = append(order, p.Name)
						}
						sum[p.Name] += p.D.Seconds() * 1000
					}
				}
				b.Logf("%s", backend)
				for _, name := range order {
					b.ReportMetric(sum[name]/float64(b.N), name+"-ms")
				}
				b.ReportMetric(float64(n*n)/1e6/(sum["evaluate"]/float64(b.N)/1000), "eval-Mtexel/s")
			})
		}
	}
}
