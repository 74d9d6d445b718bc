package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// A re-placement that does not wait for its count (PlaceJob.CountLate): the pool's count stays on
// the device (each pool has its own counter, cleared inside the submission that fills the pool;
// the keep pass reads the previous pool's there, and the viewport copies it into its indirect
// draw's arguments), and the host learns it a run late — the placement's submission also copies
// the counter into a small staging buffer whose map is requested at once and landed at the next
// run, when the copy has long been done. The pool cannot overflow: a run keeps at most the
// previous pool's instances and accepts at most the sites of the tiles it places, so a capacity of
// the previous count's bound plus those sites holds every instance (lateRun.sites).

// lateRun is one run whose count the host has not read yet: its staging buffer's map, and the
// sites it could add (its bound over the previous run's count).
type lateRun struct {
	staging *Buffer
	m       mapPending
	index   wgpu.SubmissionIndex
	mapErr  error
	sites   int
}

// lateCounts is the runs in flight, oldest first, and the staging buffers free for the next.
type lateCounts struct {
	runs []lateRun
	free []*Buffer
	// known is the count of the newest run the host has read (exact when runs is empty).
	known int
	// landed counts the late counts read back (tests).
	landed int
}

// bound is the most instances the newest run can have left in its pool: the newest count read
// plus every later run's sites.
func (l *lateCounts) bound() int {
	b := l.known
	for _, r := range l.runs {
		b += r.sites
	}
	return b
}

// staging is a 4-byte MapRead buffer for the next run's count (not inside Device.Do: it may make
// one).
func (l *lateCounts) staging(d *Device) (*Buffer, error) {
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free = l.free[:n-1]
		return b, nil
	}
	return d.NewBuffer("scatter late count staging", 4, wgpu.BufferUsageMapRead)
}

// requested adds the run whose submission (index) copied its count into b.
func (l *lateCounts) requested(d *Device, b *Buffer, index wgpu.SubmissionIndex, sites int) error {
	m, mapErr := d.requestMap(b, wgpu.MapModeRead, 4)
	if m.c == nil {
		b.Release()
		return fmt.Errorf("gpu: scatter late count: %w", mapErr)
	}
	l.runs = append(l.runs, lateRun{staging: b, m: m, index: index, mapErr: mapErr, sites: sites})
	return nil
}

// land reads the counts of the runs whose maps have completed, oldest first (wait: every run's,
// polling for those not done), and reports whether the newest run's count is known.
func (l *lateCounts) land(d *Device, wait bool) (bool, error) {
	if len(l.runs) > 0 && !wait && !l.runs[0].m.done() {
		d.Dev.Poll(false, nil) // fires the callbacks of what has completed
	}
	var first error
	for len(l.runs) > 0 {
		r := &l.runs[0]
		if !wait && !r.m.done() {
			break
		}
		leaked, err := d.awaitMap(r.m, r.index, r.mapErr)
		if leaked {
			// Its callback may still come: the record and the buffer stay with the C side.
			l.runs = l.runs[1:]
			first = errors.Join(first, fmt.Errorf("gpu: scatter late count: %w", err))
			continue
		}
		if err == nil {
			buf := rawBuffer(r.staging.Buf)
			if p := mappedRange(buf, 0, 4); p != nil {
				var b [4]byte
				copyRows(p, b[:], rowLayout{1, 4, 4, 4})
				l.known = int(binary.LittleEndian.Uint32(b[:]))
				l.landed++
			} else {
				err = fmt.Errorf("no mapped range")
			}
			unmapBuffer(buf)
		}
		l.free = append(l.free, r.staging)
		l.runs = l.runs[1:]
		if err != nil {
			first = errors.Join(first, fmt.Errorf("gpu: scatter late count: %w", err))
		}
	}
	return len(l.runs) == 0, first
}

// reset forgets the runs in flight after waiting for them (a run that read its count at once
// follows: the host knows it exactly).
func (l *lateCounts) reset(d *Device, known int) error {
	_, err := l.land(d, true)
	l.known = known
	return err
}

// release waits for the maps in flight and frees the staging buffers.
func (l *lateCounts) release(d *Device) {
	if d != nil && d.raw != nil {
		l.land(d, true) // releasing: an error has no one to go to
	}
	for _, b := range l.free {
		b.Release()
	}
	l.free, l.runs = nil, nil
}
