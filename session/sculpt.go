package session

import (
	"errors"
	"fmt"
	"image"
	"math"
	"time"

	"strata/field"
	"strata/gpu"
	"strata/sculpt"
)

// SculptMode is what a height brush does to the ground (Brush.Sculpt): package sculpt's Mode. The
// zero value paints the brush's Target (a mask or the holes) instead.
type SculptMode = sculpt.Mode

const (
	// SculptNone: not a sculpt; the brush paints its Target.
	SculptNone = sculpt.None
	// SculptRaise lifts the ground by RaiseRate·Radius·Strength·falloff metres a dab (Erase
	// lowers it by as much).
	SculptRaise = sculpt.Raise
	// SculptSmooth moves each texel toward the mean of the box around it (SmoothHalfWidth), by
	// Strength·falloff of the way.
	SculptSmooth = sculpt.Smooth
	// SculptFlatten moves each texel toward the height of the texel under the press (the
	// stroke's first point), or Brush.Height when HasHeight, by Strength·falloff of the way.
	SculptFlatten = sculpt.Flatten
	// SculptSet moves each texel toward the typed Brush.Height by Strength·falloff of the way.
	SculptSet = sculpt.Set
	// SculptTerrace moves each texel toward its terraced height (Brush.Step, Brush.Sharpness).
	SculptTerrace = sculpt.Terrace
	// SculptNoise adds world-anchored noise (Brush.Amplitude, FeatureSize, Seed).
	SculptNoise = sculpt.Noise
	// SculptStamp adds Brush.Stamp (scaled to the radius, turned by Angle, StampHeight metres at
	// 1) once per stroke, at its first point (Erase subtracts it).
	SculptStamp = sculpt.Stamp
)

// RaiseRate is sculpt.RaiseRate: a raise dab at full strength lifts its centre by this fraction
// of the radius.
const RaiseRate = sculpt.RaiseRate

// SculptLabel is the history step's name for a stroke of mode (erase: lower, or a stamp cut in).
func SculptLabel(mode SculptMode, erase bool) string {
	switch mode {
	case SculptRaise:
		if erase {
			return "Lower ground"
		}
		return "Raise ground"
	case SculptSmooth:
		return "Smooth ground"
	case SculptFlatten:
		return "Flatten ground"
	case SculptSet:
		return "Set ground height"
	case SculptTerrace:
		return "Terrace ground"
	case SculptNoise:
		return "Add noise to ground"
	case SculptStamp:
		if erase {
			return "Stamp into ground"
		}
		return "Stamp ground"
	}
	return ""
}

// SmoothHalfWidth is sculpt.SmoothHalfWidth: the smooth box's half-width in texels for a brush of
// radiusTexels.
func SmoothHalfWidth(radiusTexels float64) int { return sculpt.SmoothHalfWidth(radiusTexels) }

// sculptDab is the dab b lays at (x, z): package sculpt's description of it. level is a flatten
// stroke's target when the brush gives none.
func (b *Brush) sculptDab(x, z, level float64) sculpt.Dab {
	p := sculpt.Params{
		Mode: b.Sculpt, Strength: b.Strength, Invert: b.Erase,
		Height: b.Height, Step: b.Step, Sharpness: b.Sharpness,
		Amplitude: b.Amplitude, FeatureSize: b.FeatureSize, Seed: b.Seed,
		Image: b.Stamp, Angle: b.Angle, StampHeight: b.StampHeight,
	}
	if b.Sculpt == SculptFlatten && !b.HasHeight {
		p.Height = level
	}
	return sculpt.Dab{Params: p, X: x, Z: z, Radius: b.Radius, Falloff: b.Falloff}
}

