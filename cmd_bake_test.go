package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"strata/export"
	"strata/field"
	"strata/terraindata"
)

// writeHeightPNG writes a small 16-bit heightmap for command tests.
func writeHeightPNG(t *testing.T, dir string, n int) string {
	t.Helper()
	f := field.SampleDunesSized(n)
	p := filepath.Join(dir, "h.png")
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := field.EncodePNG16(out, f.Height, [2]float64{0, 20}); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return p
}

// The walk-through: bake the sample with its stack, validate, info, export instances —
// on the Go reference (--cpu) and on the GPU (lavapipe here).
func TestBakeValidateInfoExport(t *testing.T) {
	dir := t.TempDir()
	h := writeHeightPNG(t, dir, 160)
	st := filepath.Join(dir, "s.yaml")
	os.WriteFile(st, []byte(`version: 1
layers:
  - {name: sand, tint: "#c8a872"}
  - name: rock
    rules: [{input: slope, min: 18, softness: 4}]
populations:
  - name: trees
    density: 0.002
    scale: [8, 14]
    rules: [{input: layer, layer: rock, max: 0.1, softness: 0.05}]
`), 0o644)
	for _, backend := range []string{"--cpu", ""} {
		out := filepath.Join(dir, "l"+backend+".terrainData")
		args := []string{"bake", "--stack", st, "--height", h, "--height-range", "0,20", "--size", "4000x4000", "--out", out}
		if backend != "" {
			args = append(args, backend)
		}
		code, stdout, stderr := runCmd(args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "trees:") {
			t.Errorf("bake did not report the population:\n%s", stdout)
		}
		if code, _, stderr := runCmd("validate", out); code != exitOK {
			t.Fatalf("validate: exit %d: %s", code, stderr)
		}
		code, info, _ := runCmd("info", out)
		if code != exitOK || !strings.Contains(info, "rock") || !strings.Contains(info, "control0.G") || !strings.Contains(info, "trees") {
			t.Errorf("info: exit %d:\n%s", code, info)
		}
		// Controls sum to 255 at every texel.
		c, err := terraindata.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		tex, err := c.Control(0).Read()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(tex.RGBA8.Pix); i += 4 {
			p := tex.RGBA8.Pix[i : i+4]
			if s := int(p[0]) + int(p[1]) + int(p[2]) + int(p[3]); s != 255 {
				t.Fatalf("control texel %d sums to %d", i/4, s)
			}
		}
		inst := filepath.Join(dir, "inst"+backend)
		if code, _, stderr := runCmd("export", out, "--instances", inst); code != exitOK {
			t.Fatalf("export --instances: exit %d: %s", code, stderr)
		}
		var idx export.Index
		b, err := os.ReadFile(filepath.Join(inst, "index.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &idx); err != nil || len(idx.Populations) != 1 {
			t.Fatalf("index.yaml: %v\n%s", err, b)
		}
		e := idx.Populations[0]
		raw, err := os.ReadFile(filepath.Join(inst, e.File))
		if err != nil {
			t.Fatal(err)
		}
		if e.Count == 0 || len(raw) != 64*e.Count {
			t.Fatalf("%s: %d bytes for %d instances", e.File, len(raw), e.Count)
		}
		// Every instance stands on the field, scaled within [8, 14].
		for k := 0; k < e.Count; k++ {
			m := func(i int) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[64*k+4*i:]))) }
			if math.Abs(m(12)) > 2000 || math.Abs(m(14)) > 2000 || m(15) != 1 || m(5) < 8 || m(5) > 14 {
				t.Fatalf("instance %d: translation (%v, %v, %v, %v), scale %v", k, m(12), m(13), m(14), m(15), m(5))
			}
		}
	}
}

func TestBakeUsageAndInputErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.terrainData")
	usage := [][]string{
		{"bake"},
		{"bake", "--sample", "dunes"},
		{"bake", "--sample", "hills", "--out", out},
		{"bake", "--height", "h.png", "--out", out},
		{"bake", "--sample", "dunes", "--height", "h.png", "--out", out},
		{"bake", "--sample", "dunes", "--size", "10x10", "--out", out},
		{"bake", "--sample", "dunes", "--origin", "1;2", "--out", out},
	}
	for _, a := range usage {
		if code, _, _ := runCmd(a...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", a, code, exitUsage)
		}
	}
	// The source rules, in landscape.Sources.Check's words.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bake", "--out", out}, "give exactly one of a heightmap and a sample"},
		{[]string{"bake", "--sample", "hills", "--out", out}, `sample "hills": the built-in sample is "dunes"`},
		{[]string{"bake", "--height", "h.png", "--out", out}, "a heightmap needs a stack"},
	} {
		if code, _, stderr := runCmd(tc.args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\nlayers:\n  - name: a\n  - name: b\n    rules: [{input: slope, min: 5, max: 3}]\n"), 0o644)
	h := writeHeightPNG(t, dir, 32)
	code, _, stderr := runCmd("bake", "--stack", bad, "--height", h, "--out", out)
	if code != exitFail || !strings.Contains(stderr, "bad.yaml") || !strings.Contains(stderr, "min 5 > max 3") {
		t.Errorf("invalid stack: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed bake left a container behind")
	}
	code, _, stderr = runCmd("bake", "--sample", "dunes", "--channel", "mask.x="+filepath.Join(dir, "missing.png"), "--out", out)
	if code != exitFail || !strings.Contains(stderr, "missing.png") {
		t.Errorf("missing channel file: exit %d, stderr %q", code, stderr)
	}
}
