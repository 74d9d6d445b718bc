package world

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// SlurmJob is what EmitSlurm wrote: the script, the binary its tasks run and what each task asks
// the cluster for — what `strata world plan` says, so a user sees the request before the
// cluster's limits judge it.
type SlurmJob struct {
	Path    string // NAME.world/bake.sbatch
	Strata  string // the absolute path of the binary the tasks run, checked by CheckStrata
	Log     string // the tasks' --output pattern (in the world folder)
	Request TaskRequest
}

// Submit is the command that submits the job, quoted for a shell.
func (j *SlurmJob) Submit() string { return "sbatch " + shellQuote(j.Path) }

// TaskRequest is what one array task asks for.
type TaskRequest struct {
	CPUs      int
	MemoryMiB uint64
	Time      time.Duration
	GPU       bool
}

func (r TaskRequest) String() string {
	s := fmt.Sprintf("%d CPU", r.CPUs)
	if r.CPUs != 1 {
		s += "s"
	}
	s += fmt.Sprintf(", %d MiB, time limit %s", r.MemoryMiB, slurmTime(r.Time))
	if r.GPU {
		s += ", 1 GPU"
	}
	return s
}

// secondsPerTexel is a cell task's wall time per weights texel on one core, from measured cell
// bakes (docs/worlds.md, the paper plan: a 2048² cell, 4.2 M texels, 4.9 s on two cores, of which
// 0.9 s is the parallel evaluation and 3.8 s the write on one core: ≈ 1.4 µs a texel on one).
const secondsPerTexel = 1.4e-6

// TaskTime is the default time limit of a cell task: four times the one-core estimate of the
// largest cell (slow nodes, a busy shared file system), at least 15 minutes, rounded up to 5.
func (w *World) TaskTime() time.Duration {
	var worst int64
	for i := range w.CellList {
		worst = max(worst, w.CellList[i].WeightsRect().Texels())
	}
	d := 4 * time.Duration(float64(worst)*secondsPerTexel*float64(time.Second))
	return max(15*time.Minute, (d+5*time.Minute-1)/(5*time.Minute)*(5*time.Minute))
}

// slurmTime writes d as Slurm's days-hours:minutes:seconds, rounded up to a minute.
func slurmTime(d time.Duration) string {
	m := int64((d + time.Minute - 1) / time.Minute)
	return fmt.Sprintf("%d-%02d:%02d:00", m/(24*60), m/60%24, m%60)
}

// goRunBinary matches the temporary executable of `go run` (…/go-build123/b001/exe/strata),
// which the go command deletes as soon as the program exits.
var goRunBinary = regexp.MustCompile(`(^|/)go-build[0-9]+/b[0-9]+/exe/[^/]+$`)

// CheckStrata resolves the strata binary Slurm tasks run: path (default this executable) made
// absolute, and refused unless it is an executable regular file that outlives this process. The
// tasks run it by that path on the cluster's nodes, so it must lie on the shared file system, as
// the world does.
func CheckStrata(path string) (string, error) {
	how := "--strata " + path
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("world: the strata binary for the Slurm script: %w (give --strata /abs/path/strata)", err)
		}
		path, how = exe, "this strata ("+exe+")"
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("world: %s: %w", how, err)
	}
	if goRunBinary.MatchString(filepath.ToSlash(abs)) {
		return "", fmt.Errorf("world: %s is go run's temporary binary, deleted when it exits: build strata (go build -o bin/strata .) and give --strata /abs/path/strata", how)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("world: %s: %s does not exist (a name is not looked up on PATH: give the binary's path)", how, abs)
	case err != nil:
		return "", fmt.Errorf("world: %s: %w", how, err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("world: %s: %s is not a file", how, abs)
	case fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("world: %s: %s is not executable", how, abs)
	}
	return abs, nil
}

