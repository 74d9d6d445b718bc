package viewport

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
	"strata/shaders"
)

// terrain owns the terrain pipeline, the shared chunk mesh and one scene's textures. Its bind
// group is rebuilt whenever a resource it names is recreated.
type terrain struct {
	pipe      *renderPipeline
	gridVB    *gpu.Buffer
	gridIB    *gpu.Buffer
	gridCount uint32
	chunks    *gpu.Buffer // instance-rate chunkInst per selected chunk
	clampS    *wgpu.Sampler
	atlasS    *wgpu.Sampler

	// Scene resources: the height and the weights pyramids' resident pages (virtual textures,
	// vtex.go), the atlas sheets, the layer table.
	hvt      *vtex // the height payload, one RGBA32F plane, filled from the scene's HeightSource
	wvt      *vtex // the weights, RGBA8 planes lo (layers 0–3) and hi (4–7)
	albedo   *texture
	normal   *texture
	layers   *gpu.Buffer
	flash    *gpu.Buffer
	bg       *wgpu.BindGroup
	tree     *lodTree
	hasAtlas [2]bool
	nLayers  int
	// wgrid is the weights grid (the stored controls' size, Scene.WeightsGrid, or the height
	// grid), for the weights pyramid and the tile-grid overlay.
	wgrid [2]int
	// controls are the scene's stored weights (Scene.Controls as RGBA bytes), the static source
	// the renderer fills weights pages from; nil when the caller writes pages (the editor).
	controls [2]*image.RGBA

	// density is the density-overlay grid: a 16-byte header (max, width, height, 0) then
	// width×height f32, the scatter kernel's own layout. ownDensity is the renderer's buffer
	// (uploaded from the CPU, or a 1-texel placeholder); a borrowed one is bound instead.
	ownDensity *gpu.Buffer
	// overlayGrid holds a host grid box-filtered for the overlay (reused from pass to pass).
	overlayGrid []float32
	density     *gpu.Buffer
	hasDensity  bool
	gridMode    OverlayMode // the overlay the bound grid is for (gridModes)
	densityMax  float32
}

func newTerrain(d *gpu.Device) (t *terrain, err error) {
	t = &terrain{}
	defer func() {
		if err != nil {
			t.Release()
		}
	}()
	t.pipe, err = newRenderPipeline(d, terrainSpec())
	if err != nil {
		return nil, err
	}
	verts, idx := gridMesh()
	if t.gridVB, err = d.NewBuffer("viewport chunk grid vertices", uint64(4*len(verts)), wgpu.BufferUsageVertex); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	if err = t.gridVB.Write(0, wgpu.ToBytes(verts)); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	if t.gridIB, err = d.NewBuffer("viewport chunk grid indices", uint64(4*len(idx)), wgpu.BufferUsageIndex); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	if err = t.gridIB.Write(0, wgpu.ToBytes(idx)); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	t.gridCount = uint32(len(idx))
	if t.chunks, err = d.NewBuffer("viewport chunk instances", chunkInstBytes*256, wgpu.BufferUsageVertex); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	if t.layers, err = d.NewBuffer("viewport layer table", 16*16, wgpu.BufferUsageUniform); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	if t.flash, err = d.NewBuffer("viewport tile flashes", 4, wgpu.BufferUsageStorage); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	if t.ownDensity, err = d.NewBuffer("viewport density overlay", 20, wgpu.BufferUsageStorage); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	// The placeholder is a 1×1 grid of zero, so the binding is always a valid grid.
	if err = t.ownDensity.Write(0, wgpu.ToBytes([]uint32{0, 1, 1, 0, 0})); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	t.density = t.ownDensity
	err = d.Do("viewport samplers", func() error {
		var e error
		t.clampS, e = d.Dev.CreateSampler(&wgpu.SamplerDescriptor{Label: "viewport control sampler",
			AddressModeU: wgpu.AddressModeClampToEdge, AddressModeV: wgpu.AddressModeClampToEdge, AddressModeW: wgpu.AddressModeClampToEdge,
			MagFilter: wgpu.FilterModeLinear, MinFilter: wgpu.FilterModeLinear, MipmapFilter: wgpu.MipmapFilterModeNearest,
			LodMaxClamp: 32, MaxAnisotropy: 1})
		if e != nil {
			return e
		}
		t.atlasS, e = d.Dev.CreateSampler(&wgpu.SamplerDescriptor{Label: "viewport atlas sampler",
			AddressModeU: wgpu.AddressModeClampToEdge, AddressModeV: wgpu.AddressModeClampToEdge, AddressModeW: wgpu.AddressModeClampToEdge,
			MagFilter: wgpu.FilterModeLinear, MinFilter: wgpu.FilterModeLinear, MipmapFilter: wgpu.MipmapFilterModeLinear,
			LodMaxClamp: 32, MaxAnisotropy: 1})
		return e
	})
	if err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	return t, nil
}

