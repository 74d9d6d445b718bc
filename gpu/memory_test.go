package gpu

import (
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// The device counts what its buffers and textures hold: a buffer's allocation (and its growth),
// a texture's texels; releasing gives them back, and the peak remembers the most held.
func TestDeviceMemory(t *testing.T) {
	d := testDevice(t)
	now0, _ := d.Memory()
	b, err := d.NewBuffer("memory test", 1000, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	if now, _ := d.Memory(); now-now0 != 1000 {
		t.Errorf("a 1000-byte buffer: %d bytes more held", now-now0)
	}
	if _, err := b.Ensure(4096); err != nil {
		t.Fatal(err)
	}
	tex, err := d.NewTexture("memory test", 16, 8, wgpu.TextureFormatRGBA32Float, wgpu.TextureUsageTextureBinding)
	if err != nil {
		t.Fatal(err)
	}
	if now, peak := d.Memory(); now-now0 != 4096+16*8*16 || peak < now {
		t.Errorf("grown buffer and a 16×8 RGBA32F texture: %d bytes more held (peak %d)", now-now0, peak)
	}
	b.Release()
	b.Release()
	tex.Release()
	if now, peak := d.Memory(); now != now0 || peak < now0+4096+16*8*16 {
		t.Errorf("released: %d bytes held, %d before; peak %d", now, now0, peak)
	}
}
