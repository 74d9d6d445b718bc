package gpu

import (
	"context"
	"testing"

	"strata/scatter"
	"strata/stack"
)

// benchStack is overflowStack at a density of dens instances/m², so the site count is chosen by
// the density: a 256² field of 2 m texels (512 m) has (512·sqrt(dens))² sites.
func benchStack(dens float64) *stack.Stack {
	s := overflowStack()
	s.Populations[0].Density = dens
	return s
}

// BenchmarkScatterPlace is terrain_scatter_place and its Go twin on a 256² field (2 m texels) with
// 1 M candidate sites (4 instances/m² at full coverage, spacing 0.5 m), 128² tiles. GPU: every
// tile's dispatch, the height upload and the count readback; Go: all cores. Reported: Msite/s.
func BenchmarkScatterPlace(b *testing.B) {
	ss := newScatterSetup(b, 256, benchStack(4))
	p := ss.params()
	tiles := ss.tiles(128)
	nx, _ := scatter.SiteCount(&ss.fg, 0, p.Spacing)
	nz, _ := scatter.SiteCount(&ss.fg, 1, p.Spacing)
	sites := float64(nx * nz)
	job := PlaceJob{Params: p, Geometry: &ss.fg, Height: ss.f.Height, Tiles: tiles, Reserve: 1 << 20}
	b.Run("gpu", func(b *testing.B) {
		for b.Loop() {
			if _, err := ss.k.Place(context.Background(), job); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(sites*float64(b.N)/b.Elapsed().Seconds()/1e6, "Msite/s")
		b.ReportMetric(float64(ss.k.Count()), "instances")
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := scatter.Place(context.Background(), p, &ss.fg, ss.densityGrid(), ss.f.Height, tiles, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(sites*float64(b.N)/b.Elapsed().Seconds()/1e6, "Msite/s")
	})
}

// BenchmarkScatterDensity is terrain_scatter_density and scatter.Density for the stress stack's
// shrubs (a layer rule and a jittered slope rule) on a 256² field, 128² tiles, uploads included.
func BenchmarkScatterDensity(b *testing.B) {
	s := stack.StressStack()
	ss := newScatterSetup(b, 256, s)
	pp, err := stack.PackPopulation(s, 0, ss.sg)
	if err != nil {
		b.Fatal(err)
	}
	d := testDevice(b)
	target, err := d.NewWeightsTarget(uint32(ss.fg.WeightsW), uint32(ss.fg.WeightsH))
	if err != nil {
		b.Fatal(err)
	}
	defer target.Release()
	wts := ss.wtiles(b, 128)
	texels := float64(ss.fg.WeightsW * ss.fg.WeightsH)
	b.Run("gpu", func(b *testing.B) {
		for b.Loop() {
			if _, err := ss.k.Density(context.Background(), pp, target.W, target.H, target, wts); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(texels*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtexel/s")
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := scatter.Density(context.Background(), s, 0, ss.f, ss.geo, ss.lo, ss.hi); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(texels*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtexel/s")
	})
}
