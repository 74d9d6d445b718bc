package bake

import (
	"context"
	"fmt"
	"io"
	"time"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
)

// ScatterFigures is what `strata bench scatter` reports.
type ScatterFigures struct {
	W, H              int
	Sites             int64 // candidate sites of one placement
	Spacing           float32
	Accepted          int
	CPUDensity, CPU   time.Duration // Go reference: density; placement
	GPUDensity, GPU   time.Duration // GPU: density (weights resident); placement incl. height upload and count readback
	GPUResident       time.Duration // GPU placement with the height already resident (PlaceJob.HeightUnchanged), incl. count readback
	GPUResidentTiled  time.Duration // the same over 256² weights tiles (bake's default tiling)
	Tiles             int           // tiles of that tiling
	SameSet           bool          // GPU placement (uploading and resident) equals the Go reference's from the same density, bit for bit
	GPUName, Workload string
}

// benchGrassStack is a dense ground-cover population: 4 instances/m² at full coverage (0.5 m
// spacing, so a 4 km field has 64 M candidate sites), kept to flat ground and to noise patches so
// about 3% of the sites are accepted and the pool fits one storage binding.
func benchGrassStack() *stack.Stack {
	s := stack.SampleDunes()
	g := stack.NewPopulation("grass")
	g.Density = 4
	g.Seed = 3
	g.Scale = [2]float64{0.2, 0.4}
	g.Mesh = stack.MeshBush
	g.Rules = []stack.Rule{
		{Input: stack.InputSlope, Max: stack.F(15), Softness: 3},
		{Input: stack.InputNoise, Min: stack.F(0.7), Softness: 0.02, FeatureSize: stack.F(120)},
	}
	s.Populations = []stack.Population{g}
	return s
}

// BenchScatter measures density and placement of a dense population over the dunes shape at n×n
// texels, on the GPU (when g is not nil) and on the Go reference.
func BenchScatter(ctx context.Context, g *GPU, n int) (*ScatterFigures, error) {
	s := benchGrassStack()
	f := field.SampleDunesSized(n)
	geo, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		return nil, err
	}
	fig := &ScatterFigures{W: geo.Field.WeightsW, H: geo.Field.WeightsH, Workload: "grass: 4/m² max (0.5 m spacing), slope < 15°, noise patches"}
	w, err := Reference(ctx, s, f, Options{})
	if err != nil {
		return nil, err
	}
	sg := scatterGeometry(&geo)
	var dens *field.Grid
	var maxD float32
	fig.CPUDensity, err = timeRepeated(0, 1, func() error {
		dens, maxD, err = scatter.Density(ctx, s, 0, f, sg, w.Lo, w.Hi)
		return err
	})
	if err != nil {
		return nil, err
	}
	params := scatter.ParamsFor(&s.Populations[0], maxD)
	fig.Spacing = params.Spacing
	if params.Spacing == 0 {
		return nil, fmt.Errorf("bake: bench scatter: the population reached no density")
	}
	whole := geo.Tiles(1 << 30)
	for k := 0; k < 2; k++ {
		c, err := scatter.SiteCount(&geo.Field, k, params.Spacing)
		if err != nil {
			return nil, err
		}
		if k == 0 {
			fig.Sites = int64(c)
		} else {
			fig.Sites *= int64(c)
		}
	}
	var ref []float32
	fig.CPU, err = timeRepeated(0, 1, func() error {
		var total int
		ref, total, err = scatter.Place(ctx, params, &geo.Field, dens, f.Height, geo.Tiles(0), 1<<30)
		fig.Accepted = total
		return err
	})
	if err != nil || g == nil {
		return fig, err
	}
	fig.GPUName = g.Dev.Info.String()
	if err := g.RunTiles(ctx, s, f, &geo, whole, Options{}); err != nil {
		return nil, err
	}
	k, err := g.Dev.NewScatterKernel()
	if err != nil {
		return nil, err
	}
	defer k.Release()
	packed, err := stack.PackPopulation(s, 0, geo.Stack)
	if err != nil {
		return nil, err
	}
	wt, err := gpu.FieldTile(f, s.Channels(), whole[0])
	if err != nil {
		return nil, err
	}
	fig.GPUDensity, err = timeRepeated(time.Second, 10, func() error {
		_, err := k.Density(ctx, packed, uint32(fig.W), uint32(fig.H), g.Target(), []gpu.WeightsTile{wt})
		return err
	})
	if err != nil {
		return nil, err
	}
	// Place from the reference's density so both sides place from identical inputs.
	if err := k.UploadDensity(uint32(fig.W), uint32(fig.H), dens.Data); err != nil {
		return nil, err
	}
	job := gpu.PlaceJob{Params: params, Geometry: &geo.Field, Height: f.Height, Tiles: whole, Reserve: fig.Accepted}
	place := func(job gpu.PlaceJob) func() error {
		return func() error {
			_, err := k.Place(ctx, job)
			return err
		}
	}
	same := func() (bool, error) {
		got, err := k.ReadMatrices()
		if err != nil {
			return false, err
		}
		return scatter.FirstDifference(scatter.SortMatrices(got), scatter.SortMatrices(ref)) < 0, nil
	}
	// A GPU left idle through the CPU phases above drops its clock (the H200: 345 MHz against
	// 1980), so each variant first runs for about a second untimed, then is timed over about a
	// second more (each Place is synchronous: it ends with the count readback).
	resident := job
	resident.HeightUnchanged = true
	tiled := resident
	tiled.Tiles = geo.Tiles(field.DefaultTileSize)
	fig.Tiles = len(tiled.Tiles)
	fig.SameSet = true
	for _, v := range []struct {
		job gpu.PlaceJob
		out *time.Duration
	}{{job, &fig.GPU}, {resident, &fig.GPUResident}, {tiled, &fig.GPUResidentTiled}} {
		if _, err := timeRepeated(time.Second, 1000, place(v.job)); err != nil {
			return nil, err
		}
		if *v.out, err = timeRepeated(time.Second, 1000, place(v.job)); err != nil {
			return nil, err
		}
		ok, err := same()
		if err != nil {
			return nil, err
		}
		fig.SameSet = fig.SameSet && ok
	}
	return fig, nil
}

