package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// rowLayout says how mapRead copies out of the mapped staging range: rows of row bytes, srcStride
// apart there and dstStride apart in the destination.
type rowLayout struct{ rows, row, srcStride, dstStride uint64 }

// ReadBuffer copies size bytes at offset of src back to the CPU. It copies into a grow-only
// staging buffer and maps that through the C shim (never Buffer.MapAsync, whose callback handle
// the garbage collector can invalidate). offset and size must be multiples of 4.
func (d *Device) ReadBuffer(src *Buffer, offset, size uint64) ([]byte, error) {
	out := make([]byte, size)
	if err := d.ReadBufferRows(src, offset, 1, size, out, size); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadBufferRows copies rows×row bytes starting at offset of src (rows packed in the buffer) into
// dst, row y at dst[y·stride:]: a band of a grid goes straight into its place in the whole grid,
// without an intermediate copy. offset and row must be multiples of 4.
func (d *Device) ReadBufferRows(src *Buffer, offset, rows, row uint64, dst []byte, stride uint64) error {
	if src == nil || src.Buf == nil {
		return fmt.Errorf("gpu: read buffer: nil or released buffer")
	}
	size := rows * row
	if offset%4 != 0 || row%4 != 0 {
		return fmt.Errorf("gpu: read buffer %s: offset %d and row %d must be multiples of 4", src.Label, offset, row)
	}
	if offset+size > src.Cap {
		return fmt.Errorf("gpu: read buffer %s: %d bytes at %d overflow %d", src.Label, size, offset, src.Cap)
	}
	if size == 0 {
		return nil
	}
	if stride < row || (rows-1)*stride+row > uint64(len(dst)) {
		return fmt.Errorf("gpu: read buffer %s: %d rows of %d bytes, %d apart, do not fit %d bytes", src.Label, rows, row, stride, len(dst))
	}
	d.readMu.Lock()
	defer d.readMu.Unlock()
	staging, err := d.stagingFor(size)
	if err != nil {
		return err
	}
	err = d.Submit("read buffer "+src.Label, func(enc *wgpu.CommandEncoder) error {
		return enc.CopyBufferToBuffer(src.Buf, offset, staging.Buf, 0, size)
	})
	if err != nil {
		return err
	}
	if err := d.mapStaging(staging, size, rowLayout{rows, row, row, stride}, dst); err != nil {
		return fmt.Errorf("gpu: read buffer %s: %w", src.Label, err)
	}
	return nil
}

// ReadTexture copies a whole texture back to the CPU, rows tightly packed (the 256-byte row
// alignment of the copy is stripped), row 0 first.
func (d *Device) ReadTexture(t *Texture) ([]byte, error) {
	if t == nil || t.Tex == nil {
		return nil, fmt.Errorf("gpu: read texture: nil or released texture")
	}
	bpt, err := BytesPerTexel(t.Format)
	if err != nil {
		return nil, err
	}
	row := int(t.Width) * int(bpt)
	out := make([]byte, row*int(t.Height))
	if err := d.ReadTextureInto(t, out, row); err != nil {
		return nil, err
	}
	return out, nil
}

// textureRows checks that texture t fits dst (n bytes, rows stride apart) and returns a row's
// bytes, tight and padded to the copy's 256-byte alignment.
func textureRows(t *Texture, n, stride int) (row, padded uint64, err error) {
	if t == nil || t.Tex == nil {
		return 0, 0, fmt.Errorf("gpu: read texture: nil or released texture")
	}
	bpt, err := BytesPerTexel(t.Format)
	if err != nil {
		return 0, 0, err
	}
	row = uint64(t.Width) * uint64(bpt)
	if stride < int(row) || uint64(t.Height-1)*uint64(stride)+row > uint64(n) {
		return 0, 0, fmt.Errorf("gpu: read texture %s: %dx%d does not fit %d bytes with rows %d apart", t.Label, t.Width, t.Height, n, stride)
	}
	return row, align(row, 256), nil
}

// ReadTextureInto copies a whole texture back into dst: row y goes to dst[y·stride:], tightly
// (the copy's 256-byte row alignment is stripped while copying out of the mapped staging
// buffer). A band-sized texture of a bake lands straight in its place in the whole image.
func (d *Device) ReadTextureInto(t *Texture, dst []byte, stride int) error {
	row, padded, err := textureRows(t, len(dst), stride)
	if err != nil {
		return err
	}
	size := padded * uint64(t.Height)
	d.readMu.Lock()
	defer d.readMu.Unlock()
	staging, err := d.stagingFor(size)
	if err != nil {
		return err
	}
	err = d.Submit("read texture "+t.Label, func(enc *wgpu.CommandEncoder) error {
		return enc.CopyTextureToBuffer(t.Tex.AsImageCopy(),
			&wgpu.ImageCopyBuffer{Buffer: staging.Buf, Layout: wgpu.TextureDataLayout{BytesPerRow: uint32(padded), RowsPerImage: t.Height}},
			&wgpu.Extent3D{Width: t.Width, Height: t.Height, DepthOrArrayLayers: 1})
	})
	if err != nil {
		return err
	}
	if err := d.mapStaging(staging, size, rowLayout{uint64(t.Height), row, padded, uint64(stride)}, dst); err != nil {
		return fmt.Errorf("gpu: read texture %s: %w", t.Label, err)
	}
	return nil
}

// stagingFor returns the device's MapRead staging buffer, grown to hold size bytes. readMu held.
func (d *Device) stagingFor(size uint64) (*Buffer, error) {
	if d.staging == nil {
		b, err := d.NewBuffer("strata readback staging", size, wgpu.BufferUsageMapRead)
		if err != nil {
			return nil, err
		}
		d.staging = b
		return b, nil
	}
	if _, err := d.staging.Ensure(size); err != nil {
		return nil, err
	}
	return d.staging, nil
}

// mapStaging maps the first size bytes of staging and copies them out into dst as l says,
// through the shim. readMu held.
func (d *Device) mapStaging(staging *Buffer, size uint64, l rowLayout, dst []byte) error {
	d.lockScope()
	defer d.scopeMu.Unlock()
	scope, err := newErrSink()
	if err != nil {
		return err
	}
	defer scope.free()
	defer d.waited(time.Now())
	err = mapRead(d.raw, rawBuffer(staging.Buf), 0, size, l, dst, scope)
	if typ, msg, n := scope.take(); n > 0 {
		werr := &wgpu.Error{Type: typ, Message: msg}
		if err == nil {
			return werr
		}
		return fmt.Errorf("%w; %w", err, werr)
	}
	return err
}

// Reader reads textures and buffer rows back into host memory with several copies in flight, so
// a bake's bands are read back while the GPU evaluates the next ones. Each request is copied into
// a MapRead staging buffer of its own (a ring of Slots, each grown to its largest request) in one
// submission, and its map is requested at once. Its bytes land — copied straight into their place
// at the caller's row stride, the rows shared among Workers goroutines — in the background, beside
// the caller's next requests: every request first polls the device without waiting and starts
// copying out each staging buffer whose map has completed, and the caller waits only when it
// needs a staging buffer back whose bytes have not landed yet, or at Flush. Maps go through the C
// shim (never Buffer.MapAsync, SPEC pitfall) and a wait polls for the one submission that fills
// the buffer, not for all work.
//
// Requests land in the order they were made. The destination of a request must not be read, and
// its source may be overwritten by later GPU work (queue order keeps the copy first), until Flush
// returns. A Reader is used from one goroutine; Release it (it waits for what is in flight).
type Reader struct {
	d     *Device
	label string
	slots []readSlot
	next  int // the slot the next request takes: after a wrap, the oldest in flight
	// Workers is the number of goroutines copying a landed request out of its staging buffer
	// (≤ 0: GOMAXPROCS): the destination is fresh memory, whose page faults one core alone cannot
	// keep up with.
	Workers int
	stats   ReadStats
	first   time.Time
}

// ReadStats is what a Reader did: bytes landed, how long the caller was blocked, and how long the
// copying out of staging buffers took (in the background, beside the caller).
type ReadStats struct {
	Bytes    int64
	Requests int
	Waited   time.Duration // the caller blocked: for a copy (and the GPU work queued before it) or for its bytes to land
	Copied   time.Duration // copying landed rows out of mapped staging buffers (background goroutines)
	Span     time.Duration // from the first request to the last byte landed
}

// readSlot is one staging buffer and the request in flight in it.
type readSlot struct {
	staging *Buffer
	pending bool
	m       mapPending
	index   wgpu.SubmissionIndex
	size    uint64
	l       rowLayout
	dst     []byte
	what    string
	mapErr  error // recorded while requesting the map
	// copying is the background copy out of the staging buffer (which unmaps it when done) once
	// the map has completed; nil when none is running or uncollected.
	copying chan landedCopy
}

// landedCopy is what a background copy out of a staging buffer reports.
type landedCopy struct {
	err    error
	copied time.Duration
	bytes  int64
	end    time.Time
}

// NewReader returns a Reader with slots staging buffers (at least 1), created as requests need
// them.
func (d *Device) NewReader(label string, slots int) *Reader {
	return &Reader{d: d, label: label, slots: make([]readSlot, max(1, slots))}
}

// Stats returns what the Reader did so far.
func (r *Reader) Stats() ReadStats { return r.stats }

// TextureInto requests the whole texture t, row y into dst[y·stride:] (tightly: the copy's
// 256-byte row alignment is stripped as the rows land).
func (r *Reader) TextureInto(t *Texture, dst []byte, stride int) error {
	row, padded, err := textureRows(t, len(dst), stride)
	if err != nil {
		return err
	}
	return r.request("texture "+t.Label, padded*uint64(t.Height), rowLayout{uint64(t.Height), row, padded, uint64(stride)}, dst,
		func(enc *wgpu.CommandEncoder, staging *Buffer) error {
			return enc.CopyTextureToBuffer(t.Tex.AsImageCopy(),
				&wgpu.ImageCopyBuffer{Buffer: staging.Buf, Layout: wgpu.TextureDataLayout{BytesPerRow: uint32(padded), RowsPerImage: t.Height}},
				&wgpu.Extent3D{Width: t.Width, Height: t.Height, DepthOrArrayLayers: 1})
		})
}

// BufferRowsInto requests rows×row bytes at offset of src (rows packed there), row y into
// dst[y·stride:]. offset and row must be multiples of 4.
func (r *Reader) BufferRowsInto(src *Buffer, offset, rows, row uint64, dst []byte, stride uint64) error {
	if src == nil || src.Buf == nil {
		return fmt.Errorf("gpu: read buffer: nil or released buffer")
	}
	size := rows * row
	switch {
	case offset%4 != 0 || row%4 != 0:
		return fmt.Errorf("gpu: read buffer %s: offset %d and row %d must be multiples of 4", src.Label, offset, row)
	case offset+size > src.Cap:
		return fmt.Errorf("gpu: read buffer %s: %d bytes at %d overflow %d", src.Label, size, offset, src.Cap)
	case size == 0:
		return nil
	case stride < row || (rows-1)*stride+row > uint64(len(dst)):
		return fmt.Errorf("gpu: read buffer %s: %d rows of %d bytes, %d apart, do not fit %d bytes", src.Label, rows, row, stride, len(dst))
	}
	return r.request("buffer "+src.Label, size, rowLayout{rows, row, row, stride}, dst,
		func(enc *wgpu.CommandEncoder, staging *Buffer) error {
			return enc.CopyBufferToBuffer(src.Buf, offset, staging.Buf, 0, size)
		})
}

// DensityInto requests the scatter kernel's density grid (as ReadDensityInto), row y into
// dst[y·stride:].
func (r *Reader) DensityInto(k *ScatterKernel, dst []float32, stride int) error {
	if k == nil || k.grid == nil {
		return fmt.Errorf("gpu: scatter read density: nil or released kernel")
	}
	if len(dst) == 0 {
		return fmt.Errorf("gpu: scatter read density: no destination")
	}
	if !littleEndian { // the buffer holds little-endian f32: convert in ReadDensityInto
		if err := r.Flush(); err != nil {
			return err
		}
		return k.ReadDensityInto(dst, stride)
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst))
	return r.BufferRowsInto(k.grid, densityHeaderBytes, uint64(k.gridH), 4*uint64(k.gridW), b, 4*uint64(stride))
}

