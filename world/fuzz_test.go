package world

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzPlanFile drives the world plan file's parser (decodePlan, what Open reads world.yaml with)
// with any bytes — the seed corpus in testdata/fuzz/FuzzPlanFile holds plans as strata world plan
// writes them and the hostile edits of issue 18. It must not panic (decodePlan's recover would
// say "unreadable YAML"), its error is one line of bounded length, and a plan it accepts has
// clean source paths, at most MaxCells cells, and reads back the same after a write.
func FuzzPlanFile(f *testing.F) {
	f.Add([]byte("version: 1\nspacing: declared\nsample: dunes\ncellList: []\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		const file = "w.world/world.yaml"
		w, err := decodePlan("w.world", file, b)
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "unreadable YAML (") {
				t.Fatalf("the parser panicked: %v", err)
			}
			if strings.ContainsAny(msg, "\n\r") || len(msg) > len("world: ")+len(file)+2+maxPlanMessage+64 {
				t.Fatalf("a message of %d bytes or lines: %.300q", len(msg), msg)
			}
			return
		}
		if len(w.CellList) > MaxCells || len(w.CellList) != w.Cells[0]*w.Cells[1] {
			t.Fatalf("accepted %v cells with %d in the list", w.Cells, len(w.CellList))
		}
		for _, s := range w.sourcePaths() {
			if err := checkSourcePath(s.rel); err != nil {
				t.Fatalf("accepted %s %q: %v", s.field, s.rel, err)
			}
		}
		out, err := yaml.Marshal(&w.Spec)
		if err != nil {
			t.Fatalf("an accepted plan does not marshal: %v", err)
		}
		w2, err := decodePlan("w.world", file, out)
		if err != nil {
			t.Fatalf("an accepted plan, written, is refused: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(w.Spec, w2.Spec) {
			t.Fatalf("written and read back, the plan changed:\n%+v\n%+v", w.Spec, w2.Spec)
		}
	})
}
