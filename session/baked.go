package session

import (
	"context"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/terraindata"
	"strata/viewport"
)

// BakedScene is the picture of a saved container as `strata render` draws it: its payloads as
// stored (the weights pyramid from the stored controls) and its forest placed again from the
// density children — on dev's GPU and drawn from the pool buffers when dev is given. The editor's
// settled frame of the same state from the same camera is this scene's frame (docs/editor.md
// "Settled frames"). release frees the placed pools once the scene is no longer drawn.
func BakedScene(ctx context.Context, c *terraindata.Container, dev *gpu.Device) (scene *viewport.Scene, release func(), err error) {
	scene, err = viewport.SceneFromContainer(c)
	if err != nil {
		return nil, nil, err
	}
	// The scene already holds the height payload (R metres of rgba32f): place from it rather
	// than reading the child a second time.
	var height *field.Grid
	if len(c.Manifest().Scatter) > 0 {
		height = field.NewGrid(scene.Height.W, scene.Height.H)
		for i := range height.Data {
			height.Data[i] = scene.Height.Data[4*i]
		}
	}
	pops, err := bake.PlaceFromContainer(ctx, c, height, dev)
	if err != nil {
		return nil, nil, err
	}
	release = func() {
		for _, p := range pops {
			p.Release()
		}
	}
	for _, p := range pops {
		if p.Count == 0 {
			continue
		}
		vp := viewport.Population{Name: p.Name, Mesh: viewport.Mesh(p.Mesh), Matrices: p.Matrices, Count: p.Count}
		if p.Kernel != nil { // placed on the GPU; a world cell's stored instances come as Matrices
			vp.Pool = p.Kernel.Pool().Buf
		}
		scene.Populations = append(scene.Populations, vp)
	}
	return scene, release, nil
}
