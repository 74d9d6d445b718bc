package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/field"
	"strata/terraindata"
)

// controlBytes reads the control payloads of the container at p, byte for byte.
func controlBytes(t *testing.T, p string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, name := range []string{"control0.texture", "control1.texture"} {
		b, err := os.ReadFile(filepath.Join(p, name, "data.png"))
		if err == nil {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no controls", p)
	}
	return out
}

// strata bake --from re-evaluates a saved landscape: its controls are byte for byte those of the
// bake that wrote it (the same evaluator), and its channel, holes and population are kept; in
// place too. Then the refusals, with their exit codes.
func TestBakeFromCommand(t *testing.T) {
	dir := t.TempDir()
	h := writeHeightPNG(t, dir, 96)
	mask := filepath.Join(dir, "snow.png")
	g := field.NewGrid(96, 96)
	for i := range g.Data {
		g.Data[i] = float32(i/96) / 95
	}
	mf, _ := os.Create(mask)
	if err := field.EncodePNG16(mf, g, [2]float64{0, 1}); err != nil {
		t.Fatal(err)
	}
	mf.Close()
	st := filepath.Join(dir, "s.yaml")
	os.WriteFile(st, []byte(`version: 1
layers:
  - {name: sand, tint: "#c8a872"}
  - name: rock
    rules: [{input: slope, min: 18, softness: 4}]
  - name: snow
    rules: [{input: mask, channel: snow, min: 0.6, softness: 0.1}]
populations:
  - name: trees
    density: 0.002
    scale: [8, 14]
    rules: [{input: layer, layer: rock, max: 0.1, softness: 0.05}]
`), 0o644)
	src := filepath.Join(dir, "src.terrainData")
	code, stdout, stderr := runCmd("bake", "--cpu", "--stack", st, "--height", h, "--height-range", "0,20", "--size", "4000x4000",
		"--resolution", "50", "--channel", "mask.snow="+mask, "--out", src)
	if code != exitOK {
		t.Fatalf("bake: exit %d\n%s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "out.terrainData")
	code, stdout, stderr = runCmd("bake", "--from", src, "--cpu", "--out", out)
	if code != exitOK || !strings.Contains(stdout, "80×80 weights, 3 layers") || !strings.Contains(stdout, "trees:") {
		t.Fatalf("bake --from: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "load: 100%") || !strings.Contains(stderr, "validate: 100%") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}
	a, b := controlBytes(t, src), controlBytes(t, out)
	if len(a) != len(b) || !bytes.Equal(a[0], b[0]) {
		t.Error("the re-evaluated controls differ from the saved ones")
	}
	c, err := terraindata.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Manifest()
	if m.Channels["mask.snow"] == "" || len(m.Scatter) != 1 || m.Scatter[0].Name != "trees" || m.Scatter[0].Count == 0 {
		t.Errorf("channels %v, scatter %+v: not kept", m.Channels, m.Scatter)
	}
	if code, _, stderr := runCmd("validate", out); code != exitOK {
		t.Errorf("validate: %s", stderr)
	}
	// In place, the same bytes again.
	if code, _, stderr := runCmd("bake", "--from", out, "--cpu", "--out", out); code != exitOK {
		t.Fatalf("bake --from in place: exit %d: %s", code, stderr)
	}
	if c := controlBytes(t, out); !bytes.Equal(c[0], a[0]) {
		t.Error("in place: the controls changed")
	}

	// --stack: another stack over the saved field and channels (a fourth layer reading mask.snow
	// inverted), the field and the guid kept; and a container with no stack takes one so.
	st2 := filepath.Join(dir, "s2.yaml")
	os.WriteFile(st2, []byte(`version: 1
layers:
  - {name: sand, tint: "#c8a872"}
  - name: rock
    rules: [{input: slope, min: 18, softness: 4}]
  - name: snow
    rules: [{input: mask, channel: snow, min: 0.6, softness: 0.1}]
  - name: grass
    rules: [{input: mask, channel: snow, max: 0.3, softness: 0.1}]
`), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\nlayers:\n  - {name: sand}\n  - name: scree\n    rules: [{input: channel, channel: erosion.deposit, min: 0.5}]\n"), 0o644)
	restacked := filepath.Join(dir, "restacked.terrainData")
	code, stdout, stderr = runCmd("bake", "--from", src, "--stack", st2, "--cpu", "--out", restacked)
	if code != exitOK || !strings.Contains(stdout, "80×80 weights, 4 layers") || strings.Contains(stdout, "trees:") {
		t.Fatalf("bake --from --stack: exit %d\n%s%s", code, stdout, stderr)
	}
	fresh := filepath.Join(dir, "fresh.terrainData")
	if code, _, stderr := runCmd("bake", "--cpu", "--stack", st2, "--height", h, "--height-range", "0,20", "--size", "4000x4000",
		"--resolution", "50", "--channel", "mask.snow="+mask, "--out", fresh); code != exitOK {
		t.Fatalf("bake of s2.yaml: %s", stderr)
	}
	if a, b := controlBytes(t, restacked), controlBytes(t, fresh); len(a) != len(b) || !bytes.Equal(a[0], b[0]) {
		t.Error("bake --from --stack: the controls differ from a bake of that stack over the same sources")
	}
	if code, _, stderr := runCmd("validate", restacked); code != exitOK {
		t.Errorf("validate --stack's output: %s", stderr)
	}

	nostack := filepath.Join(dir, "nostack.terrainData")
	runCmd("bake", "--from", src, "--cpu", "--out", nostack)
	os.Remove(filepath.Join(nostack, "stack.yaml"))
	mb, _ := os.ReadFile(filepath.Join(nostack, terraindata.ManifestFile))
	var kept []string
	for _, line := range strings.Split(string(mb), "\n") {
		if !strings.HasPrefix(line, "stack:") {
			kept = append(kept, line)
		}
	}
	os.WriteFile(filepath.Join(nostack, terraindata.ManifestFile), []byte(strings.Join(kept, "\n")), 0o644)
	broken := filepath.Join(dir, "broken.terrainData")
	runCmd("bake", "--from", src, "--cpu", "--out", broken)
	os.Truncate(filepath.Join(broken, "mask_snow.texture", "data.exr"), 500)
	x := filepath.Join(dir, "x.terrainData")
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"bake", "--from", src, "--stack", st, "--size", "10x10", "--out", x}, exitUsage, []string{"--size cannot be given with it"}},
		{[]string{"bake", "--from", src, "--stack", bad, "--cpu", "--out", x}, exitFail, []string{bad, "reads channel \"erosion.deposit\", which the field does not have"}},
		{[]string{"bake", "--from", src, "--height", h, "--sample", "dunes", "--out", x}, exitUsage, []string{"--height, --sample"}},
		{[]string{"bake", "--from", src, "--resolution", "10", "--channel", "a=b", "--out", x}, exitUsage, []string{"--channel, --resolution"}},
		{[]string{"bake", "--from", src}, exitUsage, []string{"missing --out"}},
		{[]string{"bake", "--from", filepath.Join(dir, "none.terrainData"), "--out", x}, exitFail, []string{"--from " + filepath.Join(dir, "none.terrainData"), "terrain.yaml"}},
		{[]string{"bake", "--from", nostack, "--cpu", "--out", x}, exitFail, []string{"nostack.terrainData/terrain.yaml: stack: none", "nothing to re-evaluate"}},
		{[]string{"bake", "--from", broken, "--cpu", "--out", x}, exitFail, []string{"mask_snow.texture/data.exr", "channels.mask.snow"}},
	} {
		code, _, stderr := runCmd(tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr does not say %q:\n%s", tc.args, w, stderr)
			}
		}
	}
	if _, err := os.Stat(x); err == nil {
		t.Error("a refused bake --from left a container")
	}
	if code, _, stderr := runCmd("bake", "--from", nostack, "--stack", st2, "--cpu", "--out", x); code != exitOK {
		t.Errorf("a container with no stack given one with --stack: %s", stderr)
	}
}

// strata help bake documents --from.
func TestBakeHelpFrom(t *testing.T) {
	code, stdout, _ := runCmd("help", "bake")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"strata bake --from PATH.terrainData [--stack S.yaml] [--tile N] [--cpu] --out NEW.terrainData", "--from PATH", "Takes none of the source flags but --stack", "re-evaluate a saved landscape", "--out may be\n                      PATH itself"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("help bake lacks %q:\n%s", w, stdout)
		}
	}
}
