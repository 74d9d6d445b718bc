package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/shaders"
)

// ComputePipeline is a compute pipeline built from one embedded WGSL file and named after it,
// with its bind group 0 layout.
type ComputePipeline struct {
	Name     string
	Module   *wgpu.ShaderModule
	Pipeline *wgpu.ComputePipeline
	Layout   *wgpu.BindGroupLayout

	pipeLayout *wgpu.PipelineLayout
	dev        *Device
}

// LoadComputePipeline builds the pipeline of the embedded shader file name (includes expanded;
// see package shaders) with entry point entry. layout describes bind group 0 explicitly; nil
// asks wgpu for the layout it derives from the shader (which drops unused bindings).
func (d *Device) LoadComputePipeline(name, entry string, layout []wgpu.BindGroupLayoutEntry) (*ComputePipeline, error) {
	src, err := shaders.Load(name)
	if err != nil {
		return nil, fmt.Errorf("gpu: pipeline %s: %w", name, err)
	}
	return d.NewComputePipeline(name, src, entry, layout)
}

// NewComputePipeline builds a compute pipeline from WGSL source; a compile or validation error
// comes back as an error naming the pipeline.
func (d *Device) NewComputePipeline(name, source, entry string, layout []wgpu.BindGroupLayoutEntry) (*ComputePipeline, error) {
	p := &ComputePipeline{Name: name, dev: d}
	err := d.Do("pipeline "+name, func() error {
		var e error
		p.Module, e = d.Dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
			Label:          name,
			WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: source},
		})
		if e != nil {
			return e
		}
		desc := &wgpu.ComputePipelineDescriptor{
			Label:   name,
			Compute: wgpu.ProgrammableStageDescriptor{Module: p.Module, EntryPoint: entry},
		}
		if layout != nil {
			p.Layout, e = d.Dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: name + " group0", Entries: layout})
			if e != nil {
				return e
			}
			p.pipeLayout, e = d.Dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{
				Label: name + " layout", BindGroupLayouts: []*wgpu.BindGroupLayout{p.Layout}})
			if e != nil {
				return e
			}
			desc.Layout = p.pipeLayout
		}
		p.Pipeline, e = d.Dev.CreateComputePipeline(desc)
		if e != nil {
			return e
		}
		if p.Layout == nil {
			p.Layout = p.Pipeline.GetBindGroupLayout(0)
		}
		return nil
	})
	if err != nil {
		p.Release()
		return nil, err
	}
	return p, nil
}

// BindGroup creates a bind group for group 0 of the pipeline.
func (p *ComputePipeline) BindGroup(label string, entries ...wgpu.BindGroupEntry) (*wgpu.BindGroup, error) {
	if p == nil || p.Pipeline == nil {
		return nil, fmt.Errorf("gpu: bind group %s: nil or released pipeline", label)
	}
	var bg *wgpu.BindGroup
	err := p.dev.Do("bind group "+label, func() error {
		var e error
		bg, e = p.dev.Dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: label, Layout: p.Layout, Entries: entries})
		return e
	})
	return bg, err
}

// Release frees the pipeline, its layouts and its module. Safe on nil and twice.
func (p *ComputePipeline) Release() {
	if p == nil {
		return
	}
	if p.Pipeline != nil {
		p.Pipeline.Release()
		p.Pipeline = nil
	}
	if p.pipeLayout != nil {
		p.pipeLayout.Release()
		p.pipeLayout = nil
	}
	if p.Layout != nil {
		p.Layout.Release()
		p.Layout = nil
	}
	if p.Module != nil {
		p.Module.Release()
		p.Module = nil
	}
}

// BufferEntry binds a whole buffer.
func BufferEntry(binding uint32, b *Buffer) wgpu.BindGroupEntry {
	return wgpu.BindGroupEntry{Binding: binding, Buffer: b.Buf, Size: wgpu.WholeSize}
}

// TextureEntry binds a texture's view.
func TextureEntry(binding uint32, t *Texture) wgpu.BindGroupEntry {
	return wgpu.BindGroupEntry{Binding: binding, TextureView: t.View}
}

// StorageLayout is a compute-stage storage buffer layout entry.
func StorageLayout(binding uint32, readOnly bool) wgpu.BindGroupLayoutEntry {
	typ := wgpu.BufferBindingTypeStorage
	if readOnly {
		typ = wgpu.BufferBindingTypeReadOnlyStorage
	}
	return wgpu.BindGroupLayoutEntry{Binding: binding, Visibility: wgpu.ShaderStageCompute,
		Buffer: wgpu.BufferBindingLayout{Type: typ}}
}

// StorageTextureLayout is a compute-stage write-only 2D storage texture layout entry.
func StorageTextureLayout(binding uint32, format wgpu.TextureFormat) wgpu.BindGroupLayoutEntry {
	return wgpu.BindGroupLayoutEntry{Binding: binding, Visibility: wgpu.ShaderStageCompute,
		StorageTexture: wgpu.StorageTextureBindingLayout{Access: wgpu.StorageTextureAccessWriteOnly,
			Format: format, ViewDimension: wgpu.TextureViewDimension2D}}
}

// Submit records commands with record, finishes and submits them, all inside one error scope.
// The encoder and command buffer are released here.
func (d *Device) Submit(label string, record func(enc *wgpu.CommandEncoder) error) error {
	_, err := d.submitIndexed(label, record)
	return err
}

// submitIndexed is Submit, returning the submission's index (a map waits on it).
func (d *Device) submitIndexed(label string, record func(enc *wgpu.CommandEncoder) error) (index wgpu.SubmissionIndex, err error) {
	err = d.Do(label, func() error {
		enc, err := d.Dev.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: label})
		if err != nil {
			return err
		}
		defer enc.Release()
		if err := record(enc); err != nil {
			return err
		}
		cmd, err := enc.Finish(&wgpu.CommandBufferDescriptor{Label: label})
		if err != nil {
			return err
		}
		defer cmd.Release()
		index = d.Queue.Submit(cmd)
		d.counts.submits.Add(1)
		return nil
	})
	return index, err
}

// ComputePass records one compute pass: record sets pipelines, bind groups and dispatches; the
// pass is ended and released before the caller finishes the encoder.
func ComputePass(enc *wgpu.CommandEncoder, label string, record func(pass *wgpu.ComputePassEncoder)) error {
	pass := enc.BeginComputePass(&wgpu.ComputePassDescriptor{Label: label})
	defer pass.Release()
	record(pass)
	return pass.End()
}

// Dispatch runs one pipeline over x×y×z workgroups with bind group 0 and submits it.
func (d *Device) Dispatch(label string, p *ComputePipeline, bg *wgpu.BindGroup, x, y, z uint32) error {
	return d.Submit(label, func(enc *wgpu.CommandEncoder) error {
		return ComputePass(enc, label, func(pass *wgpu.ComputePassEncoder) {
			pass.SetPipeline(p.Pipeline)
			pass.SetBindGroup(0, bg, nil)
			pass.DispatchWorkgroups(x, y, z)
		})
	})
}
