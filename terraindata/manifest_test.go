package terraindata

import (
	"strings"
	"testing"
)

// seedManifest is the example of ../shared/seeds/terrainData.txt, verbatim.
const seedManifest = `version: 1
size: [4000, 4000]          # metres of ground, along world X and Z
origin: [0, 0]              # world centre of that rect
heightRange: [-8.1, 63.4]   # the vertical reach the geometry declares
height: height.texture
holes: holes.texture
controls: [control0.texture, control1.texture]
layers:
  - { name: sand, albedo: "…", normal: "…", mask: "…", tiling: 12 }
  - { name: rock, albedo: "…", tiling: 8 }
atlas:
  albedo: atlas_albedo.texture
  normal: atlas_normal.texture
  mask: atlas_mask.texture
  size: [2048, 1024]
`

func TestSeedManifestParses(t *testing.T) {
	m, err := DecodeManifest([]byte(seedManifest))
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != 1 || m.Size != [2]float64{4000, 4000} || m.HeightRange != [2]float64{-8.1, 63.4} ||
		m.Height != "height.texture" || m.Holes != "holes.texture" || len(m.Controls) != 2 ||
		m.Controls[1] != "control1.texture" || len(m.Layers) != 2 || m.Layers[0].Tiling != 12 ||
		m.Layers[1].Albedo != "…" || m.Atlas == nil || m.Atlas.Size != [2]int{2048, 1024} || m.Atlas.Mask != "atlas_mask.texture" {
		t.Errorf("decoded %+v", m)
	}
	// Re-encoding and decoding gives the same manifest.
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := DecodeManifest(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	b2, _ := m2.Encode()
	if string(b) != string(b2) {
		t.Errorf("re-encode differs:\n%s\n%s", b, b2)
	}
	if !strings.Contains(string(b), "- {name: sand, albedo: …, normal: …, mask: …, tiling: 12}") {
		t.Errorf("layers are not written one per line:\n%s", b)
	}
}

func TestManifestExtensions(t *testing.T) {
	tests := []struct {
		name, yaml string
		check      func(*Manifest) bool
	}{
		{"bare layer names", "layers: [sand, rock]", func(m *Manifest) bool { return len(m.Layers) == 2 && m.Layers[1].Name == "rock" }},
		{"unknown keys ignored", "version: 1\nfuture: {x: 1}\nsize: [1, 2]", func(m *Manifest) bool { return m.Size == [2]float64{1, 2} }},
		{"guid stack channels", "guid: abc\nstack: stack.yaml\nchannels: {mask.snow: mask_snow.texture}", func(m *Manifest) bool {
			return m.GUID == "abc" && m.Stack == "stack.yaml" && m.Channels["mask.snow"] == "mask_snow.texture"
		}},
		{"scatter", "scatter:\n  - {name: pines, density: pines.texture, spacing: 10, seed: 7, scale: [0.8, 1.3], mesh: tree, count: 12}", func(m *Manifest) bool {
			return len(m.Scatter) == 1 && m.Scatter[0].Scale == [2]float64{0.8, 1.3} && m.Scatter[0].Count == 12 && m.Scatter[0].Seed == 7
		}},
	}
	for _, tc := range tests {
		m, err := DecodeManifest([]byte(tc.yaml))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !tc.check(m) {
			t.Errorf("%s: decoded %+v", tc.name, m)
		}
	}
}

// FuzzDecodeManifest: any terrain.yaml decodes or is refused with the package's prefix; what
// decodes encodes again, and Check judges it without panicking, naming the manifest in every
// problem (issue 12's hostile manifests are among the seeds).
func FuzzDecodeManifest(f *testing.F) {
	f.Add([]byte(seedManifest))
	f.Add([]byte("layers: [a, {name: b}]\nscatter: [{name: p}]"))
	f.Add([]byte("version: 1\nsize: [1e300, .nan]\nheightRange: [5, -5]\nheight: ../h.texture\nlayers: []\n"))
	f.Add([]byte("version: 1\nscatter: [{name: t, density: d.texture, spacing: .nan, count: 576460752303423488, scale: [0, -1]}]\n"))
	f.Add([]byte("version: 1\nchannels: {mask.snow: m.texture, Mask_Snow: M.TEXTURE}\n---\nversion: 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeManifest(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "terraindata: ") {
				t.Errorf("error without prefix: %v", err)
			}
			return
		}
		if _, err := m.Encode(); err != nil {
			t.Errorf("decoded manifest does not encode: %v", err)
		}
		c := &Container{path: "x.terrainData", readDir: "x.terrainData", m: *m}
		for _, p := range c.Check() {
			if !strings.HasSuffix(p.File, ManifestFile) || p.Msg == "" {
				t.Errorf("problem without file or message: %+v", p)
			}
		}
	})
}

func TestLayerSlot(t *testing.T) {
	for n := 1; n <= 8; n++ {
		c := New()
		var ls []Layer
		for i := 0; i < n; i++ {
			ls = append(ls, Layer{Name: string(rune('a' + i))})
		}
		c.SetLayers(ls)
		for i := 0; i < n; i++ {
			tex, ch, ok := c.LayerSlot(string(rune('a' + i)))
			// The seed's 1-based form: layer k=i+1 is channel ((k-1)%4)+1 of texture ceil(k/4).
			k := i + 1
			seedTex, seedCh := (k+3)/4, (k-1)%4+1
			if !ok || tex != seedTex-1 || ch != seedCh-1 {
				t.Errorf("%d layers: LayerSlot(layer %d) = %d,%d,%v; seed says texture %d channel %d", n, i, tex, ch, ok, seedTex, seedCh)
			}
		}
		if _, _, ok := c.LayerSlot("nope"); ok {
			t.Errorf("unknown layer found")
		}
	}
}
