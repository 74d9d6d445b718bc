package progress

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestBarManyStages: thousands of stages (a procgen graph's nodes, issue 18) keep a terminal
// redraw to the last few: finished stages above them are drawn once more and settle, so the
// output grows with the stages, not with their square, and every stage's final line is there.
func TestBarManyStages(t *testing.T) {
	var buf bytes.Buffer
	b, c := newTestBar(&buf, true)
	const n = 2000
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("mask m%d", i)
		b.Update(name, 0, 1)
		b.Update(name, 1, 1)
		c.add(1)
	}
	b.Finish()
	if len(b.stages) != 0 {
		t.Errorf("%d stages left after Finish", len(b.stages))
	}
	// Each update redraws at most maxLive+1 stages: 2n updates of ≤ 17 lines, not n²/2.
	lines := strings.Count(buf.String(), "\n")
	if lines > 2*n*(maxLive+1)+maxLive {
		t.Errorf("%d lines drawn for %d stages", lines, n)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		if !strings.Contains(buf.String(), fmt.Sprintf("mask m%d ", i)) {
			t.Errorf("stage %d never drawn", i)
		}
	}
}
