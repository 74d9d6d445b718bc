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
	meshes map[Mesh]instMesh
	// drafts are the meshes draft frames draw (draftInstanceMesh).
	drafts map[Mesh]instMesh
	pops   []population
	// args are the indirect draws' arguments, one buffer a population drawn by its counter, kept
	// from scene to scene (a sculpt's every dab hands new pools).
	args       []*gpu.Buffer
	argIndices []uint32 // the index count each holds
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
	in = &instances{meshes: map[Mesh]instMesh{}, drafts: map[Mesh]instMesh{}}
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
		var err error
		if in.meshes[m], err = newInstMesh(d, "viewport mesh "+string(m), instanceMesh(m)); err != nil {
			return nil, err
		}
		if in.drafts[m], err = newInstMesh(d, "viewport draft mesh "+string(m), draftInstanceMesh(m)); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// instMesh is a built-in mesh on the device: its shared vertices and the triangles' indices
// (indexFlat), each triangle's first vertex carrying its face's normal and colour.
type instMesh struct {
	vb, ib  *gpu.Buffer
	indices uint32
}

// newInstMesh uploads a flat-shaded triangle list (meshBuilder's) as an indexed mesh.
func newInstMesh(d *gpu.Device, label string, tris []float32) (m instMesh, err error) {
	defer func() {
		if err != nil {
			m.release()
			err = fmt.Errorf("viewport: %w", err)
		}
	}()
	v, idx := indexFlat(tris)
	if m.vb, err = d.NewBuffer(label+" vertices", uint64(4*len(v)), wgpu.BufferUsageVertex); err != nil {
		return m, err
	}
	if err = m.vb.Write(0, wgpu.ToBytes(v)); err != nil {
		return m, err
	}
	if m.ib, err = d.NewBuffer(label+" indices", uint64(4*len(idx)), wgpu.BufferUsageIndex); err != nil {
		return m, err
	}
	if err = m.ib.Write(0, wgpu.ToBytes(idx)); err != nil {
		return m, err
	}
	m.indices = uint32(len(idx))
	return m, nil
}

// release frees the mesh's buffers (nil-safe).
func (m instMesh) release() {
	m.vb.Release()
	m.ib.Release()
}

// mesh is the mesh a frame draws kind with: the draft mesh in a draft frame.
func (in *instances) mesh(kind Mesh, draft bool) instMesh {
	if draft {
		return in.drafts[kind]
	}
	return in.meshes[kind]
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
	for _, set := range []map[Mesh]instMesh{in.meshes, in.drafts} {
		for k, m := range set {
			m.release()
			delete(set, k)
		}
	}
	for _, b := range in.args {
		b.Release()
	}
	in.args, in.argIndices = nil, nil
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
			args, err := in.indirectArgs(d, nargs, in.meshes[sp.Mesh].indices)
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

// indirectArgs is the i-th indirect-arguments buffer (made when missing), holding an indexed draw
// of indices indices of the full mesh and (until a frame copies a counter in) no instance: the
// arguments of DrawIndexedIndirect (index count, instance count, first index, base vertex, first
// instance), the instance count at byte 4.
func (in *instances) indirectArgs(d *gpu.Device, i int, indices uint32) (*gpu.Buffer, error) {
	for len(in.args) <= i {
		b, err := d.NewBuffer(fmt.Sprintf("viewport population %d indirect draw", len(in.args)), 20, wgpu.BufferUsageIndirect)
		if err != nil {
			return nil, fmt.Errorf("viewport: %w", err)
		}
		in.args = append(in.args, b)
		in.argIndices = append(in.argIndices, 0)
	}
	b := in.args[i]
	if in.argIndices[i] != indices {
		if err := b.Write(0, wgpu.ToBytes([]uint32{indices, 0, 0, 0, 0})); err != nil {
			return nil, fmt.Errorf("viewport: %w", err)
		}
		in.argIndices[i] = indices
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

// draw records every population, every stride-th instance (1: all), with the draft meshes when
// draft is set; it returns the triangles drawn.
func (in *instances) draw(pass *wgpu.RenderPassEncoder, stride uint32, draft bool) int {
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
		m := in.mesh(p.mesh, draft)
		pass.SetBindGroup(1, p.bg, nil)
		pass.SetVertexBuffer(0, m.vb.Buf, 0, m.vb.Size)
		pass.SetIndexBuffer(m.ib.Buf, wgpu.IndexFormatUint32, 0, m.ib.Size)
		n := drawnInstances(p.count, stride)
		if p.counter != nil && stride == 1 && !draft {
			// Every instance the device counted; the triangles are the host's count's.
			pass.DrawIndexedIndirect(p.args.Buf, 0)
		} else {
			pass.DrawIndexed(m.indices, n, 0, 0, 0)
		}
		tris += int(m.indices/3) * int(n)
	}
	return tris
}