// request takes the next slot (landing what was in flight there), records the copy into its
// staging buffer in one submission and requests its map.
func (r *Reader) request(what string, size uint64, l rowLayout, dst []byte, record func(*wgpu.CommandEncoder, *Buffer) error) error {
	d := r.d
	if d == nil || d.raw == nil {
		return fmt.Errorf("gpu: read %s: device is closed", what)
	}
	if r.first.IsZero() {
		r.first = time.Now()
	}
	r.startReady()
	s := &r.slots[r.next]
	if err := r.land(s); err != nil {
		return err
	}
	if s.staging == nil {
		b, err := d.NewBuffer(fmt.Sprintf("%s staging %d", r.label, r.next), size, wgpu.BufferUsageMapRead)
		if err != nil {
			return err
		}
		s.staging = b
	} else if _, err := s.staging.Ensure(size); err != nil {
		return err
	}
	index, err := d.submitIndexed("read back "+what, func(enc *wgpu.CommandEncoder) error {
		return record(enc, s.staging)
	})
	if err != nil {
		return err
	}
	m, mapErr := d.requestMap(s.staging, wgpu.MapModeRead, size)
	if m.c == nil {
		return fmt.Errorf("gpu: read %s: %w", what, mapErr)
	}
	*s = readSlot{staging: s.staging, pending: true, m: m, index: index, size: size, l: l, dst: dst, what: what, mapErr: mapErr}
	r.next = (r.next + 1) % len(r.slots)
	r.stats.Requests++
	return nil
}

