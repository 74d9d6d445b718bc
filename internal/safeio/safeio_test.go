package safeio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRefusesNonRegular is the hostile-input class "unbounded reads": a FIFO, /dev/zero, a
// symlink to /dev/zero and a folder are refused by name before any read, and quickly (a FIFO with
// no writer would block an open forever).
func TestRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ desc, path, want string }{
		{"fifo", fifo, "FIFO"},
		{"dev zero", "/dev/zero", "character device"},
		{"symlink to dev zero", link, "character device"},
		{"folder", dir, "folder"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			done := make(chan error, 2)
			go func() { _, err := ReadFile(tc.path, 1<<20); done <- err }()
			go func() {
				f, _, err := Open(tc.path)
				if f != nil {
					f.Close()
				}
				done <- err
			}()
			for range 2 {
				select {
				case err := <-done:
					if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
						t.Errorf("got %v, want ErrNotRegular naming %s and %q", err, tc.path, tc.want)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("hung")
				}
			}
		})
	}
}

func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	if b, err := ReadFile(p, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	_, err := ReadFile(p, 9)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "10 bytes, more than the 9") {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing"), 9); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestAtomicFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.png")
	os.WriteFile(p, []byte("old"), 0o644)
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("aborted write changed the file: %q", b)
	}
	f, _ = Create(p)
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after commit: nothing
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("committed %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestWithin(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "c.terrainData")
	os.MkdirAll(filepath.Join(root, "height.texture"), 0o755)
	link := filepath.Join(dir, "alias")
	os.Symlink(root, link)
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{filepath.Join(root, "height.texture", "data.exr"), true},
		{root, true},
		{filepath.Join(link, "new", "deeper.r16"), true},
		{filepath.Join(root, "..", "c.terrainData", "x"), true},
		{filepath.Join(dir, "c.terrainData2", "x"), false},
		{filepath.Join(dir, "out.png"), false},
	} {
		if got, err := Within(root, tc.p); err != nil || got != tc.want {
			t.Errorf("Within(%s) = %v, %v; want %v", tc.p, got, err, tc.want)
		}
	}
}

// TestCreateRemovesStaleTemporaries is issue 18's "killed exports leave .tmp-* files for ever":
// the next Create of the same output removes temporary files no writer holds, and leaves a live
// writer's, other outputs' and anything that is not such a file alone.
func TestCreateRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "h.r16")
	live, err := Create(p) // a writer of the same output, still running
	if err != nil {
		t.Fatal(err)
	}
	stale := []string{".h.r16.tmp-123", ".h.r16.tmp-4567890"}
	kept := []string{".h.r16.tmp-abc", ".other.r16.tmp-123", "h.r16.tmp-1", ".h.r16.tmp-"}
	for _, n := range append(append([]string(nil), stale...), kept...) {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600)
	}
	os.Symlink(filepath.Join(dir, ".other.r16.tmp-123"), filepath.Join(dir, ".h.r16.tmp-999"))
	kept = append(kept, ".h.r16.tmp-999", filepath.Base(live.Name()))
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			t.Errorf("stale %s left", n)
		}
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	live.WriteString("live")
	if err := live.Commit(); err != nil {
		t.Fatalf("the live writer's commit: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "live" {
		t.Errorf("read %q", b)
	}
}
