package terraindata

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/field"
	"strata/internal/safeio"
)

// editManifest rewrites terrain.yaml through the Manifest struct.
func editManifest(edit func(m *Manifest)) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		t.Helper()
		mf := filepath.Join(p, ManifestFile)
		b, _ := os.ReadFile(mf)
		m, err := DecodeManifest(b)
		if err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ = m.Encode()
		os.WriteFile(mf, b, 0o644)
	}
}

// appendManifest adds raw YAML text to terrain.yaml (for values Encode cannot write, like NaN).
func appendManifest(s string) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		mf := filepath.Join(p, ManifestFile)
		b, _ := os.ReadFile(mf)
		os.WriteFile(mf, append(b, s...), 0o644)
	}
}

func replaceInManifest(old, new string) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		t.Helper()
		mf := filepath.Join(p, ManifestFile)
		b, _ := os.ReadFile(mf)
		if !strings.Contains(string(b), old) {
			t.Fatalf("manifest has no %q:\n%s", old, b)
		}
		os.WriteFile(mf, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	os.RemoveAll(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlinkTo(target string) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		os.RemoveAll(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
}

// in applies a file edit to a path inside the container.
func in(rel string, edit func(t *testing.T, p string)) func(t *testing.T, p string) {
	return func(t *testing.T, root string) { edit(t, filepath.Join(root, filepath.FromSlash(rel))) }
}

func fifo(t *testing.T, p string) { mkfifo(t, p) }

func truncate(n int64) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		fi, _ := os.Stat(p)
		os.Truncate(p, fi.Size()-n)
	}
}

// lyingPNG is a 66-byte PNG whose header claims w×h (issue 12: 200000² took the process down).
func lyingPNG(w, h uint32) []byte {
	b := append([]byte{}, pngSignature...)
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	b = pngChunk(b, "IHDR", ihdr)
	b = pngChunk(b, "IDAT", []byte{0x78, 0x9c, 0x62, 0, 0, 0, 0, 0xff, 0xff})
	return pngChunk(b, "IEND", nil)
}