// requestMap requests a map (mode: read or write) of the first size bytes of staging inside error
// scopes (one scope user at a time, as Do). A returned record with a nil c failed outright; one
// with an error was requested but the request was refused (its callback still fires).
func (d *Device) requestMap(staging *Buffer, mode wgpu.MapMode, size uint64) (mapPending, error) {
	d.lockScope()
	defer d.scopeMu.Unlock()
	scope, err := newErrSink()
	if err != nil {
		return mapPending{}, err
	}
	defer scope.free()
	m, err := beginMap(d.raw, rawBuffer(staging.Buf), mode, 0, size, scope)
	if typ, msg, n := scope.take(); n > 0 && err == nil {
		err = &wgpu.Error{Type: typ, Message: msg}
	}
	return m, err
}

// awaitMap polls the device until the map m has completed (its callback fired), waiting on the
// submission index that uses the buffer, and ends it; mapErr is what requestMap said. leaked
// reports a map that never completed: its record is left, since its callback may still arrive.
func (d *Device) awaitMap(m mapPending, index wgpu.SubmissionIndex, mapErr error) (leaked bool, err error) {
	idx := &wgpu.WrappedSubmissionIndex{Queue: d.Queue, SubmissionIndex: index}
	for tries := 0; !m.done(); tries++ {
		if tries == 10000 {
			return true, fmt.Errorf("the map never completed")
		}
		d.Dev.Poll(true, idx)
	}
	err = m.end()
	if mapErr != nil {
		err = errors.Join(mapErr, err)
	}
	return false, err
}

