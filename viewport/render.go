package viewport

import (
	"fmt"
	"math"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// frameUniforms is the Go twin of WGSL's `struct Frame` in viewport_common.wgsl; a test checks
// the member order against the shader, and every member is 16-byte aligned so the layouts agree.
type frameUniforms struct {
	ViewProj [16]float32
	Eye      [4]float32
	Sun      [4]float32
	Ambient  [4]float32
	Field    [4]float32
	Grid     [4]float32
	Overlay  [4]float32
	Tiles    [4]float32
	Brush    [4]float32
	Misc     [4]float32
	Lod      [4]float32
	Wgrid    [4]float32
	// BrushLevel: the level of a flatten / set-height brush (metres), on (1/0), 0, 0.
	BrushLevel [4]float32
}

const frameUniformSize = 64 + 12*16

func (u *frameUniforms) floats() []float32 {
	out := make([]float32, 0, frameUniformSize/4)
	out = append(out, u.ViewProj[:]...)
	for _, v := range [][4]float32{u.Eye, u.Sun, u.Ambient, u.Field, u.Grid, u.Overlay, u.Tiles, u.Brush, u.Misc, u.Lod, u.Wgrid, u.BrushLevel} {
		out = append(out, v[:]...)
	}
	return out
}

// Lighting: a sun from the north-west at about 48° (the map convention for hillshade), a
// bluish sky, and the clear colour behind the field.
var (
	sunDir   = vec3{-0.45, 0.75, -0.45}.normalize()
	sunPower = float32(1.05)
	skyLight = [4]float32{0.30, 0.34, 0.42, 0}
	clearSky = wgpu.Color{R: 0.42, G: 0.55, B: 0.72, A: 1}
)

// weightGrid is the weights grid: the stored controls' size, WeightsGrid, or the height grid.
func (s *Scene) weightGrid() (int, int) {
	for _, c := range s.Controls {
		if c != nil {
			return c.Bounds().Dx(), c.Bounds().Dy()
		}
	}
	if g := s.WeightsGrid; g[0] > 0 && g[1] > 0 {
		return g[0], g[1]
	}
	return s.ground().GridSize()
}

// uniforms packs the frame's uniforms and refreshes the tile-flash buffer.
func (r *Renderer) uniforms(f *frame, now time.Time) (frameUniforms, error) {
	s := r.scene
	var u frameUniforms
	u.ViewProj = f.viewProj.f32()
	u.Eye = [4]float32{float32(f.eye[0]), float32(f.eye[1]), float32(f.eye[2]), 0}
	if f.ortho {
		u.Eye[3] = 1
	}
	u.Sun = [4]float32{float32(sunDir[0]), float32(sunDir[1]), float32(sunDir[2]), sunPower}
	u.Ambient = skyLight
	mn, tx := s.Placement.Min(), s.texel()
	u.Field = [4]float32{float32(mn[0]), float32(mn[1]), float32(tx[0]), float32(tx[1])}
	hw, hh := s.ground().GridSize()
	u.Grid = [4]float32{float32(hw), float32(hh), float32(1 / s.Placement.Size[0]), float32(1 / s.Placement.Size[1])}
	if f.ortho {
		u.Lod[1] = float32(f.metresPerPx)
	} else {
		u.Lod[0] = float32(1 / f.pxPerRad)
	}
	if hr, ok := s.ground().(HoleReporter); ok && !hr.HasHoles() {
		u.Lod[2] = 1 // no hole anywhere: the instances need not test their ground's coverage
	}
	wg := r.weightsGrid()
	u.Wgrid = [4]float32{float32(wg.texel[0]), float32(wg.texel[1]), float32(r.terrain.wgrid[0]), float32(r.terrain.wgrid[1])}
	o := &r.overlay
	slopeMax := o.SlopeMax
	if !(slopeMax > 0) {
		slopeMax = 60
	}
	curv := o.CurvatureScale
	if !(curv > 0) {
		curv = 0.02
	}
	u.Overlay = [4]float32{float32(o.Mode), float32(clampInt(o.Layer, 0, 7)), float32(slopeMax), float32(curv)}
	if gm, ok := gridModes[o.Mode]; ok {
		u.Overlay[0], u.Overlay[1] = float32(gm.shader), 0
		if o.Mode == OverlayDensity {
			// y: 1 / the density at full colour (the grid's own maximum when the overlay gives none).
			top := o.DensityMax
			if !(top > 0) {
				top = float64(r.terrain.densityMax)
			}
			if top > 0 {
				u.Overlay[1] = float32(1 / top)
			}
		}
		if o.Mode == OverlayFlow {
			lo, hi := o.flowRange(s.Placement.Size, tx)
			u.Overlay[1], u.Overlay[2] = float32(lo), float32(1/(hi-lo))
		}
		// Nothing until this mode's grid is bound: another mode's grid read as this one's
		// would paint the wrong quantity.
		if !r.terrain.hasDensity || r.terrain.gridMode != o.Mode {
			u.Overlay[0] = 0
		}
	}
	nx, ny := 0, 0
	if o.TileSize > 0 {
		ww, wh := r.terrain.wgrid[0], r.terrain.wgrid[1]
		tsx := float64(o.TileSize) * s.Placement.Size[0] / float64(ww)
		tsz := float64(o.TileSize) * s.Placement.Size[1] / float64(wh)
		nx, ny = (ww+o.TileSize-1)/o.TileSize, (wh+o.TileSize-1)/o.TileSize
		u.Tiles = [4]float32{float32(tsx), float32(tsz), float32(nx), float32(ny)}
	}
	var active bool
	r.flashes, active = o.flashIntensities(nx, ny, now, r.flashes)
	r.animating = active
	recreated, err := r.terrain.flash.Upload(wgpu.ToBytes(r.flashes))
	if err != nil {
		return u, fmt.Errorf("viewport: %w", err)
	}
	if recreated {
		if err := r.terrain.rebind(r.dev, r.frameBuf); err != nil {
			return u, err
		}
	}
	if o.Brush {
		u.Brush = [4]float32{float32(o.BrushCenter[0]), float32(o.BrushCenter[1]), float32(o.BrushRadius), 1}
		if o.BrushLevelOn {
			u.BrushLevel = [4]float32{float32(o.BrushLevel), 1, 0, 0}
		}
	}
	u.Misc = [4]float32{float32(max(len(s.Layers), 1)), 0, 0, float32(r.instanceStride())}
	if r.terrain.hasAtlas[0] {
		u.Misc[1] = 1
	}
	if r.terrain.hasAtlas[1] {
		u.Misc[2] = 1
	}
	return u, nil
}

// submittedFrame is a frame submitted to the device, its figures so far and when it went.
type submittedFrame struct {
	FrameStats
	start time.Time
}

// submitFrame prepares a frame and submits its render pass; the caller reads it back (Frame).
// r.mu is held.
func (r *Renderer) submitFrame() (submittedFrame, error) {
	stats, err := r.prepare(nil)
	if err != nil {
		return submittedFrame{}, err
	}
	start := time.Now()
	err = r.dev.Submit("viewport frame", func(enc *wgpu.CommandEncoder) error {
		return r.encodeFrame(enc, &stats, encodeOptions{})
	})
	if err != nil {
		return submittedFrame{}, fmt.Errorf("viewport: frame: %w", err)
	}
	return submittedFrame{FrameStats: stats, start: start}, nil
}

// prepare selects the chunks and writes the frame's uniforms and chunk list (queue writes that
// the next submission carries). order, when not nil, may reorder or trim the selected chunks
// before they are written (benchmarks). r.mu is held.
func (r *Renderer) prepare(order func([]chunkInst) []chunkInst) (FrameStats, error) {
	if r.color == nil {
		return FrameStats{}, fmt.Errorf("viewport: frame: renderer released")
	}
	start := time.Now()
	stats := FrameStats{}
	if r.scene != nil {
		f := r.cam.frame(r.w, r.h, r.bounds)
		maxErr := r.MaxPixelError
		if !(maxErr > 0) {
			maxErr = 2
		}
		if r.draft {
			maxErr *= draftPixelError
		}
		p := lodParams{f: &f, min: r.scene.Placement.Min(), texel: r.scene.texel(), maxPxErr: maxErr}
		r.chunks = r.terrain.tree.selectChunks(&p, r.chunks[:0])
		r.cull = r.terrain.cullSafe(&f, r.bounds)
		if order != nil {
			r.chunks = order(r.chunks)
		}
		missing, err := r.preparePages(&f)
		if err != nil {
			return stats, err
		}
		stats.MissingWeights = missing
		u, err := r.uniforms(&f, r.now())
		if err != nil {
			return stats, err
		}
		if err := r.frameBuf.Write(0, wgpu.ToBytes(u.floats())); err != nil {
			return stats, fmt.Errorf("viewport: %w", err)
		}
		if len(r.chunks) > 0 {
			if _, err := r.terrain.chunks.Upload(wgpu.ToBytes(r.chunks)); err != nil {
				return stats, fmt.Errorf("viewport: %w", err)
			}
		}
		stats.Chunks = len(r.chunks)
		stats.Triangles = len(r.chunks) * gridTriangles
		for _, p := range r.inst.pops {
			stats.Instances += int(drawnInstances(p.count, r.instanceStride()))
		}
	}
	stats.SelectMs = msSince(start)
	return stats, nil
}

// encodeOptions are variants of the frame for benchmarks that take it apart; the zero value is
// the frame.
type encodeOptions struct {
	scissor   bool // draw into a 1×1 scissor: vertices and set-up, almost no fragments
	noTerrain bool
	noSkirts  bool
	noCull    bool // never the culling terrain pipeline
}

// encodeFrame records the frame's render pass (after the copies of the populations' device
// counts into their indirect draws).
func (r *Renderer) encodeFrame(enc *wgpu.CommandEncoder, stats *FrameStats, o encodeOptions) error {
	if r.scene != nil {
		if err := r.inst.copyCounts(enc); err != nil {
			return err
		}
	}
	pass := enc.BeginRenderPass(&wgpu.RenderPassDescriptor{
		Label: "viewport frame",
		ColorAttachments: []wgpu.RenderPassColorAttachment{{
			View: r.color.View, LoadOp: wgpu.LoadOpClear, StoreOp: wgpu.StoreOpStore, ClearValue: clearSky,
		}},
		DepthStencilAttachment: &wgpu.RenderPassDepthStencilAttachment{
			View: r.depth.view, DepthLoadOp: wgpu.LoadOpClear, DepthStoreOp: wgpu.StoreOpStore, DepthClearValue: 1,
			StencilLoadOp: wgpu.LoadOpUndefined, StencilStoreOp: wgpu.StoreOpUndefined,
		},
	})
	defer pass.Release()
	if o.scissor {
		pass.SetScissorRect(0, 0, 1, 1)
	}
	if r.scene != nil {
		if !o.noTerrain {
			r.terrain.draw(pass, len(r.chunks), r.cull && !o.noCull, o.noSkirts)
		}
		stats.Triangles += r.inst.draw(pass, r.instanceStride(), r.draft)
	}
	return pass.End()
}

func msSince(t time.Time) float64 {
	return math.Round(float64(time.Since(t).Microseconds())) / 1000
}
