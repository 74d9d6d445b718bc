package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/terraindata"
)

// hostileContainer bakes a small landscape with a population through the command line, so every
// case starts from a container validate accepts.
func hostileContainer(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	stack := filepath.Join(dir, "s.yaml")
	os.WriteFile(stack, []byte("version: 1\nlayers:\n  - name: sand\n  - name: rock\n    rules: [{input: slope, min: 20, softness: 4}]\npopulations:\n  - {name: trees, density: 0.02, rules: [{input: slope, max: 10}]}\n"), 0o644)
	out := filepath.Join(dir, "c.terrainData")
	if code, _, errs := runCmd("bake", "--stack", stack, "--height", writeHeightPNG(t, dir, 48), "--size", "480x480", "--cpu", "--out", out); code != exitOK {
		t.Fatalf("bake: %s", errs)
	}
	if code, _, errs := runCmd("validate", out); code != exitOK {
		t.Fatalf("fresh container invalid: %s", errs)
	}
	return out
}

func setManifest(edit func(m *terraindata.Manifest)) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		c, err := terraindata.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		m := c.Manifest()
		edit(&m)
		b, _ := m.Encode()
		os.WriteFile(filepath.Join(p, terraindata.ManifestFile), b, 0o644)
	}
}

// TestHostileContainers is issue 12 end to end: containers broken the ways the hostile-input run
// broke them, handed to validate, info, render and export. No command may panic, hang, read
// outside the container, or exit 0: validate, info, render and export each exit 1 naming the
// file and field (where a case needs a particular command, it lists only that one).
func TestHostileContainers(t *testing.T) {
	tests := []struct {
		desc    string
		breakIt func(t *testing.T, p string)
		want    string // in stderr of every command
	}{
		{"scatter count overflowing the pool (was a panic)", setManifest(func(m *terraindata.Manifest) { m.Scatter[0].Count = 1 << 59 }), "scatter[0].count"},
		{"NaN spacing", setManifest(func(m *terraindata.Manifest) { m.Scatter[0].Spacing = math.NaN() }), "scatter[0].spacing"},
		{"spacing so small placement never ends", setManifest(func(m *terraindata.Manifest) { m.Scatter[0].Spacing = 1e-4 }), "scatter[0].spacing"},
		{"layers: []", setManifest(func(m *terraindata.Manifest) { m.Layers = nil }), "layers: no layers"},
		{"reversed heightRange (was exported inverted)", setManifest(func(m *terraindata.Manifest) { m.HeightRange[0], m.HeightRange[1] = 100, -100 }), "heightRange"},
		{"absurd size", setManifest(func(m *terraindata.Manifest) { m.Size[0] = 1e30 }), "size"},
		{"a child climbing out with ..", func(t *testing.T, p string) {
			os.Rename(filepath.Join(p, "control0.texture"), filepath.Join(p, "..", "control0.texture"))
			setManifest(func(m *terraindata.Manifest) { m.Controls[0] = "../control0.texture" })(t, p)
		}, "escapes the container"},
		{"a control symlinked out of the container (was exported)", func(t *testing.T, p string) {
			out := filepath.Join(filepath.Dir(p), "secret.texture")
			os.Rename(filepath.Join(p, "control0.texture"), out)
			os.Symlink(out, filepath.Join(p, "control0.texture"))
		}, "outside the container"},
		{"manifest symlinked to /dev/zero (was a hang)", func(t *testing.T, p string) {
			mf := filepath.Join(p, terraindata.ManifestFile)
			os.Remove(mf)
			os.Symlink("/dev/zero", mf)
		}, "outside the container"},
		{"payload a FIFO (was a hang)", func(t *testing.T, p string) {
			d := filepath.Join(p, "control0.texture", "data.png")
			os.Remove(d)
			syscall.Mkfifo(d, 0o644)
		}, "FIFO"},
		{"truncated control payload", func(t *testing.T, p string) {
			d := filepath.Join(p, "control0.texture", "data.png")
			fi, _ := os.Stat(d)
			os.Truncate(d, fi.Size()/2)
		}, "controls[0]"},
		{"two channels in one child", func(t *testing.T, p string) {
			terraindata.WriteTextureFloatPixels(filepath.Join(p, "mask_snow.texture"), terraindata.R32F, 48, 48, make([]float32, 48*48))
			setManifest(func(m *terraindata.Manifest) {
				m.Channels = map[string]string{"mask.snow": "mask_snow.texture", "mask_snow": "mask_snow.texture"}
			})(t, p)
		}, "also named by"},
	}
	// info reads headers only, so a payload broken past its header is validate's, render's and
	// export's to refuse; info may print what it can and exit 0.
	infoPasses := map[string]bool{"truncated control payload": true}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			p := hostileContainer(t)
			tc.breakIt(t, p)
			out := t.TempDir()
			for _, args := range [][]string{
				{"validate", p},
				{"info", p},
				{"render", p, "--out", filepath.Join(out, "f.png"), "--size", "64x48"},
				{"export", p, "--controls", filepath.Join(out, "ctl"), "--heightmap", filepath.Join(out, "h.r16"), "--instances", filepath.Join(out, "inst")},
			} {
				type result struct {
					code int
					errs string
				}
				done := make(chan result, 1)
				go func() {
					defer func() {
						if r := recover(); r != nil {
							done <- result{-1, fmt.Sprint("panic: ", r)}
						}
					}()
					code, _, errs := runCmd(args...)
					done <- result{code, errs}
				}()
				var r result
				select {
				case r = <-done:
				case <-time.After(60 * time.Second):
					t.Fatalf("%s hung", args[0])
				}
				if args[0] == "info" && infoPasses[tc.desc] && r.code == exitOK {
					continue
				}
				if r.code != exitFail || !strings.Contains(r.errs, tc.want) {
					t.Errorf("%s: exit %d, want 1 with %q in:\n%s", args[0], r.code, tc.want, r.errs)
				}
			}
			for _, f := range []string{"f.png", "ctl/control0.png", "h.r16", "inst/index.yaml", "inst/trees.f32"} {
				if _, err := os.Stat(filepath.Join(out, f)); err == nil {
					t.Errorf("%s written from a container that failed", f)
				}
			}
		})
	}
}