// sculpt applies one dab of a height brush at the stroke's (o.x, o.z) on rect (height texels,
// the dab's disc bounds, clipped to the grid): the worker, with the field's write lock held. The
// per-texel arithmetic is package sculpt's; this keeps the stroke's undo blocks and, for a
// flatten stroke, the level (the texel under the first dab).
func (o *dabOp) sculpt(p *pipeline, rect image.Rectangle) (fieldChange, error) {
	f := p.s.land.Field
	g := f.Height
	b := &o.rec.brush
	pl := sculpt.PlaceOf(f)
	t0 := time.Now()
	o.rec.remember(rect, g.W, g.H, func(k int) float32 { return g.Data[k] })
	if b.Sculpt == SculptFlatten && !o.rec.hasFlat {
		i := min(max(int(math.Floor((o.x-pl.Min[0])/pl.Texel[0])), 0), g.W-1)
		j := min(max(int(math.Floor((o.z-pl.Min[1])/pl.Texel[1])), 0), g.H-1)
		o.rec.flat, o.rec.hasFlat = float64(g.At(i, j)), true
	}
	d := b.sculptDab(o.x, o.z, o.rec.flat)
	// On the GPU evaluator the kernel rewrites the resident bricks first (submitted, not waited
	// for); the host's grid, the document, takes the same dab from the Go twin while the device
	// works, and no row is uploaded for it.
	t1 := time.Now()
	resident := p.sculptOnDevice(&d, pl)
	t2 := time.Now()
	changed, err := d.Apply(g, pl)
	p.addParts(passParts{dabDevice: t2.Sub(t1), dabHost: t1.Sub(t0) + time.Since(t2)})
	if err != nil {
		return fieldChange{}, err
	}
	if resident {
		o.rec.onDevice = true
	}
	return fieldChange{target: "", rect: changed, resident: resident}, nil
}

// sculptOnDevice applies d to the resident field's height bricks with the GPU twin
// (gpu.SculptKernel) and reports whether it did: on the GPU evaluator with the field landed on the
// device and its copy current under the texels the dab reads. Otherwise (the Go evaluator, the
// field still on its way, rows edited since the last sync under the dab, the bricks past the
// budget, a kernel error — said once, and the kernel is not used again) the caller's host dab is
// uploaded by rows as any edit is.
func (p *pipeline) sculptOnDevice(d *sculpt.Dab, pl sculpt.Place) bool {
	r := &p.res
	if p.gpu == nil || r.fb == nil {
		return false
	}
	g := p.s.land.Field.Height
	reads := d.Rect(g.W, g.H, pl)
	if rp := d.Resolved(pl); rp.Mode == sculpt.Smooth {
		reads = reads.Inset(-rp.HalfWidth)
	}
	if reads.Overlaps(r.edited) {
		return false // the device's copy is behind there until the next sync
	}
	if r.sculpt == nil {
		if r.sculptErr != nil {
			return false
		}
		if r.sculpt, r.sculptErr = p.s.dev.NewSculptKernel(); r.sculptErr != nil {
			go p.s.emit(Event{Kind: EventError, Err: fmt.Errorf("session: no GPU sculpt kernel (the dabs are uploaded): %w", r.sculptErr)})
			return false
		}
	}
	_, err := r.sculpt.Apply(r.fb, d)
	if err != nil && !errors.Is(err, gpu.ErrSculptNotResident) {
		// Not the budget: the kernel is at fault. Said once; the dabs go the upload way from now.
		r.sculptErr = err
		r.sculpt.Release()
		r.sculpt = nil
		go p.s.emit(Event{Kind: EventError, Err: fmt.Errorf("session: the GPU sculpt kernel failed (the dabs are uploaded from now on): %w", err)})
	}
	return err == nil
}

// resync queues the blocks a sculpt stroke changed for bringing the device's copy of the height
// back to the host's (resident.resynced, done by markResynced once the field's lock is let go),
// when any of the stroke's dabs ran on the device: the twins agree to the tolerance docs/design.md
// "GPU sculpt twin" states, not always bit for bit, and the host's grid is the document.
func (r *strokeRec) resync(p *pipeline) {
	if !r.onDevice {
		return
	}
	r.onDevice = false
	for _, b := range r.blocks {
		if !b.changed.Empty() {
			p.res.resynced = append(p.res.resynced, b.changed)
		}
	}
}

// markResynced rewrites the queued blocks' rows in the bricks from the host's grid and marks the
// weights that read them to be evaluated again, so that after a stroke the live weights are a
// fresh evaluation of the saved heights. It runs after the stroke's end (off the dabs' path) and
// outside the field's lock (staleRect takes the viewport's, which a frame holds while it waits for
// the field's). It reports whether it marked anything.
func (p *pipeline) markResynced() bool {
	rects := p.res.resynced
	p.res.resynced = nil
	if len(rects) == 0 || p.res.fb == nil {
		return false
	}
	for _, rc := range rects {
		if err := p.res.fb.RewriteHeight(rc); err != nil {
			p.res.edited = p.res.edited.Union(rc) // the next sync uploads it with the rest
		}
		p.markReaders(rc)
	}
	return true
}

// LoadStamp reads a stamp brush's image (sculpt.LoadStamp: PNG 8/16-bit codes onto 0 … 1, float
// formats as they are) for Brush.Stamp.
func LoadStamp(path string) (*field.Grid, error) { return sculpt.LoadStamp(path) }
