package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"strata/world"
)

// Issue 18, "Hostile input, second round": the procgen, world and export paths.

// tinyWorldSources writes a 16² heightmap and a one-layer stack in dir and returns bake's source
// flags for them (the cheapest world there is).
func tinyWorldSources(t *testing.T, dir string) []string {
	t.Helper()
	stack := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(stack, []byte("version: 1\nlayers: [{name: a}, {name: b, rules: [{input: slope, min: 20}]}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--stack", stack, "--height", writeHeightPNG(t, dir, 16), "--size", "160x160", "--spacing", "declared"}
}

// TestHostileJobFiles is the class "injection into emitted job files": a control character in any
// value written into bake-job.yaml or bake.sbatch is refused before the plan runs, exit 1 naming
// the value, and nothing is emitted; values with spaces and quotes are quoted where they are
// written, so the files parse as one document / one script and the printed commands run as
// printed.
func TestHostileJobFiles(t *testing.T) {
	dir := t.TempDir()
	src := tinyWorldSources(t, dir)
	exe := filepath.Join(dir, "bin\nrm -rf ~", "strata")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc string
		out  string
		args []string
		want string
	}{
		{"a YAML document in --mount", "w.world", []string{"--emit", "k8s", "--mount", "/data\n---\napiVersion: v1\nkind: Pod"}, "--mount"},
		{"a key in --image", "w.world", []string{"--emit", "k8s", "--image", "strata:latest\n          securityContext: {privileged: true}"}, "--image"},
		{"a carriage return in --claim", "w.world", []string{"--emit", "k8s", "--claim", "strata\rworld"}, "--claim"},
		{"a NUL in --volume-root", "w.world", []string{"--emit", "k8s", "--volume-root", dir + "\x00/etc"}, "--volume-root"},
		{"DEL in --mount", "w.world", []string{"--emit", "k8s", "--mount", "/data\x7f"}, "--mount"},
		{"white space in --image", "w.world", []string{"--emit", "k8s", "--image", "strata latest"}, "--image"},
		{"a claim that is no name", "w.world", []string{"--emit", "k8s", "--claim", "x: y"}, "--claim"},
		{"a relative --mount", "w.world", []string{"--emit", "k8s", "--mount", "data"}, "--mount"},
		{"a newline in the world's folder (k8s)", "w\necho owned.world", []string{"--emit", "k8s"}, "the world folder"},
		{"a newline in the world's folder (slurm)", "w\necho owned.world", []string{"--emit", "slurm", "--strata", os.Args[0]}, "the world folder"},
		{"an escape in the world's folder", "w\x1b[2J.world", []string{"--emit", "slurm", "--strata", os.Args[0]}, "the world folder"},
		{"a newline in the strata binary's path", "w.world", []string{"--emit", "slurm", "--strata", exe}, "--strata"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			wd := filepath.Join(dir, tc.out)
			code, _, errs := runCmd(append(append([]string{"world", "plan", "--cells", "1x1", "--out", wd}, src...), tc.args...)...)
			if code != exitFail || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, want 1 naming %s:\n%s", code, tc.want, errs)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") > 1 {
				t.Errorf("the message spans lines (a control character printed raw?):\n%s", errs)
			}
			for _, f := range []string{world.K8sFile, world.SlurmFile, world.FileName} {
				if _, err := os.Stat(filepath.Join(wd, f)); err == nil {
					t.Errorf("%s written", f)
				}
			}
		})
	}

	// Spaces and quotes are data: the Job file is one document whose values are the paths, the
	// script is one bash script, and the printed commands name the files quoted.
	wd := filepath.Join(dir, "it's a \"world\" $(id).world")
	code, out, errs := runCmd(append(append([]string{"world", "plan", "--cells", "1x1", "--out", wd}, src...),
		"--emit", "k8s,slurm", "--strata", os.Args[0], "--mount", "/mnt/my data", "--image", "reg.example/strata:1")...)
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	b, _ := os.ReadFile(filepath.Join(wd, world.K8sFile))
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	var job struct {
		Kind string
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Image        string
						Command      []string
						VolumeMounts []struct {
							MountPath string `yaml:"mountPath"`
						} `yaml:"volumeMounts"`
					}
				}
			}
		}
	}
	if err := dec.Decode(&job); err != nil {
		t.Fatal(err)
	}
	var extra any
	if err := dec.Decode(&extra); err == nil {
		t.Error("bake-job.yaml holds more than one document")
	}
	c := job.Spec.Template.Spec.Containers
	if job.Kind != "Job" || len(c) != 1 || c[0].Image != "reg.example/strata:1" || c[0].VolumeMounts[0].MountPath != "/mnt/my data" ||
		c[0].Command[3] != "/mnt/my data/"+filepath.Base(wd) {
		t.Errorf("bake-job.yaml read back as %+v", job)
	}
	script := filepath.Join(wd, world.SlurmFile)
	if b, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, b)
	}
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "`"); i >= 0 {
			cmd := line[i+1:]
			cmd = cmd[:strings.Index(cmd, "`")]
			// The printed command, as a shell splits it, names the file whole.
			b, err := exec.Command("bash", "-c", `printf '%s\n' `+cmd).Output()
			if err != nil || !strings.Contains(string(b), "\n"+wd+"/") {
				t.Errorf("%q does not name the file as one word: %v\n%s", cmd, err, b)
			}
		}
	}

	// A world named -x: the plan's advice runs as printed.
	t.Chdir(dir)
	code, out, errs = runCmd(append([]string{"world", "plan", "--cells", "1x1", "--out", "-x"}, src...)...)
	if code != exitOK {
		t.Fatalf("plan -x: exit %d\n%s", code, errs)
	}
	i := strings.Index(out, "one task per cell: `")
	if i < 0 {
		t.Fatalf("no advice in:\n%s", out)
	}
	advice := out[i+len("one task per cell: `"):]
	advice = strings.Replace(advice[:strings.Index(advice, "`")], "I", "0", 1)
	words := strings.Fields(advice)
	if words[0] != "strata" {
		t.Fatalf("advice %q", advice)
	}
	if code, _, errs := runCmd(append(words[1:], "--cpu")...); code != exitOK {
		t.Errorf("%s: exit %d\n%s", advice, code, errs)
	}
}
