package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/export"
)

// TestExportMapsCommand: `strata export PATH --maps DIR` writes the three maps and index.yaml
// (exit 0); a second run into the now non-empty DIR is refused naming it (exit 1) unless --force;
// --force without --maps is a usage error (exit 2).
func TestExportMapsCommand(t *testing.T) {
	path, _ := buildContainer(t)
	dir := filepath.Join(t.TempDir(), "maps")
	code, out, errs := runCmd("export", path, "--maps", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range []string{"slope.exr", "aspect.exr", "curvature.exr", "flow.exr", "index.yaml"} {
		if !strings.Contains(out, filepath.Join(dir, f)) {
			t.Errorf("output does not name %s: %s", f, out)
		}
	}
	if _, err := export.ReadMapsIndex(filepath.Join(dir, "index.yaml")); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd("export", path, "--maps", dir); code != exitFail || !strings.Contains(errs, dir) || !strings.Contains(errs, "--force") {
		t.Errorf("non-empty DIR: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd("export", path, "--maps", dir, "--force"); code != exitOK {
		t.Errorf("--force: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd("export", path, "--force", "--heightmap", filepath.Join(t.TempDir(), "h.exr")); code != exitUsage || !strings.Contains(errs, "--force") {
		t.Errorf("--force without --maps: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.yaml")); err != nil {
		t.Error(err)
	}
}
