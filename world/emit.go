package world

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"strata/internal/safeio"
)

// Batch engines run a world's cells as an array job: one task per cell, each running
// `strata world bake NAME.world` with the array index read from the environment
// (JOB_COMPLETION_INDEX on Kubernetes, SLURM_ARRAY_TASK_ID on Slurm). Strata writes the job
// files; the engine schedules, retries and reports. docs/worlds.md shows how to submit them.

// Files the emitters write into the world folder.
const (
	K8sFile   = "bake-job.yaml"
	SlurmFile = "bake.sbatch"
)

// EmitOptions say how the job files run a cell.
type EmitOptions struct {
	// Image is the container image with strata on its PATH (Kubernetes); default "strata:latest".
	Image string
	// Claim is the PersistentVolumeClaim holding the world and its sources (Kubernetes); default
	// "strata-world".
	Claim string
	// Mount is where pods mount the claim; default "/data".
	Mount string
	// VolumeRoot is the local folder that is the claim's root (the world and every source must be
	// inside it); default the world folder's parent.
	VolumeRoot string
	// Parallel caps the cells running at once (0: all).
	Parallel int
	// CPUs is the CPU cores each task asks for; default 1, which every node has: a request larger
	// than any node's is accepted by Slurm and then pends forever (reason PartitionConfig). More
	// cores speed up a cell's evaluation, not its write (docs/worlds.md, the paper plan).
	CPUs int
	// Time is each Slurm task's time limit; default TaskTime's estimate.
	Time time.Duration
	// GPU asks one GPU per task; without it the tasks bake with the Go reference (--cpu).
	GPU bool
	// Strata is the strata binary the Slurm script runs (on the shared file system); default
	// this executable. CheckStrata resolves and checks it.
	Strata string
}

// k8sRetries is how often Kubernetes retries a failed cell (backoffLimitPerIndex).
const k8sRetries = 3

func (o *EmitOptions) defaults() {
	if o.Image == "" {
		o.Image = "strata:latest"
	}
	if o.Claim == "" {
		o.Claim = "strata-world"
	}
	if o.Mount == "" {
		o.Mount = "/data"
	}
	if o.CPUs <= 0 {
		o.CPUs = 1
	}
}

// jobName is a Kubernetes/Slurm-friendly name from the world folder: lower-case letters, digits
// and '-'.
func (w *World) jobName() string {
	base := strings.TrimSuffix(filepath.Base(filepath.Clean(w.Dir)), ".world")
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, base)
	name = strings.Trim(name, "-")
	if len(name) > 40 {
		name = name[:40]
	}
	return "strata-" + strings.Trim(name, "-") + "-bake"
}

// bakeArgs is the command a task runs, for a world folder at dir whose sources lie inside root.
func bakeArgs(strata, dir, root string, gpu bool) []string {
	args := []string{strata, "world", "bake", dir}
	if !gpu {
		args = append(args, "--cpu")
	}
	return append(args, "--root", root)
}

// memoryMiB is a task's memory request in MiB.
func (w *World) memoryMiB() uint64 { return (w.memoryPerCell() + 1<<20 - 1) >> 20 }

// EmitK8s writes NAME.world/bake-job.yaml, a Kubernetes Indexed Job with one completion per cell
// (completionMode: Indexed; the index arrives as JOB_COMPLETION_INDEX), its pods mounting the
// claim that holds the world and its sources. It refuses a source outside VolumeRoot: a pod
// could not read it.
func (w *World) EmitK8s(o EmitOptions) (string, error) {
	if err := CheckEmit(w.Dir, o, "k8s"); err != nil {
		return "", err
	}
	o.defaults()
	podDir, err := w.podPath(&o)
	if err != nil {
		return "", err
	}
	if err := CheckJobText("the world's path in the pod", podDir); err != nil {
		return "", err
	}
	jobFile := filepath.Join(w.Dir, K8sFile)
	parallel := len(w.CellList)
	if o.Parallel > 0 {
		parallel = min(o.Parallel, parallel)
	}
	q := strconv.Quote
	var cmd []string
	for _, a := range bakeArgs("strata", podDir, o.Mount, o.GPU) {
		cmd = append(cmd, q(a))
	}
	gpu := ""
	if o.GPU {
		gpu = "\n              nvidia.com/gpu: 1"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# Strata world bake: %d cells of %s, one pod per cell (an Indexed Job).
# Each pod runs: strata world bake %s (the cell from JOB_COMPLETION_INDEX).
# The claim %s must hold the world folder and its sources at the same relative paths
# (mounted at %s). Submit and follow:
#   kubectl apply -f %s
#   kubectl get job %s -w
#   strata world status %s
# A failed cell is retried up to %d times (backoffLimitPerIndex, Kubernetes 1.29 and later);
# a cell bake is atomic and idempotent, so a retried or duplicated pod is harmless.
apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  labels:
    app.kubernetes.io/name: strata
    app.kubernetes.io/component: world-bake
spec:
  completionMode: Indexed
  completions: %d
  parallelism: %d
  backoffLimitPerIndex: %d
  template:
    metadata:
      labels:
        app.kubernetes.io/name: strata
        app.kubernetes.io/component: world-bake
    spec:
      restartPolicy: Never
      containers:
        - name: bake
          image: %s
          command: [%s]
          resources:
            requests:
              cpu: %q
              memory: %dMi
            limits:
              memory: %dMi%s
          volumeMounts:
            - name: world
              mountPath: %s
      volumes:
        - name: world
          persistentVolumeClaim:
            claimName: %s
`, len(w.CellList), filepath.Base(w.Dir), shellQuote(podDir), o.Claim, shellQuote(o.Mount), ShellArg(jobFile), w.jobName(), shellQuote(podDir), k8sRetries,
		w.jobName(), len(w.CellList), parallel, k8sRetries, q(o.Image), strings.Join(cmd, ", "),
		strconv.Itoa(o.CPUs), w.memoryMiB(), w.memoryMiB(), gpu, q(o.Mount), q(o.Claim))
	return jobFile, writeFile(jobFile, b.String(), 0o644)
}

// podPath is the world folder's path inside a pod: Mount joined with its path below VolumeRoot.
// Every source must be below VolumeRoot too.
func (w *World) podPath(o *EmitOptions) (string, error) {
	root := o.VolumeRoot
	if root == "" {
		root = filepath.Dir(filepath.Clean(w.Dir))
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	inside := func(p string) (string, error) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", fmt.Errorf("world: %s is outside the shared volume's root %s (--volume-root): a pod cannot read it", p, root)
		}
		return rel, nil
	}
	rel, err := inside(w.Dir)
	if err != nil {
		return "", err
	}
	for _, s := range w.sourcePaths() {
		if _, err := inside(w.Abs(s.rel)); err != nil {
			return "", err
		}
	}
	return filepath.ToSlash(filepath.Join(o.Mount, rel)), nil
}

// writeFile writes s to path atomically with the given mode.
func writeFile(path, s string, mode os.FileMode) error {
	f, err := safeio.Create(path)
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	defer f.Abort()
	if _, err := f.WriteString(s); err != nil {
		return fmt.Errorf("world: writing %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("world: %w", err)
	}
	return os.Chmod(path, mode)
}
