package session

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rssBytes is this process's resident set (Linux: /proc/self/status VmRSS), 0 when unknown.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func heapBytes() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// soakHistory is the soak's history bound; soakMargin what the heap may hold beyond it (the
// caches a pass keeps, the recovery write's blocks, the allocator's slack).
const (
	soakHistory = 32 << 20
	soakMargin  = 48 << 20
	soakRSS     = 160 << 20
)

// TestSoak is a long sitting (the full tier only): 1 000 strokes and 1 000 slider drags on the
// sample at 512², with the recovery copy kept, leave the heap within the history's bound plus
// soakMargin and the resident set within the bound plus soakRSS of where it stood after the
// open, and no goroutine behind once the session is closed (docs/PERFORMANCE.md "Editor: a long
// sitting").
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand strokes and drags: minutes (the full tier runs it)")
	}
	testDevice(t) // the test binary's device and its goroutines come first
	goroutines := runtime.NumGoroutine()
	root := t.TempDir()
	h := newHarness(t, Options{Evaluator: CPU, HistoryBytes: soakHistory, Recovery: root})
	if err := h.s.OpenSampleSized(context.Background(), 512, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	if err := h.s.NewMask("soak"); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	heap0, rss0 := heapBytes(), rssBytes()
	fi := h.s.Field()
	start := time.Now()
	for i := range 1000 {
		// Strokes wander over the field, erasing every third; drags move a rule's bound.
		x := fi.Origin[0] + fi.Size[0]*(float64(i%37)/37-0.5)*0.9
		z := fi.Origin[1] + fi.Size[1]*(float64(i%23)/23-0.5)*0.9
		if err := h.s.BeginStroke(Brush{Target: "mask.soak", Radius: fi.Size[0] / 40, Strength: 0.5, Falloff: 0.5, Erase: i%3 == 2}); err != nil {
			t.Fatal(err)
		}
		h.s.Stroke(x, z)
		h.s.Stroke(x+fi.Size[0]/30, z+fi.Size[1]/50)
		h.s.Stroke(x+fi.Size[0]/20, z)
		h.s.EndStroke()
		st := h.s.Stack()
		for k := range 3 {
			d := st.Clone()
			top := &d.Layers[len(d.Layers)-1]
			top.Strength = 0.3 + 0.2*float64((i+k)%4)/4
			if err := h.s.Drag("strength", d); err != nil {
				t.Fatal(err)
			}
		}
		h.s.EndDrag()
		if i%100 == 99 {
			h.waitFrame(h.s.Version())
			t.Logf("%d strokes and drags: heap %.1f MiB, rss %.1f MiB, %d goroutines, %s", i+1,
				float64(heapBytes())/(1<<20), float64(rssBytes())/(1<<20), runtime.NumGoroutine(), time.Since(start).Round(time.Second))
		}
	}
	h.waitFrame(h.s.Version())
	heap1, rss1 := heapBytes(), rssBytes()
	t.Logf("heap %.1f → %.1f MiB, rss %.1f → %.1f MiB (history bound %d MiB), %s", float64(heap0)/(1<<20), float64(heap1)/(1<<20),
		float64(rss0)/(1<<20), float64(rss1)/(1<<20), soakHistory>>20, time.Since(start).Round(time.Second))
	if heap1-heap0 > soakHistory+soakMargin {
		t.Errorf("the heap grew by %.1f MiB over the sitting; the history's bound is %d MiB, the margin %d MiB",
			float64(heap1-heap0)/(1<<20), soakHistory>>20, soakMargin>>20)
	}
	if rss0 > 0 && rss1-rss0 > soakHistory+soakRSS {
		t.Errorf("the resident set grew by %.1f MiB over the sitting; the history's bound is %d MiB, the margin %d MiB",
			float64(rss1-rss0)/(1<<20), soakHistory>>20, soakRSS>>20)
	}
	if n := len(h.s.UndoLabel()); n == 0 {
		t.Error("nothing to undo after the sitting")
	}
	h.s.Close()
	// Every goroutine the session started ends with Close (a notice's emit may be on its way
	// out: wait for the count, yielding, not sleeping).
	deadline := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after Close, %d before the session:\n%s", n, goroutines, buf[:runtime.Stack(buf, true)])
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("the clean close left recovery copies: %v", ents)
	}
}

// TestHistoryBoundFollowsGrowingSteps: a stroke is pushed before the worker records its blocks
// (the history saw it weigh 256 bytes); the bound counts what it weighs by the next push, so a
// fast painter's strokes cannot pile up past it (the soak found the heap growing without end).
func TestHistoryBoundFollowsGrowingSteps(t *testing.T) {
	h := history{limit: 1 << 20}
	var recs []*strokeRec
	for range 100 {
		r := &strokeRec{}
		recs = append(recs, r)
		h.push(&strokeOp{rec: r})
		r.bytes.Store(256 << 10) // the worker reached the stroke's dabs
	}
	h.push(&strokeOp{rec: &strokeRec{}})
	if h.bytes > h.limit {
		t.Errorf("history holds %d bytes over its bound of %d", h.bytes, h.limit)
	}
	if n := len(h.done); n > 5 {
		t.Errorf("%d steps kept of 256 KiB each under a 1 MiB bound", n)
	}
}