// TestValidateHostile is issue 12's classes 2–5 and 7 against validate: every case is a container
// validate used to pass (or hang on) while a reader failed, misread or hung. Each must now be
// refused, by file and field, promptly.
func TestValidateHostile(t *testing.T) {
	tests := []struct {
		name        string
		breakIt     func(t *testing.T, p string)
		file, field string
		msg         string
	}{
		// Class 2: unbounded reads.
		{"FIFO as a payload", in("control0.texture/data.png", fifo), "control0.texture/data.png", "controls[0]", "FIFO"},
		{"FIFO as texture.yaml", in("height.texture/texture.yaml", fifo), "height.texture/texture.yaml", "height", "FIFO"},
		{"FIFO as the manifest", in(ManifestFile, fifo), ManifestFile, "", "FIFO"},
		{"FIFO as stack.yaml", in("stack.yaml", fifo), "stack.yaml", "stack", "FIFO"},
		{"manifest symlinked to /dev/zero", in(ManifestFile, symlinkTo("/dev/zero")), ManifestFile, "", "outside the container"},
		{"payload symlinked to /dev/zero", in("mask_snow.texture/data.exr", symlinkTo("/dev/zero")), "mask_snow.texture/data.exr", "channels.mask.snow", "outside the container"},
		{"texture.yaml symlinked to /dev/zero", in("holes.texture/texture.yaml", symlinkTo("/dev/zero")), "holes.texture/texture.yaml", "holes", "outside the container"},
		{"huge texture.yaml", in("holes.texture/texture.yaml", func(t *testing.T, p string) {
			os.WriteFile(p, []byte("guid: x\n#"+strings.Repeat("x", maxInfoBytes)), 0o644)
		}), "holes.texture/texture.yaml", "holes", "more than the 65536"},
		// Class 1/3: sizes and payloads a reader cannot load.
		{"texture.yaml claims 200000²", in("holes.texture", func(t *testing.T, p string) {
			writeInfo(p, TextureInfo{Format: RGBA8, Width: 200000, Height: 200000})
		}), "holes.texture/texture.yaml", "holes", "larger than the supported 65536 per side"},
		{"68-byte PNG claiming 16384²", in("holes.texture", func(t *testing.T, p string) {
			writeInfo(p, TextureInfo{Format: RGBA8, Width: 16384, Height: 16384})
			os.WriteFile(filepath.Join(p, "data.png"), lyingPNG(16384, 16384), 0o644)
		}), "holes.texture/data.png", "holes", "cannot fit in a 66-byte file"},
		{"truncated PNG payload", in("control0.texture/data.png", truncate(20)), "control0.texture/data.png", "controls[0]", "truncated"},
		{"truncated EXR payload", in("height.texture/data.exr", truncate(30)), "height.texture/data.exr", "height", "truncated"},
		{"corrupt PNG data", in("holes.texture/data.png", func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			i := strings.Index(string(b), "IDAT") + 10
			b[i] ^= 0xff
			// Keep the chunk's CRC right so only the zlib stream is at fault.
			n := int(binary.BigEndian.Uint32(b[i-14:]))
			binary.BigEndian.PutUint32(b[i-6+n:], crc32.ChecksumIEEE(b[i-10:i-6+n]))
			os.WriteFile(p, b, 0o644)
		}), "holes.texture/data.png", "holes", "png:"},
		{"one-texel height", in("height.texture", func(t *testing.T, p string) {
			WriteTextureFloatPixels(p, RGBA32F, 1, 1, []float32{1, 0, 0, 1})
		}), "height.texture", "height", "at least 2x2"},
		{"negative density", in("scatter_p.texture", func(t *testing.T, p string) {
			WriteTextureFloatPixels(p, R32F, 7, 5, append(make([]float32, 34), -1))
		}), "scatter_p.texture/data.exr", "scatter[0].density", "a density is not negative"},
		{"mask outside 0..1", in("mask_snow.texture", func(t *testing.T, p string) {
			WriteTextureFloatPixels(p, R32F, 7, 5, append(make([]float32, 34), 2))
		}), "mask_snow.texture/data.exr", "channels.mask.snow", "a mask channel holds 0..1"},
		{"controls do not sum to 255", in("control0.texture", func(t *testing.T, p string) {
			WriteTextureRGBA8(p, image.NewNRGBA(image.Rect(0, 0, 7, 5)), Linear)
		}), "control0.texture/data.png", "controls", "35 texel(s) whose layer weights do not sum to 255"},
		{"rgba32f with other channel names", in("height.texture", func(t *testing.T, p string) {
			os.RemoveAll(p)
			WriteTextureFloatPixels(p, R32F, 7, 5, make([]float32, 35))
			writeInfo(p, TextureInfo{Format: RGBA32F, Width: 7, Height: 5})
		}), "height.texture/data.exr", "height", "channels [R] for format rgba32f"},
		{"texture.yaml with two documents", in("holes.texture/texture.yaml", func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(b, "---\nwidth: 9\n"...), 0o644)
		}), "holes.texture/texture.yaml", "holes", "second YAML document"},
		// Class 3: manifest values a reader misuses.
		{"layers: []", editManifest(func(m *Manifest) { m.Layers = nil; m.Controls = m.Controls[:1] }), ManifestFile, "layers", "no layers"},
		{"absurd size", editManifest(func(m *Manifest) { m.Size = [2]float64{1e300, 20} }), ManifestFile, "size", "beyond float32"},
		{"NaN heightRange", editManifest(func(m *Manifest) { m.HeightRange[0] = math.NaN() }), ManifestFile, "heightRange", "not a range"},
		{"reversed heightRange", editManifest(func(m *Manifest) { m.HeightRange[0], m.HeightRange[1] = m.HeightRange[1], m.HeightRange[0] }), ManifestFile, "heightRange", "not a range"},
		{"NaN spacing", replaceInManifest("spacing: 2", "spacing: .nan"), ManifestFile, "scatter[0].spacing", "want finite metres"},
		{"negative spacing", editManifest(func(m *Manifest) { m.Scatter[0].Spacing = -1 }), ManifestFile, "scatter[0].spacing", "want finite metres"},
		{"huge count", editManifest(func(m *Manifest) { m.Scatter[0].Count = 1 << 59 }), ManifestFile, "scatter[0].count", "want 0"},
		{"negative count", editManifest(func(m *Manifest) { m.Scatter[0].Count = -1 }), ManifestFile, "scatter[0].count", "want 0"},
		{"zero scale", editManifest(func(m *Manifest) { m.Scatter[0].Scale = [2]float64{0, 1} }), ManifestFile, "scatter[0].scale", "0 < lo ≤ hi"},
		{"reversed scale", editManifest(func(m *Manifest) { m.Scatter[0].Scale = [2]float64{2, 1} }), ManifestFile, "scatter[0].scale", "0 < lo ≤ hi"},
		{"unnamed population", editManifest(func(m *Manifest) { m.Scatter[0].Name = "" }), ManifestFile, "scatter[0].name", "empty"},
		{"bad tint", editManifest(func(m *Manifest) { m.Layers[1].Tint = "reddish" }), ManifestFile, "layers[1].tint", "not #rrggbb"},
		{"a control for no layer", editManifest(func(m *Manifest) { m.Layers = m.Layers[:4] }), ManifestFile, "controls", "would carry no layer"},
		{"manifest with two documents", appendManifest("---\nversion: 1\n"), ManifestFile, "", "second YAML document"},
		// Class 5: two data sets in one child.
		{"two channels, one child", editManifest(func(m *Manifest) { m.Channels["mask_snow"] = m.Channels["mask.snow"] }), ManifestFile, "channels.mask_snow", "also named by channels.mask.snow"},
		{"a channel in a population's child", editManifest(func(m *Manifest) { m.Channels["scatter_p"] = "scatter_p.texture" }), ManifestFile, "scatter[0].density", "also named by channels.scatter_p"},
		{"names differing in case", editManifest(func(m *Manifest) { m.Channels["Mask"] = "MASK_SNOW.texture" }), ManifestFile, "channels.mask.snow", "also named by channels.Mask"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "broken.terrainData")
			saveFixture(t, path, fixture{w: 7, h: 5, holes: true, textures: true})
			addPopulation(t, path)
			if probs := Validate(path); probs != nil {
				t.Fatalf("fixture invalid:\n%v", Problems(probs))
			}
			tc.breakIt(t, path)
			var probs []Problem
			done := make(chan struct{})
			go func() { probs = Validate(path); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("validate hung")
			}
			for _, p := range probs {
				if strings.HasSuffix(p.File, tc.file) && p.Field == tc.field && strings.Contains(p.Msg, tc.msg) {
					return
				}
			}
			t.Errorf("no problem %s: %s: …%s…; got:\n%v", tc.file, tc.field, tc.msg, Problems(probs))
		})
	}
}

