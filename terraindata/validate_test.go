package terraindata

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateRefuses builds each broken container on disk (a good one, then broken the way a
// hand edit, a crash or a bad tool would) and expects Validate to name the file, field and cause.
func TestValidateRefuses(t *testing.T) {
	manifest := editManifest
	raw := func(s string) func(t *testing.T, p string) {
		return func(t *testing.T, p string) { os.WriteFile(filepath.Join(p, ManifestFile), []byte(s), 0o644) }
	}
	tests := []struct {
		name      string
		breakIt   func(t *testing.T, p string)
		file      string // suffix of Problem.File
		field     string
		msg       string
		moreProbs bool // other problems may be listed too
	}{
		{"manifest does not decode", raw("version: 1\nsize: [1, 2, 3]\n"), ManifestFile, "", "does not decode", false},
		{"manifest missing", func(t *testing.T, p string) { os.Remove(filepath.Join(p, ManifestFile)) }, ManifestFile, "", "missing manifest", false},
		{"no placement", manifest(func(m *Manifest) { m.Size = [2]float64{} }), ManifestFile, "size", "where its ground stands", false},
		{"negative size", manifest(func(m *Manifest) { m.Size[1] = -3 }), ManifestFile, "size", "not positive", false},
		{"unknown version", manifest(func(m *Manifest) { m.Version = 7 }), ManifestFile, "version", "unknown version 7", false},
		{"no height", manifest(func(m *Manifest) { m.Height = "" }), ManifestFile, "height", "nothing can stand on", false},
		{"named child absent", func(t *testing.T, p string) { os.RemoveAll(filepath.Join(p, "holes.texture")) }, "holes.texture", "holes", "absent", false},
		{"stack absent", func(t *testing.T, p string) { os.Remove(filepath.Join(p, "stack.yaml")) }, "stack.yaml", "stack", "absent", false},
		{"more layers than controls", manifest(func(m *Manifest) { m.Controls = m.Controls[:1] }), ManifestFile, "layers", "5 layers but 1 control texture(s) carry at most 4", false},
		{"controls differ in size", func(t *testing.T, p string) {
			WriteTextureRGBA8(filepath.Join(p, "control1.texture"), controlImage(3, 3, 0), Linear)
		}, "control1.texture", "controls[1]", "3x3, controls[0] is 7x5", false},
		{"holes size", func(t *testing.T, p string) {
			WriteTextureRGBA8(filepath.Join(p, "holes.texture"), image.NewNRGBA(image.Rect(0, 0, 2, 2)), Linear)
		}, "holes.texture", "holes", "2x2, the height is 7x5", false},
		{"channel size", func(t *testing.T, p string) {
			WriteTextureFloatPixels(filepath.Join(p, "mask_snow.texture"), R32F, 1, 2, []float32{0, 1})
		}, "mask_snow.texture", "channels.mask.snow", "1x2, the height is 7x5", false},
		{"channel format", func(t *testing.T, p string) {
			os.RemoveAll(filepath.Join(p, "mask_snow.texture"))
			WriteTextureRGBA8(filepath.Join(p, "mask_snow.texture"), controlImage(7, 5, 0), Linear)
		}, "mask_snow.texture", "channels.mask.snow", "format rgba8, want r32f", false},
		{"height format", func(t *testing.T, p string) {
			os.RemoveAll(filepath.Join(p, "height.texture"))
			WriteTextureFloatPixels(filepath.Join(p, "height.texture"), R32F, 7, 5, make([]float32, 35))
		}, "height.texture", "height", "format r32f, want rgba32f", false},
		{"payload disagrees", func(t *testing.T, p string) {
			d := filepath.Join(p, "control0.texture")
			info, _ := ReadTextureInfo(d)
			info.Width = 8
			writeInfo(d, info)
		}, "control0.texture/data.png", "controls[0]", "texture.yaml says 8x5", true},
		{"NaN in height", func(t *testing.T, p string) {
			g := testGrid(7, 5, false)
			WriteTextureFloat(filepath.Join(p, "height.texture"), RGBA32F, 7, 5, func(y int, dst []float32) error {
				g.Row(y, dst)
				if y == 3 {
					dst[4*2] = float32(math.NaN())
				}
				return nil
			})
		}, "height.texture/data.exr", "height", "1 texel(s) are invalid, first at (2,3): R is NaN (values must be finite)", false},
		{"heightRange too narrow", manifest(func(m *Manifest) { m.HeightRange = [2]float64{0, 1} }), ManifestFile, "heightRange", "does not contain", false},
		{"absolute child", manifest(func(m *Manifest) { m.Holes = "/tmp/holes.texture" }), ManifestFile, "holes", "not a relative", false},
		{"dotdot child", func(t *testing.T, p string) {
			os.Rename(filepath.Join(p, "holes.texture"), filepath.Join(p, "..", "holes.texture"))
			manifest(func(m *Manifest) { m.Holes = "../holes.texture" })(t, p)
		}, ManifestFile, "holes", "escapes the container", false},
		{"symlink outside", func(t *testing.T, p string) {
			out := filepath.Join(filepath.Dir(p), "elsewhere.texture")
			os.Rename(filepath.Join(p, "holes.texture"), out)
			os.Symlink(out, filepath.Join(p, "holes.texture"))
		}, "holes.texture", "holes", "outside the container", false},
		{"symlinked payload outside", func(t *testing.T, p string) {
			out := filepath.Join(filepath.Dir(p), "data.png")
			d := filepath.Join(p, "control0.texture", "data.png")
			os.Rename(d, out)
			os.Symlink(out, d)
		}, "control0.texture/data.png", "controls[0]", "outside the container", false},
		{"atlas size", manifest(func(m *Manifest) { m.Atlas.Size = [2]int{32, 16} }), "atlas_albedo.texture", "atlas.albedo", "16x8, atlas.size says 32x16", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "broken.terrainData")
			saveFixture(t, path, fixture{w: 7, h: 5, holes: true, textures: true})
			tc.breakIt(t, path)
			probs := Validate(path)
			if len(probs) == 0 {
				t.Fatal("accepted")
			}
			found := false
			for _, p := range probs {
				if strings.HasSuffix(p.File, tc.file) && p.Field == tc.field && strings.Contains(p.Msg, tc.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("no problem %s: %s: …%s…; got:\n%v", tc.file, tc.field, tc.msg, Problems(probs))
			}
			if len(probs) > 1 && !tc.moreProbs {
				t.Errorf("extra problems:\n%v", Problems(probs))
			}
		})
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.terrainData")
	saveFixture(t, path, fixture{w: 7, h: 5, holes: true})
	os.RemoveAll(filepath.Join(path, "holes.texture"))
	os.Remove(filepath.Join(path, "stack.yaml"))
	b, _ := os.ReadFile(filepath.Join(path, ManifestFile))
	os.WriteFile(filepath.Join(path, ManifestFile), []byte(strings.Replace(string(b), "version: 1", "version: 3", 1)), 0o644)
	if probs := Validate(path); len(probs) != 3 {
		t.Errorf("got %d problems, want 3:\n%v", len(probs), Problems(probs))
	}
}
