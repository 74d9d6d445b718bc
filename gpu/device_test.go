package gpu

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

var (
	sharedOnce sync.Once
	sharedDev  *Device
	sharedErr  error
)

// testDevice returns one device shared by the package's tests (lavapipe on a machine without a
// GPU). GPU tests never skip: a machine without an adapter fails them.
func testDevice(t testing.TB) *Device {
	t.Helper()
	sharedOnce.Do(func() { sharedDev, sharedErr = Open(context.Background(), Options{Label: "strata gpu test"}) })
	if sharedErr != nil {
		t.Fatalf("Open: %v", sharedErr)
	}
	return sharedDev
}

func TestOpenReportsAdapter(t *testing.T) {
	d := testDevice(t)
	if d.Info.Name == "" {
		t.Errorf("adapter name empty: %+v", d.Info)
	}
	if !strings.HasPrefix(d.String(), "gpu: ") {
		t.Errorf("String() = %q", d.String())
	}
	if d.Limits.MaxStorageBufferBindingSize == 0 {
		t.Errorf("limits not read: %+v", d.Limits)
	}
	t.Logf("%s; max storage binding %d MiB", d, d.Limits.MaxStorageBufferBindingSize>>20)
}

func TestOpenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open(cancelled) = %v, want context.Canceled", err)
	}
}

func TestOpenReleaseTwice(t *testing.T) {
	d, err := Open(context.Background(), Options{Label: "release twice"})
	if err != nil {
		t.Fatal(err)
	}
	d.Release()
	d.Release()
	var nilDev *Device
	nilDev.Release()
	if err := d.Do("after release", func() error { return nil }); err == nil {
		t.Error("Do on a released device returned nil")
	}
}

func TestNilReleaseSafe(t *testing.T) {
	var b *Buffer
	var tex *Texture
	var p *ComputePipeline
	b.Release()
	tex.Release()
	p.Release()
	d := testDevice(t)
	buf, err := d.NewBuffer("twice", 16, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	buf.Release()
	buf.Release()
}

// Validation errors must come back as errors naming the operation, never crash the process.
func TestValidationErrorsAreErrors(t *testing.T) {
	d := testDevice(t)
	cases := []struct {
		name string
		run  func() error
	}{
		{"bad buffer usage", func() error {
			_, err := d.NewBuffer("bad usage", 64, wgpu.BufferUsageMapRead|wgpu.BufferUsageStorage)
			return err
		}},
		{"shader syntax", func() error {
			_, err := d.NewComputePipeline("broken", "@compute @workgroup_size(1) fn main( {", "main", nil)
			return err
		}},
		{"missing entry point", func() error {
			_, err := d.NewComputePipeline("noentry", "@compute @workgroup_size(1) fn main() {}", "other", nil)
			return err
		}},
		{"read destroyed buffer", func() error {
			b, err := d.NewBuffer("destroyed", 64, wgpu.BufferUsageStorage)
			if err != nil {
				return nil
			}
			defer b.Release()
			b.Buf.Destroy()
			_, err = d.ReadBuffer(b, 0, 64)
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "gpu: ") {
				t.Errorf("error %q lacks the gpu: prefix", err)
			}
			t.Log(err)
		})
	}
	// The device keeps working afterwards.
	if err := d.Err(); err != nil {
		t.Logf("uncaptured after the cases: %v", err)
	}
	b, err := d.NewBuffer("after errors", 16, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatalf("device unusable after validation errors: %v", err)
	}
	b.Release()
}

