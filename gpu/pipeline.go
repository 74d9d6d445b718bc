package gpu

import (
	"time"

	"fmt"
	"sync"

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
	// key is where the device's pipeline cache holds it (nil: not shared); refs counts its users
	// (guarded by the cache's mutex).
	key  *pipeKey
	refs int
}

// pipeKey names a pipeline the device's cache shares: the embedded shader, its entry point and
// the bind group 0 layout asked for (printed).
type pipeKey struct{ name, entry, layout string }

// pipeCache is a device's compute pipelines built from embedded shaders, shared by every kernel
// that loads the same shader, entry point and layout: a driver compiles a large kernel in hundreds
// of milliseconds the first time (the weights kernel's noise variant took about 470 ms on a fresh
// H200), and each population's scatter kernel loads the same two. A pipeline is freed with its
// last user; Prewarm holds one of each until it is let go.
type pipeCache struct {
	mu sync.Mutex
	m  map[pipeKey]*pipeEntry
}

// pipeEntry is a pipeline in the cache, or one being built (p nil until done closes): a second
// kernel asking for it waits for that build rather than compiling it again. The cache's mutex is
// never held while a pipeline is built or freed (both run inside Do, whose callers may release
// pipelines).
type pipeEntry struct {
	p    *ComputePipeline
	done chan struct{}
}

// LoadComputePipeline builds the pipeline of the embedded shader file name (includes expanded;
// see package shaders) with entry point entry. layout describes bind group 0 explicitly; nil
// asks wgpu for the layout it derives from the shader (which drops unused bindings).
//
// The device shares it (pipeCache): a second load of the same shader, entry and layout returns the
// pipeline the first built, and each user's Release lets go of its share.
func (d *Device) LoadComputePipeline(name, entry string, layout []wgpu.BindGroupLayoutEntry) (*ComputePipeline, error) {
	if d == nil {
		return nil, fmt.Errorf("gpu: pipeline %s: nil device", name)
	}
	key := pipeKey{name, entry, fmt.Sprint(layout)}
	c := &d.pipes
	for {
		c.mu.Lock()
		e := c.m[key]
		if e == nil {
			break // c.mu held: this call builds it
		}
		if e.p != nil {
			e.p.refs++
			c.mu.Unlock()
			return e.p, nil
		}
		done := e.done
		c.mu.Unlock()
		<-done // built by another call (or failed there: then built here)
	}
	if c.m == nil {
		c.m = map[pipeKey]*pipeEntry{}
	}
	e := &pipeEntry{done: make(chan struct{})}
	c.m[key] = e
	c.mu.Unlock()
	p, err := d.buildPipeline(name, entry, layout)
	c.mu.Lock()
	if err != nil {
		delete(c.m, key)
	} else {
		p.key, p.refs = &key, 1
		e.p = p
	}
	close(e.done)
	c.mu.Unlock()
	return p, err
}

// buildPipeline builds the pipeline of the embedded shader file name.
func (d *Device) buildPipeline(name, entry string, layout []wgpu.BindGroupLayoutEntry) (*ComputePipeline, error) {
	src, err := shaders.Load(name)
	if err != nil {
		return nil, fmt.Errorf("gpu: pipeline %s: %w", name, err)
	}
	return d.NewComputePipeline(name, src, entry, layout)
}

// SharedPipelines is how many pipelines the device's cache holds now (tests).
func (d *Device) SharedPipelines() int {
	d.pipes.mu.Lock()
	defer d.pipes.mu.Unlock()
	return len(d.pipes.m)
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

// Release frees the pipeline, its layouts and its module — for a pipeline the device shares, once
// its last user has let go of it. Safe on nil and twice (a user releases its share once: kernels
// drop their pointer after Release).
func (p *ComputePipeline) Release() {
	if p == nil {
		return
	}
	if p.key != nil {
		c := &p.dev.pipes
		c.mu.Lock()
		if p.refs > 1 {
			p.refs--
			c.mu.Unlock()
			return
		}
		if e := c.m[*p.key]; e != nil && e.p == p {
			delete(c.m, *p.key)
		}
		p.refs, p.key = 0, nil
		c.mu.Unlock()
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
		t0 := time.Now()
		index = d.Queue.Submit(cmd)
		d.counts.submittingNs.Add(int64(time.Since(t0)))
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