// releaseScene frees the scene's textures and the bind group, keeping the pipeline.
func (t *terrain) releaseScene() {
	if t.bg != nil {
		t.bg.Release()
		t.bg = nil
	}
	t.hvt.Release()
	t.wvt.Release()
	t.hvt, t.wvt = nil, nil
	t.controls = [2]*image.RGBA{}
	t.albedo.Release()
	t.normal.Release()
	t.albedo, t.normal = nil, nil
	t.tree = nil
}

// Release frees everything. Safe on nil and twice.
func (t *terrain) Release() {
	if t == nil {
		return
	}
	t.releaseScene()
	t.pipe.Release()
	t.pipe = nil
	for _, b := range []*gpu.Buffer{t.gridVB, t.gridIB, t.chunks, t.layers, t.flash, t.ownDensity} {
		b.Release()
	}
	if t.clampS != nil {
		t.clampS.Release()
		t.clampS = nil
	}
	if t.atlasS != nil {
		t.atlasS.Release()
		t.atlasS = nil
	}
}

// setScene makes the scene's virtual textures and atlas sheets and builds the LOD tree; no page
// is resident until a frame asks for it.
func (t *terrain) setScene(d *gpu.Device, s *Scene, frameBuf *gpu.Buffer, slots [2]int) (err error) {
	t.releaseScene()
	defer func() {
		if err != nil {
			t.releaseScene()
		}
	}()
	src := s.ground()
	hw, hh := src.GridSize()
	t.wgrid[0], t.wgrid[1] = s.weightGrid()
	if s.Tree != nil {
		t.tree = s.Tree.t // built while the heights were read
	} else {
		src.Lock()
		t.tree = newLODTree(src)
		src.Unlock()
	}
	// Slots: enough for a frame's pages with room to spare, within what the grid has.
	if t.hvt, err = newVtex(d, "viewport height", hw, hh, t.tree.levels, slots[0], []wgpu.TextureFormat{wgpu.TextureFormatRGBA32Float}, 0); err != nil {
		return err
	}
	if t.wvt, err = newVtex(d, "viewport weights", t.wgrid[0], t.wgrid[1], 1, slots[1],
		[]wgpu.TextureFormat{wgpu.TextureFormatRGBA8Unorm, wgpu.TextureFormatRGBA8Unorm}, wgpu.TextureUsageStorageBinding); err != nil {
		return err
	}
	for i, c := range s.Controls {
		if c != nil {
			t.controls[i] = toRGBA(c)
		}
	}
	if t.albedo, t.normal, t.hasAtlas, err = atlasTextures(d, s.Atlas); err != nil {
		return err
	}
	if err = t.layers.Write(0, wgpu.ToBytes(packLayers(s.Layers))); err != nil {
		return fmt.Errorf("viewport: %w", err)
	}
	t.nLayers = len(s.Layers)
	return t.rebind(d, frameBuf)
}

// The atlases' slots at first: a frame of 968×704 over an 8K field reads about 90 pages of the
// height pyramid (its chunks' and its pixels') and samples 20–50 of the weights'; the rest keeps
// what the camera recently saw. 12² slots of the height payload are 145 MiB of RGBA32F, 16² of
// weights 2 × 66 MiB — on a software device that is this process's memory, so they start small
// and the height's grows when a frame needs more (growHeight).
var (
	heightSlots = 12 * 12
	weightSlots = 16 * 16
)

