package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/stack"
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

// StartStack gives a baked landscape (a container with no stack) a stack: one layer per baked
// surface with its tint and tiling and no rules, ready for rules. Its first evaluation replaces
// the baked weights; the history starts again, since the baked weights cannot be rebuilt by an
// undo.
func (s *Session) StartStack() error {
	s.fmu.RLock()
	l := s.land
	var baked *landscape.Baked
	if l != nil {
		baked = l.Baked
	}
	s.fmu.RUnlock()
	if baked == nil {
		return fmt.Errorf("session: this landscape already has a stack")
	}
	st := stack.New()
	for i, bl := range baked.Layers {
		ly := stack.NewLayer(bl.Name)
		if c, err := stack.ParseColor(bl.Tint); err == nil {
			ly.Tint = c
		} else {
			ly.Tint = stack.Color{uint8(40 + 25*i), uint8(90 + 15*i), uint8(60 + 20*i)}
		}
		if bl.Tiling > 0 {
			ly.Tiling = bl.Tiling
		}
		for _, m := range []struct {
			src string
			dst *string
		}{{bl.Albedo, &ly.Albedo}, {bl.Normal, &ly.Normal}, {bl.Mask, &ly.Mask}} {
			if m.src == "" {
				continue
			}
			p := m.src
			if !filepath.IsAbs(p) {
				p = filepath.Join(baked.From, filepath.FromSlash(p))
			}
			if _, err := os.Stat(p); err == nil {
				*m.dst = p
			}
		}
		st.Layers = append(st.Layers, ly)
	}
	if len(st.Layers) == 0 {
		st.Layers = []stack.Layer{stack.NewLayer("ground")}
	}
	p := s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	s.fmu.Lock()
	l.Stack, l.Baked = st, nil
	s.fmu.Unlock()
	s.mu.Lock()
	s.doc.stack, s.doc.baked = st, false
	s.hist.clear()
	s.doc.savedOK = false // not undoable: the container on disk stays baked
	s.changed()
	p.geoFor = nil
	p.newGeneration()
	p.layersDirty, p.atlasDirty = true, true
	p.kick()
	s.mu.Unlock()
	s.emit(Event{Kind: EventDocument, Message: "Started a stack"})
	return nil
}
