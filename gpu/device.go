// Package gpu is Strata's WebGPU layer: one Device per process (or per test), labelled buffers,
// textures and compute pipelines built from the embedded WGSL in shaders/, a readback path that is
// safe under the garbage collector, and the kernels (weights, scatter) that the bake drives.
//
// Every wgpu call that can fail runs inside error scopes (Device.Do), and the device is created
// with an uncaptured-error callback that records into C memory, so a validation error becomes a
// returned Go error, never a crash. See docs/gpu.md.
package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// ErrNoAdapter means no WebGPU adapter exists on this machine (no GPU and no software Vulkan).
// The bake treats it as "use the Go reference" and says so in a warning.
var ErrNoAdapter = errors.New("gpu: no WebGPU adapter found (no GPU driver and no software Vulkan such as Mesa lavapipe)")

// Options choose the adapter. The zero value picks the best adapter of any backend.
type Options struct {
	// Label names the device in wgpu's messages; default "strata".
	Label string
	// Backends restricts the instance to some backends; zero means the primary ones (Vulkan,
	// Metal, D3D12). GL is opt-in: on a machine without a GPU it only adds a slower llvmpipe
	// adapter beside lavapipe and noise on stderr (EGL's XDG_RUNTIME_DIR complaints).
	Backends wgpu.InstanceBackend
	// Adapter, when set, prefers an adapter whose name contains it (case-insensitive).
	Adapter string
}

// Info describes the adapter a Device runs on, for logs and benchmark reports.
type Info struct {
	Name    string // adapter (device) name, e.g. "llvmpipe (LLVM 15.0.7, 256 bits)"
	Vendor  string
	Backend wgpu.BackendType
	Type    wgpu.AdapterType
	Driver  string // driver description
}

// HostMemory reports whether the device's memory is the host's: a CPU adapter (lavapipe), whose
// buffers and textures are the process's own pages.
func (i Info) HostMemory() bool { return i.Type == wgpu.AdapterTypeCPU }

// String formats the adapter as "name (type, backend, driver)".
func (i Info) String() string {
	s := fmt.Sprintf("%s (%s, %s", i.Name, i.Type, i.Backend)
	if i.Driver != "" {
		s += ", " + i.Driver
	}
	return s + ")"
}

// Device is an open WebGPU device with its queue. The exported wgpu objects are for packages that
// build their own pipelines (viewport); they stay owned by the Device and die with Release.
type Device struct {
	Instance *wgpu.Instance
	Adapter  *wgpu.Adapter
	Dev      *wgpu.Device
	Queue    *wgpu.Queue
	Info     Info
	// Limits are the limits the device was created with (the adapter's own, see Open).
	Limits wgpu.Limits

	label     string
	raw       unsafe.Pointer // WGPUDevice
	uncapture errSink        // uncaptured errors; never freed (see errSink)

	scopeMu sync.Mutex // error scopes are a per-device stack: one Do at a time

	readMu  sync.Mutex // guards staging
	staging *Buffer    // grow-only MapRead buffer for readback

	mem memory // bytes held by buffers and textures (memory.go)

	pipes  pipeCache // compute pipelines shared by the kernels (pipeline.go)
	counts counters  // submissions, waits and writes (counts.go)
}

// Open creates an instance, picks an adapter (discrete, then integrated, then anything, Vulkan /
// Metal / D3D12 before GL) and requests a device with the adapter's own limits, because the
// default limits cap storage buffers at 128 MiB and buffers at 256 MiB. Device.Limits are the
// limits the device got.
func Open(ctx context.Context, opts Options) (d *Device, err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gpu: open: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("gpu: open: wgpu panicked: %v", r)
		}
	}()
	label := opts.Label
	if label == "" {
		label = "strata"
	}
	if opts.Backends == 0 {
		opts.Backends = wgpu.InstanceBackendPrimary
	}
	quietDrivers()
	d = &Device{label: label}
	rawInst, err := createInstance(opts.Backends)
	if err != nil {
		return nil, err
	}
	d.Instance = wrapInstance(rawInst)
	adapter, info, err := pickAdapter(d.Instance, opts)
	if err != nil {
		d.Release()
		return nil, err
	}
	d.Adapter, d.Info = adapter, info
	if d.uncapture, err = newErrSink(); err != nil {
		d.Release()
		return nil, err
	}
	raw, err := requestDevice(rawAdapter(adapter), label, d.uncapture)
	if err != nil {
		d.Release()
		return nil, fmt.Errorf("%w (adapter %s)", err, info)
	}
	d.raw = raw
	d.Dev = wrapDevice(raw)
	d.Queue = d.Dev.GetQueue()
	// The limits the device was created with (not the adapter's report): what every size check
	// and the bake's banding must respect.
	d.Limits = d.Dev.GetLimits().Limits
	return d, nil
}

