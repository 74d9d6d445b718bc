package gpu

// The C half of the package: everything that must outlive a Go stack frame while wgpu-native holds
// it lives in C memory here, so no cgo.Handle is ever handed to wgpu for a callback that fires
// later (SPEC pitfall: cogentcore/webgpu#6, "misuse of an invalid Handle").
//
// The headers in include/ are byte copies of the module's wgpu/lib headers (a test compares them);
// the symbols come from the module's statically linked libwgpu_native.a.

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "wgpu.h"

// ---- error sinks: uncaptured errors (per device) and error scopes (per call) -------------------

typedef struct strata_sink {
	pthread_mutex_t mu;
	int count;
	int type;
	char msg[2048];
} strata_sink;

static strata_sink *strata_sink_new(void) {
	strata_sink *s = (strata_sink *)calloc(1, sizeof(strata_sink));
	if (s) pthread_mutex_init(&s->mu, NULL);
	return s;
}

static void strata_sink_record(strata_sink *s, WGPUErrorType type, char const *message) {
	if (!s || type == WGPUErrorType_NoError) return;
	pthread_mutex_lock(&s->mu);
	if (s->count == 0) {
		s->type = (int)type;
		strncpy(s->msg, message ? message : "(no message)", sizeof(s->msg) - 1);
		s->msg[sizeof(s->msg) - 1] = 0;
	}
	s->count++;
	pthread_mutex_unlock(&s->mu);
}

static void strata_error_cb(WGPUErrorType type, char const *message, void *userdata) {
	strata_sink_record((strata_sink *)userdata, type, message);
}

// strata_sink_take copies out and clears the first recorded error; returns the count.
static int strata_sink_take(strata_sink *s, int *type, char *out, size_t n) {
	int c;
	pthread_mutex_lock(&s->mu);
	c = s->count;
	if (c > 0) {
		*type = s->type;
		strncpy(out, s->msg, n - 1);
		out[n - 1] = 0;
	}
	s->count = 0;
	s->msg[0] = 0;
	pthread_mutex_unlock(&s->mu);
	return c;
}

static void strata_push_scopes(WGPUDevice d) {
	wgpuDevicePushErrorScope(d, WGPUErrorFilter_OutOfMemory);
	wgpuDevicePushErrorScope(d, WGPUErrorFilter_Validation);
}

static void strata_pop_scopes(WGPUDevice d, strata_sink *s) {
	wgpuDevicePopErrorScope(d, strata_error_cb, s);
	wgpuDevicePopErrorScope(d, strata_error_cb, s);
}

// ---- instance: zeroed extras (the wrapper's CreateInstance mallocs them uninitialised, and a
// garbage gles3MinorVersion aborts wgpu-native's GL backend) ------------------------------------

static WGPUInstance strata_create_instance(uint32_t backends) {
	WGPUInstanceExtras ex;
	WGPUInstanceDescriptor desc;
	memset(&ex, 0, sizeof ex);
	memset(&desc, 0, sizeof desc);
	ex.chain.sType = (WGPUSType)WGPUSType_InstanceExtras;
	ex.backends = backends;
	desc.nextInChain = (WGPUChainedStruct const *)&ex;
	return wgpuCreateInstance(&desc);
}

// ---- device request with the adapter's limits and an uncaptured-error callback -----------------

typedef struct strata_request {
	volatile int done;
	int status;
	WGPUDevice device;
	char msg[512];
} strata_request;

static void strata_request_cb(WGPURequestDeviceStatus status, WGPUDevice device, char const *message, void *userdata) {
	strata_request *r = (strata_request *)userdata;
	r->status = (int)status;
	r->device = device;
	if (message) {
		strncpy(r->msg, message, sizeof(r->msg) - 1);
		r->msg[sizeof(r->msg) - 1] = 0;
	}
	r->done = 1;
}

