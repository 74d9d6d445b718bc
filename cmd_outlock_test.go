package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"strata/internal/safeio"
	"strata/recovery"
	"strata/stack"
	"strata/terraindata"
)

// TestOutputWritersTakeTurns: every command that writes a container — strata run's
// terrain.write, erode --out, recover --out, as strata bake (TestHostileSilentLoss) — takes the
// container's lock, so two of them writing one path at once take turns: both succeed, the
// container is valid, nothing of either save is left beside it and no message names a temporary
// path. The test holds the lock as a third writer would, hears each command wait for it
// (safeio's wait hook), then lets go.
func TestOutputWritersTakeTurns(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, "x")
	src := erodeSource(t, t.TempDir())
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root, err := recovery.Root()
	if err != nil {
		t.Fatal(err)
	}
	deadRecoveryCopy(t, root)
	for _, c := range []struct {
		name string
		args func(out string) []string
		out  func(dir string) string // the container the command writes, given its --out
	}{
		{"run", func(out string) []string { return []string{"run", script, "--cpu", "--out", out} },
			func(out string) string { return filepath.Join(out, "x.terrainData") }},
		{"erode", func(out string) []string {
			return []string{"erode", src, "--out", out, "--preset", "light rain", "--iterations", "2", "--cpu"}
		}, nil},
		{"recover", func(out string) []string { return []string{"recover", "--latest", "--out", out, "--cpu"} }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			outDir := filepath.Join(t.TempDir(), "o")
			out := filepath.Join(outDir, "x.terrainData")
			arg := out
			if c.out != nil {
				arg, out = outDir, c.out(outDir)
			}
			os.MkdirAll(outDir, 0o755)
			waiting := make(chan string, 2)
			defer safeio.SetWaitHook(func(p string) { waiting <- p })()
			lk, err := safeio.LockExclusive(terraindata.LockPath(out))
			if err != nil {
				t.Fatal(err)
			}
			type result struct {
				code int
				errs string
			}
			done := make(chan result, 2)
			for range 2 {
				go func() {
					code, _, errs := runCmd(c.args(arg)...)
					done <- result{code, errs}
				}()
				select {
				case w := <-waiting:
					if w != terraindata.LockPath(out) {
						t.Errorf("waited for %s", w)
					}
				case r := <-done:
					lk.Unlock()
					t.Fatalf("a %s ended without waiting for the lock: exit %d\n%s", c.name, r.code, r.errs)
				case <-time.After(2 * time.Minute):
					t.Fatalf("no %s waited for the lock", c.name)
				}
			}
			lk.Unlock()
			for range 2 {
				r := <-done
				if r.code != exitOK {
					t.Errorf("exit %d\n%s", r.code, r.errs)
				}
				if strings.Contains(r.errs, ".new") || strings.Contains(r.errs, ".tmp-") {
					t.Errorf("a message names a temporary path:\n%s", r.errs)
				}
			}
			if code, _, errs := runCmd("validate", out); code != exitOK {
				t.Errorf("validate: %s", errs)
			}
			if got, want := listDir(t, outDir), "."+filepath.Base(out)+".lock "+filepath.Base(out); got != want {
				t.Errorf("left %q, want %q", got, want)
			}
		})
	}
}

// TestExportWritersBothSucceed: export writes no container and takes no lock — each file it
// writes is made whole beside its destination and renamed over it (safeio.Create) — so two
// exports of one output at once both succeed, whichever renames last leaves its file, and neither
// removes the other's temporary file as a killed writer's. One export is held with its temporary
// files made (safeio's create hook) while the other runs to its end.
func TestExportWritersBothSucceed(t *testing.T) {
	p := hostileContainer(t)
	ref := t.TempDir()
	if code, _, errs := runCmd("export", p, "--heightmap", filepath.Join(ref, "h.r16"), "--controls", ref); code != exitOK {
		t.Fatalf("export: exit %d\n%s", code, errs)
	}
	out := t.TempDir()
	args := []string{"export", p, "--heightmap", filepath.Join(out, "h.r16"), "--controls", out}
	held, release := make(chan string), make(chan struct{})
	first := true
	defer safeio.SetCreateHook(func(path string) {
		if first { // the first export's first file: hold it there
			first = false
			held <- path
			<-release
		}
	})()
	type result struct {
		code int
		errs string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errs := runCmd(args...)
		done <- result{code, errs}
	}()
	select {
	case <-held:
	case r := <-done:
		t.Fatalf("the first export ended before writing: exit %d\n%s", r.code, r.errs)
	}
	code, _, errs := runCmd(args...) // the second export, start to end, while the first holds a temporary file
	close(release)
	r := <-done
	for i, r := range []result{{code, errs}, r} {
		if r.code != exitOK || strings.Contains(r.errs, ".tmp-") {
			t.Errorf("export %d: exit %d\n%s", i+1, r.code, r.errs)
		}
	}
	want := listDir(t, ref)
	if got := listDir(t, out); got != want {
		t.Errorf("left %q, want %q", got, want)
	}
	for _, f := range strings.Fields(want) {
		a, _ := os.ReadFile(filepath.Join(ref, f))
		b, _ := os.ReadFile(filepath.Join(out, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs from a lone export's (%d and %d bytes)", f, len(a), len(b))
		}
	}
}

// listDir is the names in dir, sorted, space-separated.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// deadRecoveryCopy leaves under root the recovery copy of an editor that died: the sample at 64²
// with one layer.
func deadRecoveryCopy(t *testing.T, root string) {
	t.Helper()
	w, err := recovery.Create(root, recovery.Meta{Name: "dunes", Base: recovery.Base{Kind: recovery.BaseSample, Texels: 64}, Width: 64, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	data, err := stack.Marshal(stack.SampleDunes())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(&recovery.Record{Time: time.Now(), Steps: 1, Position: 1, Label: "Edit", Full: true,
		HasStack: true, Stack: data}); err != nil {
		t.Fatal(err)
	}
	w.Release()
}