// TestWrapperLayout pins the unsafe mirrors in layout.go to cogentcore/webgpu's structs.
func TestWrapperLayout(t *testing.T) {
	cases := []struct {
		real   reflect.Type
		mirror reflect.Type
	}{
		{reflect.TypeOf(wgpu.Instance{}), reflect.TypeOf(instanceLayout{})},
		{reflect.TypeOf(wgpu.Adapter{}), reflect.TypeOf(adapterLayout{})},
		{reflect.TypeOf(wgpu.Device{}), reflect.TypeOf(deviceLayout{})},
		{reflect.TypeOf(wgpu.Buffer{}), reflect.TypeOf(bufferLayout{})},
	}
	for _, c := range cases {
		if c.real.Size() != c.mirror.Size() {
			t.Errorf("%s: size %d, mirror %d", c.real, c.real.Size(), c.mirror.Size())
		}
		if c.real.NumField() != c.mirror.NumField() {
			t.Errorf("%s: %d fields, mirror %d", c.real, c.real.NumField(), c.mirror.NumField())
			continue
		}
		for i := 0; i < c.real.NumField(); i++ {
			rf, mf := c.real.Field(i), c.mirror.Field(i)
			if rf.Name != mf.Name || rf.Offset != mf.Offset || rf.Type.Size() != unsafe.Sizeof(uintptr(0)) ||
				rf.Type.Kind() != reflect.Pointer {
				t.Errorf("%s field %d: %s %s @%d, mirror %s %s @%d", c.real, i, rf.Name, rf.Type, rf.Offset, mf.Name, mf.Type, mf.Offset)
			}
			if !strings.Contains(rf.Type.String(), "WGPU") {
				t.Errorf("%s.%s has type %s, want a C WGPU handle", c.real, rf.Name, rf.Type)
			}
		}
	}
	d := testDevice(t)
	if rawDevice(d.Dev) != d.raw {
		t.Error("rawDevice(d.Dev) != the shim's device")
	}
}

// vendoredHeaders are the SHA-256 sums of cogentcore/webgpu v0.23.0's wgpu/lib headers, which
// gpu/include copies (cgo cannot name another module's folder in an include path).
var vendoredHeaders = map[string]string{
	"webgpu.h": "c2b690c8ff446d1d7231d3a9d8d8b80ac43f702f597e7c2ad4bbb76723d1a134",
	"wgpu.h":   "fab660b69348495521dae15e8fa2a85f98c85155c8e9439443f307fa9cc4c40e",
}

// TestVendoredHeaders checks gpu/include against the recorded sums of the module's headers and,
// where the go command is installed (every development and CI machine; not the bare GPU machine
// the suite also runs on), the recorded sums against the module's files themselves — so an
// upgrade of the module that changes a header fails here until the copies are refreshed.
func TestVendoredHeaders(t *testing.T) {
	sum := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:])
	}
	for h, want := range vendoredHeaders {
		if got := sum(filepath.Join("include", h)); got != want {
			t.Errorf("include/%s has sum %s, want the module's %s: copy it again from the module", h, got, want)
		}
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Logf("no go command here (%v): the module's own headers were not read", err)
		return
	}
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Dir}}", "github.com/cogentcore/webgpu").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	for h, want := range vendoredHeaders {
		if got := sum(filepath.Join(dir, "wgpu", "lib", h)); got != want {
			t.Errorf("the module's wgpu/lib/%s has sum %s, recorded %s: refresh include/ and the sums", h, got, want)
		}
	}
}

// An error outside any scope reaches the device's uncaptured-error callback; it must be recorded
// and returned by Err, not abort the process (wgpu-native's default handler panics).
// (Queue.Submit errors are fatal inside wgpu-native v0.19 whatever the callback; see docs/gpu.md.)
func TestUncapturedErrorRecorded(t *testing.T) {
	d := testDevice(t)
	_ = d.Err()
	provokeUncaptured(d.raw)
	err := d.Err()
	if err == nil {
		t.Fatal("an unscoped validation error left no uncaptured error")
	}
	if !strings.Contains(err.Error(), "MAP") {
		t.Errorf("error lost its message: %v", err)
	}
	t.Log(err)
	if d.Err() != nil {
		t.Error("Err did not clear")
	}
}
