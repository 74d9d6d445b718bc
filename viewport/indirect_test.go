package viewport

import (
	"bytes"
	"math"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// TestInstancesDrawnByCounter: a population with a device counter draws as many instances as
// the counter holds, whatever the host's Count says (the scatter kernel's count read a placement
// late): the same frame as the same instances drawn by Count, and a changed counter changes the
// frame without SetPopulations.
func TestInstancesDrawnByCounter(t *testing.T) {
	d := testDevice(t)
	trees := instanceMatrices(12, 0, 0, 30, 0, 1.6)
	pool, err := d.NewBuffer("test tree pool", uint64(4*len(trees))+64*8, wgpu.BufferUsageStorage) // room past the count
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Release()
	if err := pool.Write(0, wgpu.ToBytes(trees)); err != nil {
		t.Fatal(err)
	}
	counter, err := d.NewBuffer("test tree counter", 4, wgpu.BufferUsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer counter.Release()
	setCount := func(n uint32) {
		if err := counter.Write(0, wgpu.ToBytes([]uint32{n})); err != nil {
			t.Fatal(err)
		}
	}
	view := func(pops []Population) *Renderer {
		s := flatTwoLayerScene()
		s.Populations = pops
		r := newTestRenderer(t, 160, 100, s)
		c := OrbitCamera(s.Placement, s.HeightRange, 1.6)
		c.Focus(0, 3, 0)
		c.Distance = 110
		c.Pitch = 25 * math.Pi / 180
		r.SetCamera(c)
		return r
	}
	byCount := func(n int) []byte {
		return render(t, view([]Population{{Name: "pines", Mesh: MeshTree, Pool: pool.Buf, Count: n}})).Pix
	}
	want12, want5 := byCount(12), byCount(5)
	if bytes.Equal(want12, want5) {
		t.Fatal("5 trees and 12 draw the same frame: the test sees nothing")
	}

	setCount(12)
	r := view([]Population{{Name: "pines", Mesh: MeshTree, Pool: pool.Buf, Count: 0, Counter: counter.Buf}})
	if got := render(t, r).Pix; !bytes.Equal(got, want12) {
		t.Errorf("a counter of 12 (host count 0) does not draw the 12 trees' frame")
	}
	setCount(5)
	r.setDirty() // a new frame; the populations are as they were
	if got := render(t, r).Pix; !bytes.Equal(got, want5) {
		t.Errorf("a counter of 5 does not draw the 5 trees' frame")
	}
	bad := flatTwoLayerScene()
	bad.Populations = []Population{{Name: "x", Mesh: MeshTree, Counter: counter.Buf}}
	if err := bad.Validate(); err == nil {
		t.Errorf("a counter without a pool validated")
	}
}
