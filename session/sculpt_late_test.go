package session

import (
	"testing"
	"time"
)

// waitDabFrame waits for a frame showing version v or later that is final (not a draft, nothing
// refining) at whatever resolution a stroke's frames are drawn.
func waitDabFrame(t *testing.T, h *harness, v uint64) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		h.mu.Lock()
		for _, e := range h.ev {
			if f := e.Frame; f != nil && f.Version >= v && !f.Draft && !f.Refining {
				h.mu.Unlock()
				return
			}
		}
		h.mu.Unlock()
		select {
		case <-h.ch:
		case <-time.After(200 * time.Millisecond):
			h.s.RequestFrame()
		case <-deadline:
			t.Fatalf("no final frame of version %d within 60 s", v)
		}
	}
}

// On the GPU evaluator a dab's placement does not wait for its count (gpu.PlaceJob.CountLate):
// after a dab's final frame, mid-stroke, the kernels hold a pool whose count the host has not
// read — the frame drew it by the device's count. The release's placement reads it: every
// kernel's count is exact again and is the one the session shows. (TestSculptInstancesFreshGPU
// checks the instances themselves against a fresh bake.)
func TestSculptDabCountsLate(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: GPU, TileSize: 32}, 128, nil, true)
	landed(t, h)
	st := sculptStrokes(fieldNow(t, h))[0]
	if err := h.s.BeginStroke(st.b); err != nil {
		t.Fatal(err)
	}
	p := h.s.pipe
	late := false
	for _, pt := range st.pts[:3] {
		h.s.Stroke(pt[0], pt[1])
		waitDabFrame(t, h, h.s.Version())
		p.passMu.Lock()
		for _, ps := range p.pops {
			if ps.kernel != nil && !ps.kernel.Exact() {
				late = true
				if ps.kernel.Bound() < ps.kernel.Count() {
					t.Errorf("population %q: bound %d under the count read %d", ps.name, ps.kernel.Bound(), ps.kernel.Count())
				}
			}
		}
		p.passMu.Unlock()
	}
	h.s.EndStroke()
	h.waitFrame(h.s.Version())
	if !late {
		t.Errorf("no dab's placement left its count on the device")
	}
	p.passMu.Lock()
	defer p.passMu.Unlock()
	shown := map[string]int{}
	for _, c := range h.s.Status().Instances {
		shown[c.Name] = c.Count
	}
	for _, ps := range p.pops {
		if ps.kernel == nil {
			t.Fatalf("population %q has no GPU kernel", ps.name)
		}
		if !ps.kernel.Exact() || ps.count != ps.kernel.Count() || shown[ps.name] != ps.count {
			t.Errorf("population %q after the release: exact %v, the kernel counts %d, the session %d, the status %d",
				ps.name, ps.kernel.Exact(), ps.kernel.Count(), ps.count, shown[ps.name])
		}
	}
}
