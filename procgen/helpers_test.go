package procgen

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"strata/landscape"
	"strata/terraindata"
)

// run writes script into a fresh folder (with extra files beside it), runs it on the Go reference
// with a short timeout, and returns the result, the error and what was warned and printed.
type scriptRun struct {
	dir      string
	res      Result
	err      error
	warnings []string
	printed  []string
}

func runScript(t *testing.T, script string, files map[string][]byte, tweak func(*Options)) *scriptRun {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "s.lua")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &scriptRun{dir: dir}
	var mu sync.Mutex
	opt := Options{Out: filepath.Join(dir, "out"), CPU: true, Timeout: 20 * time.Second,
		Warn:  func(m string) { mu.Lock(); r.warnings = append(r.warnings, m); mu.Unlock() },
		Print: func(m string) { mu.Lock(); r.printed = append(r.printed, m); mu.Unlock() }}
	if tweak != nil {
		tweak(&opt)
	}
	r.res, r.err = RunFile(context.Background(), path, opt)
	return r
}

// mustRun is runScript that fails the test on an error.
func mustRun(t *testing.T, script string, files map[string][]byte, tweak func(*Options)) *scriptRun {
	t.Helper()
	r := runScript(t, script, files, tweak)
	if r.err != nil {
		t.Fatalf("run: %v", r.err)
	}
	return r
}

// openValid validates the container at path and opens it.
func openValid(t *testing.T, path string) *landscape.Landscape {
	t.Helper()
	if probs := terraindata.Validate(path); len(probs) > 0 {
		t.Fatalf("%s does not validate: %v", path, terraindata.Problems(probs))
	}
	l, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func containsAll(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s %q does not say %q", what, got, w)
		}
	}
}
