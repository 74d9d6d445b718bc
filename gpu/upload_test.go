package gpu

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// An Uploader's pieces land where they belong through a ring smaller than the data (slots reused
// after their maps come back), an unaligned tail is padded with zeros, and what it refuses it
// refuses without writing.
func TestUploaderWritesThroughItsRing(t *testing.T) {
	d := testDevice(t)
	const size = 1<<20 + 4*1000
	b, err := d.NewBuffer("upload target", size+64, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*31 + i>>9)
	}
	u := d.NewUploader("test", 2)
	u.Piece = 64 << 10 // 17 pieces through 2 slots
	u.Workers = 3
	if err := u.Write(b, 0, data); err != nil {
		t.Fatal(err)
	}
	tail := []byte{1, 2, 3, 4, 5, 6, 7} // 7 bytes at the end: the 8th is the padding
	if err := u.Write(b, size+8, tail); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	got, err := d.ReadBuffer(b, 0, size+16)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[:size], data) {
		t.Fatal("the uploaded bytes differ from the data")
	}
	if want := []byte{1, 2, 3, 4, 5, 6, 7, 0}; !bytes.Equal(got[size+8:size+16], want) {
		t.Errorf("tail %v, want %v", got[size+8:size+16], want)
	}
	for _, c := range []struct {
		off  uint64
		data []byte
	}{{2, []byte{1, 2, 3, 4}}, {size + 60, make([]byte, 8)}} {
		if err := u.Write(b, c.off, c.data); err == nil {
			t.Errorf("a write of %d bytes at %d accepted", len(c.data), c.off)
		}
	}
	held, _ := d.Memory()
	u.Release()
	u.Release()
	if h, _ := d.Memory(); held-h != int64(2*u.Piece) {
		t.Errorf("Release freed %d bytes, want the two staging buffers' %d", held-h, 2*u.Piece)
	}
	// NewBufferFrom takes the ring for large data.
	big := make([]byte, 4*uploadStaging+12)
	for i := range big {
		big[i] = byte(i ^ i>>11)
	}
	nb, err := d.NewBufferFrom("upload big", big, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Release()
	got, err = d.ReadBuffer(nb, 0, uint64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, big) {
		t.Fatal("NewBufferFrom of 64 MiB: the buffer differs from the data")
	}
}

// Queued writes share staging buffers (several in one, one split across two) and land where they
// belong once flushed.
func TestUploaderQueuePacks(t *testing.T) {
	d := testDevice(t)
	u := d.NewUploader("test", 2)
	u.Piece = 4 << 10
	defer u.Release()
	var bufs []*Buffer
	var want [][]byte
	for k, n := range []int{100, 1000, 3000, 5, 9000, 12} {
		b, err := d.NewBuffer(fmt.Sprintf("queue target %d", k), uint64(n+8), wgpu.BufferUsageStorage)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + k)
		}
		if err := u.Queue(b, 4, uint64(n), func(m []byte, at uint64) { copy(m, data[at:]) }); err != nil {
			t.Fatal(err)
		}
		bufs, want = append(bufs, b), append(want, data)
	}
	if err := u.Flush(); err != nil {
		t.Fatal(err)
	}
	for k, b := range bufs {
		got, err := d.ReadBuffer(b, 4, align(uint64(len(want[k])), 4))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:len(want[k])], want[k]) || bytes.Count(got[len(want[k]):], []byte{0}) != len(got)-len(want[k]) {
			t.Errorf("write %d of %d bytes: the buffer differs", k, len(want[k]))
		}
	}
}

// BenchmarkUpload: a 256 MiB plane written into a buffer with Queue.WriteBuffer in 4 MiB calls
// (the way NewBufferFrom wrote planes before the Uploader) and through Uploaders of several
// slots and pieces, waited for until the GPU has it. The H200 figures are in
// docs/PERFORMANCE.md ("The editor at production scale").
func BenchmarkUpload(b *testing.B) {
	d := testDevice(b)
	const size = 256 << 20
	dst, err := d.NewBuffer("bench upload", size, wgpu.BufferUsageStorage)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Release()
	data := bytes.Repeat([]byte{1, 2, 3, 4}, size/4)
	b.Run("writebuffer-4MiB", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for o := 0; o < size; o += uploadPiece {
				if err := dst.Write(uint64(o), data[o:o+uploadPiece]); err != nil {
					b.Fatal(err)
				}
			}
			d.Wait()
		}
	})
	for _, c := range []struct {
		slots int
		piece uint64
	}{{2, 16 << 20}, {4, 16 << 20}, {4, 64 << 20}, {8, 8 << 20}, {8, 16 << 20}} {
		b.Run(fmt.Sprintf("uploader-slots%d-%dMiB", c.slots, c.piece>>20), func(b *testing.B) {
			u := d.NewUploader("bench", c.slots)
			u.Piece = c.piece
			defer u.Release()
			b.SetBytes(size)
			for b.Loop() {
				if err := u.Write(dst, 0, data); err != nil {
					b.Fatal(err)
				}
				d.Wait()
			}
		})
	}
}
