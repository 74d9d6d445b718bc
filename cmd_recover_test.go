package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/internal/testgpu"
	"strata/landscape"
	"strata/recovery"
	"strata/session"
	"strata/stack"
)

// recoveryChild makes the test binary the editor's session in TestRecoverAfterKill's child.
const recoveryChild = "STRATA_TEST_RECOVERY_CHILD"

// recoveryEdits are the steps the killed session makes (and the test's own session again, for
// the landscape to compare with): a new mask, a stroke on it, a layer whose rule reads it, cut
// holes. It returns the number of steps.
func recoveryEdits(s *session.Session) (int, error) {
	if err := s.NewMask("snow"); err != nil {
		return 0, err
	}
	fi := s.Field()
	stroke := func(b session.Brush, dx float64) error {
		if err := s.BeginStroke(b); err != nil {
			return err
		}
		s.Stroke(fi.Origin[0]-fi.Size[0]/4+dx, fi.Origin[1])
		s.Stroke(fi.Origin[0]+dx, fi.Origin[1]+fi.Size[1]/6)
		s.EndStroke()
		return nil
	}
	if err := stroke(session.Brush{Target: "mask.snow", Radius: 500, Strength: 0.8, Falloff: 0.5}, 0); err != nil {
		return 0, err
	}
	st := s.Stack().Clone()
	snow := stack.NewLayer("snow")
	snow.Tint = stack.Color{240, 240, 250}
	snow.Rules = []stack.Rule{{Input: stack.InputMask, Channel: "snow", Min: stack.F(0.4), Softness: 0.1}}
	st.Layers = append(st.Layers, snow)
	if err := s.Apply("add snow", st); err != nil {
		return 0, err
	}
	if err := stroke(session.Brush{Target: session.HolesTarget, Radius: 250, Strength: 1}, 900); err != nil {
		return 0, err
	}
	return 4, nil
}

// recoveryChildMain is the child: a session keeping recovery copies, the edits, and once the
// copy holds the last step a line on stdout; then it waits to be killed.
func recoveryChildMain() {
	fail := func(err error) {
		fmt.Printf("child failed: %v\n", err)
		os.Exit(3)
	}
	root, err := recovery.Root()
	if err != nil {
		fail(err)
	}
	writes := make(chan session.RecoveryInfo, 64)
	s, err := session.New(context.Background(), session.Options{Width: 160, Height: 100, Evaluator: session.CPU,
		Recovery: root, OnRecovery: func(i session.RecoveryInfo) { writes <- i }})
	if err != nil {
		fail(err)
	}
	if err := s.OpenSampleSized(context.Background(), 192, nil); err != nil {
		fail(err)
	}
	n, err := recoveryEdits(s)
	if err != nil {
		fail(err)
	}
	for i := range writes {
		if i.Err != nil {
			fail(i.Err)
		}
		if i.Steps >= n {
			fmt.Printf("durable %s %d\n", i.ID, i.Steps)
			break
		}
	}
	select {} // killed here
}

// TestRecoverAfterKill is issue 18's "done when" headless: a session makes its edits, the copy
// holds them, the process is SIGKILLed; `strata recover --list` shows the landscape,
// `strata recover --latest --out r.terrainData` writes a container `strata validate` accepts,
// and its stack, mask and holes are the edited ones.
func TestRecoverAfterKill(t *testing.T) {
	if os.Getenv(recoveryChild) != "" {
		recoveryChildMain()
		return
	}
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, "HOME=" + t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRecoverAfterKill$", "-test.count=1")
	child.Env = append(append(os.Environ(), recoveryChild+"=1"), env...)
	var stderr bytes.Buffer
	child.Stderr = &stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer child.Process.Kill()
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "durable ") || strings.HasPrefix(sc.Text(), "child failed") {
				line <- sc.Text()
				return
			}
		}
		line <- "the child's stdout ended"
	}()
	var id string
	var steps int
	select {
	case l := <-line:
		if _, err := fmt.Sscanf(l, "durable %s %d", &id, &steps); err != nil {
			t.Fatalf("child: %s\n%s", l, stderr.String())
		}
	case <-ctx.Done():
		t.Fatalf("the child did not report its copy durable\n%s", stderr.String())
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()

	list := runProcess(t, env, "recover", "--list")
	if !strings.Contains(list, id) || !strings.Contains(list, "dunes") || strings.Contains(list, "open (pid") {
		t.Errorf("recover --list after the kill:\n%s", list)
	}
	r := filepath.Join(t.TempDir(), "r.terrainData")
	got := runProcess(t, env, "recover", "--latest", "--out", r, "--cpu")
	if !strings.Contains(got, "recovered dunes") || !strings.Contains(got, fmt.Sprintf("%d steps", steps)) {
		t.Errorf("recover --latest:\n%s", got)
	}
	if v := runProcess(t, env, "validate", r); !strings.Contains(v, "valid") {
		t.Errorf("validate: %s", v)
	}
	// The same edits in a session of this process, saved, are what the copy must hold.
	s, err := session.New(context.Background(), session.Options{Device: testgpu.Device(t), Width: 160, Height: 100, Evaluator: session.CPU})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.OpenSampleSized(context.Background(), 192, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := recoveryEdits(s); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "want.terrainData")
	if err := s.SaveAs(context.Background(), want, nil); err != nil {
		t.Fatal(err)
	}
	a, err := landscape.Open(r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := landscape.Open(want)
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := stack.Marshal(a.Stack)
	sb, _ := stack.Marshal(b.Stack)
	if !bytes.Equal(sa, sb) {
		t.Errorf("the recovered stack:\n%s\nwant\n%s", sa, sb)
	}
	ma, mb := a.Field.Channels["mask.snow"], b.Field.Channels["mask.snow"]
	if ma == nil || mb == nil || !slices.Equal(ma.Data, mb.Data) {
		t.Error("the recovered mask.snow differs from the edited one")
	}
	if !slices.Equal(a.Holes, b.Holes) || !slices.Contains(a.Holes, true) {
		t.Error("the recovered holes differ from the edited ones")
	}
	if !slices.Equal(a.Weights.Lo, b.Weights.Lo) || !slices.Equal(a.Weights.Hi, b.Weights.Hi) {
		t.Error("the recovered landscape's weights differ from the edited one's saved weights")
	}
	// The copy stays for the editor's Restore; recover of an unknown id and a bad call fail.
	if code, _, _ := runCmdEnv(env, "recover", "nope", "--out", r); code != exitFail {
		t.Errorf("recover of an unknown id: exit %d", code)
	}
	if code, _, _ := runCmdEnv(env, "recover", "--list", "--latest"); code != exitUsage {
		t.Errorf("recover --list --latest: exit %d", code)
	}
}

// runCmdEnv runs strata in this process with env set for the call.
func runCmdEnv(env []string, args ...string) (int, string, string) {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		old, had := os.LookupEnv(k)
		os.Setenv(k, v)
		defer func() {
			if had {
				os.Setenv(k, old)
			} else {
				os.Unsetenv(k)
			}
		}()
	}
	return runCmd(args...)
}
