package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"strata/terraindata"
)

// snapshot hashes every file under dir by its path relative to dir.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkOldKept: the container at out is byte for byte the snapshot, validates, and no temporary
// sibling of an interrupted save is left beside it.
func checkOldKept(t *testing.T, out string, before map[string][32]byte) {
	t.Helper()
	after := snapshot(t, out)
	if len(after) != len(before) {
		t.Errorf("%d files after, %d before", len(after), len(before))
	}
	for k, h := range before {
		if after[k] != h {
			t.Errorf("%s changed", k)
		}
	}
	if code, _, stderr := runCmd("validate", out); code != exitOK {
		t.Errorf("the old container no longer validates: %s", stderr)
	}
	ents, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range ents {
		// The save's lock file stays by design (terraindata.LockPath, safeio.Lock); nothing else.
		if strings.HasPrefix(e.Name(), ".") && e.Name() != filepath.Base(terraindata.LockPath(out)) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// oldContainer bakes the container an interrupted bake must leave alone: the sample's stack over
// the small heightmap h.
func oldContainer(t *testing.T, dir, h string) string {
	t.Helper()
	out := filepath.Join(dir, "old.terrainData")
	code, stdout, stderr := runCmd("bake", "--stack", "samples/dunes.yaml", "--height", h, "--height-range", "0,20", "--size", "4000x4000", "--cpu", "--out", out)
	if code != exitOK {
		t.Fatalf("first bake: exit %d\n%s%s", code, stdout, stderr)
	}
	return out
}

// cancelOn is the bake's stderr: it cancels the bake the moment a progress line starts with
// prefix, as Ctrl+C would.
type cancelOn struct {
	prefix string
	cancel context.CancelFunc
	mu     sync.Mutex
	seen   bool
	buf    strings.Builder
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	for _, line := range strings.Split(string(p), "\n") {
		if strings.HasPrefix(line, c.prefix) {
			c.seen = true
			c.cancel()
		}
	}
	return len(p), nil
}

// TestBakeInterruptedKeepsOldContainer: a bake cancelled while it evaluates, while it writes the
// payloads, or after they are written and validated leaves the container already at --out
// exactly as it was — on the Go reference and on the GPU.
func TestBakeInterruptedKeepsOldContainer(t *testing.T) {
	dir := t.TempDir()
	h := writeHeightPNG(t, dir, 160)
	out := oldContainer(t, dir, h)
	before := snapshot(t, out)
	st := filepath.Join(dir, "s.yaml")
	os.WriteFile(st, []byte("version: 1\nlayers:\n  - {name: sand}\n  - name: rock\n    rules: [{input: slope, min: 10}]\n"), 0o644)
	for _, cpu := range []bool{true, false} {
		for _, stage := range []string{"evaluate: ", "encode: ", "validate: 66%"} {
			t.Run(fmt.Sprintf("cpu=%v %s", cpu, stage), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				w := &cancelOn{prefix: stage, cancel: cancel}
				o := &bakeOptions{stackPath: st, height: h, heightRange: "0,20", size: "4000x4000", out: out, cpu: cpu}
				err := bakeCommand(ctx, o, io.Discard, w)
				if !w.seen {
					t.Fatalf("the bake never reported %q:\n%s", stage, w.buf.String())
				}
				if err == nil || !strings.Contains(err.Error(), "interrupted") || !strings.Contains(err.Error(), out) {
					t.Fatalf("err = %v, want an interruption naming %s", err, out)
				}
				checkOldKept(t, out, before)
			})
		}
	}
}

// TestBakeCtrlC: the real thing — a strata bake process gets SIGINT (Ctrl+C) in the middle of
// its evaluation, says it was interrupted, exits 1, and the old container is untouched.
func TestBakeCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("interrupts a strata bake process with SIGINT (the full suite runs it: make test)")
	}
	dir := t.TempDir()
	out := oldContainer(t, dir, writeHeightPNG(t, dir, 160))
	before := snapshot(t, out)
	// The whole sample on the Go reference: seconds of evaluation to interrupt.
	cmd := strataProcess(context.Background(), nil, "bake", "--sample", "dunes", "--cpu", "--out", out)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sent := false
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		// The first report past 0%: the bar prints at its own pace, so 10% itself may be skipped.
		if !sent && strings.HasPrefix(line, "evaluate: ") && !strings.HasPrefix(line, "evaluate: 0%") {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			sent = true
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the interrupted bake did not stop:\n%s", log.String())
	}
	if !sent {
		t.Fatalf("never saw the evaluation under way:\n%s", log.String())
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitFail || !strings.Contains(log.String(), "interrupted") {
		t.Fatalf("exit %v, want 1 and \"interrupted\":\n%s", err, log.String())
	}
	checkOldKept(t, out, before)
}
