package erode

import (
	"context"
	"runtime"
	"testing"
)

// An iteration allocates nothing that grows with the grid (planes, row states, the thermal
// step's constants are made once): what it allocates — the worker pool's goroutines and the
// closures its passes hand them — is the same on a 48×48 grid and on one of 1536 rows, and a
// few KiB at most; so is a settle step's. (A row state made per step would be 3 KiB more on the
// tall grid.)
func TestIterationAllocations(t *testing.T) {
	perIteration := func(w, h int, settle bool) (allocs, bytes float64) {
		p := mustPreset(t, "default")
		s := newSim(hills(w, h), 1, 1, Options{Params: p, Seed: 1, Workers: 2})
		ctx := context.Background()
		rs := newRowState(s.h)
		st := s.talusStep(p.Talus, p.SettleTolerance, settleRate)
		it := 0
		step := func() {
			if settle {
				if _, err := s.thermalRows(ctx, &st, nil, s.db, s.db, &rs); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err := s.iterate(ctx, it); err != nil {
				t.Fatal(err)
			}
			it++
		}
		step()
		step()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		const runs = 20
		for range runs {
			step()
		}
		runtime.ReadMemStats(&m1)
		return float64(m1.Mallocs-m0.Mallocs) / runs, float64(m1.TotalAlloc-m0.TotalAlloc) / runs
	}
	for _, settle := range []bool{false, true} {
		a1, b1 := perIteration(48, 48, settle)
		a2, b2 := perIteration(24, 1536, settle)
		t.Logf("settle %v: 48×48: %.1f allocations, %.0f bytes; 24×1536: %.1f allocations, %.0f bytes", settle, a1, b1, a2, b2)
		if b2 > 4096 || b2 > b1+1024 || a2 > a1+4 {
			t.Errorf("settle %v: a step allocates %.0f bytes (%.1f allocations) on 24×1536, %.0f (%.1f) on 48×48: want a few KiB at most, not growing with the grid", settle, b2, a2, b1, a1)
		}
	}
}
