package terraindata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"strata/internal/safeio"
)

// beginHeight starts a save of a one-layer 7×5 container at path with its height written and
// named; finishPrevalidated writes the control and the placement (heightRange hr) and commits.
func beginHeight(t *testing.T, path string) (*Saving, *Container, *HeightGrid) {
	t.Helper()
	return beginHeightWith(t, path, SaveOptions{})
}

func beginHeightLocked(t *testing.T, path string) (*Saving, *Container, *HeightGrid) {
	t.Helper()
	return beginHeightWith(t, path, SaveOptions{Lock: LockPath(path)})
}

func beginHeightWith(t *testing.T, path string, o SaveOptions) (*Saving, *Container, *HeightGrid) {
	t.Helper()
	c := New()
	s, err := BeginSave(path, c, o)
	if err != nil {
		t.Fatal(err)
	}
	g := testGrid(7, 5, false)
	if _, err := WriteHeight(filepath.Join(s.Dir(), "height.texture"), g); err != nil {
		t.Fatal(err)
	}
	if err := c.SetChild("height", "height.texture"); err != nil {
		t.Fatal(err)
	}
	return s, c, g
}

func finishPrevalidated(t *testing.T, s *Saving, c *Container, hr [2]float64) error {
	t.Helper()
	if _, err := WriteTextureRGBA8(filepath.Join(s.Dir(), "control0.texture"), fixtureControl(7, 5, 0, 1), Linear); err != nil {
		t.Fatal(err)
	}
	if err := c.SetChild("control0", "control0.texture"); err != nil {
		t.Fatal(err)
	}
	c.SetLayers([]Layer{{Name: "ground"}})
	c.SetPlacement(Placement{Size: [2]float64{14, 20}, HeightRange: hr})
	return s.Commit()
}

