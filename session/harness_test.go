package session

import (
	"context"
	"image"
	"sync"
	"testing"
	"time"

	"strata/gpu"
	"strata/internal/testgpu"
	"strata/stack"
)

// testDevice is the test binary's one device (internal/testgpu).
func testDevice(t testing.TB) *gpu.Device { return testgpu.Device(t) }

// harness is a session with its events collected.
type harness struct {
	t  testing.TB
	s  *Session
	mu sync.Mutex
	ev []Event
	ch chan struct{}
	// allowErrors is how many error events the test provokes on purpose.
	allowErrors int
}

func newHarness(t testing.TB, o Options) *harness {
	t.Helper()
	o.Device = testDevice(t)
	if o.Width == 0 {
		o.Width, o.Height = 160, 100
	}
	s, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, ch: make(chan struct{}, 1)}
	s.Subscribe(func(e Event) {
		h.mu.Lock()
		h.ev = append(h.ev, e)
		h.mu.Unlock()
		select {
		case h.ch <- struct{}{}:
		default:
		}
	})
	t.Cleanup(s.Close)
	return h
}

// openSample is a harness on the sample at n×n height texels (st nil: the sample's stack),
// framed from above when mapView, with its first full frame drawn; it returns both.
func openSample(t testing.TB, o Options, n int, st *stack.Stack, mapView bool) (*harness, *Frame) {
	t.Helper()
	h := newHarness(t, o)
	if err := h.s.OpenSampleSized(context.Background(), n, st); err != nil {
		t.Fatal(err)
	}
	if mapView {
		h.s.FitCamera(true)
	}
	return h, h.waitFrame(h.s.Version())
}

// waitFrame waits for a full (not draft) frame showing version v or later and returns it.
func (h *harness) waitFrame(v uint64) *Frame {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		h.mu.Lock()
		for i := len(h.ev) - 1; i >= 0; i-- {
			if f := h.ev[i].Frame; f != nil && f.Version >= v && !f.Draft && f.Scale == 1 && !f.Refining {
				h.mu.Unlock()
				return f
			}
		}
		var errs []error
		for _, e := range h.ev {
			if e.Kind == EventError {
				errs = append(errs, e.Err)
			}
		}
		h.mu.Unlock()
		if len(errs) > h.allowErrors {
			h.t.Fatalf("session errors: %v", errs)
		}
		select {
		case <-h.ch:
		case <-time.After(200 * time.Millisecond):
			h.s.RequestFrame()
		case <-deadline:
			h.mu.Lock()
			for _, e := range h.ev {
				if e.Frame != nil {
					h.t.Logf("frame v%d draft %v scale %v", e.Frame.Version, e.Frame.Draft, e.Frame.Scale)
				} else {
					h.t.Logf("event %d %+v %v %s", e.Kind, e.Status, e.Err, e.Message)
				}
			}
			h.mu.Unlock()
			h.t.Fatalf("no full frame of version %d within 60 s (now %d, status %+v)", v, h.s.Version(), h.s.Status())
		}
	}
}

// mark is where the events stand now, for frameAfter.
func (h *harness) mark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.ev)
}

// frameAfter waits for a full frame drawn after mark (an overlay or a binding changed, which the
// version does not count) and returns it.
func (h *harness) frameAfter(mark int) *Frame {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		h.mu.Lock()
		for _, e := range h.ev[mark:] {
			if f := e.Frame; f != nil && !f.Draft && f.Scale == 1 && !f.Refining && f.Version >= h.s.Version() {
				h.mu.Unlock()
				return f
			}
		}
		h.mu.Unlock()
		select {
		case <-h.ch:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			h.t.Fatalf("no full frame after event %d within 60 s", mark)
		}
	}
}

func (h *harness) count(kind EventKind) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, e := range h.ev {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// instances is the named population's instance count in the last status; -1 when it has none.
func (h *harness) instances(name string) int {
	for _, p := range h.s.Status().Instances {
		if p.Name == name {
			return p.Count
		}
	}
	return -1
}

func diffPixels(a, b *image.RGBA) int {
	n := 0
	for i := 0; i+3 < len(a.Pix) && i+3 < len(b.Pix); i += 4 {
		if a.Pix[i] != b.Pix[i] || a.Pix[i+1] != b.Pix[i+1] || a.Pix[i+2] != b.Pix[i+2] {
			n++
		}
	}
	return n
}

func marshal(t testing.TB, s *stack.Stack) []byte {
	t.Helper()
	b, err := stack.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func stackLoad(p string) (*stack.Stack, error) { return stack.Load(p) }
func stackSave(s *stack.Stack, p string) error { return stack.Save(s, p) }
func floatPtr(v float64) *float64              { return &v }

// events returns the events from index k on.
func (h *harness) events(k int) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Event(nil), h.ev[min(k, len(h.ev)):]...)
}
