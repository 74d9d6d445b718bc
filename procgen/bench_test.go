package procgen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchScript is a graph of the seed's shape at n×n texels: fbm relief, four masks over slope,
// height, curvature and noise (jittered), written as four layers.
func benchScript(n int) string {
	return fmt.Sprintf(`
local g = proc.graph()
local s = g:node("s", "terrain.source"):param("size", {%d, %d}):param("resolution", 2)
local f = g:node("f", "terrain.fbm"):input("raster", s):param("amplitude", 18):param("featureSize", 180)
local m = g:node("rock", "terrain.mask"):input("raster", f):param("input", "slope"):param("min", 18):param("feather", 4):param("jitter", 2)
m = g:node("sand", "terrain.mask"):input("raster", m):param("input", "slope"):param("max", 18):param("feather", 4)
m = g:node("low", "terrain.mask"):input("raster", m):param("input", "height"):param("max", -5):param("feather", 3):param("jitter", 2)
m = g:node("gully", "terrain.mask"):input("raster", m):param("input", "curvature"):param("min", 0.05):param("feather", 0.05)
m = g:node("dune", "terrain.mask"):input("raster", m):param("input", "noise"):param("min", 0.6):param("feather", 0.1):param("combine", "max")
  :param("name", "sand")
g:node("w", "terrain.write"):input("raster", m):param("name", "b"):param("layers", {"sand", "rock", "low", "gully"})
`, 2*n, 2*n)
}

// BenchmarkRun runs benchScript end to end (script, evaluation, normalization, the container
// write) on the Go reference and on the GPU. The write is about half of it on the 2-core machine.
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{512, 1024} {
		for _, cpu := range []bool{true, false} {
			name := fmt.Sprintf("%d/gpu", n)
			if cpu {
				name = fmt.Sprintf("%d/cpu", n)
			}
			b.Run(name, func(b *testing.B) {
				dir := b.TempDir()
				p := filepath.Join(dir, "b.lua")
				if err := os.WriteFile(p, []byte(benchScript(n)), 0o644); err != nil {
					b.Fatal(err)
				}
				var backend string
				for b.Loop() {
					res, err := RunFile(context.Background(), p, Options{Out: dir, CPU: cpu})
					if err != nil {
						b.Fatal(err)
					}
					backend = res.Backend
				}
				b.ReportMetric(float64(n*n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtexel/s")
				b.Logf("%s", backend)
			})
		}
	}
}
