package world_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"strata/world"
)

// planDeclared plans the DEM's 3×2 world at dir/NAME (no density pass).
func planDeclared(t *testing.T, dir, name string) *world.World {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := world.Plan(context.Background(), world.PlanOptions{Sources: demSources(t, dir), Cells: [2]int{3, 2},
		Out: filepath.Join(dir, name), Spacing: world.SpacingDeclared, Options: world.Options{CPU: true}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// fakeStrata writes an executable at path that prints its arguments one a line, then the index
// and GOMAXPROCS variables it sees: what a Slurm task would run, without baking.
func fakeStrata(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/bash\nprintf 'arg:%s\\n' \"$@\"\n" +
		"echo \"JOB_COMPLETION_INDEX=${JOB_COMPLETION_INDEX-unset} GOMAXPROCS=${GOMAXPROCS-unset}\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// sbatchDirectives reads a script's #SBATCH lines as sbatch 22.05 does (src/sbatch/opt.c,
// _get_argument): the argument runs to white space or '#', double quotes group, a backslash takes
// the next character as it is, single quotes are ordinary. It stops at the first line that is
// neither a comment nor blank, as sbatch does.
func sbatchDirectives(t *testing.T, script string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(script, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			break
		}
		rest, ok := strings.CutPrefix(line, "#SBATCH ")
		if !ok {
			continue
		}
		var arg []rune
		quoted, escaped := false, false
		rs := []rune(rest)
		i := 0
		for ; i < len(rs); i++ {
			r := rs[i]
			switch {
			case escaped:
				arg, escaped = append(arg, r), false
			case r == '\\':
				escaped = true
			case r == '"':
				quoted = !quoted
			case !quoted && (r == ' ' || r == '\t' || r == '#'):
				goto done
			default:
				arg = append(arg, r)
			}
		}
	done:
		if quoted || strings.TrimSpace(string(rs[i:])) != "" {
			t.Errorf("#SBATCH %s: sbatch would find more than one argument (or an open quote)", rest)
		}
		k, v, _ := strings.Cut(strings.TrimPrefix(string(arg), "--"), "=")
		out[k] = v
	}
	return out
}

// The emitted script, for a world and a binary whose paths hold a space and a quote: every
// directive reads back as the intended value under sbatch's rules, bash -n passes, and run as
// task 4 from a shell carrying JOB_COMPLETION_INDEX=0 and GOMAXPROCS=7 it runs exactly
// `strata world bake WORLD --cell 4 --cpu`, without JOB_COMPLETION_INDEX, with GOMAXPROCS from
// SLURM_CPUS_PER_TASK. The requests: 1 CPU by default, the memory estimate, a time limit.
func TestEmitSlurmScript(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my worlds", `it's "here"`)
	w := planDeclared(t, dir, "w.world")
	bin := filepath.Join(dir, "bin dir", "strata")
	fakeStrata(t, bin)
	job, err := w.EmitSlurm(world.EmitOptions{Strata: bin, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(job.Path)
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	wd := filepath.Join(dir, "w.world")
	d := sbatchDirectives(t, script)
	want := map[string]string{
		"job-name":      "strata-w-bake",
		"array":         "0-5%2",
		"cpus-per-task": "1",
		"mem":           "129M",
		"time":          "0-00:15:00",
		"output":        filepath.Join(wd, "slurm-%A_%a.log"),
	}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("#SBATCH --%s: sbatch reads %q, want %q", k, d[k], v)
		}
	}
	if len(d) != len(want) {
		t.Errorf("directives %v, want %v", d, want)
	}
	if job.Strata != bin || job.Request.CPUs != 1 || job.Request.Time != 15*time.Minute || job.Request.MemoryMiB != 129 {
		t.Errorf("job %+v", job)
	}
	if out, err := exec.Command("bash", "-n", job.Path).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	// Every command the script's comments show, run through bash, names the real paths.
	for _, c := range []string{"sbatch ", "sbatch --array=3,5 ", "strata world status "} {
		i := strings.Index(script, "#   "+c)
		if i < 0 {
			t.Fatalf("no %q in the script", c)
		}
		line := script[i+4+len(c):]
		line = line[:strings.IndexByte(line, '\n')]
		out, err := exec.Command("bash", "-c", "printf '%s\\n' "+line).Output()
		wantArg := job.Path
		if c == "strata world status " {
			wantArg = wd
		}
		if err != nil || string(out) != wantArg+"\n" {
			t.Errorf("%s%s: bash reads %q, want %q (%v)", c, line, out, wantArg, err)
		}
	}

	run := func(env ...string) (string, error) {
		cmd := exec.Command("bash", job.Path)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("SLURM_ARRAY_TASK_ID=4", "SLURM_CPUS_PER_TASK=3", "JOB_COMPLETION_INDEX=0", "GOMAXPROCS=7")
	if err != nil {
		t.Fatalf("the script as task 4: %v\n%s", err, out)
	}
	// --root: the folder holding the world and its sources (here the DEM in the repository's
	// testdata and the world in a temporary folder: their common ancestor).
	wantOut := "arg:world\narg:bake\narg:" + wd + "\narg:--cell\narg:4\narg:--cpu\narg:--root\narg:" + commonRoot(wd, dem) +
		"\nJOB_COMPLETION_INDEX=unset GOMAXPROCS=3\n"
	if !strings.HasSuffix(out, wantOut) || !strings.Contains(out, "task 4 of job") {
		t.Errorf("the script as task 4 ran:\n%s\nwant it to end with:\n%s", out, wantOut)
	}
	if out, err := run("JOB_COMPLETION_INDEX=2"); err == nil || !strings.Contains(out, "run this script with sbatch") || strings.Contains(out, "arg:") {
		t.Errorf("the script outside Slurm: %v\n%s", err, out)
	}

	// --gpu asks a GPU and drops --cpu; --cpus and --time are what they say.
	job, err = w.EmitSlurm(world.EmitOptions{Strata: bin, GPU: true, CPUs: 8, Time: 90 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(job.Path)
	d = sbatchDirectives(t, string(b))
	if d["gres"] != "gpu:1" || d["cpus-per-task"] != "8" || d["time"] != "0-01:30:00" || d["array"] != "0-5" || strings.Contains(string(b), "--cpu\n") {
		t.Errorf("--gpu --cpus 8 --time 90m: %v\n%s", d, b)
	}
	if got := job.Request.String(); got != "8 CPUs, 129 MiB, time limit 0-01:30:00, 1 GPU" {
		t.Errorf("request %q", got)
	}
}

// Paths Slurm's --output cannot name are refused at plan time, by name, rather than giving
// tasks that fail with no log: '%' starts a replacement, a backslash turns them all off.
func TestEmitSlurmRefusesPatternPaths(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "strata")
	fakeStrata(t, bin)
	for _, name := range []string{"100%", `back\slash`} {
		w := planDeclared(t, filepath.Join(t.TempDir(), name), "w.world")
		if _, err := w.EmitSlurm(world.EmitOptions{Strata: bin}); err == nil || !strings.Contains(err.Error(), "Slurm's --output cannot name") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The binary the tasks run: made absolute, refused when missing, not executable, a folder, or
// go run's temporary build.
func TestCheckStrata(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "strata")
	fakeStrata(t, bin)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("x"), 0o644)
	goRun := filepath.Join(dir, "go-build1234", "b001", "exe", "strata")
	fakeStrata(t, goRun)
	t.Chdir(dir)
	for _, tc := range []struct{ path, want, err string }{
		{bin, bin, ""},
		{"strata", bin, ""},
		{"./strata", bin, ""},
		{filepath.Join(dir, "gone"), "", "does not exist"},
		{plain, "", "is not executable"},
		{dir, "", "is not a file"},
		{goRun, "", "go run's temporary binary"},
	} {
		got, err := world.CheckStrata(tc.path)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("CheckStrata(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("CheckStrata(%q) = %q, %v; want an error with %q", tc.path, got, err, tc.err)
		}
	}
	// The default, this test binary, is checked too.
	if got, err := world.CheckStrata(""); err != nil || !filepath.IsAbs(got) {
		t.Errorf("CheckStrata(\"\") = %q, %v", got, err)
	}
}

// commonRoot is the deepest folder holding every path given (after symlinks).
func commonRoot(paths ...string) string {
	var root string
	for _, p := range paths {
		p, _ = filepath.Abs(p)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if root == "" {
			root = filepath.Dir(p)
			continue
		}
		for root != filepath.Dir(root) && !strings.HasPrefix(p, root+string(filepath.Separator)) {
			root = filepath.Dir(root)
		}
	}
	return root
}
