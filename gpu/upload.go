package gpu

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// Uploader writes large data into buffers through a ring of staging buffers mapped for writing:
// each piece is copied into a mapped staging buffer on every core, outside any call on the device,
// then one short submission copies it to its place while the next piece fills the next staging
// buffer. Queue.WriteBuffer copies on one core inside the call (the device's lock held: every
// page and frame of the editor waits for it), about 1.3 GB/s for a 16K field's planes on the
// H200; a buffer created mapped spent 0.6 s a plane inside the driver's create call. The reverse
// of Reader.
type Uploader struct {
	d     *Device
	label string
	slots []writeSlot
	next  int
	// Piece is the most one staging buffer holds (a multiple of 4; default uploadStaging).
	Piece uint64
	// Workers is the number of goroutines filling a staging buffer (≤ 0: GOMAXPROCS).
	Workers int
}

// writeSlot is one staging buffer: mapped and ready to fill, or waiting for its map after a copy
// out of it (pending).
type writeSlot struct {
	staging *Buffer
	pending bool
	m       mapPending
	index   wgpu.SubmissionIndex
	mapErr  error
}

// uploadStaging is an Uploader's default piece: large enough that a piece's submission costs
// nothing beside its copy, small enough that four in flight are little memory.
const uploadStaging = 16 << 20

// NewUploader returns an Uploader with slots staging buffers (at least 2), created as writes need
// them.
func (d *Device) NewUploader(label string, slots int) *Uploader {
	return &Uploader{d: d, label: label, slots: make([]writeSlot, max(2, slots)), Piece: uploadStaging}
}

// Write copies data into dst at offset (a multiple of 4); a length that is not a multiple of 4
// is zero-padded, as WebGPU requires. The copies are queued: work submitted after Write sees
// the data, as after Buffer.Write.
func (u *Uploader) Write(dst *Buffer, offset uint64, data []byte) error {
	d := u.d
	switch {
	case d == nil || d.raw == nil:
		return fmt.Errorf("gpu: upload: device is closed")
	case dst == nil || dst.Buf == nil:
		return fmt.Errorf("gpu: upload: nil or released buffer")
	case offset%4 != 0:
		return fmt.Errorf("gpu: upload %s: offset %d not a multiple of 4", dst.Label, offset)
	case offset+align(uint64(len(data)), 4) > dst.Cap:
		return fmt.Errorf("gpu: upload %s: %d bytes at %d overflow %d", dst.Label, len(data), offset, dst.Cap)
	}
	piece := max(4, u.Piece/4*4)
	for o := uint64(0); o < uint64(len(data)); o += piece {
		chunk := data[o:min(o+piece, uint64(len(data)))]
		if err := u.put(dst, offset+o, chunk, piece); err != nil {
			return fmt.Errorf("gpu: upload %s: %w", dst.Label, err)
		}
	}
	return nil
}

// put copies chunk (at most piece bytes) into the next slot's staging buffer and queues its copy
// to dst at offset, then asks for the staging buffer mapped again.
func (u *Uploader) put(dst *Buffer, offset uint64, chunk []byte, piece uint64) error {
	d := u.d
	s := &u.slots[u.next]
	if err := u.ready(s, piece); err != nil {
		return err
	}
	n := align(uint64(len(chunk)), 4)
	raw := rawBuffer(s.staging.Buf)
	p := mappedRangeWrite(raw, 0, s.staging.Cap)
	if p == nil {
		return fmt.Errorf("no mapped range in %s", s.staging.Label)
	}
	m := unsafe.Slice((*byte)(p), n)
	u.fill(m, chunk)
	clear(m[len(chunk):]) // the padding
	unmapBuffer(raw)
	index, err := d.submitIndexed("upload "+dst.Label, func(enc *wgpu.CommandEncoder) error {
		return enc.CopyBufferToBuffer(s.staging.Buf, 0, dst.Buf, offset, n)
	})
	if err != nil {
		// The staging buffer is unmapped and nothing uses it: map it again before it is reused.
		s.pending = false
		u.release(s)
		return err
	}
	mp, mapErr := d.requestMap(s.staging, wgpu.MapModeWrite, s.staging.Cap)
	if mp.c == nil {
		u.release(s)
		return mapErr
	}
	*s = writeSlot{staging: s.staging, pending: true, m: mp, index: index, mapErr: mapErr}
	u.next = (u.next + 1) % len(u.slots)
	return nil
}

// ready makes s's staging buffer mapped for writing: created mapped, or its map after the last
// copy out of it waited for.
func (u *Uploader) ready(s *writeSlot, piece uint64) error {
	d := u.d
	if s.pending {
		_, err := d.awaitMap(s.m, s.index, s.mapErr)
		s.pending = false
		if err != nil {
			u.release(s) // not mapped (or never answered): a later write makes a new one
			return err
		}
		return nil
	}
	if s.staging != nil {
		return nil
	}
	label := fmt.Sprintf("%s staging %d", u.label, u.next)
	var nb *wgpu.Buffer
	err := d.Do("create buffer "+label, func() error {
		var e error
		nb, e = d.Dev.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Usage: wgpu.BufferUsageMapWrite | wgpu.BufferUsageCopySrc,
			Size: piece, MappedAtCreation: true})
		return e
	})
	if err != nil {
		return err
	}
	s.staging = &Buffer{Label: label, Usage: wgpu.BufferUsageMapWrite | wgpu.BufferUsageCopySrc, Size: piece, Cap: piece, Buf: nb, dev: d}
	d.Held(int64(piece))
	return nil
}

// fill copies src into the mapped range m on Workers goroutines, in shares of at least 1 MiB.
func (u *Uploader) fill(m, src []byte) {
	workers := u.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(src)>>20))
	var wg sync.WaitGroup
	for k := range workers {
		a, b := len(src)*k/workers, len(src)*(k+1)/workers
		if k == workers-1 {
			copy(m[a:b], src[a:b])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(m[a:b], src[a:b])
		}()
	}
	wg.Wait()
}

// release frees s's staging buffer (a later write creates it again).
func (u *Uploader) release(s *writeSlot) {
	s.staging.Release()
	*s = writeSlot{}
}

// Release waits for the copies still in flight and frees the staging buffers. Safe on nil and
// twice.
func (u *Uploader) Release() {
	if u == nil {
		return
	}
	for k := range u.slots {
		s := &u.slots[k]
		if s.pending && u.d != nil && u.d.raw != nil {
			if _, err := u.d.awaitMap(s.m, s.index, s.mapErr); err == nil {
				unmapBuffer(rawBuffer(s.staging.Buf))
			}
		}
		u.release(s)
	}
}
