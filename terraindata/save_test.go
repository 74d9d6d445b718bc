package terraindata

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
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

// TestSaveLoopChild is the writing process of TestKillDuringSave: when STRATA_SAVE_KILL names a
// path it saves fixture STRATA_SAVE_FIXTURE there and, at the crash point STRATA_SAVE_AT of the
// save's swap, says so on stdout and waits to be killed.
func TestSaveLoopChild(t *testing.T) {
	path := os.Getenv("STRATA_SAVE_KILL")
	if path == "" {
		return // only meaningful as TestKillDuringSave's subprocess
	}
	at := os.Getenv("STRATA_SAVE_AT")
	onCrashPoint = func(point string) {
		if point == at {
			fmt.Printf("at %s\n", point)
			select {} // killed here
		}
	}
	i, _ := strconv.Atoi(os.Getenv("STRATA_SAVE_FIXTURE"))
	if _, err := saveFixtureFrom(path, killFixtures[i], "", nil); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("the save ended without reaching %q", at)
}

// TestKillDuringSave SIGKILLs a process in the middle of a save, at each point of the swap where
// a crash leaves a different state on disk, saving each fixture over the other; after each kill
// the container at the path, once recovered, validates and is exactly the one that point leaves:
// the old one until the new one is renamed in, the new one after.
func TestKillDuringSave(t *testing.T) {
	if testing.Short() {
		t.Skip("SIGKILLs saving processes at each crash point of the swap (the full suite runs it: make test)")
	}
	path := filepath.Join(t.TempDir(), "k.terrainData")
	digests := make([]string, len(killFixtures))
	for i, fx := range killFixtures {
		if _, err := saveFixtureFrom(path, fx, "", nil); err != nil {
			t.Fatal(err)
		}
		digests[i] = digest(t, path)
	}
	if _, err := saveFixtureFrom(path, killFixtures[1], "", nil); err != nil {
		t.Fatal(err)
	}
	if digest(t, path) != digests[1] || digests[0] == digests[1] {
		t.Fatal("saves are not deterministic; the test cannot tell old from new")
	}
	newDir, oldDir := siblings(path)
	cur := 1 // the fixture the container holds
	for _, c := range []struct {
		at       string
		leftNew  bool // the point leaves the new folder beside the live one, or the backup
		keepsNew bool
	}{
		{"new written", true, false},
		{"old aside", true, false},
		{"new in place", false, true},
	} {
		for range 2 { // each fixture over the other
			next := 1 - cur
			cmd := exec.Command(os.Args[0], "-test.run", "^TestSaveLoopChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "STRATA_SAVE_KILL="+path, "STRATA_SAVE_AT="+c.at, fmt.Sprintf("STRATA_SAVE_FIXTURE=%d", next))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if err != nil || line != "at "+c.at+"\n" {
				t.Fatalf("%s: the writing process said %q (%v), not that it reached the point", c.at, line, err)
			}
			left, _ := exists(newDir)
			if !c.leftNew {
				left, _ = exists(oldDir)
			}
			if !left {
				t.Errorf("%s: the kill left no folder to recover", c.at)
			}
			if err := Recover(path); err != nil {
				t.Fatalf("%s: recover: %v", c.at, err)
			}
			if probs := Validate(path); probs != nil {
				t.Fatalf("%s: invalid after recovery:\n%v", c.at, Problems(probs))
			}
			want := cur
			if c.keepsNew {
				want = next
			}
			if got := digest(t, path); got != digests[want] {
				t.Fatalf("%s, fixture %d over %d: recovered the %s", c.at, next, cur, map[bool]string{true: "other fixture", false: "neither fixture"}[got == digests[1-want]])
			}
			for _, d := range []string{newDir, oldDir} {
				if a, _ := exists(d); a {
					t.Errorf("%s: %s is left after recovery", c.at, d)
				}
			}
			cur = want
		}
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
