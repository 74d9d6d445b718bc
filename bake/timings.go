package bake

import (
	"fmt"
	"sync"
	"time"
)

// Timings accumulates the wall time a bake spends in each phase, in the order the phases first
// appear: the breakdown `strata bench bake` prints and docs/PERFORMANCE.md records. A nil
// *Timings records nothing, so the bake's code times itself unconditionally.
type Timings struct {
	mu     sync.Mutex
	phases []Phase
	notes  []string
}

// Phase is one line of a breakdown.
type Phase struct {
	Name string
	D    time.Duration
}

// Add adds d to phase.
func (t *Timings) Add(phase string, d time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.phases {
		if t.phases[i].Name == phase {
			t.phases[i].D += d
			return
		}
	}
	t.phases = append(t.phases, Phase{phase, d})
}

// Since adds the time since t0 to phase and returns now, for timing consecutive steps.
func (t *Timings) Since(phase string, t0 time.Time) time.Time {
	now := time.Now()
	t.Add(phase, now.Sub(t0))
	return now
}

// Phases returns the breakdown so far.
func (t *Timings) Phases() []Phase {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Phase(nil), t.phases...)
}

// Note records a line about how the bake ran (its bands, the device's limits) for the report.
func (t *Timings) Note(format string, a ...any) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes = append(t.notes, fmt.Sprintf(format, a...))
}

// Notes returns the lines Note recorded.
func (t *Timings) Notes() []string {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.notes...)
}
