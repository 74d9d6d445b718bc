package session

import (
	"image"

	"strata/landscape"
	"strata/stack"
	"strata/terraindata"
	"strata/viewport"
)

// sceneFor builds the viewport scene of a landscape: its ground read where it is (ground), the
// layer table and atlas, and the stored weights when there are any (shown until the first pass
// writes pages of the weights).
func (s *Session) sceneFor(l *landscape.Landscape, heightRange [2]float64) (*viewport.Scene, error) {
	f := l.Field
	sc := &viewport.Scene{
		Placement:   viewport.Placement{Size: f.Size, Origin: f.Origin},
		HeightRange: heightRange,
		Ground:      &ground{s: s, l: l},
		WeightsGrid: [2]int{l.Geometry.Field.WeightsW, l.Geometry.Field.WeightsH},
	}
	if w := l.Weights; w != nil {
		sc.Controls[0] = &image.NRGBA{Pix: w.Lo, Stride: 4 * w.W, Rect: image.Rect(0, 0, w.W, w.H)}
		sc.Controls[1] = &image.NRGBA{Pix: w.Hi, Stride: 4 * w.W, Rect: image.Rect(0, 0, w.W, w.H)}
	}
	var layers []terraindata.Layer
	base := l.StackDir
	switch {
	case l.Stack != nil:
		sc.Layers = viewLayers(l.Stack)
		for _, ly := range l.Stack.Layers {
			layers = append(layers, terraindata.Layer{Name: ly.Name, Albedo: ly.Albedo, Normal: ly.Normal, Mask: ly.Mask})
		}
	case l.Baked != nil:
		c, err := terraindata.Open(l.Baked.From)
		if err != nil {
			return nil, err
		}
		bs, err := viewport.SceneFromContainer(c)
		if err != nil {
			return nil, err
		}
		sc.Layers, sc.Atlas = bs.Layers, bs.Atlas
		return sc, nil
	}
	a, err := atlasFor(layers, base)
	if err != nil {
		return nil, err
	}
	sc.Atlas = a
	return sc, nil
}

// viewAtlasSize is the atlas the editor draws with: a quarter of the container's sheet, enough
// for the viewport and quick to pack whenever a texture changes.
var viewAtlasSize = [2]int{1024, 512}

// atlasFor packs the layers' albedo and normal maps for the viewport (nil when none has any).
func atlasFor(layers []terraindata.Layer, base string) (*viewport.Atlas, error) {
	alb, err := terraindata.AtlasSheet("albedo", layers, base, viewAtlasSize)
	if err != nil {
		return nil, err
	}
	nrm, err := terraindata.AtlasSheet("normal", layers, base, viewAtlasSize)
	if err != nil {
		return nil, err
	}
	if alb == nil && nrm == nil {
		return nil, nil
	}
	a := &viewport.Atlas{}
	if alb != nil {
		a.Albedo = alb
	}
	if nrm != nil {
		a.Normal = nrm
	}
	return a, nil
}

// showAtlas repacks the atlas after a layer's texture changed (the worker).
func (p *pipeline) showAtlas(st *stack.Stack) error {
	var layers []terraindata.Layer
	for _, ly := range st.Layers {
		layers = append(layers, terraindata.Layer{Name: ly.Name, Albedo: ly.Albedo, Normal: ly.Normal, Mask: ly.Mask})
	}
	a, err := atlasFor(layers, p.s.land.StackDir)
	if err != nil {
		return err
	}
	return p.s.view.SetAtlas(a)
}

// showHeight tells the viewport the ground changed in rect, height texels (the worker, after
// holes or heights changed there, with Session.fmu released: the viewport reads the ground under
// it). A height change reaches one texel further for the gradient; the viewport sees to that.
func (p *pipeline) showHeight(rect image.Rectangle) {
	p.s.view.HeightChanged(rect)
}