// strata_requestable turns limits the adapter reports as unlimited into the largest value a
// request can name. wgpu-native reads WGPU_LIMIT_U64_UNDEFINED (u64 max: what it reports for
// maxBufferSize on NVIDIA's Vulkan driver) and WGPU_LIMIT_U32_UNDEFINED in a request as "the
// default", which silently cut the H200's buffers to 256 MiB.
static void strata_requestable(WGPULimits *l) {
#define STRATA_U32(f) if (l->f == WGPU_LIMIT_U32_UNDEFINED) l->f = WGPU_LIMIT_U32_UNDEFINED - 1
#define STRATA_U64(f) if (l->f == WGPU_LIMIT_U64_UNDEFINED) l->f = WGPU_LIMIT_U64_UNDEFINED - 1
	STRATA_U32(maxTextureDimension1D); STRATA_U32(maxTextureDimension2D); STRATA_U32(maxTextureDimension3D);
	STRATA_U32(maxTextureArrayLayers); STRATA_U32(maxBindGroups); STRATA_U32(maxBindGroupsPlusVertexBuffers);
	STRATA_U32(maxBindingsPerBindGroup); STRATA_U32(maxDynamicUniformBuffersPerPipelineLayout);
	STRATA_U32(maxDynamicStorageBuffersPerPipelineLayout); STRATA_U32(maxSampledTexturesPerShaderStage);
	STRATA_U32(maxSamplersPerShaderStage); STRATA_U32(maxStorageBuffersPerShaderStage);
	STRATA_U32(maxStorageTexturesPerShaderStage); STRATA_U32(maxUniformBuffersPerShaderStage);
	STRATA_U64(maxUniformBufferBindingSize); STRATA_U64(maxStorageBufferBindingSize);
	STRATA_U32(maxVertexBuffers); STRATA_U64(maxBufferSize); STRATA_U32(maxVertexAttributes);
	STRATA_U32(maxVertexBufferArrayStride); STRATA_U32(maxInterStageShaderComponents);
	STRATA_U32(maxInterStageShaderVariables); STRATA_U32(maxColorAttachments);
	STRATA_U32(maxColorAttachmentBytesPerSample); STRATA_U32(maxComputeWorkgroupStorageSize);
	STRATA_U32(maxComputeInvocationsPerWorkgroup); STRATA_U32(maxComputeWorkgroupSizeX);
	STRATA_U32(maxComputeWorkgroupSizeY); STRATA_U32(maxComputeWorkgroupSizeZ);
	STRATA_U32(maxComputeWorkgroupsPerDimension);
#undef STRATA_U32
#undef STRATA_U64
}

// strata_requestable_probe runs strata_requestable on a limits struct holding only the two given
// values (test hook).
static void strata_requestable_probe(uint64_t *maxBuffer, uint32_t *maxTex2D) {
	WGPULimits l;
	memset(&l, 0, sizeof l);
	l.maxBufferSize = *maxBuffer;
	l.maxTextureDimension2D = *maxTex2D;
	strata_requestable(&l);
	*maxBuffer = l.maxBufferSize;
	*maxTex2D = l.maxTextureDimension2D;
}

// strata_request_device returns NULL and fills msg on failure. The request record stays in C
// memory; wgpu-native answers synchronously, and if it ever did not the record is leaked, not
// freed under a pending callback.
static WGPUDevice strata_request_device(WGPUAdapter adapter, char const *label, strata_sink *sink, char *msg, size_t n) {
	WGPUSupportedLimits sup;
	WGPURequiredLimits req;
	WGPUDeviceDescriptor desc;
	strata_request *r;
	WGPUDevice dev;
	memset(&sup, 0, sizeof sup);
	memset(&req, 0, sizeof req);
	memset(&desc, 0, sizeof desc);
	if (!wgpuAdapterGetLimits(adapter, &sup)) {
		strncpy(msg, "wgpuAdapterGetLimits failed", n - 1);
		return NULL;
	}
	req.limits = sup.limits;
	strata_requestable(&req.limits);
	desc.label = label;
	desc.requiredLimits = &req;
	desc.defaultQueue.label = label;
	desc.uncapturedErrorCallbackInfo.callback = strata_error_cb;
	desc.uncapturedErrorCallbackInfo.userdata = sink;
	r = (strata_request *)calloc(1, sizeof(strata_request));
	if (!r) {
		strncpy(msg, "out of memory", n - 1);
		return NULL;
	}
	wgpuAdapterRequestDevice(adapter, &desc, strata_request_cb, r);
	if (!r->done) {
		strncpy(msg, "wgpuAdapterRequestDevice did not answer synchronously", n - 1);
		return NULL;
	}
	dev = r->device;
	if (r->status != WGPURequestDeviceStatus_Success || !dev) {
		strncpy(msg, r->msg[0] ? r->msg : "device request failed", n - 1);
		free(r);
		return NULL;
	}
	free(r);
	return dev;
}

