package terraindata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// beginHeight starts a save of a one-layer 7×5 container at path with its height written and
// named; finishPrevalidated writes the control and the placement (heightRange hr) and commits.
func beginHeight(t *testing.T, path string) (*Saving, *Container, *HeightGrid) {
	t.Helper()
	c := New()
	s, err := BeginSave(path, c, SaveOptions{})
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
		for _, f := range []string{"controls[0]", "holes", "channels.nothing"} {
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
