package gpu

import (
	"bytes"
	"encoding/binary"
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
