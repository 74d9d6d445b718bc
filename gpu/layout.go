package gpu

import (
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// Layout mirrors of cogentcore/webgpu v0.23.0's wrapper structs. The raw WGPU handles are
// unexported there, and the readback shim and the device request need them. TestWrapperLayout
// checks these against the real structs with reflect (field names, kinds, offsets, sizes), so a
// module upgrade that moves a field fails a test instead of corrupting memory.

type instanceLayout struct{ ref unsafe.Pointer }

type adapterLayout struct{ ref unsafe.Pointer }

type deviceLayout struct{ ref unsafe.Pointer }

type bufferLayout struct {
	deviceRef unsafe.Pointer
	ref       unsafe.Pointer
}

func rawAdapter(a *wgpu.Adapter) unsafe.Pointer {
	if a == nil {
		return nil
	}
	return (*adapterLayout)(unsafe.Pointer(a)).ref
}

func rawDevice(d *wgpu.Device) unsafe.Pointer {
	if d == nil {
		return nil
	}
	return (*deviceLayout)(unsafe.Pointer(d)).ref
}

func rawBuffer(b *wgpu.Buffer) unsafe.Pointer {
	if b == nil {
		return nil
	}
	return (*bufferLayout)(unsafe.Pointer(b)).ref
}

// wrapDevice makes a *wgpu.Device around a raw WGPUDevice created by the shim.
func wrapDevice(ref unsafe.Pointer) *wgpu.Device {
	d := new(wgpu.Device)
	(*deviceLayout)(unsafe.Pointer(d)).ref = ref
	return d
}

// wrapInstance makes a *wgpu.Instance around a raw WGPUInstance created by the shim.
func wrapInstance(ref unsafe.Pointer) *wgpu.Instance {
	i := new(wgpu.Instance)
	(*instanceLayout)(unsafe.Pointer(i)).ref = ref
	return i
}
