package landscape

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "script"), 0o755)
		os.WriteFile(filepath.Join(dir, "script", "x.lua"), []byte("x"), 0o644)
		if _, err := openScript(dir, ms); err == nil || !strings.Contains(err.Error(), "script") {
			t.Errorf("manifest script %+v: opened (%v)", ms, err)
		}
	}
}