// TestOutputsInsideContainerRefused: export --heightmap over the container's own payload, and
// render --out inside it, used to overwrite the source.
func TestOutputsInsideContainerRefused(t *testing.T) {
	p := hostileContainer(t)
	payload := filepath.Join(p, "height.texture", "data.exr")
	before, _ := os.ReadFile(payload)
	for _, args := range [][]string{
		{"export", p, "--heightmap", payload},
		{"export", p, "--controls", filepath.Join(p, "ctl")},
		{"export", p, "--instances", p},
		{"render", p, "--out", filepath.Join(p, "frame.png"), "--size", "32x32"},
	} {
		code, _, errs := runCmd(args...)
		if code != exitFail || !strings.Contains(errs, "is inside the container") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
	if after, _ := os.ReadFile(payload); string(after) != string(before) {
		t.Error("the container's height payload changed")
	}
	if code, _, errs := runCmd("validate", p); code != exitOK {
		t.Errorf("container damaged: %s", errs)
	}
}

// TestHostileCommandLine: numbers and repeated flags the command line used to accept.
func TestHostileCommandLine(t *testing.T) {
	dir := t.TempDir()
	h := writeHeightPNG(t, dir, 16)
	stack := filepath.Join(dir, "s.yaml")
	os.WriteFile(stack, []byte("version: 1\nlayers: [{name: a}, {name: b}]\n"), 0o644)
	out := filepath.Join(dir, "x.terrainData")
	p := hostileContainer(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bake", "--stack", stack, "--height", h, "--height-size", "1e19x4", "--out", out}, exitUsage, "--height-size \"1e19x4\": want whole texel counts 1..65536"},
		{[]string{"bake", "--stack", stack, "--height", h, "--height-size", "-2x-2", "--out", out}, exitUsage, "want whole texel counts"},
		{[]string{"bake", "--stack", stack, "--height", h, "--channel", "mask.a=" + h, "--channel", "mask.a=" + h, "--out", out}, exitFail, `channel "mask.a" is given twice`},
		{[]string{"bake", "--stack", stack, "--height", h, "--size", "1e300x10", "--out", out}, exitFail, "size X = 1e+300"},
		{[]string{"bake", "--stack", "/dev/zero", "--height", h, "--out", out}, exitFail, "/dev/zero is a character device"},
		{[]string{"render", p, "--out", filepath.Join(dir, "f.png"), "--size", "16384x16384"}, exitUsage, "sides 1..8192"},
	} {
		code, _, errs := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d (want %d), stderr lacks %q:\n%s", tc.args, code, tc.code, tc.want, errs)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused bake left a container")
	}
}

// TestFullDiskLeavesNoPartialOutput is class 6: an export or render that runs out of space leaves
// no truncated file behind. The file-size limit (RLIMIT_FSIZE, EFBIG on the write that passes it)
// stands in for a full disk in a child process.
func TestFullDiskLeavesNoPartialOutput(t *testing.T) {
	if os.Getenv("STRATA_FSIZE_CHILD") != "" {
		args := strings.Split(os.Getenv("STRATA_FSIZE_CHILD"), "\x1f")
		lim := &syscall.Rlimit{Cur: 4096, Max: 4096}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, lim); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCmd(args...)
		fmt.Fprintf(os.Stderr, "%s", errs)
		os.Exit(code)
	}
	p := hostileContainer(t)
	out := t.TempDir()
	for _, tc := range []struct {
		args  []string
		files []string
	}{
		{[]string{"export", p, "--heightmap", filepath.Join(out, "h.r16")}, []string{"h.r16"}},
		{[]string{"export", p, "--heightmap", filepath.Join(out, "h.png")}, []string{"h.png"}},
		{[]string{"render", p, "--out", filepath.Join(out, "f.png"), "--size", "256x256"}, []string{"f.png"}},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestFullDiskLeavesNoPartialOutput$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STRATA_FSIZE_CHILD="+strings.Join(tc.args, "\x1f"))
		b, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(b), "file too large") {
			t.Errorf("%v: %v\n%s", tc.args, err, b)
		}
		for _, f := range tc.files {
			if _, err := os.Stat(filepath.Join(out, f)); err == nil {
				t.Errorf("%v left a partial %s", tc.args, f)
			}
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("%v left %v", tc.args, ents)
		}
	}
}
