package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The issue's walk-through: `strata run testdata/dunes.lua` then `strata validate` and `strata
// info` on what it wrote; valley.lua the same way, on the GPU (lavapipe here).
func TestRunDunesAndValley(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		script, container string
		args              []string
	}{
		{"testdata/dunes.lua", "dunes.terrainData", []string{"--cpu"}},
		{"testdata/valley.lua", "valley.terrainData", nil},
	} {
		args := append([]string{"run", tc.script, "--out", out}, tc.args...)
		code, stdout, stderr := runCmd(args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		path := filepath.Join(out, tc.container)
		if !strings.Contains(stdout, "wrote "+path) {
			t.Errorf("stdout %q does not name %s", stdout, path)
		}
		if !strings.Contains(stderr, "mask ") || !strings.Contains(stderr, "write bake") {
			t.Errorf("stderr shows no progress: %q", stderr)
		}
		if code, _, stderr := runCmd("validate", path); code != exitOK {
			t.Fatalf("validate %s: %s", path, stderr)
		}
		code, info, _ := runCmd("info", path)
		if code != exitOK || !strings.Contains(info, "rock") {
			t.Errorf("info: exit %d\n%s", code, info)
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.lua")
	os.WriteFile(bad, []byte("local g = proc.graph()\ng:node(\"x\", \"terrain.mask\"):param(\"max\", \"18\")\n"), 0o644)
	loop := filepath.Join(dir, "loop.lua")
	os.WriteFile(loop, []byte("while true do end\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run"}, exitUsage, "missing SCRIPT.lua"},
		{[]string{"run", bad, "--timeout", "0s"}, exitUsage, "--timeout"},
		{[]string{"run", bad, "extra.lua"}, exitUsage, "unexpected argument"},
		{[]string{"run", filepath.Join(dir, "none.lua")}, exitFail, "no such file"},
		{[]string{"run", bad, "--out", dir}, exitFail, `bad.lua:2: node "x" (terrain.mask): param "max": want a number`},
		{[]string{"run", loop, "--timeout", "200ms"}, exitFail, "stopped after 200ms"},
	} {
		code, _, stderr := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d saying %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
