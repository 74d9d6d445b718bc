package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/bake"
	"strata/internal/sysmem"
	"strata/landscape"
)

// strata bench sculpt lays its strokes through the editor's session, reports dab → frame and
// release → settled, and with --out saves a valid landscape: the ground as generated with
// --strokes 0, the sculpted ground after strokes.
func TestBenchSculptCommand(t *testing.T) {
	dir := t.TempDir()
	const n = 48
	runSaved := func(strokes string) *landscape.Landscape {
		t.Helper()
		out := filepath.Join(dir, "s"+strokes+".terrainData")
		code, stdout, stderr := runCmd("bench", "sculpt", "--size", "48", "--cpu", "--strokes", strokes, "--frame", "160x100", "--out", out)
		if code != exitOK {
			t.Fatalf("bench sculpt --strokes %s: exit %d\n%s\n%s", strokes, code, stdout, stderr)
		}
		for _, want := range []string{"sculpt sample, 48×48 height", "sculpt stress16, 48×48 height", "saved " + out} {
			if !strings.Contains(stdout, want) {
				t.Errorf("bench sculpt --strokes %s: no %q in\n%s", strokes, want, stdout)
			}
		}
		if strokes != "0" && !strings.Contains(stdout, "dab → final frame") {
			t.Errorf("no dab → frame figures in\n%s", stdout)
		}
		if code, _, stderr := runCmd("validate", out); code != exitOK {
			t.Fatalf("strata validate of the bench's landscape: exit %d\n%s", code, stderr)
		}
		l, err := landscape.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	before, after := runSaved("0"), runSaved("2")
	gen := bake.StressField(n).Height
	moved := 0
	for k, v := range gen.Data {
		if before.Field.Height.Data[k] != v {
			t.Fatalf("--strokes 0 saved a height that is not the generated one at texel %d: %v, want %v", k, before.Field.Height.Data[k], v)
		}
		if after.Field.Height.Data[k] != v {
			moved++
		}
	}
	if moved == 0 {
		t.Error("--strokes 2 saved the ground unsculpted")
	}
	if len(after.Scatter) == 0 {
		t.Error("the saved stress16 landscape has no populations")
	}

	for _, c := range [][]string{{"--strokes", "-1"}, {"--size", "8"}, {"--frame", "big"}, {"extra"}, {"--case", "nope"}} {
		if code, _, stderr := runCmd(append([]string{"bench", "sculpt"}, c...)...); code != exitUsage {
			t.Errorf("bench sculpt %q: exit %d, want 2\n%s", c, code, stderr)
		}
	}
}

// bench sculpt --heightmap sculpts a heightmap read as File → New → From a heightmap reads it;
// with its planes on disk (STRATA_MAP_PLANES=always) the saved payloads are the bytes saved with
// them on the heap.
func TestBenchSculptHeightmapOnDisk(t *testing.T) {
	dir := t.TempDir()
	const n = 64
	raw := make([]byte, 4*n*n)
	for k := range n * n {
		binary.LittleEndian.PutUint32(raw[4*k:], math.Float32bits(float32(k%n)*0.5+float32(k/n)*0.25))
	}
	hm := filepath.Join(dir, "h.f32")
	if err := os.WriteFile(hm, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(sysmem.EnvMapDir, t.TempDir())
	saved := map[string][]byte{}
	for _, mode := range []string{"never", "always"} {
		t.Setenv(sysmem.EnvMapPlanes, mode)
		out := filepath.Join(dir, mode+".terrainData")
		code, stdout, stderr := runCmd("bench", "sculpt", "--heightmap", hm, "--cpu", "--strokes", "2", "--frame", "160x100", "--out", out)
		if code != exitOK || !strings.Contains(stdout, "sculpt h.f32, 64×64 height") || !strings.Contains(stdout, "dab → final frame") {
			t.Fatalf("%s: exit %d\n%s\n%s", mode, code, stdout, stderr)
		}
		for _, p := range []string{"height.texture/data.exr", "control0.texture/data.png"} {
			b, err := os.ReadFile(filepath.Join(out, p))
			if err != nil {
				t.Fatal(err)
			}
			if mode == "never" {
				saved[p] = b
			} else if !bytes.Equal(b, saved[p]) {
				t.Errorf("%s saved with the planes on disk differs from the heap's", p)
			}
		}
	}
	if code, _, _ := runCmd("bench", "sculpt", "--heightmap", filepath.Join(dir, "missing.f32"), "--cpu"); code != exitFail {
		t.Errorf("a missing heightmap: exit %d, want %d", code, exitFail)
	}
}
