package bake

import (
	"bytes"
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
)

// BenchmarkReference is the figure: Mtexel/s of the Go reference on the dunes sample
// (2000², 2 m texels) with the sample stack and with the 16-rule stress stack.
func BenchmarkReference(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    *stack.Stack
		f    func() *field.Field
	}{
		{"sample", stack.SampleDunes(), field.SampleDunes},
		{"stress16", stack.StressStack(), func() *field.Field { return StressField(field.DunesTexels) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := bc.f()
			b.ResetTimer()
			var texels int
			for b.Loop() {
				w, err := Reference(context.Background(), bc.s, f, Options{})
				if err != nil {
					b.Fatal(err)
				}
				texels += w.W * w.H
			}
			b.ReportMetric(float64(texels)/b.Elapsed().Seconds()/1e6, "Mtexel/s")
		})
	}
}

// demField is issue 15's two-core GDAL comparison in-process (scripts/gdal-compare.sh): the
// 120×91 topobathy DEM resampled Catmull-Rom to 4096×3496 at 10 m texels. GDAL's cubic spline
// differs a little; what matters here is ground of the same size and relief (slopes up to ~70°,
// a fifth above 30°). Built once per test binary.
var demField = sync.OnceValues(func() (*field.Field, error) { return topobathyDEM(4096, 3496, 10) })

// topobathyDEM is the topobathy DEM resampled Catmull-Rom to w×h texels of texel metres, centred
// at the origin.
func topobathyDEM(w, h int, texel float64) (*field.Field, error) {
	src, err := field.LoadHeight("../testdata/maps/topobathy_120x91_f32le.raw", field.ImportOptions{Size: [2]int{120, 91}})
	if err != nil {
		return nil, err
	}
	g := field.NewGrid(w, h)
	cubic := func(p0, p1, p2, p3, t float64) float64 {
		return p1 + 0.5*t*(p2-p0+t*(2*p0-5*p1+4*p2-p3+t*(3*(p1-p2)+p3-p0)))
	}
	at := func(i, j int) float64 {
		return float64(src.At(min(max(i, 0), src.W-1), min(max(j, 0), src.H-1)))
	}
	for j := range h {
		v := (float64(j)+0.5)*float64(src.H)/float64(h) - 0.5
		j0, tv := int(math.Floor(v)), v-math.Floor(v)
		for i := range w {
			u := (float64(i)+0.5)*float64(src.W)/float64(w) - 0.5
			i0, tu := int(math.Floor(u)), u-math.Floor(u)
			var col [4]float64
			for k := range 4 {
				col[k] = cubic(at(i0-1, j0-1+k), at(i0, j0-1+k), at(i0+1, j0-1+k), at(i0+2, j0-1+k), tu)
			}
			g.Data[j*w+i] = float32(cubic(col[0], col[1], col[2], col[3], tv))
		}
	}
	return field.New(field.Placement{Size: [2]float64{texel * float64(w), texel * float64(h)}}, g)
}

// slopeRock is gdal-compare.sh's stack: one rock layer where the slope reaches 30°.
func slopeRock() *stack.Stack {
	s := stack.New()
	ground, rock := stack.NewLayer("ground"), stack.NewLayer("rock")
	rock.Rules = []stack.Rule{{Input: stack.InputSlope, Min: stack.F(30)}}
	s.Layers = []stack.Layer{ground, rock}
	return s
}

// BenchmarkReferenceDEM is the evaluation inside `strata bake --cpu` of gdal-compare.sh (the
// slope rule over the 4096×3496 DEM at 10 m, on every core), plus the same ground under the
// sample's feathered slope rule, under the stress stack, and with a weights grid of 7 m (taps
// between texel centres).
func BenchmarkReferenceDEM(b *testing.B) {
	f, err := demField()
	if err != nil {
		b.Skip("the topobathy DEM:", err)
	}
	for _, bc := range []struct {
		name string
		s    *stack.Stack
		res  float64
	}{
		{"slope30", slopeRock(), 0},
		{"dunes", stack.SampleDunes(), 0},
		{"slope30-res7", slopeRock(), 7},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var texels int
			cpu0 := cpuSeconds()
			for b.Loop() {
				w, err := Reference(context.Background(), bc.s, f, Options{Resolution: bc.res})
				if err != nil {
					b.Fatal(err)
				}
				texels += w.W * w.H
			}
			b.ReportMetric(float64(texels)/b.Elapsed().Seconds()/1e6, "Mtexel/s")
			if cpu := cpuSeconds() - cpu0; cpu0 > 0 && cpu > 0 {
				b.ReportMetric(cpu*1e9/float64(texels), "cpu-ns/texel")
			}
		})
	}
}

// BenchmarkDensityDEM is the Go reference of the dunes sample's tree density (a layer rule, a
// feathered slope rule and a noise rule: scatter.Density) over the same DEM.
func BenchmarkDensityDEM(b *testing.B) {
	f, err := demField()
	if err != nil {
		b.Skip("the topobathy DEM:", err)
	}
	s := stack.SampleDunes()
	w, err := Reference(context.Background(), s, f, Options{})
	if err != nil {
		b.Fatal(err)
	}
	g, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		b.Fatal(err)
	}
	var texels int
	cpu0 := cpuSeconds()
	for b.Loop() {
		if _, _, err := scatter.Density(context.Background(), s, 0, f, scatterGeometry(&g), w.Lo, w.Hi); err != nil {
			b.Fatal(err)
		}
		texels += w.W * w.H
	}
	b.ReportMetric(float64(texels)/b.Elapsed().Seconds()/1e6, "Mtexel/s")
	if cpu := cpuSeconds() - cpu0; cpu0 > 0 && cpu > 0 {
		b.ReportMetric(cpu*1e9/float64(texels), "cpu-ns/texel")
	}
}

// cpuSeconds is the CPU time (user + system) this process has used, from /proc/self/stat in clock
// ticks of 10 ms, or 0 where there is no /proc. On a shared machine the wall time of a benchmark
// grows with the others' load; the CPU time it takes grows much less.
func cpuSeconds() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) start after the last ')'.
	rest := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(rest) < 13 {
		return 0
	}
	u, err1 := strconv.ParseFloat(rest[11], 64)
	s, err2 := strconv.ParseFloat(rest[12], 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return (u + s) / 100
}
