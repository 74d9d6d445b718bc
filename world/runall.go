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

// Environment variables an array task's index is read from, in this order.
var IndexEnv = []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"}

// CellFromEnv is the cell an array task bakes when `strata world bake` is given no --cell: the
// first of IndexEnv that is set. ok is false when none is.
func CellFromEnv() (cell int, name string, ok bool, err error) {
	for _, name := range IndexEnv {
		v, set := os.LookupEnv(name)
		if !set {
			continue
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 {
			return 0, name, true, fmt.Errorf("world: %s=%q is not a cell index", name, v)
		}
		return i, name, true, nil
	}
	return 0, "", false, nil
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
