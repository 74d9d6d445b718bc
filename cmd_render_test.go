package main

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"strata/noise"
	"strata/terraindata"
)

// writeRenderContainer saves a 64² dunes-like landscape (256 m) with sand/rock weights by slope.
func writeRenderContainer(t *testing.T) string {
	t.Helper()
	const n, size = 64, 256.0
	tx := size / n
	g := &terraindata.HeightGrid{W: n, H: n, Heights: make([]float32, n*n), TexelX: tx, TexelZ: tx}
	hf := func(x, z float64) float64 {
		v := float64(noise.FBM(float32(x), float32(z), 90, 3, 7))
		return 30 * v * v
	}
	ctrl := image.NewNRGBA(image.Rect(0, 0, n, n))
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			x, z := -size/2+(float64(i)+0.5)*tx, -size/2+(float64(j)+0.5)*tx
			g.Heights[j*n+i] = float32(hf(x, z))
			slope := math.Atan(math.Hypot(hf(x+tx, z)-hf(x-tx, z), hf(x, z+tx)-hf(x, z-tx))/(2*tx)) * 180 / math.Pi
			rock := uint8(math.Max(0, math.Min(255, (slope-15)*25)))
			o := ctrl.PixOffset(i, j)
			ctrl.Pix[o], ctrl.Pix[o+1] = 255-rock, rock
		}
	}
	path := filepath.Join(t.TempDir(), "dunes.terrainData")
	c := terraindata.New()
	c.SetPlacement(terraindata.Placement{Size: [2]float64{size, size}, HeightRange: g.Range()})
	c.SetLayers([]terraindata.Layer{{Name: "sand", Tint: "#d8c08a"}, {Name: "rock", Tint: "#7a6e64"}})
	err := terraindata.Save(path, c, func(dir string) error {
		if _, err := terraindata.WriteHeight(filepath.Join(dir, "height.texture"), g); err != nil {
			return err
		}
		if err := c.SetChild("height", "height.texture"); err != nil {
			return err
		}
		if _, err := terraindata.WriteTextureRGBA8(filepath.Join(dir, "control0.texture"), ctrl, terraindata.Linear); err != nil {
			return err
		}
		return c.SetChild("control0", "control0.texture")
	})
	if err != nil {
		t.Fatalf("save: %v", err)
	}
	return path
}

func TestRenderCommand(t *testing.T) {
	path := writeRenderContainer(t)
	for _, view := range []string{"orbit", "top"} {
		out := filepath.Join(t.TempDir(), view+".png")
		var so, se bytes.Buffer
		if code := run([]string{"render", path, "--out", out, "--size", "160x96", "--view", view}, &so, &se); code != exitOK {
			t.Fatalf("%s: exit %d, stderr %s", view, code, se.String())
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds() != image.Rect(0, 0, 160, 96) {
			t.Errorf("%s: image %v, want 160x96", view, img.Bounds())
		}
		// The middle of the frame is ground (warm sand/rock), not the blue sky.
		r, g, b, _ := img.At(80, 48).RGBA()
		if !(r > b && g > b/2) {
			t.Errorf("%s: centre pixel (%d,%d,%d) is not ground", view, r>>8, g>>8, b>>8)
		}
		if view == "top" {
			// The map covers the field's full height: the top and bottom rows are ground too.
			for _, y := range []int{1, 94} {
				r, _, b, _ := img.At(80, y).RGBA()
				if r <= b {
					t.Errorf("top: row %d centre pixel is sky", y)
				}
			}
		}
	}
}

func TestRenderCommandErrors(t *testing.T) {
	path := writeRenderContainer(t)
	out := filepath.Join(t.TempDir(), "x.png")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"render"}, exitUsage},
		{[]string{"render", path}, exitUsage},
		{[]string{"render", path, "--out", out, "--size", "12by3"}, exitUsage},
		{[]string{"render", path, "--out", out, "--view", "side"}, exitUsage},
		{[]string{"render", path, "extra", "--out", out}, exitUsage},
		{[]string{"render", filepath.Join(t.TempDir(), "missing.terrainData"), "--out", out}, exitFail},
	} {
		var so, se bytes.Buffer
		if code := run(tc.args, &so, &se); code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, se.String())
		}
	}
}
