package gpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

func TestReadBufferRoundTrip(t *testing.T) {
	d := testDevice(t)
	b, err := d.NewBuffer("roundtrip", 1024, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	data := make([]byte, 1024)
	for i := range data {
		data[i] = byte(i*7 + 3)
	}
	if _, err := b.Upload(data); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadBuffer(b, 0, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatal("read back differs from what was written")
	}
	part, err := d.ReadBuffer(b, 100, 40)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(part, data[100:140]) {
		t.Fatal("partial read differs")
	}
	if _, err := d.ReadBuffer(b, 2, 4); err == nil {
		t.Error("unaligned offset accepted")
	}
	if _, err := d.ReadBuffer(b, 1020, 8); err == nil {
		t.Error("read past the end accepted")
	}
}

func TestBufferGrowsOnlyWhenNeeded(t *testing.T) {
	d := testDevice(t)
	b, err := d.NewBuffer("grow", 64, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	first := b.Buf
	if re, err := b.Upload(make([]byte, 32)); err != nil || re || b.Buf != first {
		t.Fatalf("smaller upload recreated=%v err=%v", re, err)
	}
	if re, err := b.Upload(make([]byte, 65)); err != nil || !re || b.Cap != 68 {
		t.Fatalf("larger upload recreated=%v cap=%d err=%v", re, b.Cap, err)
	}
}

func TestReadTextureStripsRowPadding(t *testing.T) {
	d := testDevice(t)
	for _, c := range []struct {
		name   string
		w, h   uint32
		format wgpu.TextureFormat
		bpt    int
	}{
		{"rgba8 odd width", 37, 5, wgpu.TextureFormatRGBA8Unorm, 4},
		{"r32float", 70, 3, wgpu.TextureFormatR32Float, 4},
		{"rgba32float", 17, 4, wgpu.TextureFormatRGBA32Float, 16},
		{"rgba8 aligned", 64, 2, wgpu.TextureFormatRGBA8Unorm, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			tex, err := d.NewTexture(c.name, c.w, c.h, c.format, wgpu.TextureUsageStorageBinding|wgpu.TextureUsageTextureBinding)
			if err != nil {
				t.Fatal(err)
			}
			defer tex.Release()
			data := make([]byte, int(c.w*c.h)*c.bpt)
			for i := range data {
				data[i] = byte(i*13 + 1)
			}
			if c.format != wgpu.TextureFormatRGBA8Unorm {
				// keep float formats free of NaN patterns so bits survive unchanged
				for i := 0; i < len(data); i += 4 {
					binary.LittleEndian.PutUint32(data[i:], math.Float32bits(float32(i)*0.25))
				}
			}
			if err := tex.Write(data); err != nil {
				t.Fatal(err)
			}
			got, err := d.ReadTexture(tex)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("texture read back differs (len %d vs %d)", len(got), len(data))
			}
		})
	}
}

