package terraindata

import (
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveOpenRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dunes.terrainData")
	fx := fixture{w: 7, h: 5, holes: true, textures: true}
	saveFixture(t, path, fx)
	if probs := Validate(path); probs != nil {
		t.Fatalf("fresh container invalid:\n%v", Problems(probs))
	}
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	g := testGrid(7, 5, true)
	p := c.Placement()
	if p.Size != [2]float64{14, 20} || p.HeightRange != g.Range() || p.HeightRange[0] == -1000 {
		t.Errorf("placement %+v, want range %v over ground only", p, g.Range())
	}
	// Height: R metres, G/B gradient, A coverage.
	ht, err := c.Height().Read()
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float32, 4*7)
	for y := 0; y < 5; y++ {
		g.Row(y, row)
		for i, v := range row {
			if !near(ht.Float[y*28+i], v) {
				t.Fatalf("height texel %d of row %d = %v, want %v", i/4, y, ht.Float[y*28+i], v)
			}
		}
	}
	// Holes: R 0 at the hole, 255 elsewhere.
	hol, err := c.Holes().Read()
	if err != nil {
		t.Fatal(err)
	}
	if hol.RGBA8.Pix[4*(7+1)] != 0 || hol.RGBA8.Pix[0] != 255 {
		t.Errorf("holes mask wrong at hole/ground")
	}
	// Controls: two textures for five layers, bytes exact.
	if len(c.Controls()) != 2 {
		t.Fatalf("controls %v", c.Controls())
	}
	for i, r := range c.Controls() {
		tx, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		want := fixtureControl(7, 5, i, 5)
		if string(tx.RGBA8.Pix) != string(want.Pix) {
			t.Errorf("control%d bytes differ", i)
		}
	}
	// Channel r32f.
	mt, err := c.Channel("mask.snow").Read()
	if err != nil || mt.Format != R32F || len(mt.Float) != 35 || !near(mt.Float[34], 34.0/35) {
		t.Errorf("mask.snow: %v %+v", err, mt)
	}
	// Atlas: albedo and normal, no mask sheet.
	a := c.Atlas()
	if a == nil || a.Albedo == nil || a.Normal == nil || a.Mask != nil {
		t.Fatalf("atlas %+v", a)
	}
	if _, err := os.Stat(filepath.Join(path, "atlas_mask.texture")); !os.IsNotExist(err) {
		t.Errorf("a role no layer declares was written")
	}
	// Child guids derive from the landscape's.
	info, _ := c.Height().Info()
	if info.GUID != childGUID(c.Manifest().GUID, "height.texture") {
		t.Errorf("height guid %s not derived from landscape guid", info.GUID)
	}
}

func TestSolidGroundHasNoHoles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "solid.terrainData")
	saveFixture(t, path, fixture{w: 4, h: 4, layers: []Layer{{Name: "only"}}})
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Holes() != nil || c.Atlas() != nil {
		t.Errorf("holes %v atlas %v, want nil", c.Holes(), c.Atlas())
	}
	if _, err := os.Stat(filepath.Join(path, "holes.texture")); !os.IsNotExist(err) {
		t.Errorf("holes.texture written for solid ground")
	}
}

func TestHeightRowGradient(t *testing.T) {
	g := testGrid(4, 3, false) // h = 3x - z²/2 + 10, texel 2 m × 4 m
	row := make([]float32, 16)
	g.Row(1, row)
	tests := []struct {
		desc      string
		got, want float32
	}{
		{"R at (2,1)", row[8], 3*2 - 0.5 + 10},
		{"dh/dx centre (3·2 m over 4 m)", row[4*1+1], 3.0 / 2},
		{"dh/dx left edge one-sided", row[1], 3.0 / 2},
		{"dh/dz central", row[2], (-2 - 0) / 8.0},
		{"A ground", row[3], 1},
	}
	for _, tc := range tests {
		if !near(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.desc, tc.got, tc.want)
		}
	}
	g.Row(0, row)
	if !near(row[2], (-0.5-0)/4) {
		t.Errorf("dh/dz at z edge = %v, want one-sided %v", row[2], -0.5/4)
	}
}

