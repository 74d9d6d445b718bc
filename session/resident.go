package session

import (
	"image"
	"time"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
)

// resident is the landscape's field kept on the GPU for the kernels (GPU mode, when one binding
// holds a plane and the planes fit the kernels' share of the budget): uploaded whole in the
// background after an open, then kept in step with the edits, a rectangle of rows at a time.
// Until it has landed, the pages come from the Go reference and the full-resolution tiles wait.
// The worker owns it (and whoever holds passMu with the worker idle).
type resident struct {
	// fb is the field on the device once landed (nil: none, or still on its way).
	fb *gpu.FieldBuffers
	// edited is the height texels edited since fb was last brought up to date.
	edited image.Rectangle
	// upload is the field on its way to the device, done hears its end, began is when it began.
	upload *gpu.FieldBuffers
	done   chan error
	began  time.Time
}

// start begins uploading l's field to the device — when one binding holds a plane and the planes
// fit the kernels' share of the budget (the atlases take the rest: viewport.SetMemoryBudget);
// otherwise nothing is resident and each page and tile uploads its block.
func (r *resident) start(s *Session, l *landscape.Landscape) {
	if l.Stack == nil || !s.dev.FieldFits(l.Field.Height.W, l.Field.Height.H) ||
		residentBytes(l) > s.opts.GPUBudget*2/5 {
		return
	}
	fb := s.dev.NewFieldBuffers()
	done := make(chan error, 1)
	chans := l.Stack.Channels()
	go func() {
		// The worker writes the field under the write side of fmu (a stroke): it waits for the
		// copy; the edits it makes are brought up by the next sync (edited).
		s.fmu.RLock()
		_, err := fb.Upload(l.Field, chans, image.Rectangle{})
		s.fmu.RUnlock()
		done <- err
	}()
	r.upload, r.done, r.began = fb, done, time.Now()
}

// residentBytes is what the field's planes take resident on the device: the height and every
// channel (a stack binds at most four).
func residentBytes(l *landscape.Landscape) int64 {
	f := l.Field
	return 4 * int64(f.Height.W) * int64(f.Height.H) * int64(1+min(len(f.Channels), 4))
}

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
	if err != nil {
		r.upload.Release()
		r.upload = nil
		return 0, err
	}
	r.fb, r.upload = r.upload, nil
	return time.Since(r.began), nil
}

// sync brings the landed field up to date with the edits since the last sync (f's height and
// the channels chans bind). It reports whether it wrote anything.
func (r *resident) sync(f *field.Field, chans []string) (wrote bool, err error) {
	if r.fb == nil {
		return false, nil
	}
	rect := r.edited
	if _, err := r.fb.Upload(f, chans, rect); err != nil {
		return false, err
	}
	r.edited = image.Rectangle{}
	return !rect.Empty(), nil
}

// release frees the buffers, waiting for an upload still under way (it writes them).
func (r *resident) release() {
	if r.done != nil {
		<-r.done
	}
	r.upload.Release()
	r.fb.Release()
	*r = resident{}
}
