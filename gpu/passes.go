package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/shaders"
)

// A kernelPass is one entry point of an embedded WGSL file and the bindings it uses: wgpu
// derives each pipeline's layout from what its entry point reads, so its bind groups name
// exactly these. The erosion and the flow kernels are sets of such passes over one grid.
type kernelPass struct {
	file, entry string
	bindings    []uint32
}

// passSet is a set of passes compiled on one device.
type passSet struct {
	dev    *Device
	label  string
	passes map[string]kernelPass
	pipes  map[string]*ComputePipeline
}

func (d *Device) newPassSet(label string, passes []kernelPass) (*passSet, error) {
	return d.newPassSetEdited(label, passes, nil)
}

// newPassSetEdited is newPassSet with each file's source passed through edit first (nil: as
// embedded, LoadComputePipeline); a kernel that sizes its workgroup memory by a constant sets it
// so (an edited source is compiled apart, never shared under the file's name).
func (d *Device) newPassSetEdited(label string, passes []kernelPass, edit func(src string) (string, error)) (*passSet, error) {
	s := &passSet{dev: d, label: label, passes: map[string]kernelPass{}, pipes: map[string]*ComputePipeline{}}
	for _, p := range passes {
		var pl *ComputePipeline
		var err error
		if edit == nil {
			pl, err = d.LoadComputePipeline(p.file, p.entry, nil)
		} else {
			var src string
			if src, err = shaders.Load(p.file); err == nil {
				src, err = edit(src)
			}
			if err == nil {
				pl, err = d.NewComputePipeline(p.file, src, p.entry, nil)
			}
		}
		if err != nil {
			s.release()
			return nil, fmt.Errorf("gpu: %s: %s: %w", label, p.entry, err)
		}
		s.passes[p.entry], s.pipes[p.entry] = p, pl
	}
	return s, nil
}

// release frees the pipelines. Safe on nil and twice.
func (s *passSet) release() {
	if s == nil {
		return
	}
	for n, p := range s.pipes {
		p.Release()
		delete(s.pipes, n)
	}
}

// passRun is one run of a pass set over a w×h grid: its buffers and its bind groups (made once
// per distinct set of buffers), released together.
type passRun struct {
	set    *passSet
	gx, gy uint32 // workgroups of 16×16 over the grid
	groups map[string]*wgpu.BindGroup
	bufs   []*Buffer
}

func (s *passSet) newRun(w, h int) *passRun {
	return &passRun{set: s, gx: uint32((w + 15) / 16), gy: uint32((h + 15) / 16), groups: map[string]*wgpu.BindGroup{}}
}

func (r *passRun) release() {
	for _, g := range r.groups {
		g.Release()
	}
	for _, b := range r.bufs {
		b.Release()
	}
}

// buffer allocates one of the run's buffers (zeroed, as WebGPU zeroes every new buffer).
func (r *passRun) buffer(label string, size uint64, usage wgpu.BufferUsage) (*Buffer, error) {
	b, err := r.set.dev.NewBuffer(label, size, usage)
	if err != nil {
		return nil, err
	}
	r.bufs = append(r.bufs, b)
	return b, nil
}

// group is the bind group of pass entry with the buffers of bufs (binding → buffer).
func (r *passRun) group(entry string, bufs map[uint32]*Buffer) (*wgpu.BindGroup, error) {
	p, ok := r.set.passes[entry]
	if !ok {
		return nil, fmt.Errorf("gpu: %s: no pass %s", r.set.label, entry)
	}
	key := entry
	entries := make([]wgpu.BindGroupEntry, 0, len(p.bindings))
	for _, b := range p.bindings {
		buf := bufs[b]
		if buf == nil {
			return nil, fmt.Errorf("gpu: %s: %s: binding %d has no buffer", r.set.label, entry, b)
		}
		key += fmt.Sprintf("/%p", buf)
		entries = append(entries, BufferEntry(b, buf))
	}
	if g := r.groups[key]; g != nil {
		return g, nil
	}
	g, err := r.set.pipes[entry].BindGroup(r.set.label+" "+entry, entries...)
	if err != nil {
		return nil, err
	}
	r.groups[key] = g
	return g, nil
}

// dispatch is one pass over the grid (one: a single thread, a counter's tick; tiles: one
// thread per 16×16 tile of the grid; indirect: the workgroup counts the GPU wrote in that buffer
// at offset).
type dispatch struct {
	entry    string
	bg       *wgpu.BindGroup
	one      bool
	tiles    bool
	indirect *Buffer
	offset   uint64
}

// submit records the dispatches in one compute pass (wgpu orders their storage accesses) and
// submits them.
func (r *passRun) submit(label string, ds []dispatch) error {
	label = r.set.label + " " + label
	return r.set.dev.Submit(label, func(enc *wgpu.CommandEncoder) error {
		return ComputePass(enc, label, func(pass *wgpu.ComputePassEncoder) {
			for _, d := range ds {
				pass.SetPipeline(r.set.pipes[d.entry].Pipeline)
				pass.SetBindGroup(0, d.bg, nil)
				switch {
				case d.indirect != nil:
					pass.DispatchWorkgroupsIndirect(d.indirect.Buf, d.offset)
				case d.one:
					pass.DispatchWorkgroups(1, 1, 1)
				case d.tiles:
					pass.DispatchWorkgroups((r.gx+15)/16, (r.gy+15)/16, 1)
				default:
					pass.DispatchWorkgroups(r.gx, r.gy, 1)
				}
			}
		})
	})
}