func TestPackAtlasCells(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writePNG(t, filepath.Join(src, "red.png"), 9, 9, color.NRGBA{255, 0, 0, 255})
	layers := []Layer{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e", Albedo: "red.png"}}
	a, err := PackAtlas(dst, layers, src, [2]int{32, 16})
	if err != nil {
		t.Fatal(err)
	}
	if a.Albedo == "" || a.Normal != "" || a.Mask != "" {
		t.Fatalf("atlas %+v", a)
	}
	tx, err := ReadTexture(filepath.Join(dst, a.Albedo))
	if err != nil {
		t.Fatal(err)
	}
	// Layer index 4 (the seed's layer 5) is cell (0,1): x 0..8, y 8..16.
	if c := tx.RGBA8.NRGBAAt(4, 12); c != (color.NRGBA{255, 0, 0, 255}) {
		t.Errorf("cell of layer 5 = %v, want red", c)
	}
	if c := tx.RGBA8.NRGBAAt(12, 4); c != (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("neutral albedo cell = %v, want white", c)
	}
	if tx.ColorSpace != SRGB {
		t.Errorf("albedo colour space %q", tx.ColorSpace)
	}
	if got := AtlasCell(4, [2]int{32, 16}); got.Min.X != 0 || got.Min.Y != 8 {
		t.Errorf("AtlasCell(4) = %v", got)
	}
	if a, err := PackAtlas(dst, layers[:4], src, [2]int{}); err != nil || a != nil {
		t.Errorf("no textures: atlas %v err %v, want nil", a, err)
	}
	if _, err := PackAtlas(dst, layers, src, [2]int{30, 16}); err == nil {
		t.Errorf("size not a multiple of 4 accepted")
	}
}

// TestThirdPartyReadChildren opens every child of a saved container with ImageMagick and the
// OpenEXR tools.
func TestThirdPartyReadChildren(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.terrainData")
	saveFixture(t, path, fixture{w: 6, h: 5, holes: true, textures: true})
	pngs, _ := filepath.Glob(filepath.Join(path, "*.texture", "data.png"))
	exrs, _ := filepath.Glob(filepath.Join(path, "*.texture", "data.exr"))
	if len(pngs) != 5 || len(exrs) != 2 {
		t.Fatalf("children: %v %v", pngs, exrs)
	}
	for _, p := range append(pngs, exrs...) {
		out, err := exec.Command("identify", p).CombinedOutput()
		if err != nil {
			t.Errorf("identify %s: %v\n%s", p, err, out)
		}
	}
	out, err := exec.Command("exrheader", filepath.Join(path, "height.texture", "data.exr")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "A, 32-bit floating-point") || !strings.Contains(string(out), "(0 0) - (5 4)") {
		t.Errorf("exrheader height: %v\n%s", err, out)
	}
	// ImageMagick reads the holes mask's R channel: 0 at the hole (1,1).
	out, err = exec.Command("convert", filepath.Join(path, "holes.texture", "data.png"), "-crop", "1x1+1+1", "txt:-").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "(0,0,0") {
		t.Errorf("convert holes pixel: %v\n%s", err, out)
	}
}

func TestSaveKeepsGUID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.terrainData")
	saveFixture(t, path, fixture{w: 3, h: 3})
	c1, _ := Open(path)
	saveFixture(t, path, fixture{w: 4, h: 4, shift: 5})
	c2, _ := Open(path)
	if c1.Manifest().GUID == "" || c1.Manifest().GUID != c2.Manifest().GUID {
		t.Errorf("guid %q then %q, want kept", c1.Manifest().GUID, c2.Manifest().GUID)
	}
	other := filepath.Join(dir, "h.terrainData")
	if err := Save(other, c2, nil); err == nil {
		t.Errorf("saving a container with no children written validated")
	}
	saveFixture(t, other, fixture{w: 3, h: 3})
	c3, _ := Open(other)
	if c3.Manifest().GUID == c1.Manifest().GUID {
		t.Errorf("a different path got the same guid")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("leftovers beside the containers: %v", ents)
	}
}

func TestSaveRefusesNonContainer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "precious.txt"), []byte("x"), 0o644)
	err := Save(dir, New(), nil)
	if err == nil || !strings.Contains(err.Error(), "not a terrainData container") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "precious.txt")); err != nil {
		t.Errorf("folder touched: %v", err)
	}
}

func TestSetChildRefusesEscapes(t *testing.T) {
	c := New()
	for _, bad := range []string{"/etc/passwd", "../x.texture", "a/../../b", `a\b`} {
		if err := c.SetChild("height", bad); err == nil {
			t.Errorf("SetChild accepted %q", bad)
		}
	}
	if err := c.SetChild("control9", "x"); err == nil {
		t.Errorf("control9 accepted")
	}
	if err := c.SetChild("scatter.pines", "pines.texture"); err != nil || c.Manifest().Scatter[0].Density != "pines.texture" {
		t.Errorf("scatter role: %v", err)
	}
}

// Open only reads: a save in flight beside the container (its .new folder) survives a reader, and
// when a crash left only the backup, Open reads the backup without moving it.
func TestOpenChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.terrainData")
	saveFixture(t, path, fixture{w: 4, h: 4})
	newDir, oldDir := siblings(path)
	if err := os.MkdirAll(newDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(newDir); err != nil {
		t.Fatalf("Open removed another writer's %s: %v", newDir, err)
	}
	if err := os.Rename(path, oldDir); err != nil {
		t.Fatal(err)
	}
	c, err := Open(path)
	if err != nil {
		t.Fatalf("Open with only the backup left: %v", err)
	}
	if _, err := c.Height().Read(); err != nil {
		t.Fatalf("reading the backup's height: %v", err)
	}
	if _, err := os.Stat(oldDir); err != nil {
		t.Fatalf("Open moved the backup: %v", err)
	}
}
