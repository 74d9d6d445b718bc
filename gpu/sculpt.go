package gpu

import (
	"errors"
	"fmt"
	"image"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
	"strata/sculpt"
)

// SculptKernel is package sculpt's dab on the device (shaders/sculpt.wgsl; docs/design.md "GPU
// sculpt twin"): it rewrites the height bricks of a FieldBuffers — the field's device copy — over
// the dab's rectangle, reading them where they are, so a stroke on the GPU evaluator uploads no
// height rows. A dab is one submission: one dispatch a brick whose block holds texels of the
// dab's rectangle (the copies in the neighbours' aprons get the same value), preceded for a smooth
// by a gather of the rectangle and its box's apron into a source copy (the heights before the
// dab). Nothing is read back unless FieldBuffers.ReadHeight asks. Make one per device; it is not safe for
// concurrent use.
type SculptKernel struct {
	dev    *Device
	gather *ComputePipeline
	dab    *ComputePipeline
	params *Buffer // one slot of sculptWords a dispatch
	axes   *Buffer // per column and row of the dab's rectangle (sculpt.wgsl's axes)
	src    *Buffer // a smooth's source copy
	stamp  *Buffer // the stamp image
	// stampOf is the image stamp holds (an image is taken as it is when first stamped: another
	// *field.Grid is uploaded again, the same one is not).
	stampOf *field.Grid
	slot    uint64
	host    []byte
}

// ErrSculptNotResident says the bricks a dab reads cannot all be on the device at once (the
// budget holds fewer) or the bricks' blocks do not cover the texels a smooth's box reads (a
// height grid finer than the weights grid): the caller applies the dab on the host and uploads
// its rows instead.
var ErrSculptNotResident = errors.New("gpu: sculpt: the dab's texels are not all in bricks on the device")

// The params' words (sculpt.wgsl's struct Dab, in order; TestSculptParamsLayout checks it).
const (
	scMode = iota
	scInvert
	scHalfWidth
	scSeed
	scStrength
	scLift
	scHeight
	scStep
	scSharpness
	scAmplitude
	scNoiseInv
	scRadius
	scFalloff
	scStampHeight
	scPS
	scCosA
	scSinA
	scHalfW
	scHalfH
	scStampMinX
	scStampMinZ
	scStampInvX
	scStampInvZ
	scPad0
	scStampW
	scStampH
	scGridW
	scGridH
	scRect // four words each from here
	scSrc  = scRect + 4
	scPart = scSrc + 4
	scBuf  = scPart + 4
	// sculptWords is the struct's size in words.
	sculptWords = scBuf + 4
)

// NewSculptKernel compiles the sculpt passes.
func (d *Device) NewSculptKernel() (*SculptKernel, error) {
	k := &SculptKernel{dev: d}
	var err error
	if k.gather, err = d.LoadComputePipeline("sculpt", "gather", nil); err != nil {
		return nil, fmt.Errorf("gpu: sculpt: gather: %w", err)
	}
	if k.dab, err = d.LoadComputePipeline("sculpt", "dab", nil); err != nil {
		k.Release()
		return nil, fmt.Errorf("gpu: sculpt: dab: %w", err)
	}
	return k, nil
}

// Release frees the pipelines and buffers. Safe on nil and twice.
func (k *SculptKernel) Release() {
	if k == nil {
		return
	}
	k.gather.Release()
	k.dab.Release()
	for _, b := range []*Buffer{k.params, k.axes, k.src, k.stamp} {
		b.Release()
	}
	k.gather, k.dab, k.params, k.axes, k.src, k.stamp, k.stampOf = nil, nil, nil, nil, nil, nil, nil
}

// brickRect is brick i's block in height texels.
func (fb *FieldBuffers) brickRect(i int) image.Rectangle {
	t := fb.bricks[i].t
	return image.Rect(t.BufI0, t.BufJ0, t.BufI0+t.BufW, t.BufJ0+t.BufH)
}