// atlasTextures uploads the atlas sheets with their mip chains, or 1-texel neutrals (white
// albedo, flat normal) for a sheet that is missing; has says which sheets are real.
func atlasTextures(d *gpu.Device, a *Atlas) (albedo, normal *texture, has [2]bool, err error) {
	if a != nil && a.Albedo != nil {
		albedo, err = imageTexture(d, "viewport atlas albedo", a.Albedo, wgpu.TextureFormatRGBA8UnormSrgb, true)
		has[0] = true
	} else {
		albedo, err = solidTexture(d, "viewport atlas albedo (white)", [4]uint8{255, 255, 255, 255}, wgpu.TextureFormatRGBA8UnormSrgb)
	}
	if err != nil {
		return nil, nil, has, err
	}
	if a != nil && a.Normal != nil {
		normal, err = imageTexture(d, "viewport atlas normal", a.Normal, wgpu.TextureFormatRGBA8Unorm, true)
		has[1] = true
	} else {
		normal, err = solidTexture(d, "viewport atlas normal (flat)", [4]uint8{128, 128, 255, 255}, wgpu.TextureFormatRGBA8Unorm)
	}
	if err != nil {
		albedo.Release()
		return nil, nil, has, err
	}
	return albedo, normal, has, nil
}

func (t *terrain) rebind(d *gpu.Device, frameBuf *gpu.Buffer) error {
	if t.bg != nil {
		t.bg.Release()
		t.bg = nil
	}
	if t.hvt == nil || t.wvt == nil {
		return nil
	}
	bg, err := t.pipe.bindGroup(d, "viewport terrain", 0,
		bufEntry(0, frameBuf),
		wgpu.BindGroupEntry{Binding: 1, TextureView: t.hvt.planes[0].view},
		wgpu.BindGroupEntry{Binding: 2, TextureView: t.wvt.planes[0].view},
		wgpu.BindGroupEntry{Binding: 3, TextureView: t.wvt.planes[1].view},
		wgpu.BindGroupEntry{Binding: 4, Sampler: t.clampS},
		wgpu.BindGroupEntry{Binding: 5, TextureView: t.albedo.view},
		wgpu.BindGroupEntry{Binding: 6, TextureView: t.normal.view},
		wgpu.BindGroupEntry{Binding: 7, Sampler: t.atlasS},
		bufEntry(8, t.layers),
		bufEntry(9, t.flash),
		bufEntry(10, t.density),
		bufEntry(11, t.hvt.tableBuf),
		bufEntry(12, t.wvt.tableBuf),
	)
	if err != nil {
		return err
	}
	t.bg = bg
	return nil
}

// packLayers lays the layer table out as the WGSL's array<vec4<f32>, 16>: per layer the tint
// in linear RGB, then (tiling metres, textured 0/1, 0, 0).
func packLayers(ls []Layer) []float32 {
	out := make([]float32, 16*4)
	for i := 0; i < 8; i++ {
		l := Layer{Tint: color.RGBA{128, 128, 128, 255}, Tiling: 8}
		if i < len(ls) {
			l = ls[i]
		}
		tiling := l.Tiling
		if !(tiling > 0) {
			tiling = 8
		}
		o := 8 * i
		out[o+0] = srgbToLinear(l.Tint.R)
		out[o+1] = srgbToLinear(l.Tint.G)
		out[o+2] = srgbToLinear(l.Tint.B)
		out[o+3] = 1
		out[o+4] = float32(tiling)
		if l.Textured {
			out[o+5] = 1
		}
	}
	return out
}

func srgbToLinear(c uint8) float32 {
	v := float64(c) / 255
	if v <= 0.04045 {
		return float32(v / 12.92)
	}
	return float32(math.Pow((v+0.055)/1.055, 2.4))
}