// addPopulation gives the fixture a scatter population with a density child (zero density).
func addPopulation(t *testing.T, path string) {
	t.Helper()
	if _, err := WriteTextureFloatPixels(filepath.Join(path, "scatter_p.texture"), R32F, 7, 5, make([]float32, 35)); err != nil {
		t.Fatal(err)
	}
	editManifest(func(m *Manifest) {
		m.Scatter = []Population{{Name: "p", Density: "scatter_p.texture", Spacing: 2, Seed: 1, Scale: [2]float64{1, 1}, Mesh: "tree", Count: 3}}
	})(t, path)
}

// TestReadersShareValidation: a reader reaching a broken child through a Ref refuses it with the
// same file and field validate names, and never hangs or allocates for a lie.
func TestReadersShareValidation(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(t *testing.T, p string)
		ref     func(c *Container) *Ref
		want    string
	}{
		{"FIFO payload", in("control0.texture/data.png", fifo), func(c *Container) *Ref { return c.Control(0) }, "/control0.texture/data.png: controls[0]: a FIFO (named pipe), not a regular file"},
		{"payload symlinked out", in("height.texture/data.exr", symlinkTo("/dev/zero")), func(c *Container) *Ref { return c.Height() }, "height: resolves to /dev/zero, outside the container"},
		{"child folder symlinked out", func(t *testing.T, p string) {
			out := filepath.Join(filepath.Dir(p), "outside.texture")
			os.Rename(filepath.Join(p, "holes.texture"), out)
			os.Symlink(out, filepath.Join(p, "holes.texture"))
		}, func(c *Container) *Ref { return c.Holes() }, "holes: resolves to"},
		{"dotdot child", func(t *testing.T, p string) {
			os.Rename(filepath.Join(p, "holes.texture"), filepath.Join(p, "..", "holes.texture"))
			editManifest(func(m *Manifest) { m.Holes = "../holes.texture" })(t, p)
		}, func(c *Container) *Ref { return c.Holes() }, "holes: child path \"../holes.texture\" escapes the container"},
		{"lying PNG", in("holes.texture", func(t *testing.T, p string) {
			writeInfo(p, TextureInfo{Format: RGBA8, Width: 16384, Height: 16384})
			os.WriteFile(filepath.Join(p, "data.png"), lyingPNG(16384, 16384), 0o644)
		}), func(c *Container) *Ref { return c.Holes() }, "holes: payload disagrees with texture.yaml: 16384x16384 texels cannot fit in a 66-byte file"},
		{"NaN height", in("height.texture", func(t *testing.T, p string) {
			pix := make([]float32, 4*35)
			pix[4*9] = float32(math.NaN())
			WriteTextureFloatPixels(p, RGBA32F, 7, 5, pix)
		}), func(c *Container) *Ref { return c.Height() }, "height: 1 texel(s) are invalid, first at (2,1): R is NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "broken.terrainData")
			saveFixture(t, path, fixture{w: 7, h: 5, holes: true})
			tc.breakIt(t, path)
			c, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := tc.ref(c).Read(); done <- err }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("read hung")
			}
			var ce *ChildError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want a ChildError with %q", err, tc.want)
			}
		})
	}
}

