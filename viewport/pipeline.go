package viewport

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
	"strata/shaders"
)

// Formats of the renderer's targets. The colour target is sRGB so shaders light in linear
// space and the read-back bytes are ready for a PNG.
const (
	colorFormat = wgpu.TextureFormatRGBA8UnormSrgb
	depthFormat = wgpu.TextureFormatDepth32Float
)

// renderPipeline is one WGSL file compiled into a render pipeline, named after the file, with
// its bind group layouts. Release is safe on nil and twice.
type renderPipeline struct {
	name     string
	module   *wgpu.ShaderModule
	groups   []*wgpu.BindGroupLayout
	layout   *wgpu.PipelineLayout
	pipeline *wgpu.RenderPipeline
	culled   *wgpu.RenderPipeline // spec.culled's twin (same module and layout), or nil
}

type pipelineSpec struct {
	file    string
	extra   string              // WGSL appended to the file (benchmark variants)
	fsEntry string              // fragment entry point; "" is fs_main
	rewrite func(string) string // applied to the source (benchmark variants)
	culled  wgpu.CullMode       // not None: also build a twin pipeline with this cull mode
	groups  [][]wgpu.BindGroupLayoutEntry
	buffers []wgpu.VertexBufferLayout
	cull    wgpu.CullMode
}

func newRenderPipeline(d *gpu.Device, spec pipelineSpec) (*renderPipeline, error) {
	src, err := shaders.Load(spec.file)
	if err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	src += spec.extra
	if spec.rewrite != nil {
		src = spec.rewrite(src)
	}
	fsEntry := spec.fsEntry
	if fsEntry == "" {
		fsEntry = "fs_main"
	}
	p := &renderPipeline{name: spec.file}
	err = d.Do("pipeline "+spec.file, func() error {
		var e error
		p.module, e = d.Dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
			Label:          spec.file,
			WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src},
		})
		if e != nil {
			return e
		}
		for i, entries := range spec.groups {
			g, e := d.Dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{
				Label:   fmt.Sprintf("%s group %d", spec.file, i),
				Entries: entries,
			})
			if e != nil {
				return e
			}
			p.groups = append(p.groups, g)
		}
		p.layout, e = d.Dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{
			Label:            spec.file + " layout",
			BindGroupLayouts: p.groups,
		})
		if e != nil {
			return e
		}
		keep := wgpu.StencilFaceState{Compare: wgpu.CompareFunctionAlways, FailOp: wgpu.StencilOperationKeep,
			DepthFailOp: wgpu.StencilOperationKeep, PassOp: wgpu.StencilOperationKeep}
		desc := func(cull wgpu.CullMode) *wgpu.RenderPipelineDescriptor {
			return &wgpu.RenderPipelineDescriptor{
				Label:  spec.file,
				Layout: p.layout,
				Vertex: wgpu.VertexState{Module: p.module, EntryPoint: "vs_main", Buffers: spec.buffers},
				Primitive: wgpu.PrimitiveState{
					Topology:  wgpu.PrimitiveTopologyTriangleList,
					FrontFace: wgpu.FrontFaceCCW,
					CullMode:  cull,
				},
				DepthStencil: &wgpu.DepthStencilState{
					Format:            depthFormat,
					DepthWriteEnabled: true,
					DepthCompare:      wgpu.CompareFunctionLess,
					StencilFront:      keep,
					StencilBack:       keep,
				},
				Multisample: wgpu.MultisampleState{Count: 1, Mask: 0xFFFFFFFF},
				Fragment: &wgpu.FragmentState{
					Module:     p.module,
					EntryPoint: fsEntry,
					Targets:    []wgpu.ColorTargetState{{Format: colorFormat, WriteMask: wgpu.ColorWriteMaskAll}},
				},
			}
		}
		if p.pipeline, e = d.Dev.CreateRenderPipeline(desc(spec.cull)); e != nil || spec.culled == wgpu.CullModeNone {
			return e
		}
		p.culled, e = d.Dev.CreateRenderPipeline(desc(spec.culled))
		return e
	})
	if err != nil {
		p.Release()
		return nil, fmt.Errorf("viewport: %w", err)
	}
	return p, nil
}

// Release frees the pipeline, its layouts and module. Safe on nil and twice.
func (p *renderPipeline) Release() {
	if p == nil {
		return
	}
	if p.pipeline != nil {
		p.pipeline.Release()
		p.pipeline = nil
	}
	if p.culled != nil {
		p.culled.Release()
		p.culled = nil
	}
	if p.layout != nil {
		p.layout.Release()
		p.layout = nil
	}
	for _, g := range p.groups {
		g.Release()
	}
	p.groups = nil
	if p.module != nil {
		p.module.Release()
		p.module = nil
	}
}

// bindGroup creates a labelled bind group for group index g.
func (p *renderPipeline) bindGroup(d *gpu.Device, label string, g int, entries ...wgpu.BindGroupEntry) (*wgpu.BindGroup, error) {
	var bg *wgpu.BindGroup
	err := d.Do("bind group "+label, func() error {
		var e error
		bg, e = d.Dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: label, Layout: p.groups[g], Entries: entries})
		return e
	})
	if err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	return bg, nil
}

func uniformEntry(binding uint32, vis wgpu.ShaderStage) wgpu.BindGroupLayoutEntry {
	return wgpu.BindGroupLayoutEntry{Binding: binding, Visibility: vis,
		Buffer: wgpu.BufferBindingLayout{Type: wgpu.BufferBindingTypeUniform}}
}

func storageEntry(binding uint32, vis wgpu.ShaderStage) wgpu.BindGroupLayoutEntry {
	return wgpu.BindGroupLayoutEntry{Binding: binding, Visibility: vis,
		Buffer: wgpu.BufferBindingLayout{Type: wgpu.BufferBindingTypeReadOnlyStorage}}
}

func textureEntry(binding uint32, vis wgpu.ShaderStage, st wgpu.TextureSampleType) wgpu.BindGroupLayoutEntry {
	return wgpu.BindGroupLayoutEntry{Binding: binding, Visibility: vis,
		Texture: wgpu.TextureBindingLayout{SampleType: st, ViewDimension: wgpu.TextureViewDimension2D}}
}

func samplerEntry(binding uint32, vis wgpu.ShaderStage) wgpu.BindGroupLayoutEntry {
	return wgpu.BindGroupLayoutEntry{Binding: binding, Visibility: vis,
		Sampler: wgpu.SamplerBindingLayout{Type: wgpu.SamplerBindingTypeFiltering}}
}

func bufEntry(binding uint32, b *gpu.Buffer) wgpu.BindGroupEntry {
	return wgpu.BindGroupEntry{Binding: binding, Buffer: b.Buf, Size: b.Cap}
}