func pickAdapter(inst *wgpu.Instance, opts Options) (*wgpu.Adapter, Info, error) {
	adapters := inst.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: opts.Backends})
	if len(adapters) == 0 {
		a, err := inst.RequestAdapter(&wgpu.RequestAdapterOptions{PowerPreference: wgpu.PowerPreferenceHighPerformance})
		if err != nil || a == nil || rawAdapter(a) == nil {
			return nil, Info{}, ErrNoAdapter
		}
		adapters = []*wgpu.Adapter{a}
	}
	type cand struct {
		a    *wgpu.Adapter
		info Info
		rank int
	}
	cands := make([]cand, 0, len(adapters))
	for _, a := range adapters {
		ai := a.GetInfo()
		info := Info{Name: ai.Name, Vendor: ai.VendorName, Backend: ai.BackendType, Type: ai.AdapterType, Driver: ai.DriverDescription}
		if (info.Name == "" || strings.HasPrefix(info.Name, "0x")) && info.Driver != "" {
			// wgpu-native on Vulkan reports the device id as the name and the human name (e.g.
			// "llvmpipe (LLVM 15.0.6, 256 bits)") as the description.
			info.Name, info.Driver = info.Driver, ""
		}
		rank := typeRank(ai.AdapterType)*10 + backendRank(ai.BackendType)
		if opts.Adapter != "" && !strings.Contains(strings.ToLower(ai.Name), strings.ToLower(opts.Adapter)) {
			rank += 1000
		}
		cands = append(cands, cand{a, info, rank})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].rank < cands[j].rank })
	for _, c := range cands[1:] {
		c.a.Release()
	}
	return cands[0].a, cands[0].info, nil
}

func typeRank(t wgpu.AdapterType) int {
	switch t {
	case wgpu.AdapterTypeDiscreteGPU:
		return 0
	case wgpu.AdapterTypeIntegratedGPU:
		return 1
	case wgpu.AdapterTypeCPU:
		return 3
	default:
		return 2
	}
}

func backendRank(b wgpu.BackendType) int {
	switch b {
	case wgpu.BackendTypeVulkan, wgpu.BackendTypeMetal, wgpu.BackendTypeD3D12:
		return 0
	case wgpu.BackendTypeOpenGL, wgpu.BackendTypeOpenGLES:
		return 2
	default:
		return 1
	}
}

// String reports the adapter for logs: "gpu: llvmpipe (...) (CPU, Vulkan, Mesa ...)".
func (d *Device) String() string {
	if d == nil {
		return "gpu: <nil device>"
	}
	return "gpu: " + d.Info.String()
}

// Release waits for the queue to drain and releases the device, adapter and instance. Safe on nil
// and twice. Objects made from the device must be released first.
func (d *Device) Release() {
	if d == nil {
		return
	}
	d.readMu.Lock()
	d.staging.Release()
	d.staging = nil
	d.readMu.Unlock()
	if d.raw != nil {
		pollWait(d.raw)
	}
	if d.Queue != nil {
		d.Queue.Release()
		d.Queue = nil
	}
	if d.Dev != nil {
		d.Dev.Release()
		d.Dev = nil
	}
	d.raw = nil
	if d.Adapter != nil {
		d.Adapter.Release()
		d.Adapter = nil
	}
	if d.Instance != nil {
		d.Instance.Release()
		d.Instance = nil
	}
}

// Do runs fn inside validation and out-of-memory error scopes and turns what wgpu reports — a
// scoped error, an uncaptured error recorded since, or a panic in the Go wrapper — into an error
// prefixed "gpu: op:". fn's own error is wrapped the same way. Do calls must not nest.
func (d *Device) Do(op string, fn func() error) (err error) {
	if d == nil || d.raw == nil {
		return fmt.Errorf("gpu: %s: device is closed", op)
	}
	d.lockScope()
	defer d.scopeMu.Unlock()
	scope, serr := newErrSink()
	if serr != nil {
		return serr
	}
	defer scope.free()
	pushScopes(d.raw)
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("wgpu panicked: %v", r)
			}
		}()
		err = fn()
	}()
	popScopes(d.raw, scope)
	if typ, msg, n := scope.take(); n > 0 {
		werr := &wgpu.Error{Type: typ, Message: msg}
		if err == nil {
			err = werr
		} else {
			err = fmt.Errorf("%w; %w", err, werr)
		}
	}
	if uerr := d.takeUncaptured(); uerr != nil && err == nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("gpu: %s: %w", op, err)
	}
	return nil
}

// Err returns (and clears) the first uncaptured wgpu error recorded on this device, or nil.
func (d *Device) Err() error {
	if err := d.takeUncaptured(); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return nil
}

func (d *Device) takeUncaptured() error {
	if d == nil {
		return nil
	}
	typ, msg, n := d.uncapture.take()
	if n == 0 {
		return nil
	}
	werr := &wgpu.Error{Type: typ, Message: msg}
	if n > 1 {
		return fmt.Errorf("uncaptured (%d errors, first): %w", n, werr)
	}
	return fmt.Errorf("uncaptured: %w", werr)
}

// Wait blocks until all submitted work on the device has finished.
func (d *Device) Wait() {
	if d != nil && d.raw != nil {
		defer d.waited(time.Now())
		pollWait(d.raw)
	}
}

var quietOnce sync.Once

// quietDrivers keeps driver chatter off a command line's stderr: wgpu-native logs only errors
// (its warnings about missing surface extensions are irrelevant offscreen), and Mesa's Vulkan
// WSI, which complains once per instance when XDG_RUNTIME_DIR is unset (a CI runner, a container,
// a headless session), gets a private runtime directory. Nothing here changes what runs.
func quietDrivers() {
	quietOnce.Do(func() {
		wgpu.SetLogLevel(wgpu.LogLevelError)
		if os.Getenv("XDG_RUNTIME_DIR") == "" {
			if dir, err := os.MkdirTemp("", "strata-runtime-"); err == nil {
				os.Setenv("XDG_RUNTIME_DIR", dir)
			}
		}
	})
}
