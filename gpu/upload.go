package gpu

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// Uploader writes large data into buffers through a ring of staging buffers mapped for writing:
// the data is copied into a mapped staging buffer on every core, outside any call on the device,
// and once a staging buffer is full (or at Flush) one short submission copies what it holds to
// where each piece belongs, while the next staging buffer fills. Several small writes (a brick's
// planes, a few MiB each) share a staging buffer and its submission. Queue.WriteBuffer copies on
// one core inside the call (the device's lock held: every page and frame of the editor waits for
// it), about 1.3 GB/s for a 16K field's planes on the H200; a buffer created mapped spent 0.6 s a
// plane inside the driver's create call. The reverse of Reader.
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

// writeSlot is one staging buffer: mapped and filling (mem, used bytes, the copies out of it
// still to submit), or waiting for its map after its copies were submitted (pending).
type writeSlot struct {
	staging *Buffer
	mem     []byte
	used    uint64
	copies  []stagedCopy
	pending bool
	m       mapPending
	index   wgpu.SubmissionIndex
	mapErr  error
}

// stagedCopy is n bytes at src in a staging buffer bound for dst at off.
type stagedCopy struct {
	dst      *Buffer
	src, off uint64
	n        uint64
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
// is zero-padded, as WebGPU requires. The copies are submitted before it returns: work submitted
// after Write sees the data, as after Buffer.Write.
func (u *Uploader) Write(dst *Buffer, offset uint64, data []byte) error {
	if err := u.Queue(dst, offset, uint64(len(data)), func(m []byte, at uint64) { copy(m, data[at:]) }); err != nil {
		return err
	}
	return u.Flush()
}

// Queue copies n bytes into dst at offset (a multiple of 4; zero-padded to a multiple of 4),
// fill(m, at) writing bytes [at, at+len(m)) of them into m (called on several goroutines at once
// for disjoint parts). The copies are submitted when a staging buffer is full or at Flush: work
// submitted after Flush sees them.
func (u *Uploader) Queue(dst *Buffer, offset, n uint64, fill func(m []byte, at uint64)) error {
	d := u.d
	switch {
	case d == nil || d.raw == nil:
		return fmt.Errorf("gpu: upload: device is closed")
	case dst == nil || dst.Buf == nil:
		return fmt.Errorf("gpu: upload: nil or released buffer")
	case offset%4 != 0:
		return fmt.Errorf("gpu: upload %s: offset %d not a multiple of 4", dst.Label, offset)
	case offset+align(n, 4) > dst.Cap:
		return fmt.Errorf("gpu: upload %s: %d bytes at %d overflow %d", dst.Label, n, offset, dst.Cap)
	}
	piece := max(4, u.Piece/4*4)
	for at := uint64(0); at < n; {
		s := &u.slots[u.next]
		if err := u.ready(s, piece); err != nil {
			return fmt.Errorf("gpu: upload %s: %w", dst.Label, err)
		}
		k := min(n-at, piece-s.used)
		m := s.mem[s.used : s.used+align(k, 4)]
		u.fill(m[:k], at, fill)
		clear(m[k:]) // the padding
		s.copies = append(s.copies, stagedCopy{dst: dst, src: s.used, off: offset + at, n: uint64(len(m))})
		s.used += uint64(len(m))
		at += k
		if s.used == piece {
			if err := u.submit(s); err != nil {
				return fmt.Errorf("gpu: upload %s: %w", dst.Label, err)
			}
		}
	}
	return nil
}

// Flush submits the copies queued in the staging buffer that is filling.
func (u *Uploader) Flush() error {
	if u == nil {
		return nil
	}
	if s := &u.slots[u.next]; s.used > 0 {
		if err := u.submit(s); err != nil {
			return fmt.Errorf("gpu: upload: %w", err)
		}
	}
	return nil
}

// submit unmaps s, queues its copies in one submission and asks for it mapped again; the next
// slot fills meanwhile.
func (u *Uploader) submit(s *writeSlot) error {
	d := u.d
	copies := s.copies
	s.mem = nil
	unmapBuffer(rawBuffer(s.staging.Buf))
	index, err := d.submitIndexed("upload "+u.label, func(enc *wgpu.CommandEncoder) error {
		for _, c := range copies {
			if c.dst.Buf == nil {
				return fmt.Errorf("%s released before its upload", c.dst.Label)
			}
			if err := enc.CopyBufferToBuffer(s.staging.Buf, c.src, c.dst.Buf, c.off, c.n); err != nil {
				return err
			}
		}
		return nil
	})
	u.next = (u.next + 1) % len(u.slots)
	if err != nil {
		// The staging buffer is unmapped and nothing uses it: a later write makes a new one.
		u.release(s)
		return err
	}
	mp, mapErr := d.requestMap(s.staging, wgpu.MapModeWrite, s.staging.Cap)
	if mp.c == nil {
		u.release(s)
		return mapErr
	}
	*s = writeSlot{staging: s.staging, copies: copies[:0], pending: true, m: mp, index: index, mapErr: mapErr}
	return nil
}

// ready makes s's staging buffer mapped for writing: created mapped, or its map after the last
// copy out of it waited for.
func (u *Uploader) ready(s *writeSlot, piece uint64) error {
	d := u.d
	if s.mem != nil {
		return nil
	}
	if s.pending {
		_, err := d.awaitMap(s.m, s.index, s.mapErr)
		s.pending = false
		if err != nil {
			u.release(s) // not mapped (or never answered): a later write makes a new one
			return err
		}
	}
	if s.staging == nil {
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
	}
	p := mappedRangeWrite(rawBuffer(s.staging.Buf), 0, s.staging.Cap)
	if p == nil {
		u.release(s)
		return fmt.Errorf("no mapped range in %s staging", u.label)
	}
	s.mem = unsafe.Slice((*byte)(p), s.staging.Cap)
	s.used = 0
	return nil
}

// fill has fill write bytes [at, at+len(m)) into m on Workers goroutines, in shares of at least
// 1 MiB.
func (u *Uploader) fill(m []byte, at uint64, fill func(m []byte, at uint64)) {
	workers := u.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(m)>>20))
	var wg sync.WaitGroup
	for k := range workers {
		a, b := len(m)*k/workers, len(m)*(k+1)/workers
		if k == workers-1 {
			fill(m[a:b], at+uint64(a))
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fill(m[a:b], at+uint64(a))
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
		if s.mem != nil && u.d != nil && u.d.raw != nil {
			unmapBuffer(rawBuffer(s.staging.Buf)) // filling: what it holds was never submitted
		}
		if s.pending && u.d != nil && u.d.raw != nil {
			if _, err := u.d.awaitMap(s.m, s.index, s.mapErr); err == nil {
				unmapBuffer(rawBuffer(s.staging.Buf))
			}
		}
		u.release(s)
	}
}
