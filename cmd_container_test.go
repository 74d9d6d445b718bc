package main

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/exr"
	"strata/terraindata"
)

// buildContainer saves a small landscape (6 layers, two controls, a hole, a channel, a scatter
// population) the way the bake does, through the terraindata API.
func buildContainer(t *testing.T) (string, *terraindata.HeightGrid) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cli.terrainData")
	g := &terraindata.HeightGrid{W: 5, H: 4, Heights: make([]float32, 20), TexelX: 10, TexelZ: 10, Holes: make([]bool, 20)}
	for i := range g.Heights {
		g.Heights[i] = float32(i)*1.5 - 3
	}
	g.Holes[7] = true
	c := terraindata.New()
	err := terraindata.Save(path, c, func(dir string) error {
		if _, err := terraindata.WriteHeight(filepath.Join(dir, "height.texture"), g); err != nil {
			return err
		}
		c.SetChild("height", "height.texture")
		if _, err := terraindata.WriteHoles(filepath.Join(dir, "holes.texture"), g); err != nil {
			return err
		}
		c.SetChild("holes", "holes.texture")
		for i := 0; i < 2; i++ {
			img := image.NewNRGBA(image.Rect(0, 0, 5, 4))
			for k := 0; k < 20; k++ { // even texels all sand (control0.R), odd all ice (control1.G)
				if (k%2 == 0) == (i == 0) {
					img.Pix[4*k+i] = 255
				}
			}
			name := []string{"control0.texture", "control1.texture"}[i]
			if _, err := terraindata.WriteTextureRGBA8(filepath.Join(dir, name), img, terraindata.Linear); err != nil {
				return err
			}
			c.SetChild(name[:8], name)
		}
		if _, err := terraindata.WriteTextureFloatPixels(filepath.Join(dir, "pines.texture"), terraindata.R32F, 5, 4, make([]float32, 20)); err != nil {
			return err
		}
		c.SetScatter([]terraindata.Population{{Name: "pines", Density: "pines.texture", Spacing: 10, Seed: 7, Scale: [2]float64{0.8, 1.3}, Mesh: "tree", Count: 3}})
		c.SetLayers([]terraindata.Layer{{Name: "sand", Tiling: 12}, {Name: "rock"}, {Name: "grass"}, {Name: "snow"}, {Name: "mud"}, {Name: "ice", Tint: "#ddeeff"}})
		c.SetPlacement(terraindata.Placement{Size: [2]float64{50, 40}, Origin: [2]float64{100, -20}, HeightRange: g.Range()})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return path, g
}

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestValidateCommand(t *testing.T) {
	path, _ := buildContainer(t)
	broken, _ := buildContainer(t)
	os.RemoveAll(filepath.Join(broken, "holes.texture"))
	os.RemoveAll(filepath.Join(broken, "control1.texture"))
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string
		stderrHave []string
	}{
		{"valid", []string{"validate", path}, exitOK, "valid", nil},
		{"every problem listed", []string{"validate", broken}, exitFail, "", []string{
			"holes.texture: holes: named child is absent", "control1.texture: controls[1]: named child is absent", "2 problem(s)"}},
		{"missing path", []string{"validate"}, exitUsage, "", []string{"usage: strata validate"}},
		{"two paths", []string{"validate", path, path}, exitUsage, "", nil},
		{"not a container", []string{"validate", t.TempDir()}, exitFail, "", []string{"missing manifest"}},
	}
	for _, tc := range tests {
		code, out, errs := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) {
			t.Errorf("%s: exit %d stdout %q, want %d %q (stderr %s)", tc.name, code, out, tc.code, tc.stdout, errs)
		}
		for _, s := range tc.stderrHave {
			if !strings.Contains(errs, s) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, s, errs)
			}
		}
	}
}

func TestInfoCommand(t *testing.T) {
	path, _ := buildContainer(t)
	code, out, errs := runCmd("info", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"size 50 x 40 m (X, Z), origin (100, -20), height range [-3, 25.5] m",
		"0  sand   control0.R  tiling 12 m",
		"5  ice    control1.G  tint #ddeeff",
		"height    height.texture    rgba32f  5x4  linear",
		"control1  control1.texture  rgba8    5x4",
		"atlas     (none: no layer carries a texture)",
		"pines  density pines.texture  spacing 10 m  seed 7  scale 0.8..1.3  mesh tree  3 instances",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runCmd("info"); code != exitUsage {
		t.Errorf("info without a path: exit %d", code)
	}
	if code, _, errs := runCmd("info", filepath.Join(t.TempDir(), "none.terrainData")); code != exitFail || !strings.Contains(errs, "strata info:") {
		t.Errorf("info of a missing container: exit %d %s", code, errs)
	}
}

func TestExportCommand(t *testing.T) {
	path, g := buildContainer(t)
	out := t.TempDir()
	r16, p16, e32 := filepath.Join(out, "h.r16"), filepath.Join(out, "h.png"), filepath.Join(out, "h.exr")
	code, _, errs := runCmd("export", path, "--controls", filepath.Join(out, "ctl"), "--heightmap", r16)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd("export", "--heightmap", p16, path); code != exitOK {
		t.Fatalf("flags before path: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd("export", path, "--heightmap", e32); code != exitOK {
		t.Fatalf("exr: exit %d: %s", code, errs)
	}
	// Controls: byte-exact PNGs.
	for i := 0; i < 2; i++ {
		f, err := os.Open(filepath.Join(out, "ctl", []string{"control0.png", "control1.png"}[i]))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		n, ok := img.(*image.NRGBA) // straight alpha: A is a layer weight, not opacity
		if !ok {
			t.Fatalf("control%d decodes as %T", i, img)
		}
		if px := n.NRGBAAt(1+i, 1); (i == 0 && px.R != 255) || (i == 1 && px.G != 255) || px.A != 0 {
			t.Errorf("control%d texel = %v", i, px)
		}
	}
	lo, hi := g.Range()[0], g.Range()[1]
	want := func(i int) uint16 {
		v := math.Round((float64(g.Heights[i]) - lo) / (hi - lo) * 65535)
		return uint16(math.Max(0, math.Min(65535, v)))
	}
	raw, _ := os.ReadFile(r16)
	if len(raw) != 40 {
		t.Fatalf("r16 is %d bytes, want 40", len(raw))
	}
	f, _ := os.Open(p16)
	pimg, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	gray, ok := pimg.(*image.Gray16)
	if !ok {
		t.Fatalf("png is %T, want 16-bit grayscale", pimg)
	}
	f, _ = os.Open(e32)
	eimg, err := exr.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Heights {
		if got := binary.LittleEndian.Uint16(raw[2*i:]); got != want(i) {
			t.Errorf("r16 texel %d = %d, want %d", i, got, want(i))
		}
		if got := gray.Gray16At(i%5, i/5).Y; got != want(i) {
			t.Errorf("png texel %d = %d, want %d", i, got, want(i))
		}
		if eimg.Data[0][i] != g.Heights[i] {
			t.Errorf("exr texel %d = %v, want %v m", i, eimg.Data[0][i], g.Heights[i])
		}
	}
	if eimg.Channels[0] != "Y" {
		t.Errorf("exr channel %v, want Y", eimg.Channels)
	}
	usage := [][]string{
		{"export", path},                         // nothing to export
		{"export", "--controls", out},            // no path
		{"export", path, "--heightmap", "h.tif"}, // unknown extension
	}
	for _, args := range usage {
		if code, _, _ := runCmd(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
