package world

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"strata/progress"
)

// IndexEnv are the environment variables an array task's index arrives in: Kubernetes's Indexed
// Job sets JOB_COMPLETION_INDEX, a Slurm array SLURM_ARRAY_TASK_ID.
var IndexEnv = []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"}

// CellIndex is the cell `strata world bake` (without --all) bakes: flag when given (--cell), else
// the index in the environment (IndexEnv). Every source present must name the same cell, or
// none is used: sbatch exports the submitting shell's environment to its tasks, so a
// JOB_COMPLETION_INDEX=0 left there once made every task of a Slurm array bake cell 0, each
// exiting 0, the other cells missing. from names the sources ("--cell", "SLURM_ARRAY_TASK_ID",
// joined by " and " when several agree); ok is false when there is none.
func CellIndex(flag int, flagGiven bool) (cell int, from string, ok bool, err error) {
	type source struct {
		name string
		i    int
	}
	var found []source
	if flagGiven {
		found = append(found, source{"--cell", flag})
	}
	for _, name := range IndexEnv {
		v, set := os.LookupEnv(name)
		if !set {
			continue
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 {
			return 0, name, true, fmt.Errorf("world: %s=%q is not a cell index", name, v)
		}
		found = append(found, source{name, i})
	}
	if len(found) == 0 {
		return 0, "", false, nil
	}
	var names []string
	for _, s := range found {
		if s.i != found[0].i {
			return 0, "", true, fmt.Errorf("world: two sources of the cell disagree: %s (an index left in the environment? a Slurm task's is SLURM_ARRAY_TASK_ID, a Kubernetes pod's JOB_COMPLETION_INDEX): unset the other",
				describe(found[0].name, found[0].i)+" but "+describe(s.name, s.i))
		}
		names = append(names, s.name)
	}
	return found[0].i, strings.Join(names, " and "), true, nil
}

// describe writes an index source as the user gave it: --cell 3, SLURM_ARRAY_TASK_ID=3.
func describe(name string, i int) string {
	if strings.HasPrefix(name, "-") {
		return fmt.Sprintf("%s %d", name, i)
	}
	return fmt.Sprintf("%s=%d", name, i)
}

// RunOptions say how RunAll runs the cells.
type RunOptions struct {
	// Exe is the strata binary each cell runs as (the running one: os.Executable).
	Exe string
	// Jobs is how many cells run at once (default 1); each gets GOMAXPROCS = cores / Jobs.
	Jobs int
	// Args are passed to every cell's `strata world bake` after --cell (--cpu).
	Args []string
	// Log receives one line per finished cell.
	Log io.Writer
	// Progress receives ("cells", done, total).
	Progress progress.Func
}

// RunAll bakes every cell as a separate local process, Jobs at a time, each through the same
// entry point an array task uses (`strata world bake NAME.world --cell I`): the one-machine array
// job. Every cell runs even when another fails; the error lists the failed cells, each with the
// end of its output. A cancelled context kills the running cells (their saves are atomic).
func (w *World) RunAll(ctx context.Context, o RunOptions) error {
	if o.Exe == "" {
		return errors.New("world: no strata binary to run the cells with")
	}
	cells := make([]int, len(w.CellList))
	for i := range cells {
		cells[i] = i
	}
	jobs := max(o.Jobs, 1)
	report := o.Progress
	if report == nil {
		report = progress.Nop
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	procs := strconv.Itoa(max(runtime.NumCPU()/jobs, 1))
	var mu sync.Mutex
	var failed []string
	done := 0
	report("cells", 0, len(cells))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(cells)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				args := append([]string{"world", "bake", w.Dir, "--cell", strconv.Itoa(i)}, o.Args...)
				cmd := exec.CommandContext(ctx, o.Exe, args...)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				env := []string{"GOMAXPROCS=" + procs}
				for _, kv := range os.Environ() { // the cell comes from --cell, never the environment
					if k, _, _ := strings.Cut(kv, "="); k != "GOMAXPROCS" && !isIndexEnv(k) {
						env = append(env, kv)
					}
				}
				cmd.Env = env
				err := cmd.Run()
				mu.Lock()
				done++
				path, _ := w.Cell(i)
				if err != nil {
					failed = append(failed, fmt.Sprintf("cell %d (%s): %v\n%s", i, path, err, tail(out.String(), 2000)))
					fmt.Fprintf(logw, "cell %d failed (%s): %v\n", i, path, err)
				} else {
					fmt.Fprintf(logw, "cell %d baked in %.1fs: %s\n", i, time.Since(t0).Seconds(), path)
				}
				report("cells", done, len(cells))
				mu.Unlock()
			}
		}()
	}
	for _, i := range cells {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("world: %w", err)
	}
	if len(failed) > 0 {
		return fmt.Errorf("world: %d of %d cells failed:\n%s", len(failed), len(cells), strings.Join(failed, "\n"))
	}
	return nil
}

func isIndexEnv(k string) bool {
	for _, n := range IndexEnv {
		if k == n {
			return true
		}
	}
	return false
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
