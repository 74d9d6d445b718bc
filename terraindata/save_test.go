package terraindata

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// digest hashes a folder tree (names and bytes), so "exactly the old or the new" is checked
// byte for byte. Saves are deterministic: the same content gives the same digest.
func digest(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		h.Write([]byte(rel + "\x00"))
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

var killFixtures = []fixture{{w: 96, h: 80, holes: true}, {w: 96, h: 80, shift: 5}}

// TestSaveLoopChild is the writing process of TestKillDuringSave: when STRATA_SAVE_LOOP names a
// path it saves the two fixtures there alternately until it is killed.
func TestSaveLoopChild(t *testing.T) {
	path := os.Getenv("STRATA_SAVE_LOOP")
	if path == "" {
		return // only meaningful as TestKillDuringSave's subprocess
	}
	for i := 0; ; i++ {
		if _, err := saveFixtureFrom(path, killFixtures[i%2], "", nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKillDuringSave SIGKILLs a process that is saving at random moments, 50 times; after each
// kill the container at the path, once recovered, validates and is exactly one of the two saves.
func TestKillDuringSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.terrainData")
	want := map[string]int{}
	for i, fx := range killFixtures {
		if _, err := saveFixtureFrom(path, fx, "", nil); err != nil {
			t.Fatal(err)
		}
		want[digest(t, path)] = i
	}
	if _, err := saveFixtureFrom(path, killFixtures[0], "", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := want[digest(t, path)]; !ok || len(want) != 2 {
		t.Fatal("saves are not deterministic; the test cannot tell old from new")
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	seen := map[int]int{}
	leftovers := 0
	newDir, oldDir := siblings(path)
	for k := 0; k < 50; k++ {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestSaveLoopChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STRATA_SAVE_LOOP="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(10+rng.Intn(250)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if a, _ := exists(newDir); a {
			leftovers++
		} else if b, _ := exists(oldDir); b {
			leftovers++
		}
		if err := Recover(path); err != nil {
			t.Fatalf("kill %d: recover: %v", k, err)
		}
		if probs := Validate(path); probs != nil {
			t.Fatalf("kill %d: invalid after recovery:\n%v", k, Problems(probs))
		}
		i, ok := want[digest(t, path)]
		if !ok {
			t.Fatalf("kill %d: container is neither the old nor the new one", k)
		}
		seen[i]++
	}
	t.Logf("after 50 kills: fixture counts %v; %d kills left a temp or backup to recover", seen, leftovers)
	if leftovers == 0 {
		t.Errorf("no kill landed inside a save; the test is not exercising recovery")
	}
}

// TestRecoverStates builds each state a crash can leave and checks what Recover makes of it.
func TestRecoverStates(t *testing.T) {
	tests := []struct {
		name           string
		live, old, new bool
		want           string // content of path after Recover, "" = absent
	}{
		{"crash while writing new", true, false, true, "live"},
		{"crash between the renames", false, true, true, "old"},
		{"crash before removing backup", true, true, false, "live"},
		{"first save never finished", false, false, true, ""},
		{"nothing to do", true, false, false, "live"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.terrainData")
			newDir, oldDir := siblings(path)
			mk := func(p, tag string) {
				os.MkdirAll(p, 0o755)
				os.WriteFile(filepath.Join(p, "tag"), []byte(tag), 0o644)
			}
			if tc.live {
				mk(path, "live")
			}
			if tc.old {
				mk(oldDir, "old")
			}
			if tc.new {
				mk(newDir, "new")
			}
			if err := Recover(path); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(path, "tag"))
			if string(b) != tc.want {
				t.Errorf("after Recover path holds %q, want %q", b, tc.want)
			}
			for _, p := range []string{newDir, oldDir} {
				if ok, _ := exists(p); ok {
					t.Errorf("%s left behind", p)
				}
			}
		})
	}
}
