package bake

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/scatter"
	"strata/terraindata"
)

// PlacedPopulation is one population of a container placed again from what the container keeps:
// its density child, spacing, seed and scale. Placement is deterministic, so this is the forest
// the bake placed. On the GPU the pool stays in Kernel's buffer for the viewport to draw.
type PlacedPopulation struct {
	landscape.Population
	Kernel *gpu.ScatterKernel // GPU placement: Kernel.Pool() holds Count mat4s; nil on the Go path
}

// Release frees the GPU pool. Safe on nil and twice.
func (p *PlacedPopulation) Release() {
	if p != nil {
		p.Kernel.Release()
		p.Kernel = nil
	}
}

// PlaceFromContainer re-places every scatter population of c. height is the container's height
// grid when the caller has already read it (nil: read it here). With dev nil it uses the Go
// reference and fills Matrices; with a device it places on the GPU and keeps the pool there
// (Matrices stays nil; read them with Kernel.ReadMatrices when needed). A container that stores
// its instances (a world cell's, landscape.StoredInstances) gets those, in Matrices, whatever dev
// is: they are the world's placement, which the cell's own density alone cannot reproduce.
func PlaceFromContainer(ctx context.Context, c *terraindata.Container, height *field.Grid, dev *gpu.Device) ([]*PlacedPopulation, error) {
	pops := c.Manifest().Scatter
	if len(pops) == 0 {
		return nil, nil
	}
	stored, haveStored, err := landscape.StoredInstances(c)
	if err != nil {
		return nil, err
	}
	if height == nil {
		if height, err = landscape.ContainerHeight(c); err != nil {
			return nil, err
		}
	}
	p := c.Placement()
	mf := filepath.Join(c.Path(), terraindata.ManifestFile)
	var out []*PlacedPopulation
	fail := func(err error) ([]*PlacedPopulation, error) {
		for _, o := range out {
			o.Release()
		}
		return nil, err
	}
	for i, mp := range pops {
		// Errors name the manifest entry: terrain.yaml: scatter[0].spacing: …
		where := func(field string, err error) error {
			return fmt.Errorf("bake: %s: scatter[%d].%s (%q): %w", mf, i, field, mp.Name, err)
		}
		dref := c.ScatterDensity(mp.Name)
		if dref == nil {
			return fail(where("density", fmt.Errorf("no density child named")))
		}
		t, err := dref.Read()
		if err != nil {
			return fail(err)
		}
		if t.Format != terraindata.R32F || len(t.Float) != t.Width*t.Height {
			return fail(fmt.Errorf("bake: %s: %s: format %s, want r32f", dref.Dir, dref.Field, t.Format))
		}
		dens := &field.Grid{W: t.Width, H: t.Height, Data: t.Float}
		geo, err := landscape.WeightsGeometry(p, height.W, height.H, t.Width, t.Height)
		if err != nil {
			return fail(where("density", err))
		}
		if !(mp.Spacing >= 0) || math.IsInf(mp.Spacing, 0) || mp.Count < 0 {
			return fail(where("spacing", fmt.Errorf("spacing %v, count %d: the manifest is invalid (strata validate lists why)", mp.Spacing, mp.Count)))
		}
		params := scatter.Params{Seed: mp.Seed, Scale: [2]float32{float32(mp.Scale[0]), float32(mp.Scale[1])}, Spacing: float32(mp.Spacing)}
		pp := &PlacedPopulation{Population: landscape.Population{Name: mp.Name, Mesh: mp.Mesh, Seed: mp.Seed, Scale: mp.Scale,
			Density: dens, Spacing: params.Spacing}}
		out = append(out, pp)
		if haveStored {
			pp.Matrices, pp.Count = stored[mp.Name], len(stored[mp.Name])/scatter.MatrixFloats
			continue
		}
		if params.Spacing == 0 {
			continue
		}
		if _, _, err := scatter.SiteGrid(&geo, params.Spacing); err != nil {
			return fail(where("spacing", err))
		}
		// count is what the bake placed: a reservation to start from, never trusted past the
		// most a population may hold.
		reserve := min(max(mp.Count, 0), scatter.MaxInstances)
		tiles := field.Tiles(&geo, field.DefaultTileSize, 0)
		if dev == nil {
			pl := scatter.NewPool(params, geo, dens, height, reserve)
			if err := pl.Run(ctx, tiles); err != nil {
				return fail(where("spacing", err))
			}
			pp.Matrices, pp.Count = pl.Matrices(), pl.Total()
			continue
		}
		k, err := dev.NewScatterKernel()
		if err != nil {
			return fail(err)
		}
		pp.Kernel = k
		if err := k.UploadDensity(uint32(t.Width), uint32(t.Height), t.Float); err != nil {
			return fail(err)
		}
		n, err := k.Place(ctx, gpu.PlaceJob{Params: params, Geometry: &geo, Height: height, Tiles: tiles, Reserve: reserve})
		if err != nil {
			return fail(where("spacing", err))
		}
		pp.Count = n
	}
	return out, nil
}