// EmitSlurm writes NAME.world/bake.sbatch, a Slurm batch script for an array of one task per
// cell. Task I runs `strata world bake NAME.world --cell I` with I its SLURM_ARRAY_TASK_ID, passed
// explicitly: sbatch exports the submitting shell's environment to the tasks, so an index
// variable left there (JOB_COMPLETION_INDEX) must not choose the cell. Each task sets GOMAXPROCS to
// its --cpus-per-task and logs to NAME.world/slurm-JOB_TASK.log: the world folder exists whenever
// the world does, and Slurm opens --output before the script runs, so a log folder the script
// made would be too late. Paths are absolute, quoted for sbatch's directives and for bash: the
// nodes see the world on a shared file system at the same path.
func (w *World) EmitSlurm(o EmitOptions) (*SlurmJob, error) {
	o.defaults()
	dir, err := filepath.Abs(w.Dir)
	if err != nil {
		return nil, err
	}
	// Every value written into the script is checked for control characters first
	// (emitcheck.go), then quoted where it is written.
	if err := CheckEmit(dir, o, "slurm"); err != nil {
		return nil, err
	}
	strata, err := CheckStrata(o.Strata)
	if err != nil {
		return nil, err
	}
	if err := CheckJobText("the strata binary", strata); err != nil {
		return nil, err
	}
	job := &SlurmJob{Path: filepath.Join(dir, SlurmFile), Strata: strata, Log: filepath.Join(dir, "slurm-%A_%a.log"),
		Request: TaskRequest{CPUs: o.CPUs, MemoryMiB: w.memoryMiB(), Time: o.Time, GPU: o.GPU}}
	if job.Request.Time <= 0 {
		job.Request.Time = w.TaskTime()
	}
	array := fmt.Sprintf("0-%d", len(w.CellList)-1)
	if o.Parallel > 0 {
		array += fmt.Sprintf("%%%d", o.Parallel)
	}
	directives := [][2]string{
		{"job-name", w.jobName()},
		{"array", array},
		{"cpus-per-task", fmt.Sprint(o.CPUs)},
		{"mem", fmt.Sprintf("%dM", job.Request.MemoryMiB)},
		{"time", slurmTime(job.Request.Time)},
		{"output", job.Log},
	}
	if o.GPU {
		directives = append(directives, [2]string{"gres", "gpu:1"})
	}
	root, err := w.sourceRoot()
	if err != nil {
		return nil, err
	}
	if err := CheckJobText("the folder holding the world's sources", root); err != nil {
		return nil, err
	}
	args := bakeArgs(strata, dir, root, o.GPU) // strata world bake DIR [--cpu] --root ROOT
	var cmd []string
	for _, a := range args[:4] {
		cmd = append(cmd, shellQuote(a))
	}
	cmd = append(cmd, "--cell", `"$cell"`)
	for _, a := range args[4:] {
		cmd = append(cmd, shellQuote(a))
	}
	script, sq := &strings.Builder{}, shellQuote(job.Path)
	fmt.Fprintf(script, `#!/bin/bash
# Strata world bake: %d cells of %s, one Slurm array task per cell.
# Task I runs "strata world bake %s --cell I", I = SLURM_ARRAY_TASK_ID.
# Each task asks for %s. Options given to sbatch override the
# directives below, e.g. more cores and a longer limit: sbatch -c 8 --time=2:00:00 %s
# Submit and follow:
#   sbatch %s
#   squeue --me
#   strata world status %s
# Re-run cells that failed or were killed (a cell bake is atomic and idempotent):
#   sbatch --array=3,5 %s
# Logs: %s
`, len(w.CellList), filepath.Base(dir), shellQuote(dir), job.Request, sq, sq, shellQuote(dir), sq, shellQuote(job.Log))
	for _, d := range directives {
		fmt.Fprintf(script, "#SBATCH --%s=%s\n", d[0], sbatchQuote(d[1]))
	}
	fmt.Fprintf(script, `set -euo pipefail
# The cell is this task's own index, passed explicitly; an index variable exported by the shell
# that ran sbatch (JOB_COMPLETION_INDEX) is dropped, and strata world bake refuses sources that
# disagree.
cell=${SLURM_ARRAY_TASK_ID:?run this script with sbatch: it is one task of a Slurm array}
unset JOB_COMPLETION_INDEX
# Go runs on the cores Slurm gave the task, not on every core of the node.
export GOMAXPROCS=${SLURM_CPUS_PER_TASK:-1}
echo "strata world bake: task $cell of job ${SLURM_ARRAY_JOB_ID:-} on $(hostname), GOMAXPROCS=$GOMAXPROCS" >&2
exec %s
`, strings.Join(cmd, " "))
	return job, writeFile(job.Path, script.String(), 0o755)
}

// sbatchQuote quotes a directive's value for sbatch when it holds anything but safe characters:
// sbatch reads a directive's argument up to white space or '#', with double quotes grouping and a
// backslash escaping the next character (Slurm 22.05, src/sbatch/opt.c); single quotes are
// ordinary characters there.
func sbatchQuote(s string) string {
	if isSafe(s) {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// shellQuote quotes s for bash when it holds anything but safe characters.
func shellQuote(s string) string {
	if isSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isSafe is whether s needs no quoting for bash nor sbatch.
func isSafe(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			return false
		}
	}
	return s != ""
}
