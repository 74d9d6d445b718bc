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
