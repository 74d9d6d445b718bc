package landscape

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/field"
	"strata/stack"
	"strata/terraindata"
)

// A landscape a script made: Write keeps the script and its assets under script/ instead of a
// stack.yaml, leaves out the tints the script did not give, and Open gives them back.
func TestScriptRoundTrip(t *testing.T) {
	dir := t.TempDir()
	asset := filepath.Join(dir, "h.r16")
	if err := os.WriteFile(asset, []byte{1, 2, 3, 4}, 0o644); err != nil {
		t.Fatal(err)
	}
	s := stack.New()
	s.Layers = []stack.Layer{stack.NewLayer("sand"), stack.NewLayer("rock")}
	f := field.SampleDunesSized(32)
	w := NewWeights(32, 32)
	for i := 0; i < len(w.Lo); i += 4 {
		w.Lo[i] = 255
	}
	src := []byte("local g = proc.graph()\n")
	l := &Landscape{Stack: s, Field: f, Weights: w,
		Script: &Script{Name: "d.lua", Source: src, Write: "d", Assets: map[string]string{"maps/h.r16": asset}, Tints: []string{"", "#102030"}}}
	path := filepath.Join(dir, "d.terrainData")
	if err := Write(path, l); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(path, "stack.yaml")); !os.IsNotExist(err) {
		t.Error("a script's landscape was written with a stack.yaml")
	}
	o, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if o.Stack != nil || o.Baked == nil || o.Baked.Layers[0].Tint != "" || o.Baked.Layers[1].Tint != "#102030" {
		t.Fatalf("reopened: stack %v, layers %+v", o.Stack, o.Baked)
	}
	sc := o.Script
	if sc == nil || sc.Name != "d.lua" || string(sc.Source) != string(src) || sc.Write != "d" ||
		sc.Assets["maps/h.r16"] != filepath.Join(path, "script", "maps", "h.r16") {
		t.Fatalf("reopened script %+v", sc)
	}
}

// Paths in a script record that would leave its folder are refused on write and on open.
func TestScriptPathsStayInside(t *testing.T) {
	s := stack.New()
	s.Layers = []stack.Layer{stack.NewLayer("a")}
	f := field.SampleDunesSized(8)
	for _, sc := range []*Script{
		{Name: "../x.lua", Source: []byte("x")},
		{Name: "sub/x.lua", Source: []byte("x")},
		{Name: "x.lua", Source: []byte("x"), Assets: map[string]string{"../../etc/passwd": "/etc/passwd"}},
		{Name: "x.lua", Source: []byte("x"), Assets: map[string]string{"/etc/passwd": "/etc/passwd"}},
	} {
		l := &Landscape{Stack: s, Field: f, Weights: NewWeights(8, 8), Script: sc}
		if err := Write(filepath.Join(t.TempDir(), "x.terrainData"), l); err == nil {
			t.Errorf("script %q with assets %v: written", sc.Name, sc.Assets)
		}
	}
	for _, ms := range []*terraindata.Script{{File: "x.lua"}, {File: "script/../x.lua"}, {File: "script/a/x.lua"},
		{File: "script/x.lua", Assets: []string{"textures/a.png"}}, {File: "script/x.lua", Assets: []string{"script/../../a.png"}}} {
		dir := filepath.Join(t.TempDir(), "c.terrainData")
		if err := Write(dir, &Landscape{Stack: s, Field: f, Weights: groundWeights(8)}); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, "script"), 0o755)
		os.WriteFile(filepath.Join(dir, "script", "x.lua"), []byte("x"), 0o644)
		c, err := terraindata.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := openScript(c, ms); err == nil || !strings.Contains(err.Error(), "script") {
			t.Errorf("manifest script %+v: opened (%v)", ms, err)
		}
	}
}

// groundWeights is n×n weights all on layer 0.
func groundWeights(n int) *Weights {
	w := NewWeights(n, n)
	for i := 0; i < len(w.Lo); i += 4 {
		w.Lo[i] = 255
	}
	return w
}

// TestScriptCopyHostile is issue 18's "reading outside what was asked" for the script copy a
// container carries: Open (the editor's open, and Save As after it) reads script/ through the
// containment check every child goes through — a copy linked to a file outside the container, a
// FIFO (which hung the open) and a character device (which grew without bound) are refused by
// name, in bounded time, and nothing outside is read or copied on.
func TestScriptCopyHostile(t *testing.T) {
	s := stack.New()
	s.Layers = []stack.Layer{stack.NewLayer("a")}
	for _, tc := range []struct {
		desc    string
		breakIt func(t *testing.T, script string) // script: the container's script/ folder
		want    string
	}{
		{"script linked to a file outside", func(t *testing.T, d string) {
			secret := filepath.Join(t.TempDir(), "id_rsa")
			os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600)
			os.Remove(filepath.Join(d, "x.lua"))
			os.Symlink(secret, filepath.Join(d, "x.lua"))
		}, "outside the container"},
		{"script a FIFO", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, "x.lua"))
			if err := syscall.Mkfifo(filepath.Join(d, "x.lua"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "FIFO"},
		{"script a link to /dev/zero", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, "x.lua"))
			os.Symlink("/dev/zero", filepath.Join(d, "x.lua"))
		}, "outside the container"},
		{"script a link to a device inside", func(t *testing.T, d string) {
			// the link stays inside, its target does not: still refused
			os.Remove(filepath.Join(d, "x.lua"))
			os.Symlink("../../../../../../../../../../dev/zero", filepath.Join(d, "x.lua"))
		}, "outside the container"},
		{"asset linked to a file outside", func(t *testing.T, d string) {
			secret := filepath.Join(t.TempDir(), "token")
			os.WriteFile(secret, []byte("secret"), 0o600)
			os.Remove(filepath.Join(d, "h.r16"))
			os.Symlink(secret, filepath.Join(d, "h.r16"))
		}, "script.assets[0]"},
		{"asset a FIFO", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, "h.r16"))
			syscall.Mkfifo(filepath.Join(d, "h.r16"), 0o644)
		}, "FIFO"},
		{"asset missing", func(t *testing.T, d string) {
			os.Remove(filepath.Join(d, "h.r16"))
		}, "script.assets[0]"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			dir := t.TempDir()
			asset := filepath.Join(dir, "h.r16")
			os.WriteFile(asset, []byte{1, 2, 3, 4}, 0o644)
			path := filepath.Join(dir, "d.terrainData")
			l := &Landscape{Stack: s, Field: field.SampleDunesSized(8), Weights: groundWeights(8),
				Script: &Script{Name: "x.lua", Source: []byte("-- x"), Write: "d", Assets: map[string]string{"h.r16": asset}}}
			if err := Write(path, l); err != nil {
				t.Fatal(err)
			}
			tc.breakIt(t, filepath.Join(path, ScriptDir))
			done := make(chan error, 1)
			go func() { _, err := Open(path); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "script") {
					t.Fatalf("Open: %v, want an error naming the script and %q", err, tc.want)
				}
				if strings.Contains(err.Error(), "PRIVATE KEY") || strings.Contains(err.Error(), "secret") {
					t.Errorf("the error quotes the file outside: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Open hung")
			}
			if probs := Validate(path); len(probs) == 0 {
				t.Error("validate accepts what Open refuses")
			}
		})
	}
}