// ---- buffer readback: map, poll, copy, unmap -------------------------------------------------

typedef struct strata_map {
	volatile int done;
	int status;
} strata_map;

static void strata_map_cb(WGPUBufferMapAsyncStatus status, void *userdata) {
	strata_map *m = (strata_map *)userdata;
	m->status = (int)status;
	m->done = 1;
}

// strata_map_read maps size bytes of buf at offset for reading, waits for it by polling the
// device, copies rows of row bytes each from the mapped range (src_stride apart) into dst
// (dst_stride apart) and unmaps. Returns 0 on success, the WGPUBufferMapAsyncStatus + 1 on a
// failed map, -1 when the map never completed, -2 when the mapped range was NULL, -3 out of memory.
// The completion flag lives in C memory for the whole wait; the garbage collector cannot touch it.
static int strata_map_read(WGPUDevice dev, WGPUBuffer buf, size_t offset, size_t size,
                           size_t rows, size_t row, size_t src_stride, char *dst, size_t dst_stride, strata_sink *scope) {
	strata_map *m = (strata_map *)calloc(1, sizeof(strata_map));
	int tries = 0, rc = 0;
	size_t y;
	char const *src;
	if (!m) return -3;
	strata_push_scopes(dev);
	wgpuBufferMapAsync(buf, WGPUMapMode_Read, offset, size, strata_map_cb, m);
	strata_pop_scopes(dev, scope);
	while (!m->done && tries < 10000) {
		wgpuDevicePoll(dev, 1, NULL);
		tries++;
	}
	if (!m->done) return -1; // m leaked on purpose: a callback may still arrive
	if (m->status != WGPUBufferMapAsyncStatus_Success) {
		rc = m->status + 1;
		free(m);
		return rc;
	}
	free(m);
	src = (char const *)wgpuBufferGetConstMappedRange(buf, offset, size);
	if (!src) {
		rc = -2;
	} else if (src_stride == row && dst_stride == row) {
		memcpy(dst, src, rows * row);
	} else {
		for (y = 0; y < rows; y++) memcpy(dst + y * dst_stride, src + y * src_stride, row);
	}
	wgpuBufferUnmap(buf);
	return rc;
}

// ---- pipelined readback: the map requested now, waited for and copied out later ---------------
// (gpu.Reader). The completion record is the same C-memory strata_map as above.

// strata_map_begin requests a map of size bytes at offset of buf (mode: WGPUMapMode_Read or
// WGPUMapMode_Write), inside error scopes recorded into scope, and returns its completion record
// (calloc'd; NULL when out of memory). The callback fires during a later wgpuDevicePoll once the
// GPU work that uses buf (the copy filling it, or the copy out of it) has completed.
static strata_map *strata_map_begin(WGPUDevice dev, WGPUBuffer buf, int mode, size_t offset, size_t size, strata_sink *scope) {
	strata_map *m = (strata_map *)calloc(1, sizeof(strata_map));
	if (!m) return NULL;
	strata_push_scopes(dev);
	wgpuBufferMapAsync(buf, (WGPUMapModeFlags)mode, offset, size, strata_map_cb, m);
	strata_pop_scopes(dev, scope);
	return m;
}

static int strata_map_done(strata_map *m) { return m->done; }

// strata_map_end frees a completed record and returns 0 for a successful map, else the
// WGPUBufferMapAsyncStatus + 1 (a record that never completed is not passed here: it is leaked,
// since its callback may still arrive).
static int strata_map_end(strata_map *m) {
	int rc = m->status == WGPUBufferMapAsyncStatus_Success ? 0 : m->status + 1;
	free(m);
	return rc;
}

static void const *strata_mapped(WGPUBuffer buf, size_t offset, size_t size) {
	return wgpuBufferGetConstMappedRange(buf, offset, size);
}

static void *strata_mapped_write(WGPUBuffer buf, size_t offset, size_t size) {
	return wgpuBufferGetMappedRange(buf, offset, size);
}

