package world_test

import (
	"os"
	"strings"
	"testing"

	"strata/world"
)

// The cell of an array task: --cell, JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID — any of them, as
// long as every one present names the same cell.
func TestCellIndex(t *testing.T) {
	for _, tc := range []struct {
		name      string
		flag      int // -1: no --cell
		job, slur string
		cell      int
		from, err string
	}{
		{name: "nothing", flag: -1},
		{name: "flag", flag: 3, cell: 3, from: "--cell"},
		{name: "kubernetes", flag: -1, job: "2", cell: 2, from: "JOB_COMPLETION_INDEX"},
		{name: "slurm", flag: -1, slur: "5", cell: 5, from: "SLURM_ARRAY_TASK_ID"},
		{name: "all agree", flag: 4, job: "4", slur: "4", cell: 4, from: "--cell and JOB_COMPLETION_INDEX and SLURM_ARRAY_TASK_ID"},
		// The bug: a submitter's JOB_COMPLETION_INDEX=0 exported into every Slurm task.
		{name: "environments disagree", flag: -1, job: "0", slur: "3", err: "JOB_COMPLETION_INDEX=0 but SLURM_ARRAY_TASK_ID=3"},
		{name: "flag and environment disagree", flag: 2, job: "0", err: "--cell 2 but JOB_COMPLETION_INDEX=0"},
		{name: "not a number", flag: -1, slur: "x", err: `SLURM_ARRAY_TASK_ID="x" is not a cell index`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, v := range map[string]string{"JOB_COMPLETION_INDEX": tc.job, "SLURM_ARRAY_TASK_ID": tc.slur} {
				t.Setenv(name, v)
				if v == "" {
					os.Unsetenv(name)
				}
			}
			cell, from, ok, err := world.CellIndex(tc.flag, tc.flag >= 0)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("got cell %d from %s, %v; want an error with %q", cell, from, err, tc.err)
				}
			case err != nil || cell != tc.cell || from != tc.from || ok != (tc.from != ""):
				t.Errorf("got cell %d from %q (ok %v), %v; want %d from %q", cell, from, ok, err, tc.cell, tc.from)
			}
		})
	}
}
