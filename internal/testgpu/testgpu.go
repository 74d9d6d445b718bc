// Package testgpu gives a test binary its one GPU device (Mesa's lavapipe on a machine without a
// GPU), opened on first use and shared by every test: opening a device costs more than most tests.
package testgpu

import (
	"context"
	"sync"
	"testing"

	"strata/gpu"
)

var (
	once sync.Once
	dev  *gpu.Device
	err  error
)

// Device returns the shared device, failing t when none can be opened.
func Device(t testing.TB) *gpu.Device {
	t.Helper()
	once.Do(func() { dev, err = gpu.Open(context.Background(), gpu.Options{Label: "test device"}) })
	if err != nil {
		t.Fatalf("open device: %v", err)
	}
	return dev
}

// Release frees the device (a TestMain's last step), if one was opened.
func Release() {
	if dev != nil {
		dev.Release()
	}
}