// wait polls the device until s's map has completed (its callback fired), waiting on the
// submission that fills its staging buffer.
func (r *Reader) wait(s *readSlot) error {
	t0 := time.Now()
	defer func() { r.stats.Waited += time.Since(t0); r.d.waited(t0) }()
	_, err := r.d.awaitMap(s.m, s.index, s.mapErr)
	s.pending = false
	if err != nil {
		return fmt.Errorf("gpu: read %s: %w", s.what, err)
	}
	return nil
}

// startReady polls the device without waiting and starts the background copy of every request
// whose map has completed, oldest first.
func (r *Reader) startReady() {
	inFlight := false
	for k := range r.slots {
		inFlight = inFlight || r.slots[k].pending
	}
	if !inFlight || r.d == nil || r.d.raw == nil {
		return
	}
	r.d.Dev.Poll(false, nil)
	for k := range r.slots {
		s := &r.slots[(r.next+k)%len(r.slots)]
		if !s.pending || !s.m.done() {
			continue
		}
		s.pending = false
		err := s.m.end()
		if s.mapErr != nil {
			err = errors.Join(s.mapErr, err)
		}
		if err != nil {
			s.copying = make(chan landedCopy, 1)
			s.copying <- landedCopy{err: fmt.Errorf("gpu: read %s: %w", s.what, err)}
			continue
		}
		r.startCopy(s)
	}
}

