package session

import (
	"context"
	"image"
	"slices"
	"time"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
)

// resident is the landscape's field kept on the GPU for the kernels (GPU mode), in bricks under
// the kernels' share of the budget (gpu.FieldBuffers: an LRU of blocks a few MiB each, never a
// whole plane): filled in the background after an open, nearest the view first, then kept in
// step with the edits, a rectangle of rows at a time; bricks past the budget come and go as the
// kernels read them. Until the fill has landed, the pages come from the Go reference and the
// full-resolution tiles wait. The worker owns it (and whoever holds passMu with the worker idle).
type resident struct {
	// fb is the field on the device once landed (nil: none, or still on its way).
	fb *gpu.FieldBuffers
	// edited is the height texels edited since fb was last brought up to date; editedChans says
	// a channel's values were among them (otherwise only the height plane is written again).
	edited      image.Rectangle
	editedChans bool
	// upload is the field on its way to the device, done hears its end, began is when it began,
	// cancel stops it.
	upload *gpu.FieldBuffers
	done   chan error
	began  time.Time
	cancel context.CancelFunc
	// sculpt is the sculpt kernel that rewrites fb's height under a dab (made at the first dab;
	// sculptErr: it could not be made or it failed, said once; the dabs are uploaded by rows).
	sculpt    *gpu.SculptKernel
	sculptErr error
	// resynced are the height rects a stroke's end brings back to the host's (markResynced).
	resynced []image.Rectangle
}

// start begins filling the device's bricks with l's field over geo, nearest the view's centre
// (near, weights texels) first, until the field or the kernels' share of the budget is full (the
// viewport's atlases take the rest: viewport.SetMemoryBudget).
func (r *resident) start(s *Session, l *landscape.Landscape, geo *landscape.Geometry, near image.Point) {
	if l.Stack == nil {
		return
	}
	fb := s.dev.NewFieldBuffers(kernelBudget(s.opts.GPUBudget))
	fb.Cut(&geo.Field, geo.Stack.GradientStep)
	if _, err := fb.Upload(l.Field, l.Stack.Channels(), image.Rectangle{}); err != nil {
		fb.Release()
		return // the kernels cut their tiles from the field instead
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// The worker writes the field under the write side of fmu (a stroke): it waits for the
		// copy; the edits it makes are brought up by the next sync (edited).
		s.fmu.RLock()
		err := fb.Fill(ctx, near)
		s.fmu.RUnlock()
		done <- err
	}()
	r.upload, r.done, r.began, r.cancel = fb, done, time.Now(), cancel
}

// kernelBudget is the kernels' share of the session's device budget: the field's bricks (the
// weights targets and the viewport's atlases take the rest).
func kernelBudget(total int64) int64 { return int64(float64(total) * kernelShare) }

// kernelShare is the kernels' fraction of the budget (a test narrows it to make the bricks stream
// under a budget whose atlases still hold the view).
var kernelShare = 0.4

// uploading reports the field on its way to the device.
func (r *resident) uploading() bool { return r.done != nil }

// land takes the upload over once it has landed (wait: waiting for it): from then on the kernels
// read the field where it is. It returns how long the upload took when it has just landed (0
// otherwise); without one under way it does nothing.
func (r *resident) land(wait bool) (took time.Duration, err error) {
	if r.done == nil {
		return 0, nil
	}
	if wait {
		err = <-r.done
	} else {
		select {
		case err = <-r.done:
		default:
			return 0, nil // still on its way
		}
	}
	r.done = nil
	r.cancel()
	if err != nil {
		r.upload.Release()
		r.upload = nil
		return 0, err
	}
	r.fb, r.upload = r.upload, nil
	return time.Since(r.began), nil
}

// sync brings the landed field up to date with the edits since the last sync (f's height and
// the channels chans bind) and with geo (another gradient step cuts the bricks again). It
// returns the height texels it wrote (empty: nothing).
func (r *resident) sync(f *field.Field, chans []string, geo *landscape.Geometry) (wrote image.Rectangle, err error) {
	if r.fb == nil {
		return image.Rectangle{}, nil
	}
	r.fb.Cut(&geo.Field, geo.Stack.GradientStep)
	rect := r.edited
	// Only the height changed (a sculpt dab): its plane alone, unless a plane derived from it
	// is bound (the flow, which a height edit moves too).
	heightOnly := !r.editedChans && !slices.Contains(chans, field.FlowChannel)
	if _, err := r.fb.UploadPlanes(f, chans, rect, heightOnly); err != nil {
		return image.Rectangle{}, err
	}
	r.edited, r.editedChans = image.Rectangle{}, false
	return rect, nil
}

// release frees the buffers, waiting for an upload still under way (it writes them).
func (r *resident) release() {
	if r.done != nil {
		r.cancel()
		<-r.done
	}
	r.upload.Release()
	r.fb.Release()
	r.sculpt.Release()
	*r = resident{}
}
