package gpu

import (
	"sync/atomic"
	"time"
)

// Counts is what a device was asked to do since it opened: submissions, host waits (a Wait, a
// buffer or texture read back, a Reader's wait for a copy) and the time spent blocked in them,
// and the bytes written through the queue (Buffer.Write). A benchmark takes two and subtracts
// them to say what one edit cost in round trips, not only in milliseconds (on a fast GPU an
// edit's time is mostly its waits, docs/PERFORMANCE.md "dab16").
//
// Submitting is the time spent inside the queue's submissions (the driver's part of a Submit),
// and Queued the time calls on the device waited for another's turn (every call takes the
// device's scope lock, which a host wait holds: a submission from one goroutine waits for a
// read back on another).
type Counts struct {
	Submits    int64
	Waits      int64
	Waited     time.Duration
	WriteBytes int64
	Submitting time.Duration
	Queued     time.Duration
}

// Sub is c − o, field by field.
func (c Counts) Sub(o Counts) Counts {
	return Counts{Submits: c.Submits - o.Submits, Waits: c.Waits - o.Waits, Waited: c.Waited - o.Waited, WriteBytes: c.WriteBytes - o.WriteBytes,
		Submitting: c.Submitting - o.Submitting, Queued: c.Queued - o.Queued}
}

// Add is c + o, field by field.
func (c Counts) Add(o Counts) Counts {
	return Counts{Submits: c.Submits + o.Submits, Waits: c.Waits + o.Waits, Waited: c.Waited + o.Waited, WriteBytes: c.WriteBytes + o.WriteBytes,
		Submitting: c.Submitting + o.Submitting, Queued: c.Queued + o.Queued}
}

// counters are a Device's Counts, kept with atomics (submissions come from several goroutines).
type counters struct {
	submits, waits, waitedNs, writeBytes, submittingNs, queuedNs atomic.Int64
}

// Counts returns what the device did since it opened (zero on nil).
func (d *Device) Counts() Counts {
	if d == nil {
		return Counts{}
	}
	c := &d.counts
	return Counts{Submits: c.submits.Load(), Waits: c.waits.Load(), Waited: time.Duration(c.waitedNs.Load()), WriteBytes: c.writeBytes.Load(),
		Submitting: time.Duration(c.submittingNs.Load()), Queued: time.Duration(c.queuedNs.Load())}
}

// lockScope takes the device's scope lock, counting the time it waited for it.
func (d *Device) lockScope() {
	if d.scopeMu.TryLock() {
		return
	}
	t0 := time.Now()
	d.scopeMu.Lock()
	d.counts.queuedNs.Add(int64(time.Since(t0)))
}

// waited records one host wait that began at t0.
func (d *Device) waited(t0 time.Time) {
	d.counts.waits.Add(1)
	d.counts.waitedNs.Add(int64(time.Since(t0)))
}
