package gpu

import "sync/atomic"

// memory counts the bytes of the buffers and textures the device's wrappers hold (Buffer, Texture,
// and whatever a package that creates its own reports through Held), so a caller can say what a
// workload keeps on the device without a driver query: `strata bench live` and `bench open`
// report it, and the editor's budget is checked against it.
type memory struct {
	now, peak atomic.Int64
}

// Held adds n bytes (negative: freed) to what the device's objects hold.
func (d *Device) Held(n int64) {
	if d == nil || n == 0 {
		return
	}
	v := d.mem.now.Add(n)
	for {
		p := d.mem.peak.Load()
		if v <= p || d.mem.peak.CompareAndSwap(p, v) {
			return
		}
	}
}

// Memory is the bytes the device's buffers and textures hold now, and the most they have held
// since the device opened (or ResetPeak).
func (d *Device) Memory() (now, peak int64) {
	if d == nil {
		return 0, 0
	}
	return d.mem.now.Load(), d.mem.peak.Load()
}

// ResetPeak starts the high-water mark again from what is held now.
func (d *Device) ResetPeak() {
	if d != nil {
		d.mem.peak.Store(d.mem.now.Load())
	}
}