// Print writes the figures as the bench command shows them.
func (f *ScatterFigures) Print(w io.Writer) {
	fmt.Fprintf(w, "scatter %s\n  %d×%d weights grid, spacing %.3g m: %d candidate sites, %d accepted\n", f.Workload, f.W, f.H, f.Spacing, f.Sites, f.Accepted)
	fmt.Fprintf(w, "  Go reference      density %9.2f ms   place %9.2f ms   %8.3f G sites/s\n", ms(f.CPUDensity), ms(f.CPU), float64(f.Sites)/f.CPU.Seconds()/1e9)
	if f.GPU == 0 {
		return
	}
	fmt.Fprintf(w, "  GPU %s\n", f.GPUName)
	fmt.Fprintf(w, "                    density %9.3f ms   place %9.3f ms   %8.3f G sites/s (place includes the height upload and the count readback)\n",
		ms(f.GPUDensity), ms(f.GPU), float64(f.Sites)/f.GPU.Seconds()/1e9)
	if f.GPUResident > 0 {
		fmt.Fprintf(w, "                    place, height resident %9.3f ms   %8.3f G sites/s (PlaceJob.HeightUnchanged; includes the count readback)\n",
			ms(f.GPUResident), float64(f.Sites)/f.GPUResident.Seconds()/1e9)
	}
	if f.GPUResidentTiled > 0 {
		fmt.Fprintf(w, "                    the same over %d tiles %9.3f ms   %8.3f G sites/s (one dispatch for every tile)\n",
			f.Tiles, ms(f.GPUResidentTiled), float64(f.Sites)/f.GPUResidentTiled.Seconds()/1e9)
	}
	fmt.Fprintf(w, "  ratio GPU/Go      %9.1f× (place); same instance set as the reference: %v\n", f.CPU.Seconds()/f.GPU.Seconds(), f.SameSet)
}