// Apply applies d to the height the bricks of fb hold, as d.Apply (package sculpt) applies it to
// the host's grid, and returns the dab's rectangle (height texels, sculpt.Dab.Rect of the field
// fb holds): the texels it may have changed. The bricks whose blocks hold texels the dab reads are
// put on the device first (uploaded from the host's grid when missing, which must then be as it
// was before the dab); when they cannot all be held at once it returns ErrSculptNotResident
// (wrapped) and changes nothing. The work is submitted, not waited for.
func (k *SculptKernel) Apply(fb *FieldBuffers, d *sculpt.Dab) (image.Rectangle, error) {
	if k == nil || k.dab == nil || k.gather == nil {
		return image.Rectangle{}, errors.New("gpu: sculpt: no kernel (nil or released)")
	}
	if fb == nil || fb.dev == nil {
		return image.Rectangle{}, errors.New("gpu: sculpt: no field buffers")
	}
	if fb.dev != k.dev {
		return image.Rectangle{}, errors.New("gpu: sculpt: the field buffers are another device's")
	}
	if d == nil {
		return image.Rectangle{}, errors.New("gpu: sculpt: no dab")
	}
	if err := d.Check(); err != nil {
		return image.Rectangle{}, fmt.Errorf("gpu: sculpt: %w", err)
	}
	fb.mu.Lock()
	defer fb.mu.Unlock()
	if !fb.cut || fb.f == nil || fb.grids[0] == nil {
		return image.Rectangle{}, errors.New("gpu: sculpt: the field buffers hold no field (Upload and Cut first)")
	}
	g := fb.grids[0]
	pl := sculpt.PlaceOf(fb.f)
	rect := d.Rect(g.W, g.H, pl)
	if rect.Empty() {
		return rect, nil
	}
	p := d.Resolved(pl)
	smooth := p.Mode == sculpt.Smooth
	src := rect
	if smooth {
		src = rect.Inset(-p.HalfWidth).Intersect(image.Rect(0, 0, g.W, g.H))
	}

	// The bricks whose blocks hold texels of src, all on the device together: marked used first so
	// that putting one there never evicts another of them.
	var set []int
	var need int64
	for i := range fb.bricks {
		if fb.brickRect(i).Overlaps(src) {
			set = append(set, i)
			need += fb.brickBytes(i)
		}
	}
	if len(set) == 0 {
		return image.Rectangle{}, fmt.Errorf("%w (no brick holds %v)", ErrSculptNotResident, src)
	}
	if len(set) > 1 && fb.budget > 0 && need > fb.budget {
		return image.Rectangle{}, fmt.Errorf("%w (%d bricks of %d bytes past a budget of %d)", ErrSculptNotResident, len(set), need, fb.budget)
	}
	if smooth && !coveredBy(src, fb, set) {
		return image.Rectangle{}, fmt.Errorf("%w (the bricks' blocks leave texels of %v out)", ErrSculptNotResident, src)
	}
	for _, i := range set {
		fb.tick++
		fb.bricks[i].used = fb.tick
	}
	for _, i := range set {
		if err := fb.ensure(i); err != nil {
			return image.Rectangle{}, err
		}
	}
	if err := fb.submitUploads(); err != nil {
		return image.Rectangle{}, err
	}

	// Params: the dab's words, then each dispatch's slot with its part and brick.
	var base [sculptWords]uint32
	k.pack(&base, d, &p, g, rect, src)
	type call struct {
		pipe  *ComputePipeline
		brick int
		part  image.Rectangle
	}
	var calls []call
	if smooth {
		for _, i := range set {
			if part := fb.brickRect(i).Intersect(src); !part.Empty() {
				calls = append(calls, call{k.gather, i, part})
			}
		}
	}
	for _, i := range set {
		if part := fb.brickRect(i).Intersect(rect); !part.Empty() {
			calls = append(calls, call{k.dab, i, part})
		}
	}
	if err := k.buffers(len(calls), rect, src, smooth, d, pl, &p); err != nil {
		return image.Rectangle{}, err
	}
	var bgs []*wgpu.BindGroup
	defer func() {
		for _, bg := range bgs {
			bg.Release()
		}
	}()
	for n, c := range calls {
		w := base
		br := fb.brickRect(c.brick)
		putRect(w[scPart:], c.part.Min.X, c.part.Min.Y, c.part.Dx(), c.part.Dy())
		putRect(w[scBuf:], br.Min.X, br.Min.Y, br.Dx(), br.Dy())
		off := uint64(n) * k.slot
		for q, v := range w {
			o := off + uint64(4*q)
			k.host[o], k.host[o+1], k.host[o+2], k.host[o+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
		pe := wgpu.BindGroupEntry{Binding: 0, Buffer: k.params.Buf, Offset: off, Size: 4 * sculptWords}
		height := fb.bricks[c.brick].planes[0]
		if height == nil {
			return image.Rectangle{}, fmt.Errorf("gpu: sculpt: brick %d is not on the device", c.brick)
		}
		entries := []wgpu.BindGroupEntry{pe, BufferEntry(1, height), BufferEntry(3, k.src)}
		if c.pipe == k.dab {
			entries = append(entries, BufferEntry(2, k.axes), BufferEntry(4, k.stamp))
		}
		bg, err := c.pipe.BindGroup(fmt.Sprintf("sculpt %s brick %d", c.pipe.Name, c.brick), entries...)
		if err != nil {
			return image.Rectangle{}, err
		}
		bgs = append(bgs, bg)
	}
	if err := k.params.Write(0, k.host[:uint64(len(calls))*k.slot]); err != nil {
		return image.Rectangle{}, err
	}
	err := k.dev.Submit("sculpt dab", func(enc *wgpu.CommandEncoder) error {
		return ComputePass(enc, "sculpt dab", func(pass *wgpu.ComputePassEncoder) {
			for n, c := range calls {
				pass.SetPipeline(c.pipe.Pipeline)
				pass.SetBindGroup(0, bgs[n], nil)
				pass.DispatchWorkgroups(uint32(c.part.Dx()+15)/16, uint32(c.part.Dy()+15)/16, 1)
			}
		})
	})
	if err != nil {
		return image.Rectangle{}, err
	}
	return rect, nil
}

// coveredBy reports whether the blocks of the bricks set cover every texel of r.
func coveredBy(r image.Rectangle, fb *FieldBuffers, set []int) bool {
	hit := make([]bool, r.Dx()*r.Dy())
	for _, i := range set {
		p := fb.brickRect(i).Intersect(r)
		for j := p.Min.Y; j < p.Max.Y; j++ {
			for x := p.Min.X; x < p.Max.X; x++ {
				hit[(j-r.Min.Y)*r.Dx()+x-r.Min.X] = true
			}
		}
	}
	for _, h := range hit {
		if !h {
			return false
		}
	}
	return true
}

func putRect(w []uint32, a, b, c, d int) {
	w[0], w[1], w[2], w[3] = uint32(int32(a)), uint32(int32(b)), uint32(int32(c)), uint32(int32(d))
}

func f32bits(v float64) uint32 { return math.Float32bits(float32(v)) }

// pack writes the dab's words (all but part and buf) into w: each float64 of package sculpt's
// rounded once to f32.
func (k *SculptKernel) pack(w *[sculptWords]uint32, d *sculpt.Dab, p *sculpt.Params, g *field.Grid, rect, src image.Rectangle) {
	w[scMode] = uint32(p.Mode)
	if p.Invert {
		w[scInvert] = 1
	}
	w[scHalfWidth] = uint32(int32(p.HalfWidth))
	w[scSeed] = p.Seed
	w[scStrength] = f32bits(p.Strength)
	w[scLift] = f32bits(p.Lift)
	w[scHeight] = f32bits(p.Height)
	w[scStep] = f32bits(p.Step)
	w[scSharpness] = f32bits(p.Sharpness)
	w[scAmplitude] = f32bits(p.Amplitude)
	if p.Mode == sculpt.Noise {
		w[scNoiseInv] = math.Float32bits(1 / float32(p.FeatureSize)) // noise.FBM's inverse
	}
	w[scRadius] = f32bits(d.Radius)
	w[scFalloff] = f32bits(d.Falloff)
	w[scStampHeight] = f32bits(p.StampHeight)
	if p.Mode == sculpt.Stamp {
		fr := d.StampFrame()
		w[scPS], w[scCosA], w[scSinA] = f32bits(fr.PS), f32bits(fr.Cos), f32bits(fr.Sin)
		w[scHalfW], w[scHalfH] = f32bits(fr.HalfW), f32bits(fr.HalfH)
		if geo, err := sculpt.StampGeometry(p.Image); err == nil {
			w[scStampMinX], w[scStampMinZ] = math.Float32bits(geo.FieldMin[0]), math.Float32bits(geo.FieldMin[1])
			w[scStampInvX], w[scStampInvZ] = math.Float32bits(geo.InvHTexel[0]), math.Float32bits(geo.InvHTexel[1])
		}
		w[scStampW], w[scStampH] = uint32(p.Image.W), uint32(p.Image.H)
	}
	w[scGridW], w[scGridH] = uint32(g.W), uint32(g.H)
	putRect(w[scRect:], rect.Min.X, rect.Min.Y, rect.Max.X, rect.Max.Y)
	putRect(w[scSrc:], src.Min.X, src.Min.Y, src.Max.X, src.Max.Y)
}

// buffers readies the params slots for n dispatches, the axes of rect, the source copy of src
// (a smooth) and the stamp image (a stamp; a word otherwise).
func (k *SculptKernel) buffers(n int, rect, src image.Rectangle, smooth bool, d *sculpt.Dab, pl sculpt.Place, p *sculpt.Params) error {
	dev := k.dev
	mk := func(b **Buffer, label string, size uint64) error {
		if *b == nil {
			nb, err := dev.NewBuffer(label, size, wgpu.BufferUsageStorage)
			if err != nil {
				return err
			}
			*b = nb
			return nil
		}
		_, err := (*b).Ensure(size)
		return err
	}
	a := uint64(dev.Limits.MinStorageBufferOffsetAlignment)
	if a == 0 {
		a = 256
	}
	k.slot = align(4*sculptWords, a)
	if err := mk(&k.params, "sculpt params", k.slot*uint64(n)); err != nil {
		return err
	}
	if need := int(k.slot) * n; len(k.host) < need {
		k.host = make([]byte, need)
	}
	// The axes: dx and the world x of each column, dz and the world z of each row, each the Go's
	// float64 (sculpt's Place.centre) rounded once.
	rw, rh := rect.Dx(), rect.Dy()
	ax := make([]float32, 2*(rw+rh))
	for c := range rw {
		x := pl.Min[0] + (float64(rect.Min.X+c)+0.5)*pl.Texel[0]
		ax[c], ax[rw+rh+c] = float32(x-d.X), float32(x)
	}
	for r := range rh {
		z := pl.Min[1] + (float64(rect.Min.Y+r)+0.5)*pl.Texel[1]
		ax[rw+r], ax[2*rw+rh+r] = float32(z-d.Z), float32(z)
	}
	if err := mk(&k.axes, "sculpt axes", uint64(4*len(ax))); err != nil {
		return err
	}
	if err := k.axes.Write(0, wgpu.ToBytes(ax)); err != nil {
		return err
	}
	srcBytes := uint64(4)
	if smooth {
		srcBytes = uint64(4 * src.Dx() * src.Dy())
	}
	if err := mk(&k.src, "sculpt source", srcBytes); err != nil {
		return err
	}
	if p.Mode == sculpt.Stamp {
		if k.stampOf != p.Image || k.stamp == nil {
			k.stampOf = nil
			if err := mk(&k.stamp, "sculpt stamp", uint64(4*len(p.Image.Data))); err != nil {
				return err
			}
			if err := k.stamp.Write(0, wgpu.ToBytes(p.Image.Data)); err != nil {
				return err
			}
			k.stampOf = p.Image
		}
	} else if k.stamp == nil {
		if err := mk(&k.stamp, "sculpt stamp", 4); err != nil {
			return err
		}
	}
	return nil
}

// ReadHeight reads the heights of rect (height texels) back from the bricks on the device: for
// tests, and for whoever wants the device's copy on the host (a sculpt kernel's dabs are never
// read back otherwise). Every copy of a texel (a brick's core and its neighbours' aprons) is read,
// and copies that disagree are an error, as is a texel no brick on the device holds.
func (fb *FieldBuffers) ReadHeight(rect image.Rectangle) (*field.Grid, error) {
	if fb == nil || fb.dev == nil {
		return nil, errors.New("gpu: field buffers: nil")
	}
	fb.mu.Lock()
	defer fb.mu.Unlock()
	if !fb.cut || fb.grids[0] == nil {
		return nil, errors.New("gpu: sculpt: the field buffers hold no field (Upload and Cut first)")
	}
	g := fb.grids[0]
	rect = rect.Intersect(image.Rect(0, 0, g.W, g.H))
	out := field.NewGrid(max(rect.Dx(), 0), max(rect.Dy(), 0))
	if rect.Empty() {
		return out, nil
	}
	seen := make([]bool, len(out.Data))
	for i := range fb.bricks {
		buf := fb.bricks[i].planes[0]
		br := fb.brickRect(i)
		r := br.Intersect(rect)
		if buf == nil || r.Empty() {
			continue
		}
		row := uint64(4 * br.Dx())
		raw := make([]byte, uint64(r.Dy())*row)
		if err := fb.dev.ReadBufferRows(buf, uint64(r.Min.Y-br.Min.Y)*row, uint64(r.Dy()), row, raw, row); err != nil {
			return nil, err
		}
		for j := r.Min.Y; j < r.Max.Y; j++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				o := uint64(j-r.Min.Y)*row + uint64(4*(x-br.Min.X))
				v := math.Float32frombits(uint32(raw[o]) | uint32(raw[o+1])<<8 | uint32(raw[o+2])<<16 | uint32(raw[o+3])<<24)
				q := (j-rect.Min.Y)*out.W + x - rect.Min.X
				if seen[q] && math.Float32bits(out.Data[q]) != math.Float32bits(v) {
					return nil, fmt.Errorf("gpu: sculpt: texel (%d, %d) is %v in brick %d, %v in another", x, j, v, i, out.Data[q])
				}
				out.Data[q], seen[q] = v, true
			}
		}
	}
	for q, s := range seen {
		if !s {
			return nil, fmt.Errorf("gpu: sculpt: texel (%d, %d) is in no brick on the device", rect.Min.X+q%out.W, rect.Min.Y+q/out.W)
		}
	}
	return out, nil
}

// RewriteHeight rewrites the height texels of rect in the bricks on the device from the host's
// grid the buffers hold (the channels are left as they are): what brings the device's copy back
// to the host's after a sculpt stroke (session: the stroke's end).
func (fb *FieldBuffers) RewriteHeight(rect image.Rectangle) error {
	if fb == nil || fb.dev == nil {
		return errors.New("gpu: field buffers: nil")
	}
	fb.mu.Lock()
	defer fb.mu.Unlock()
	g := fb.grids[0]
	if !fb.cut || g == nil {
		return errors.New("gpu: field buffers: no field (Upload and Cut first)")
	}
	rect = rect.Intersect(image.Rect(0, 0, g.W, g.H))
	if rect.Empty() {
		return nil
	}
	return fb.writeRows(rect, true)
}
