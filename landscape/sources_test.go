package landscape

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/field"
)

// writeHeight writes a small 16-bit PNG heightmap and returns its path.
func writeHeight(t *testing.T, dir string, n int) string {
	t.Helper()
	p := filepath.Join(dir, "h.png")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := field.EncodePNG16(f, field.SampleDunesSized(n).Height, [2]float64{-10, 80}); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeMask writes an n×n 8-bit PNG channel.
func writeMask(t *testing.T, dir, name string, n int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, _ := os.Create(p)
	defer f.Close()
	g := field.NewGrid(n, n)
	if err := field.EncodePNG16(f, g, [2]float64{0, 1}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadHostile is issue 12's classes 2, 5, 7 and 9 at bake's door: each source set used to be
// accepted (or hang) and fail late, lose data or say nothing of where; each is now refused by
// Load, before any evaluation, naming the file and the field.
func TestLoadHostile(t *testing.T) {
	dir := t.TempDir()
	h := writeHeight(t, dir, 16)
	snow := writeMask(t, dir, "snow.png", 16)
	fifo := filepath.Join(dir, "fifo.png")
	syscall.Mkfifo(fifo, 0o644)
	zero := filepath.Join(dir, "zero.png")
	os.Symlink("/dev/zero", zero)
	lying := filepath.Join(dir, "lying.png")
	ihdr := []byte("IHDR\x00\x03\r@\x00\x03\r@\x08\x06\x00\x00\x00") // 200000×200000 RGBA
	lyingPNG := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\r"), ihdr...)
	lyingPNG = binary.BigEndian.AppendUint32(lyingPNG, crc32.ChecksumIEEE(ihdr))
	os.WriteFile(lying, lyingPNG, 0o644)
	stackFile := func(body string) string {
		p := filepath.Join(t.TempDir(), "s.yaml")
		os.WriteFile(p, []byte("version: 1\n"+body), 0o644)
		return p
	}
	two := "layers: [{name: a}, {name: b}]\n"
	tests := []struct {
		desc string
		src  Sources
		want []string
	}{
		{"FIFO as --height", Sources{StackPath: stackFile(two), Height: fifo}, []string{fifo, "FIFO"}},
		{"/dev/zero as --channel", Sources{StackPath: stackFile(two), Height: h, Channels: []ChannelSource{{"mask.snow", "/dev/zero"}}}, []string{"/dev/zero", "character device"}},
		{"FIFO as --stack", Sources{StackPath: fifo, Height: h}, []string{fifo, "FIFO"}},
		{"FIFO as a layer texture", Sources{StackPath: stackFile("layers: [{name: a}, {name: b, albedo: " + fifo + "}]\n"), Height: h},
			[]string{"s.yaml", `layers[1] "b" albedo`, "FIFO"}},
		{"/dev/zero symlink as a layer texture", Sources{StackPath: stackFile("layers: [{name: a, normal: " + zero + "}]\n"), Height: h},
			[]string{`layers[0] "a" normal`, "character device"}},
		{"PNG texture claiming 200000²", Sources{StackPath: stackFile("layers: [{name: a, mask: " + lying + "}]\n"), Height: h},
			[]string{`layers[0] "a" mask`, "200000x200000: a layer texture is 1 … 16384 pixels per side"}},
		{"repeated --channel", Sources{StackPath: stackFile(two), Height: h, Channels: []ChannelSource{{"mask.snow", snow}, {"mask.snow", h}}},
			[]string{`channel "mask.snow" is given twice`}},
		{"mask.snow and mask_snow", Sources{StackPath: stackFile(two), Height: h, Channels: []ChannelSource{{"mask.snow", snow}, {"mask_snow", snow}}},
			[]string{`channel "mask_snow" and channel "mask.snow" would both be stored as mask_snow.texture`}},
		{"a channel where a population goes", Sources{StackPath: stackFile(two + "populations: [{name: trees}]\n"), Height: h, Channels: []ChannelSource{{"scatter_trees", snow}}},
			[]string{`population "trees" (populations[0]) and channel "scatter_trees" would both be stored as scatter_trees.texture`}},
		{"populations a/b and a_b", Sources{StackPath: stackFile(two + "populations: [{name: a/b}, {name: a_b}]\n"), Height: h},
			[]string{`population "a_b" (populations[1]) and population "a/b" (populations[0])`}},
		{"a channel named holes", Sources{StackPath: stackFile(two), Height: h, Channels: []ChannelSource{{"holes", snow}}},
			[]string{`channel "holes" and the holes mask would both be stored as holes.texture`}},
		{"names differing in case", Sources{StackPath: stackFile(two), Height: h, Channels: []ChannelSource{{"Snow", snow}, {"snow", snow}}},
			[]string{"would both be stored as"}},
		{"missing channel", Sources{StackPath: stackFile("layers:\n  - name: a\n  - name: snow\n    rules: [{input: mask, channel: snow}]\n"), Height: h},
			[]string{"s.yaml", `layers[1] "snow" rules[0]: reads channel "mask.snow", which the field does not have (give --channel mask.snow=FILE; the field has no channels)`}},
		{"1×1 heightmap", Sources{StackPath: stackFile(two), Height: writeHeight(t, t.TempDir(), 1)}, []string{"1×1: a heightmap has at least 2×2 texels"}},
		{"origin beyond float32 reach", Sources{StackPath: stackFile(two), Height: h, Origin: &[2]float64{1e300, 0}}, []string{"origin X = 1e+300"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, _, err := Load(tc.src); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Load hung")
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// The rule every reader of sources applies, with the words strata bake, world plan and
// world.yaml report it in.
func TestSourcesCheck(t *testing.T) {
	for _, tc := range []struct {
		src  Sources
		want string
	}{
		{Sources{Sample: "dunes"}, ""},
		{Sources{Sample: "dunes", StackPath: "s.yaml"}, ""},
		{Sources{Height: "h.png", StackPath: "s.yaml"}, ""},
		{Sources{}, "give exactly one of a heightmap and a sample"},
		{Sources{Height: "h.png", Sample: "dunes", StackPath: "s.yaml"}, "give exactly one of a heightmap and a sample"},
		{Sources{Sample: "hills"}, `sample "hills": the built-in sample is "dunes"`},
		{Sources{Height: "h.png"}, "a heightmap needs a stack (only the sample has a stack of its own)"},
	} {
		err := tc.src.Check()
		if (tc.want == "") != (err == nil) || (err != nil && err.Error() != tc.want) {
			t.Errorf("%+v: %v, want %q", tc.src, err, tc.want)
		}
		if _, _, lerr := Load(tc.src); tc.want != "" && (lerr == nil || lerr.Error() != "bake: "+tc.want) {
			t.Errorf("Load(%+v): %v, want bake: %s", tc.src, lerr, tc.want)
		}
	}
}