// strata_copy_rows copies rows of row bytes, src_stride apart, into dst, dst_stride apart.
static void strata_copy_rows(char const *src, char *dst, size_t rows, size_t row, size_t src_stride, size_t dst_stride) {
	size_t y;
	if (src_stride == row && dst_stride == row) {
		memcpy(dst, src, rows * row);
		return;
	}
	for (y = 0; y < rows; y++) memcpy(dst + y * dst_stride, src + y * src_stride, row);
}

static void strata_unmap(WGPUBuffer buf) { wgpuBufferUnmap(buf); }

// strata_provoke_uncaptured makes a validation error outside any scope (test hook).
static void strata_provoke_uncaptured(WGPUDevice dev) {
	WGPUBufferDescriptor desc;
	WGPUBuffer b;
	memset(&desc, 0, sizeof desc);
	desc.label = "provoked uncaptured error";
	desc.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_Storage;
	desc.size = 16;
	b = wgpuDeviceCreateBuffer(dev, &desc);
	if (b) wgpuBufferRelease(b);
}

static void strata_poll(WGPUDevice dev) { wgpuDevicePoll(dev, 1, NULL); }
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// errSink collects wgpu errors in C memory: one per device for uncaptured errors, one per call for
// error scopes. A sink handed to the device descriptor is never freed (the device may call it until
// its last reference is dropped, which Go cannot observe); it is 2 KiB per device.
type errSink struct{ c *C.strata_sink }

func newErrSink() (errSink, error) {
	s := C.strata_sink_new()
	if s == nil {
		return errSink{}, fmt.Errorf("gpu: out of C memory for an error sink")
	}
	return errSink{s}, nil
}

func (s errSink) free() {
	if s.c != nil {
		C.free(unsafe.Pointer(s.c))
	}
}

// take returns the first error recorded since the last take (and how many), or nil.
func (s errSink) take() (wgpu.ErrorType, string, int) {
	if s.c == nil {
		return 0, "", 0
	}
	var typ C.int
	buf := (*C.char)(C.malloc(2048))
	defer C.free(unsafe.Pointer(buf))
	n := int(C.strata_sink_take(s.c, &typ, buf, 2048))
	if n == 0 {
		return 0, "", 0
	}
	return wgpu.ErrorType(typ), C.GoString(buf), n
}

func pushScopes(dev unsafe.Pointer) { C.strata_push_scopes(C.WGPUDevice(dev)) }

func popScopes(dev unsafe.Pointer, s errSink) { C.strata_pop_scopes(C.WGPUDevice(dev), s.c) }

func createInstance(backends wgpu.InstanceBackend) (unsafe.Pointer, error) {
	inst := C.strata_create_instance(C.uint32_t(backends))
	if inst == nil {
		return nil, fmt.Errorf("gpu: wgpuCreateInstance failed (backends %s)", backends)
	}
	return unsafe.Pointer(inst), nil
}

func requestDevice(adapter unsafe.Pointer, label string, sink errSink) (unsafe.Pointer, error) {
	cl := C.CString(label)
	defer C.free(unsafe.Pointer(cl))
	msg := (*C.char)(C.calloc(512, 1))
	defer C.free(unsafe.Pointer(msg))
	dev := C.strata_request_device(C.WGPUAdapter(adapter), cl, sink.c, msg, 512)
	if dev == nil {
		return nil, fmt.Errorf("gpu: request device: %s", C.GoString(msg))
	}
	return unsafe.Pointer(dev), nil
}