// TestReadbackUnderGC is the guard for the SPEC pitfall: thousands of readbacks while another
// goroutine allocates and forces collections. Buffer.MapAsync dies here within seconds
// ("misuse of an invalid Handle"); the C shim must not.
func TestReadbackUnderGC(t *testing.T) {
	d := testDevice(t)
	const n = 3000
	b, err := d.NewBuffer("stress", 4096, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	tex, err := d.NewTexture("stress frame", 640, 360, wgpu.TextureFormatRGBA8Unorm, wgpu.TextureUsageTextureBinding)
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Release()
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var keep [][]byte
		for i := 0; !stop.Load(); i++ {
			keep = append(keep, make([]byte, 1<<(10+i%8)))
			if len(keep) > 64 {
				keep = keep[:0]
			}
			if i%50 == 0 {
				runtime.GC()
			}
		}
	}()
	start := time.Now()
	data := make([]byte, 4096)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(data, uint32(i))
		if err := b.Write(0, data[:16]); err != nil {
			t.Fatal(err)
		}
		got, err := d.ReadBuffer(b, 0, 16)
		if err != nil {
			t.Fatalf("readback %d: %v", i, err)
		}
		if v := binary.LittleEndian.Uint32(got); v != uint32(i) {
			t.Fatalf("readback %d: got %d", i, v)
		}
		if i%10 == 0 {
			if _, err := d.ReadTexture(tex); err != nil {
				t.Fatalf("frame readback %d: %v", i, err)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	el := time.Since(start)
	t.Logf("%d buffer readbacks + %d 640x360 frame readbacks under GC in %v (%.2f ms each)", n, n/10, el, float64(el.Microseconds())/1000/n)
	if el > 60*time.Second {
		t.Errorf("stress took %v, want < 60 s", el)
	}
}

// TestReaderLandsInOrder: a Reader with fewer staging buffers than requests lands every request
// at its place and stride — textures with their row padding stripped, buffer rows, rows shared
// among several copying goroutines — with the bytes the source held when it was requested, though
// later GPU work overwrites the source before Flush; the bytes between rows stay untouched.
func TestReaderLandsInOrder(t *testing.T) {
	d := testDevice(t)
	const w, h = 37, 9 // 148-byte rows: padded to 256 in the copy
	tex, err := d.NewTexture("reader tex", w, h, wgpu.TextureFormatRGBA8Unorm, wgpu.TextureUsageTextureBinding)
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Release()
	const rows, row = 3 << 10, 1 << 10 // 3 MiB: three copying goroutines
	src, err := d.NewBuffer("reader src", rows*row, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	other, err := d.NewBuffer("reader other", rows*row, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	if _, err := other.Upload(bytes.Repeat([]byte{0xee}, rows*row)); err != nil {
		t.Fatal(err)
	}

	r := d.NewReader("test reader", 2)
	r.Workers = 3
	defer r.Release()
	const n = 5
	texStride, bufStride := 4*w+12, row+8
	texDst := make([][]byte, n)
	bufDst := make([][]byte, n)
	texWant := make([][]byte, n)
	bufWant := make([][]byte, n)
	for k := range n {
		texWant[k] = make([]byte, 4*w*h)
		for i := range texWant[k] {
			texWant[k][i] = byte(i*7 + k*31 + 1)
		}
		if err := tex.Write(texWant[k]); err != nil {
			t.Fatal(err)
		}
		bufWant[k] = make([]byte, rows*row)
		for i := range bufWant[k] {
			bufWant[k][i] = byte(i*3 + k*17 + 5)
		}
		if _, err := src.Upload(bufWant[k]); err != nil {
			t.Fatal(err)
		}
		texDst[k] = bytes.Repeat([]byte{0xaa}, texStride*h)
		bufDst[k] = bytes.Repeat([]byte{0xaa}, bufStride*rows)
		if err := r.TextureInto(tex, texDst[k], texStride); err != nil {
			t.Fatal(err)
		}
		if err := r.BufferRowsInto(src, 0, rows, row, bufDst[k], uint64(bufStride)); err != nil {
			t.Fatal(err)
		}
	}
	// Later GPU work overwrites the source; the requests keep what they copied.
	if err := d.Submit("overwrite", func(enc *wgpu.CommandEncoder) error {
		return enc.CopyBufferToBuffer(other.Buf, 0, src.Buf, 0, rows*row)
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	check := func(name string, k int, dst, want []byte, rowLen, stride, nrows int) {
		for y := range nrows {
			if !bytes.Equal(dst[y*stride:y*stride+rowLen], want[y*rowLen:(y+1)*rowLen]) {
				t.Fatalf("%s %d: row %d differs", name, k, y)
			}
			if y < nrows-1 && !bytes.Equal(dst[y*stride+rowLen:(y+1)*stride], bytes.Repeat([]byte{0xaa}, stride-rowLen)) {
				t.Fatalf("%s %d: the bytes after row %d were touched", name, k, y)
			}
		}
	}
	for k := range n {
		check("texture", k, texDst[k], texWant[k], 4*w, texStride, h)
		check("buffer", k, bufDst[k], bufWant[k], row, bufStride, rows)
	}
	st := r.Stats()
	if want := int64(n * (4*w*h + rows*row)); st.Requests != 2*n || st.Bytes != want {
		t.Errorf("stats: %d requests, %d bytes; want %d, %d", st.Requests, st.Bytes, 2*n, want)
	}
	got, err := d.ReadBuffer(src, 0, 16)
	if err != nil || got[0] != 0xee {
		t.Fatalf("the overwrite did not happen (%v)", err)
	}
}

// A Reader refuses what does not fit, and Release with requests in flight waits for them.
func TestReaderRefusesAndReleases(t *testing.T) {
	d := testDevice(t)
	b, err := d.NewBuffer("reader small", 1024, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	r := d.NewReader("refusing reader", 1)
	dst := make([]byte, 1024)
	for _, tc := range []struct {
		desc                      string
		offset, rows, row, stride uint64
	}{
		{"unaligned offset", 2, 1, 4, 4},
		{"row not a multiple of 4", 0, 2, 6, 6},
		{"past the buffer", 1000, 1, 40, 40},
		{"past the destination", 0, 2, 1024, 1024},
	} {
		if err := r.BufferRowsInto(b, tc.offset, tc.rows, tc.row, dst, tc.stride); err == nil {
			t.Errorf("%s: accepted", tc.desc)
		}
	}
	if err := r.BufferRowsInto(b, 0, 1, 1024, dst, 1024); err != nil {
		t.Fatal(err)
	}
	r.Release()
	r.Release()
	if st := r.Stats(); st.Bytes != 0 {
		t.Errorf("Release landed %d bytes", st.Bytes)
	}
}

// TestReaderUnderGC is TestReadbackUnderGC for the Reader: its maps stay in flight across
// requests while another goroutine allocates and forces collections.
func TestReaderUnderGC(t *testing.T) {
	d := testDevice(t)
	const n = 1500
	bufs := make([]*Buffer, 4)
	for i := range bufs {
		b, err := d.NewBuffer("reader stress", 4096, wgpu.BufferUsageStorage)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		bufs[i] = b
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var keep [][]byte
		for i := 0; !stop.Load(); i++ {
			keep = append(keep, make([]byte, 1<<(10+i%8)))
			if len(keep) > 64 {
				keep = keep[:0]
			}
			if i%50 == 0 {
				runtime.GC()
			}
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	r := d.NewReader("stress reader", 3)
	defer r.Release()
	got := make([]byte, 4*n)
	data := make([]byte, 16)
	for i := range n {
		binary.LittleEndian.PutUint32(data, uint32(i))
		b := bufs[i%len(bufs)]
		if err := b.Write(0, data); err != nil {
			t.Fatal(err)
		}
		if err := r.BufferRowsInto(b, 0, 1, 4, got[4*i:], 4); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if i%100 == 99 {
			if err := r.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if v := binary.LittleEndian.Uint32(got[4*i:]); v != uint32(i) {
			t.Fatalf("request %d landed %d", i, v)
		}
	}
}

// BenchmarkReadback: 256 MiB read back as eight 32 MiB requests (a 16384² bake's bands are 32
// MiB each) into fresh host memory, one request at a time (ReadBufferRows) and through a Reader
// with several staging buffers and copying goroutines. The H200 figures are in
// docs/PERFORMANCE.md ("Bakes that keep up").
func BenchmarkReadback(b *testing.B) {
	d := testDevice(b)
	const part, parts = 32 << 20, 8
	src, err := d.NewBuffer("bench readback", part, wgpu.BufferUsageStorage)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Release()
	if _, err := src.Upload(bytes.Repeat([]byte{1, 2, 3, 4}, part/4)); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, read func(dst []byte, k int) error, flush func() error) {
		b.SetBytes(part * parts)
		for b.Loop() {
			dst := make([]byte, part*parts) // fresh pages, as a bake's grids are
			for k := range parts {
				if err := read(dst[k*part:], k); err != nil {
					b.Fatal(err)
				}
			}
			if err := flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("sync", func(b *testing.B) {
		run(b, func(dst []byte, _ int) error { return d.ReadBufferRows(src, 0, 1024, part/1024, dst, part/1024) },
			func() error { return nil })
	})
	b.Run("reader-slots4-workers16-warm", func(b *testing.B) {
		// Into memory already touched: the copy alone, without the page faults of fresh pages.
		r := d.NewReader("bench reader", 4)
		r.Workers = 16
		defer r.Release()
		dst := make([]byte, part*parts)
		b.SetBytes(part * parts)
		for b.Loop() {
			for k := range parts {
				if err := r.BufferRowsInto(src, 0, 1024, part/1024, dst[k*part:], part/1024); err != nil {
					b.Fatal(err)
				}
			}
			if err := r.Flush(); err != nil {
				b.Fatal(err)
			}
		}
		reportReader(b, r)
	})
	for _, c := range []struct{ slots, workers int }{{1, 1}, {4, 1}, {4, 4}, {4, 8}, {4, 16}, {8, 16}} {
		b.Run(fmt.Sprintf("reader-slots%d-workers%d", c.slots, c.workers), func(b *testing.B) {
			r := d.NewReader("bench reader", c.slots)
			r.Workers = c.workers
			defer r.Release()
			run(b, func(dst []byte, _ int) error { return r.BufferRowsInto(src, 0, 1024, part/1024, dst, part/1024) }, r.Flush)
			reportReader(b, r)
		})
	}
}

// reportReader adds what the Reader's caller spent per operation: waiting for copies, and copying
// out (with its rate).
func reportReader(b *testing.B, r *Reader) {
	st := r.Stats()
	if st.Copied > 0 && b.N > 0 {
		b.ReportMetric(float64(st.Waited.Microseconds())/1000/float64(b.N), "wait-ms/op")
		b.ReportMetric(float64(st.Bytes)/st.Copied.Seconds()/1e9, "copy-GB/s")
	}
}
