package viewport

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
	"strata/shaders"
)

// instances owns the instance pipeline, the built-in meshes and one bind group per population.
// A population's pool buffer is borrowed when the scene gives one (drawn straight from the
// scatter kernel's output) and owned when its matrices were uploaded here.
type instances struct {
	pipe   *renderPipeline
	frame  *wgpu.BindGroup // group 0: the frame uniforms
	meshes map[Mesh]*gpu.Buffer
	counts map[Mesh]uint32 // vertices per mesh
	pops   []population
	// args are the indirect draws' arguments, one buffer a population drawn by its counter, kept
	// from scene to scene (a sculpt's every dab hands new pools).
	args     []*gpu.Buffer
	argVerts []uint32 // the vertex count each holds
}

type population struct {
	mesh  Mesh
	count uint32
	owned *gpu.Buffer // uploaded matrices; nil when the pool is borrowed
	bg    *wgpu.BindGroup
	// counter is the borrowed pool's count on the device, and args the indirect draw's arguments
	// it is copied into (Population.Counter); nil: drawn with count.
	counter *wgpu.Buffer
	args    *gpu.Buffer
}

func newInstances(d *gpu.Device, frameBuf *gpu.Buffer) (in *instances, err error) {
	in = &instances{meshes: map[Mesh]*gpu.Buffer{}, counts: map[Mesh]uint32{}}
	defer func() {
		if err != nil {
			in.Release()
		}
	}()
	in.pipe, err = newRenderPipeline(d, pipelineSpec{
		file: shaders.ViewportInstances,
		groups: [][]wgpu.BindGroupLayoutEntry{
			{uniformEntry(0, wgpu.ShaderStageVertex|wgpu.ShaderStageFragment),
				textureEntry(1, wgpu.ShaderStageVertex, wgpu.TextureSampleTypeUnfilterableFloat),
				storageEntry(2, wgpu.ShaderStageVertex)},
			{storageEntry(0, wgpu.ShaderStageVertex)},
		},
		buffers: []wgpu.VertexBufferLayout{{ArrayStride: 36, StepMode: wgpu.VertexStepModeVertex,
			Attributes: []wgpu.VertexAttribute{
				{Format: wgpu.VertexFormatFloat32x3, Offset: 0, ShaderLocation: 0},
				{Format: wgpu.VertexFormatFloat32x3, Offset: 12, ShaderLocation: 1},
				{Format: wgpu.VertexFormatFloat32x3, Offset: 24, ShaderLocation: 2},
			}}},
		cull: wgpu.CullModeBack,
	})
	if err != nil {
		return nil, err
	}
	for _, m := range []Mesh{MeshTree, MeshRock, MeshBush} {
		v := instanceMesh(m)
		b, err := d.NewBuffer("viewport mesh "+string(m), uint64(4*len(v)), wgpu.BufferUsageVertex)
		if err != nil {
			return nil, fmt.Errorf("viewport: %w", err)
		}
		in.meshes[m] = b
		if err := b.Write(0, wgpu.ToBytes(v)); err != nil {
			return nil, fmt.Errorf("viewport: %w", err)
		}
		in.counts[m] = uint32(len(v) / 9)
	}
	return in, nil
}

// bindFrame binds the frame uniforms and the scene's height pyramid, whose coverage hides the
// instances standing over a hole (a quarry's trees go with its ground).
func (in *instances) bindFrame(d *gpu.Device, frameBuf *gpu.Buffer, height *vtex) error {
	if in.frame != nil {
		in.frame.Release()
		in.frame = nil
	}
	bg, err := in.pipe.bindGroup(d, "viewport instances frame", 0, bufEntry(0, frameBuf),
		wgpu.BindGroupEntry{Binding: 1, TextureView: height.planes[0].view}, bufEntry(2, height.tableBuf))
	if err != nil {
		return err
	}
	in.frame = bg
	return nil
}

func (in *instances) releaseScene() {
	for _, p := range in.pops {
		if p.bg != nil {
			p.bg.Release()
		}
		p.owned.Release()
	}
	in.pops = nil
}

// Release frees everything it owns (never a borrowed pool). Safe on nil and twice.
func (in *instances) Release() {
	if in == nil {
		return
	}
	in.releaseScene()
	if in.frame != nil {
		in.frame.Release()
		in.frame = nil
	}
	for k, b := range in.meshes {
		b.Release()
		delete(in.meshes, k)
	}
	for _, b := range in.args {
		b.Release()
	}
	in.args, in.argVerts = nil, nil
	in.pipe.Release()
	in.pipe = nil
}

func (in *instances) setScene(d *gpu.Device, s *Scene) error {
	return in.setPopulations(d, s.Populations)
}