// draw records the terrain for the given chunks; the chunk buffer must hold them already.
// cull draws with the culling twin; noSkirts leaves the skirts out (benchmarks: they are the
// last indices of the grid mesh).
func (t *terrain) draw(pass *wgpu.RenderPassEncoder, n int, cull, noSkirts bool) {
	if t.bg == nil || n == 0 {
		return
	}
	if cull && t.pipe.culled != nil {
		pass.SetPipeline(t.pipe.culled)
	} else {
		pass.SetPipeline(t.pipe.pipeline)
	}
	pass.SetBindGroup(0, t.bg, nil)
	pass.SetVertexBuffer(0, t.gridVB.Buf, 0, t.gridVB.Size)
	pass.SetVertexBuffer(1, t.chunks.Buf, 0, uint64(chunkInstBytes*n))
	pass.SetIndexBuffer(t.gridIB.Buf, wgpu.IndexFormatUint32, 0, t.gridIB.Size)
	count := t.gridCount
	if noSkirts {
		count = chunkCells * chunkCells * 6
	}
	pass.DrawIndexed(count, uint32(n), 0, 0, 0)
}

// terrainSpec is the terrain pipeline's description.
func terrainSpec() pipelineSpec {
	vf := wgpu.ShaderStageVertex | wgpu.ShaderStageFragment
	return pipelineSpec{
		file: shaders.ViewportTerrain,
		groups: [][]wgpu.BindGroupLayoutEntry{{
			uniformEntry(0, vf),
			textureEntry(1, vf, wgpu.TextureSampleTypeUnfilterableFloat),
			textureEntry(2, wgpu.ShaderStageFragment, wgpu.TextureSampleTypeFloat),
			textureEntry(3, wgpu.ShaderStageFragment, wgpu.TextureSampleTypeFloat),
			samplerEntry(4, wgpu.ShaderStageFragment),
			textureEntry(5, wgpu.ShaderStageFragment, wgpu.TextureSampleTypeFloat),
			textureEntry(6, wgpu.ShaderStageFragment, wgpu.TextureSampleTypeFloat),
			samplerEntry(7, wgpu.ShaderStageFragment),
			uniformEntry(8, wgpu.ShaderStageFragment),
			storageEntry(9, wgpu.ShaderStageFragment),
			storageEntry(10, wgpu.ShaderStageFragment),
			storageEntry(11, vf),
			storageEntry(12, wgpu.ShaderStageFragment),
		}},
		buffers: []wgpu.VertexBufferLayout{
			{ArrayStride: 12, StepMode: wgpu.VertexStepModeVertex,
				Attributes: []wgpu.VertexAttribute{{Format: wgpu.VertexFormatFloat32x3, Offset: 0, ShaderLocation: 0}}},
			{ArrayStride: chunkInstBytes, StepMode: wgpu.VertexStepModeInstance,
				Attributes: []wgpu.VertexAttribute{
					{Format: wgpu.VertexFormatFloat32x4, Offset: 0, ShaderLocation: 1},
					{Format: wgpu.VertexFormatUint32x4, Offset: 16, ShaderLocation: 2},
				}},
		},
		cull:   wgpu.CullModeNone,
		culled: terrainCull,
	}
}

// terrainCull is the cull mode of the terrain pipeline's twin, used when the eye is over the
// field and above every height in it (cullSafe): then every ray's first surface is met from its
// upper side (the grid from above, a skirt from outside its chunk, where a crack is seen from),
// and the other side only ever lies behind it, so dropping those triangles before rasterisation
// leaves the picture as it was (TestCullKeepsPicture). From outside the field a low ray can pass
// under the field's edge and meet the underside, which is drawn, so there the pipeline culls
// nothing. The mesh is wound clockwise seen from above, so with FrontFaceCCW the face to drop is
// the "front" one.
const terrainCull = wgpu.CullModeFront

// cullSafe reports whether back faces may be culled for this frame: a perspective eye over the
// field's footprint and above its highest texel by more than the near plane can reach (so no
// clipped-away surface exposes an underside either).
func (t *terrain) cullSafe(f *frame, b bounds) bool {
	if t.tree == nil || f.ortho || !(t.tree.minH[0][0] <= t.tree.maxH[0][0]) {
		return false
	}
	e := f.eye
	return e[0] >= b.min[0] && e[0] <= b.max[0] && e[2] >= b.min[2] && e[2] <= b.max[2] &&
		e[1] > float64(t.tree.maxH[0][0])+4*f.near
}