// startCopy copies s's rows out of its mapped staging buffer on Workers goroutines in the
// background and unmaps it; land collects the result.
func (r *Reader) startCopy(s *readSlot) {
	ch := make(chan landedCopy, 1)
	s.copying = ch
	buf, size, l, dst, what := rawBuffer(s.staging.Buf), s.size, s.l, s.dst, s.what
	workers := r.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	go func() {
		src := mappedRange(buf, 0, size)
		if src == nil {
			unmapBuffer(buf)
			ch <- landedCopy{err: fmt.Errorf("gpu: read %s: no mapped range", what)}
			return
		}
		t0 := time.Now()
		copyRowsOn(workers, src, dst, l)
		end := time.Now()
		unmapBuffer(buf) // before the result: whoever collects it may submit a copy into buf
		ch <- landedCopy{copied: end.Sub(t0), bytes: int64(l.rows * l.row), end: end}
	}()
}

// copyRowsOn copies l's rows from src into dst on up to workers goroutines, in shares of at least
// 1 MiB (below that a goroutine costs more than the copy): the destination is fresh memory, whose
// page faults one core alone cannot keep up with.
func copyRowsOn(workers int, src unsafe.Pointer, dst []byte, l rowLayout) {
	workers = int(min(uint64(workers), max(1, l.rows*l.row>>20), l.rows))
	var wg sync.WaitGroup
	for k := range workers {
		y0, y1 := l.rows*uint64(k)/uint64(workers), l.rows*uint64(k+1)/uint64(workers)
		part := rowLayout{y1 - y0, l.row, l.srcStride, l.dstStride}
		from := unsafe.Add(src, y0*l.srcStride)
		to := dst[y0*l.dstStride:]
		if k == workers-1 {
			copyRows(from, to, part)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			copyRows(from, to, part)
		}()
	}
	wg.Wait()
}

// land makes sure the request in flight in s, if any, has landed: it waits for its map, starts its
// copy if that has not started, and waits for the copy (the staging buffer unmapped).
func (r *Reader) land(s *readSlot) error {
	if s.pending {
		if err := r.wait(s); err != nil {
			return err
		}
		r.startCopy(s)
	}
	return r.collect(s, true)
}

// collect waits for s's background copy, if any; count adds what it landed to the stats.
func (r *Reader) collect(s *readSlot, count bool) error {
	if s.copying == nil {
		return nil
	}
	t0 := time.Now()
	res := <-s.copying
	r.stats.Waited += time.Since(t0)
	s.copying, s.dst = nil, nil
	if res.err != nil || !count {
		return res.err
	}
	r.stats.Copied += res.copied
	r.stats.Bytes += res.bytes
	r.stats.Span = max(r.stats.Span, res.end.Sub(r.first))
	return nil
}

// Flush lands every request in flight, oldest first. On an error the remaining requests are
// still waited for (their staging buffers unmapped), and the first error is returned.
func (r *Reader) Flush() error {
	var first error
	for k := range r.slots {
		s := &r.slots[(r.next+k)%len(r.slots)]
		if first != nil {
			r.drop(s)
			continue
		}
		first = r.land(s)
	}
	return first
}

// drop waits for s's request without copying it out (a copy already running finishes, uncounted).
func (r *Reader) drop(s *readSlot) {
	if s.pending && r.wait(s) == nil {
		unmapBuffer(rawBuffer(s.staging.Buf))
	}
	r.collect(s, false)
	s.dst = nil
}

// Release waits for what is still in flight (dropping it) and frees the staging buffers. Safe on
// nil and twice.
func (r *Reader) Release() {
	if r == nil {
		return
	}
	for k := range r.slots {
		s := &r.slots[k]
		if r.d != nil && r.d.raw != nil {
			r.drop(s)
		}
		r.collect(s, false) // a copy still running reads the staging buffer
		s.staging.Release()
		s.staging = nil
	}
}