// A prevalidated height is trusted by Commit while unchanged, and read again when it changed;
// the checks across children (heightRange) still run on what Prevalidate gathered.
func TestPrevalidate(t *testing.T) {
	dir := t.TempDir()

	t.Run("sound", func(t *testing.T) {
		path := filepath.Join(dir, "sound.terrainData")
		s, c, g := beginHeight(t, path)
		if err := s.Prevalidate("height"); err != nil {
			t.Fatalf("Prevalidate: %v", err)
		}
		if err := finishPrevalidated(t, s, c, g.Range()); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		if probs := Validate(path); probs != nil {
			t.Fatalf("committed container invalid:\n%v", Problems(probs))
		}
	})

	t.Run("heightRange still checked", func(t *testing.T) {
		path := filepath.Join(dir, "range.terrainData")
		s, c, g := beginHeight(t, path)
		if err := s.Prevalidate("height"); err != nil {
			t.Fatal(err)
		}
		r := g.Range()
		err := finishPrevalidated(t, s, c, [2]float64{r[0] + 1, r[1]})
		if err == nil || !strings.Contains(err.Error(), "heightRange") {
			t.Fatalf("Commit with a heightRange above the ground: %v, want a heightRange problem", err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("an invalid container was swapped in: %v", err)
		}
	})

	t.Run("corrupt payload refused", func(t *testing.T) {
		path := filepath.Join(dir, "corrupt.terrainData")
		s, _, _ := beginHeight(t, path)
		data := filepath.Join(s.Dir(), "height.texture", RGBA32F.DataFile())
		truncateTo(t, data, 100)
		err := s.Prevalidate("height")
		if err == nil || !strings.Contains(err.Error(), "height") || !strings.Contains(err.Error(), RGBA32F.DataFile()) {
			t.Fatalf("Prevalidate of a truncated height: %v, want an error naming the field and the file", err)
		}
		s.Abort()
	})

	t.Run("changed after prevalidate is read again", func(t *testing.T) {
		path := filepath.Join(dir, "changed.terrainData")
		s, c, g := beginHeight(t, path)
		if err := s.Prevalidate("height"); err != nil {
			t.Fatal(err)
		}
		truncateTo(t, filepath.Join(s.Dir(), "height.texture", RGBA32F.DataFile()), 100)
		err := finishPrevalidated(t, s, c, g.Range())
		if err == nil || !strings.Contains(err.Error(), "height") {
			t.Fatalf("Commit after the height was truncated: %v, want it refused", err)
		}
	})

	t.Run("unchanged is not decoded again", func(t *testing.T) {
		// The same size and modification time: Commit trusts it (this is what saves the time),
		// so bytes overwritten in place behind its back go unseen. Nothing but the writer
		// touches a save's temporary folder.
		path := filepath.Join(dir, "trusted.terrainData")
		s, c, g := beginHeight(t, path)
		if err := s.Prevalidate("height"); err != nil {
			t.Fatal(err)
		}
		data := filepath.Join(s.Dir(), "height.texture", RGBA32F.DataFile())
		st, err := os.Stat(data)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(data, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(make([]byte, 64), st.Size()-64); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(data, time.Time{}, st.ModTime()); err != nil {
			t.Fatal(err)
		}
		if err := finishPrevalidated(t, s, c, g.Range()); err != nil {
			t.Fatalf("Commit decoded the prevalidated height again: %v", err)
		}
		if probs := Validate(path); probs == nil {
			t.Fatal("the tampered payload reads as sound: the test does not tamper")
		}
	})

	t.Run("only what it can check alone", func(t *testing.T) {
		path := filepath.Join(dir, "fields.terrainData")
		s, c, _ := beginHeight(t, path)
		defer s.Abort()
		if _, err := WriteTextureRGBA8(filepath.Join(s.Dir(), "control0.texture"), fixtureControl(7, 5, 0, 1), Linear); err != nil {
			t.Fatal(err)
		}
		c.SetChild("control0", "control0.texture")
		for _, f := range []string{"controls[0]", "holes", "channels.nothing", "stack"} {
			if err := s.Prevalidate(f); err == nil {
				t.Errorf("Prevalidate(%q) = nil, want an error", f)
			}
		}
	})
}

func truncateTo(t *testing.T, p string, n int64) {
	t.Helper()
	if err := os.Truncate(p, n); err != nil {
		t.Fatal(err)
	}
}

// The controls are prevalidated together: their sums are checked over the layers named then, and
// Commit reads them again when the layer count changed or a control did.
func TestPrevalidateControls(t *testing.T) {
	dir := t.TempDir()
	begin := func(name string, layers int) (*Saving, *Container, *HeightGrid) {
		s, c, g := beginHeight(t, filepath.Join(dir, name))
		if _, err := WriteTextureRGBA8(filepath.Join(s.Dir(), "control0.texture"), fixtureControl(7, 5, 0, layers), Linear); err != nil {
			t.Fatal(err)
		}
		c.SetChild("control0", "control0.texture")
		ls := make([]Layer, layers)
		for i := range ls {
			ls[i] = Layer{Name: string(rune('a' + i))}
		}
		c.SetLayers(ls)
		c.SetPlacement(Placement{Size: [2]float64{14, 20}, HeightRange: g.Range()})
		return s, c, g
	}

	s, _, _ := begin("sound.terrainData", 3)
	if err := s.Prevalidate("controls"); err != nil {
		t.Fatalf("Prevalidate(controls): %v", err)
	}
	if err := s.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}

	// Weights split over two layers, then one layer named: the second's weights are now in a
	// channel no layer uses, and Commit must find it by reading the control again.
	s, c, _ := begin("relayered.terrainData", 2)
	if err := s.Prevalidate("controls"); err != nil {
		t.Fatal(err)
	}
	c.SetLayers([]Layer{{Name: "a"}})
	if err := s.Commit(); err == nil || !strings.Contains(err.Error(), "sum to 255") {
		t.Fatalf("Commit after the layers changed: %v, want the controls refused", err)
	}

	// A control whose weights do not sum to 255 is refused at once, naming it.
	s, _, _ = begin("bad.terrainData", 3)
	defer s.Abort()
	bad := fixtureControl(7, 5, 0, 3)
	bad.Pix[0]++
	if _, err := WriteTextureRGBA8(filepath.Join(s.Dir(), "control0.texture"), bad, Linear); err != nil {
		t.Fatal(err)
	}
	err := s.Prevalidate("controls")
	if err == nil || !strings.Contains(err.Error(), "sum to 255") || !strings.Contains(err.Error(), "control0.texture") {
		t.Fatalf("Prevalidate of a control that does not sum: %v", err)
	}
}

// Two saves of one path that name its lock file take turns: the second waits in BeginSave for the first to commit (its
// Recover would otherwise remove the first's folder in progress), then commits its own.
func TestSavesOfOnePathTakeTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns.terrainData")
	s1, c1, g := beginHeightLocked(t, path)
	started := make(chan *Saving)
	errs := make(chan error, 1)
	waiting := make(chan string, 1)
	defer safeio.SetWaitHook(func(p string) { waiting <- p })()
	go func() {
		s2, err := BeginSave(path, New(), SaveOptions{Lock: LockPath(path)})
		if err != nil {
			errs <- err
			return
		}
		started <- s2
	}()
	select {
	case s2 := <-started:
		s2.Abort()
		t.Fatal("a second save of the path began while the first was in progress")
	case err := <-errs:
		t.Fatal(err)
	case p := <-waiting: // the second save found the lock held and waits for it
		if p != LockPath(path) {
			t.Fatalf("the second save waited for %s, want %s", p, LockPath(path))
		}
	}
	if _, err := os.Stat(filepath.Join(s1.Dir(), "height.texture")); err != nil {
		t.Fatalf("the first save's folder was touched: %v", err)
	}
	if err := finishPrevalidated(t, s1, c1, g.Range()); err != nil {
		t.Fatal(err)
	}
	var s2 *Saving
	select {
	case s2 = <-started:
	case err := <-errs:
		t.Fatal(err)
	}
	s2.Abort()
	if probs := Validate(path); probs != nil {
		t.Fatalf("the first save's container: %v", Problems(probs))
	}
	if fi, err := os.Stat(LockPath(path)); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("lock file %s: %v", LockPath(path), err)
	}
}

// A lock path that is not a regular file refuses the save by name.
func TestSaveRefusesOddLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "odd.terrainData")
	if err := os.Mkdir(LockPath(path), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := BeginSave(path, New(), SaveOptions{Lock: LockPath(path)})
	if err == nil || !strings.Contains(err.Error(), LockPath(path)) {
		t.Fatalf("BeginSave with a folder as its lock file: %v, want an error naming it", err)
	}
}