// TestOpenRefusesDeviceManifest: info/render/export open the manifest through the same checks.
func TestOpenRefusesDeviceManifest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.terrainData")
	saveFixture(t, path, fixture{w: 4, h: 4})
	mf := filepath.Join(path, ManifestFile)
	mkfifo(t, mf)
	if _, err := Open(path); !errors.Is(err, safeio.ErrNotRegular) {
		t.Errorf("FIFO manifest: %v", err)
	}
	os.Remove(mf)
	os.Symlink("/dev/zero", mf)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "outside the container") {
		t.Errorf("manifest symlinked to /dev/zero: %v", err)
	}
}

// TestLimitsMatchField binds terraindata's grid and extent limits to field's, so every container a
// bake can write is one validate accepts.
func TestLimitsMatchField(t *testing.T) {
	if MaxSide != field.MaxSide || MaxTexels != field.MaxTexels || MaxExtent != field.MaxExtent || MinSize != field.MinSize {
		t.Errorf("terraindata %d/%d/%g/%g, field %d/%d/%g/%g", MaxSide, MaxTexels, MaxExtent, MinSize, field.MaxSide, field.MaxTexels, field.MaxExtent, field.MinSize)
	}
}

// FuzzTextureInfo: any texture.yaml either reads as a format and size within the limits or is
// refused with the file named; it never panics.
func FuzzTextureInfo(f *testing.F) {
	f.Add([]byte("guid: 6a0c\nformat: rgba32f\nwidth: 2048\nheight: 2048\ncolorSpace: linear\n"))
	f.Add([]byte("format: rgba8\nwidth: 200000\nheight: 200000\n"))
	f.Add([]byte("format: r32f\nwidth: -1\nheight: 3\n---\nformat: rgba8\n"))
	f.Add([]byte("format: [r32f]\nwidth: 1e99\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, TextureInfoFile), b, 0o644)
		info, err := ReadTextureInfo(dir)
		if err != nil {
			if !strings.Contains(err.Error(), TextureInfoFile) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if !info.Format.valid() || info.Width < 1 || info.Height < 1 || info.Width > MaxSide || info.Height > MaxSide || info.Width*info.Height > MaxTexels {
			t.Errorf("accepted %+v", info)
		}
	})
}

// TestSaveOverDeviceManifest: saving over a container whose terrain.yaml is a FIFO refuses at once
// instead of blocking on the read of the old guid.
func TestSaveOverDeviceManifest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.terrainData")
	saveFixture(t, path, fixture{w: 4, h: 4})
	mkfifo(t, filepath.Join(path, ManifestFile))
	done := make(chan error, 1)
	go func() { _, err := saveFixtureFrom(path, fixture{w: 4, h: 4}, "", nil); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, safeio.ErrNotRegular) {
			t.Errorf("got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("save hung")
	}
}
