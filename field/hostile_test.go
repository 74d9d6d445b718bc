package field

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/internal/safeio"
	"strata/internal/sysmem"
)

// TestImportRefusesDevices is issue 12's class 2 for heightmaps and channels: a FIFO, /dev/zero
// and a symlink to /dev/zero named as --height or --channel used to hang or read gigabytes; they
// are refused by name, at once.
func TestImportRefusesDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "h.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "z.r16")
	os.Symlink("/dev/zero", link)
	for _, tc := range []struct{ desc, path, want string }{
		{"FIFO", fifo, "FIFO"},
		{"/dev/zero", "/dev/zero", "character device"},
		{"symlink to /dev/zero", link, "character device"},
	} {
		for _, load := range []struct {
			role string
			fn   func(string) error
		}{
			{"height", func(p string) error { _, err := LoadHeight(p, ImportOptions{Size: [2]int{4, 4}}); return err }},
			{"channel", func(p string) error { _, err := LoadChannel(p, 4, 4); return err }},
		} {
			t.Run(tc.desc+" as "+load.role, func(t *testing.T) {
				done := make(chan error, 1)
				go func() { done <- load.fn(tc.path) }()
				select {
				case err := <-done:
					if !errors.Is(err, safeio.ErrNotRegular) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("got %v, want the path and %q", err, tc.want)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("hung")
				}
			})
		}
	}
}

// TestImportMemoryBudget is issue 12's class 8 for imports: a small PNG declaring a large grid is
// refused before decoding when the decode would not fit the memory budget, naming the need (the
// float32 grid and the decoder's few batches of rows) and the budget's source.
func TestImportMemoryBudget(t *testing.T) {
	var b bytes.Buffer
	if err := encodeGray8(&Grid{W: 3000, H: 3000, Data: make([]float32, 3000*3000)}, [2]float64{0, 1})(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.png")
	os.WriteFile(path, b.Bytes(), 0o644)
	t.Setenv(sysmem.EnvLimit, "32MiB")
	t.Setenv(sysmem.EnvMapPlanes, "never") // the grid on the heap, as before planes on disk
	_, err := LoadHeight(path, ImportOptions{})
	if !errors.Is(err, sysmem.ErrInsufficient) || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "decoding a 3000×3000 8-bit grayscale PNG needs about 36 MiB, 32 MiB is available (STRATA_MEMORY_LIMIT=32MiB)") {
		t.Errorf("%d-byte PNG of 3000²: %v", b.Len(), err)
	}
	// Planes on disk (the default, auto): the grid needs disk, not memory, so only the decoder's
	// rows are held to the budget and the same file is read into a mapped plane.
	t.Setenv(sysmem.EnvMapPlanes, "auto")
	t.Setenv(sysmem.EnvMapDir, t.TempDir())
	g, err := LoadHeight(path, ImportOptions{})
	if err != nil || !g.OnDisk() {
		t.Errorf("auto under 32MiB: %v (on disk %v), want a plane on disk", err, g.OnDisk())
	}
	g.Release()
	t.Setenv(sysmem.EnvLimit, "1GiB")
	if g, err := LoadHeight(path, ImportOptions{}); err != nil || g.OnDisk() {
		t.Errorf("within the budget: %v (on disk %v)", err, g.OnDisk())
	}
}

// fuzzImport is the body of the import fuzzers: any bytes either decode to a grid within the
// limits whose samples are finite, or are refused; nothing panics; and the streaming import
// reads exactly what the whole-file decoders read, to the same bits (sameImport).
func fuzzImport(t *testing.T, b []byte, ext string) {
	if err := sameImport("fuzz", b, ext, heightSpec([2]int{}, [2]float64{0, 100})); err != nil {
		t.Fatal(err)
	}
	// Read again with a consumer of its complete rows: what it hears is in order, within the
	// grid, and final (rowsWatch), whether or not the file is accepted.
	var rw rowsWatch
	spec := heightSpec([2]int{}, [2]float64{0, 100})
	spec.rows = rw.fn
	g, _, err := importFrom(context.Background(), "fuzz", bytes.NewReader(b), int64(len(b)), ext, spec, nil)
	if err := rw.check(g); err != nil {
		t.Fatalf("rows done: %v", err)
	}
	if err != nil {
		return
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("accepted grid is invalid: %v", err)
	}
}

func fuzzSeeds(f *testing.F, encs ...func(*bytes.Buffer) error) {
	for _, enc := range encs {
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
}

// FuzzImportPNG: PNG heightmaps.
func FuzzImportPNG(f *testing.F) {
	g := floatGrid(7, 5)
	rng := [2]float64{-3000, 3000}
	fuzzSeeds(f,
		func(b *bytes.Buffer) error { return EncodePNG16(b, g, rng) },
		func(b *bytes.Buffer) error { return encodeGray8(g, rng)(b) },
	)
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImport(t, b, ".png") })
}

// FuzzImportTIFF: 16-bit and float TIFF heightmaps.
func FuzzImportTIFF(f *testing.F) {
	g := floatGrid(7, 5)
	fuzzSeeds(f,
		func(b *bytes.Buffer) error { return EncodeTIFF16(b, g, [2]float64{-3000, 3000}) },
		func(b *bytes.Buffer) error { return EncodeTIFFFloat(b, g) },
	)
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImport(t, b, ".tif") })
}

// FuzzImportEXR: EXR heightmaps (one channel picked, read block by block).
func FuzzImportEXR(f *testing.F) {
	g := floatGrid(7, 5)
	fuzzSeeds(f,
		func(b *bytes.Buffer) error { return encodeEXR(g, "Y")(b) },
		func(b *bytes.Buffer) error { return encodeEXR(g, "R", "G", "B", "A")(b) },
	)
	f.Fuzz(func(t *testing.T, b []byte) { fuzzImport(t, b, ".exr") })
}