// setPopulations replaces the populations drawn.
func (in *instances) setPopulations(d *gpu.Device, pops []Population) error {
	in.releaseScene()
	nargs := 0
	for i, sp := range pops {
		p := population{mesh: sp.Mesh, count: uint32(sp.Count)}
		label := fmt.Sprintf("viewport population %d (%s)", i, sp.Name)
		pool := sp.Pool
		if pool != nil && sp.Counter != nil {
			// Drawn by the device's count: the whole pool is bound, whatever the host's count.
			args, err := in.indirectArgs(d, nargs, in.counts[sp.Mesh])
			if err != nil {
				in.releaseScene()
				return err
			}
			nargs++
			p.counter, p.args = sp.Counter, args
			bg, err := in.pipe.bindGroup(d, label, 1, wgpu.BindGroupEntry{Binding: 0, Buffer: pool, Size: pool.GetSize()})
			if err != nil {
				in.releaseScene()
				return err
			}
			p.bg = bg
			in.pops = append(in.pops, p)
			continue
		}
		if pool == nil {
			if sp.Count == 0 {
				continue
			}
			b, err := d.NewBuffer(label+" matrices", uint64(64*sp.Count), wgpu.BufferUsageStorage)
			if err != nil {
				in.releaseScene()
				return fmt.Errorf("viewport: %w", err)
			}
			p.owned = b
			if err := b.Write(0, wgpu.ToBytes(sp.Matrices[:16*sp.Count])); err != nil {
				in.pops = append(in.pops, p)
				in.releaseScene()
				return fmt.Errorf("viewport: %w", err)
			}
			pool = b.Buf
		}
		if p.count == 0 {
			continue
		}
		bg, err := in.pipe.bindGroup(d, label, 1, wgpu.BindGroupEntry{Binding: 0, Buffer: pool, Size: uint64(64 * sp.Count)})
		if err != nil {
			in.pops = append(in.pops, p)
			in.releaseScene()
			return err
		}
		p.bg = bg
		in.pops = append(in.pops, p)
	}
	return nil
}

// indirectArgs is the i-th indirect-arguments buffer (made when missing), holding a draw of
// vertices vertices from 0 and (until a frame copies a counter in) no instance.
func (in *instances) indirectArgs(d *gpu.Device, i int, vertices uint32) (*gpu.Buffer, error) {
	for len(in.args) <= i {
		b, err := d.NewBuffer(fmt.Sprintf("viewport population %d indirect draw", len(in.args)), 16, wgpu.BufferUsageIndirect)
		if err != nil {
			return nil, fmt.Errorf("viewport: %w", err)
		}
		in.args = append(in.args, b)
		in.argVerts = append(in.argVerts, 0)
	}
	b := in.args[i]
	if in.argVerts[i] != vertices {
		if err := b.Write(0, wgpu.ToBytes([]uint32{vertices, 0, 0, 0})); err != nil {
			return nil, fmt.Errorf("viewport: %w", err)
		}
		in.argVerts[i] = vertices
	}
	return b, nil
}

// copyCounts records, ahead of the frame's render pass, the copy of each counted population's
// counter into its indirect draw's instance count.
func (in *instances) copyCounts(enc *wgpu.CommandEncoder) error {
	for _, p := range in.pops {
		if p.counter == nil {
			continue
		}
		if err := enc.CopyBufferToBuffer(p.counter, 0, p.args.Buf, 4, 4); err != nil {
			return err
		}
	}
	return nil
}

// drawnInstances is how many of count instances a stride draws (every stride-th, from the first).
func drawnInstances(count, stride uint32) uint32 {
	return (count + stride - 1) / stride
}

// draw records every population, every stride-th instance (1: all); it returns the triangles
// drawn.
func (in *instances) draw(pass *wgpu.RenderPassEncoder, stride uint32) int {
	if in.frame == nil {
		return 0
	}
	if len(in.pops) == 0 {
		return 0
	}
	tris := 0
	pass.SetPipeline(in.pipe.pipeline)
	pass.SetBindGroup(0, in.frame, nil)
	for _, p := range in.pops {
		mb := in.meshes[p.mesh]
		pass.SetBindGroup(1, p.bg, nil)
		pass.SetVertexBuffer(0, mb.Buf, 0, mb.Size)
		n := drawnInstances(p.count, stride)
		if p.counter != nil && stride == 1 {
			// Every instance the device counted; the triangles are the host's count's.
			pass.DrawIndirect(p.args.Buf, 0)
		} else {
			pass.Draw(in.counts[p.mesh], n, 0, 0)
		}
		tris += int(in.counts[p.mesh]/3) * int(n)
	}
	return tris
}
