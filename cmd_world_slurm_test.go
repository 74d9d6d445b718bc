package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/internal/worldtest"
	"strata/terraindata"
	"strata/world"
)

// The cluster tier: `make test-cluster` starts a single-node Slurm (scripts/slurm-up.sh) and runs
// this test with STRATA_SLURM=1; without it the test skips, so `make test` never needs Slurm.
const slurmEnv = "STRATA_SLURM"

// slurmTimeout bounds each wait for an array to finish.
const slurmTimeout = 5 * time.Minute

// TestSlurmCluster submits the emitted bake.sbatch, unmodified, to a real Slurm as a new user
// would get it wrong: a 3×2 world of the DEM in a folder whose path holds a space, the binary in
// one too, from a shell carrying JOB_COMPLETION_INDEX=0 and GOMAXPROCS=7. Task 4 is held at its
// save (the test holds the cell's lock) and SIGKILLed; the others finish. Then, as docs/worlds.md
// says, `sbatch --array=4 bake.sbatch` re-runs the killed cell, and the world must be whole:
// `strata world status` exits 0, `strata world validate` exits 0, and the cells equal one whole
// bake (controls and heights byte for byte, densities, the instances' union).
func TestSlurmCluster(t *testing.T) {
	if os.Getenv(slurmEnv) != "1" {
		t.Skipf("the cluster tier: make test-cluster (%s=1 with a Slurm up, scripts/slurm-up.sh)", slurmEnv)
	}
	for _, c := range []string{"sbatch", "squeue", "scontrol", "scancel", "sinfo"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Fatalf("%s=1 but %s is missing: run scripts/slurm-up.sh", slurmEnv, c)
		}
	}
	start := time.Now()
	step := func(what string, since time.Time) { t.Logf("%-44s %6.2fs", what, time.Since(since).Seconds()) }
	dir, src := demWorld(t)
	space := filepath.Join(dir, "my worlds")
	strata := filepath.Join(space, "bin dir", "strata")
	installStrata(t, strata)
	wd := filepath.Join(space, "dem.world")
	strataRun := func(args ...string) (string, error) {
		out, err := exec.Command(strata, args...).CombinedOutput()
		return string(out), err
	}

	t0 := time.Now()
	if out, err := strataRun(append([]string{"world", "plan", "--cells", "3x2", "--out", wd, "--cpu", "--emit", "slurm", "--strata", strata}, src...)...); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	} else {
		t.Logf("plan:\n%s", out)
	}
	step("plan (measured spacing)", t0)
	script := filepath.Join(wd, world.SlurmFile)
	w, err := world.Open(wd)
	if err != nil {
		t.Fatal(err)
	}
	cell4, _ := w.Cell(4)
	unlock := holdLock(t, terraindata.LockPath(cell4))
	defer unlock()

	// The submitter's shell: an index and a GOMAXPROCS left in it.
	submitEnv := append(os.Environ(), "JOB_COMPLETION_INDEX=0", "GOMAXPROCS=7")
	sbatch := func(args ...string) string {
		cmd := exec.Command("sbatch", append(append([]string{"--parsable"}, args...), script)...)
		cmd.Env = submitEnv
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch %v %s: %v\n%s", args, script, err, out)
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
		return id
	}
	t0 = time.Now()
	job := sbatch()
	t.Logf("submitted job %s: sbatch %q", job, script)

	// Task 4 runs and waits for the cell's lock at its save; the other five finish.
	waitFor(t, fmt.Sprintf("job %s: five tasks done, task 4 running", job), func() bool {
		st := slurmStates(t, job)
		done := 0
		for i, s := range st {
			if i != "4" && s == "COMPLETED" {
				done++
			}
		}
		return done == 5 && st["4"] == "RUNNING"
	})
	// It has read, evaluated and placed, and waits for the lock its save takes first.
	killedLog := filepath.Join(wd, fmt.Sprintf("slurm-%s_4.log", job))
	waitFor(t, "task 4 at its save", func() bool {
		b, _ := os.ReadFile(killedLog)
		return strings.Contains(string(b), "place: 100%")
	})
	time.Sleep(300 * time.Millisecond)
	step("five tasks baked, task 4 held at its save", t0)
	t0 = time.Now()
	if out, err := exec.Command("scancel", "--batch", "--signal=KILL", job+"_4").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v\n%s", err, out)
	}
	waitFor(t, "job "+job+" over", func() bool { return slurmOver(slurmStates(t, job)) })
	st := slurmStates(t, job)
	step(fmt.Sprintf("task 4 killed (%s)", st["4"]), t0)
	unlock()
	for i, s := range st {
		if i != "4" && s != "COMPLETED" || i == "4" && s == "COMPLETED" {
			t.Fatalf("job %s after the kill: %v", job, st)
		}
	}
	out, err := strataRun("world", "status", wd)
	if err == nil || !strings.Contains(out, "5 baked, 1 missing, 0 stale") || !strings.Contains(out, "4  x1_z1.terrainData        missing") {
		t.Fatalf("status after the kill: %v\n%s", err, out)
	}

	// The retry, as the script and docs/worlds.md say: sbatch --array=4 bake.sbatch.
	t0 = time.Now()
	retry := sbatch("--array=4")
	waitFor(t, "job "+retry+" over", func() bool { return slurmOver(slurmStates(t, retry)) })
	if st := slurmStates(t, retry); st["4"] != "COMPLETED" {
		t.Fatalf("retry job %s: %v", retry, st)
	}
	step("task 4 retried (sbatch --array=4)", t0)

	t0 = time.Now()
	out, err = strataRun("world", "status", wd)
	if err != nil || !strings.Contains(out, "6 baked, 0 missing, 0 stale") {
		t.Fatalf("status: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	if out, err = strataRun("world", "validate", wd); err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	whole := filepath.Join(dir, "whole.terrainData")
	if out, err := strataRun(append([]string{"bake", "--cpu", "--out", whole}, src...)...); err != nil {
		t.Fatalf("whole bake: %v\n%s", err, out)
	}
	if w, err = world.Open(wd); err != nil {
		t.Fatal(err)
	}
	n, err := worldtest.SameAsWhole(w, whole)
	if err != nil {
		t.Fatal(err)
	}
	step(fmt.Sprintf("status, validate, whole bake compared (%d instances)", n), t0)

	// Every task logged beside the world, baked its own cell, on the cores it was given.
	for i := range 6 {
		id := job
		if i == 4 {
			id = retry
		}
		log := filepath.Join(wd, fmt.Sprintf("slurm-%s_%d.log", id, i))
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("task %d's log: %v", i, err)
		}
		for _, want := range []string{fmt.Sprintf("cell %d from --cell and SLURM_ARRAY_TASK_ID", i), "GOMAXPROCS=1", fmt.Sprintf("baked cell %d:", i)} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s: no %q:\n%s", log, want, b)
			}
		}
	}
	if b, err := os.ReadFile(killedLog); err != nil || strings.Contains(string(b), "baked cell") {
		t.Errorf("the killed task's log: %v\n%s", err, b)
	} else {
		t.Logf("the killed task's log ends:\n%s", tail(string(b), 6))
	}
	step("the cluster tier, in all", start)
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// installStrata puts a strata binary at path: a copy of $STRATA_BIN (make test-cluster builds
// bin/strata), else one built now.
func installStrata(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if bin := os.Getenv("STRATA_BIN"); bin != "" {
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatalf("STRATA_BIN: %v", err)
		}
		if err := os.WriteFile(path, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return
	}
	if out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

// holdLock takes the cell's lock file exclusively, as a save does; the returned function
// releases it (once).
func holdLock(t *testing.T, path string) func() {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() {
		if f != nil {
			f.Close()
			f = nil
		}
	}
}

var slurmTask = regexp.MustCompile(`ArrayTaskId=(\S+) .*JobState=(\S+)`)

// slurmStates is each array task's JobState (`scontrol show job -o`; Slurm keeps a finished
// job MinJobAge seconds, 600 in scripts/slurm-up.sh's configuration). Pending tasks still in one
// record are keyed by their range ("0-5").
func slurmStates(t *testing.T, job string) map[string]string {
	t.Helper()
	out, err := exec.Command("scontrol", "show", "job", "-o", job).CombinedOutput()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v\n%s", job, err, out)
	}
	st := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if m := slurmTask.FindStringSubmatch(line); m != nil {
			st[m[1]] = m[2]
		}
	}
	return st
}

// slurmOver is whether no task is pending, starting, running or finishing.
func slurmOver(st map[string]string) bool {
	for _, s := range st {
		switch s {
		case "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED":
			return false
		}
	}
	return len(st) > 0
}

// waitFor polls cond every 100 ms until it holds or slurmTimeout passes, then shows the queue.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), slurmTimeout)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			q, _ := exec.Command("squeue", "-a", "-l").CombinedOutput()
			t.Fatalf("%s: not within %v; the queue:\n%s", what, slurmTimeout, q)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
