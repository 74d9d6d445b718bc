package gpu

import (
	"encoding/binary"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// Storing f32(k)/255 into an rgba8unorm storage texture must give back exactly byte k for every
// k: the weights kernel writes its quantized bytes this way.
const unormSrc = `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var img: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= 64u || id.y >= 4u) { return; }
    let k = id.y * 64u + id.x;
    out[k] = k * 3u + 1u;
    textureStore(img, vec2<i32>(i32(id.x), i32(id.y)), vec4<f32>(f32(k), f32(255u - k), f32(k ^ 0x55u), f32((k * 7u) & 255u)) / 255.0);
}
`

func TestDispatchBufferAndUnormStore(t *testing.T) {
	d := testDevice(t)
	p, err := d.NewComputePipeline("unorm test", unormSrc, "main", []wgpu.BindGroupLayoutEntry{
		StorageLayout(0, false), StorageTextureLayout(1, wgpu.TextureFormatRGBA8Unorm)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	buf, err := d.NewBuffer("unorm out", 256*4, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	tex, err := d.NewTexture("unorm img", 64, 4, wgpu.TextureFormatRGBA8Unorm, wgpu.TextureUsageStorageBinding)
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Release()
	bg, err := p.BindGroup("unorm bg", BufferEntry(0, buf), TextureEntry(1, tex))
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Release()
	if err := d.Dispatch("unorm dispatch", p, bg, 8, 1, 1); err != nil {
		t.Fatal(err)
	}
	words, err := d.ReadBuffer(buf, 0, 256*4)
	if err != nil {
		t.Fatal(err)
	}
	for k := uint32(0); k < 256; k++ {
		if got := binary.LittleEndian.Uint32(words[k*4:]); got != k*3+1 {
			t.Fatalf("out[%d] = %d, want %d", k, got, k*3+1)
		}
	}
	px, err := d.ReadTexture(tex)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 256; k++ {
		want := [4]byte{byte(k), byte(255 - k), byte(k ^ 0x55), byte((k * 7) & 255)}
		if got := [4]byte(px[k*4 : k*4+4]); got != want {
			t.Fatalf("texel %d = %v, want %v (unorm8 store of k/255 must be exact)", k, got, want)
		}
	}
}