// mapRead maps size bytes at offset of a MapRead buffer and copies rows of row bytes, srcStride
// apart in the buffer, into dst, dstStride apart (one row of size bytes is a plain copy).
func mapRead(dev, buf unsafe.Pointer, offset, size uint64, l rowLayout, dst []byte, scope errSink) error {
	if size == 0 || l.rows == 0 {
		return nil
	}
	if l.rows > 0 && (l.srcStride*(l.rows-1)+l.row > size || l.dstStride*(l.rows-1)+l.row > uint64(len(dst))) {
		return fmt.Errorf("gpu: map read: %d rows of %d bytes do not fit the %d mapped or %d destination bytes", l.rows, l.row, size, len(dst))
	}
	rc := C.strata_map_read(C.WGPUDevice(dev), C.WGPUBuffer(buf), C.size_t(offset), C.size_t(size),
		C.size_t(l.rows), C.size_t(l.row), C.size_t(l.srcStride), (*C.char)(unsafe.Pointer(&dst[0])), C.size_t(l.dstStride), scope.c)
	switch {
	case rc == 0:
		return nil
	case rc == -1:
		return fmt.Errorf("gpu: map read: the map never completed")
	case rc == -2:
		return fmt.Errorf("gpu: map read: no mapped range")
	case rc == -3:
		return fmt.Errorf("gpu: map read: out of C memory")
	default:
		return fmt.Errorf("gpu: map read: %s", wgpu.BufferMapAsyncStatus(rc-1).String())
	}
}

// mapPending is a map requested by beginMap and not yet ended: its completion flag lives in C
// memory (SPEC pitfall: no Go handle is held by C across the wait).
type mapPending struct{ c *C.strata_map }

// beginMap requests a map (mode: read or write) of size bytes at offset of buf, inside error
// scopes recorded into scope.
func beginMap(dev, buf unsafe.Pointer, mode wgpu.MapMode, offset, size uint64, scope errSink) (mapPending, error) {
	m := C.strata_map_begin(C.WGPUDevice(dev), C.WGPUBuffer(buf), C.int(mode), C.size_t(offset), C.size_t(size), scope.c)
	if m == nil {
		return mapPending{}, fmt.Errorf("gpu: map: out of C memory")
	}
	return mapPending{m}, nil
}

// done reports whether the map's callback has fired (a device poll runs callbacks).
func (m mapPending) done() bool { return C.strata_map_done(m.c) != 0 }

// end frees the completed map's record and says whether the map succeeded.
func (m mapPending) end() error {
	if rc := C.strata_map_end(m.c); rc != 0 {
		return fmt.Errorf("gpu: map: %s", wgpu.BufferMapAsyncStatus(rc-1).String())
	}
	return nil
}

// mappedRange is the mapped range of a buffer whose map succeeded, or nil.
func mappedRange(buf unsafe.Pointer, offset, size uint64) unsafe.Pointer {
	return unsafe.Pointer(C.strata_mapped(C.WGPUBuffer(buf), C.size_t(offset), C.size_t(size)))
}

// mappedRangeWrite is the writable mapped range of a buffer mapped for writing (or created
// mapped), or nil.
func mappedRangeWrite(buf unsafe.Pointer, offset, size uint64) unsafe.Pointer {
	return unsafe.Pointer(C.strata_mapped_write(C.WGPUBuffer(buf), C.size_t(offset), C.size_t(size)))
}

// copyRows copies l.rows rows of l.row bytes from src (l.srcStride apart) into dst (l.dstStride
// apart). The caller has checked that both ranges hold them.
func copyRows(src unsafe.Pointer, dst []byte, l rowLayout) {
	if l.rows == 0 || l.row == 0 {
		return
	}
	C.strata_copy_rows((*C.char)(src), (*C.char)(unsafe.Pointer(&dst[0])), C.size_t(l.rows), C.size_t(l.row), C.size_t(l.srcStride), C.size_t(l.dstStride))
}

func unmapBuffer(buf unsafe.Pointer) { C.strata_unmap(C.WGPUBuffer(buf)) }

// requestableProbe is strata_requestable on a limits struct holding maxBufferSize and
// maxTextureDimension2D only (TestRequestableLimits).
func requestableProbe(maxBuffer uint64, maxTex2D uint32) (uint64, uint32) {
	b, t := C.uint64_t(maxBuffer), C.uint32_t(maxTex2D)
	C.strata_requestable_probe(&b, &t)
	return uint64(b), uint32(t)
}

func pollWait(dev unsafe.Pointer) { C.strata_poll(C.WGPUDevice(dev)) }

// provokeUncaptured creates an invalid buffer outside any error scope, so that the device's
// uncaptured-error callback fires. Only TestUncapturedErrorRecorded calls it.
func provokeUncaptured(dev unsafe.Pointer) { C.strata_provoke_uncaptured(C.WGPUDevice(dev)) }
