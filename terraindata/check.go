package terraindata

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// World extent limits: positions are float32 on the GPU and in the payloads, so a size or origin
// past MaxExtent (10 000 km) no longer resolves a metre, and a size under MinSize (1 mm) makes
// texel sizes the float32 geometry cannot invert. field.MaxExtent and field.MinSize are the same
// numbers (a test binds them), so a bake refuses what validate would.
const (
	MaxExtent = 1e7
	MinSize   = 1e-3
)

// Check returns the problems of the manifest alone — no child is opened — that a reader would
// trip on: an unknown version; a placement that is missing, not finite or beyond float32's reach;
// no height; a layer table the controls cannot carry, with empty or repeated names or a tint that
// is not #rrggbb; child paths that are not relative or climb out, or two fields naming one child;
// scatter entries with an empty or repeated name, a spacing, count or scale no placement can use.
// info, render, export and the editor run it before reading children; Validate runs it first.
func (c *Container) Check() Problems {
	return checkManifest(filepath.Join(c.readDir, ManifestFile), &c.m)
}

func checkManifest(mf string, m *Manifest) Problems {
	var ps Problems
	add := func(field, format string, a ...any) {
		ps = append(ps, Problem{File: mf, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	if m.Version != Version {
		add("version", "unknown version %d (this build reads version %d)", m.Version, Version)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && math.Abs(x) <= math.MaxFloat32 }
	if s := m.Size; !(s[0] >= MinSize && s[0] <= MaxExtent && s[1] >= MinSize && s[1] <= MaxExtent) {
		if s == [2]float64{} {
			add("size", "missing: the manifest must say where its ground stands, in metres along X and Z")
		} else {
			add("size", "%v: want %g … %g metres along X and Z (not positive, not finite or beyond float32 world positions)", s, MinSize, MaxExtent)
		}
	}
	if o := m.Origin; !(math.Abs(o[0]) <= MaxExtent && math.Abs(o[1]) <= MaxExtent) {
		add("origin", "%v: want finite metres within ±%g (world positions are float32)", o, MaxExtent)
	}
	if hr := m.HeightRange; !finite(hr[0]) || !finite(hr[1]) || hr[0] > hr[1] {
		add("heightRange", "%v is not a range [low, high] of finite float32 metres", hr)
	}
	if m.Height == "" {
		add("height", "no heightfield named: a landscape without one is ground nothing can stand on")
	}
	checkLayers(m, add)
	checkChildren(m, add)
	checkScatter(m, add, finite)
	return ps
}

func checkLayers(m *Manifest, add func(field, format string, a ...any)) {
	n, c := len(m.Layers), len(m.Controls)
	switch {
	case n == 0:
		add("layers", "no layers: a landscape has at least its ground layer")
	case n > MaxLayers:
		add("layers", "%d layers; at most %d are supported", n, MaxLayers)
	case n > 4*c:
		add("layers", "%d layers but %d control texture(s) carry at most %d (four layers each)", n, c, 4*c)
	case c > (n+3)/4:
		add("controls", "%d control textures for %d layers: control%d would carry no layer", c, n, (n+3)/4)
	}
	seen := map[string]int{}
	for i, l := range m.Layers {
		f := fmt.Sprintf("layers[%d]", i)
		if l.Name == "" {
			add(f+".name", "empty layer name")
		} else if j, dup := seen[l.Name]; dup {
			add(f+".name", "layer %q appears twice (also layers[%d])", l.Name, j)
		} else {
			seen[l.Name] = i
		}
		if !(l.Tiling >= 0 && l.Tiling <= math.MaxFloat32) {
			add(f+".tiling", "%v: want finite metres > 0 (0 or absent: the default)", l.Tiling)
		}
		if l.Tint != "" && !isHexColor(l.Tint) {
			add(f+".tint", "%q is not #rrggbb", l.Tint)
		}
	}
	if a := m.Atlas; a != nil && a.Size != [2]int{} {
		if !validAtlasSize(a.Size) {
			add("atlas.size", "%v must be positive multiples of 4 (width) and 2 (height), at most %d", a.Size, MaxAtlasSide)
		}
	}
}

func isHexColor(s string) bool {
	h := strings.TrimPrefix(strings.TrimSpace(s), "#")
	_, err := strconv.ParseUint(h, 16, 32)
	return len(h) == 6 && err == nil
}

// checkChildren refuses child paths that are not relative and clean, and two fields naming one
// child: one of them would read the other's data (mask.snow and mask_snow both stored as
// mask_snow.texture). Names that differ only in letter case are one file on macOS and Windows.
func checkChildren(m *Manifest, add func(field, format string, a ...any)) {
	owner := map[string]string{}
	for _, ch := range children(m) {
		if err := checkRel(ch.rel); err != nil {
			add(ch.field, "child path %v", err)
			continue
		}
		key := strings.ToLower(filepath.Clean(ch.rel))
		if other, dup := owner[key]; dup {
			add(ch.field, "%s is also named by %s: one child cannot hold two data sets", ch.rel, other)
			continue
		}
		owner[key] = ch.field
	}
}

func checkScatter(m *Manifest, add func(field, format string, a ...any), finite func(float64) bool) {
	seen := map[string]int{}
	for i, p := range m.Scatter {
		f := fmt.Sprintf("scatter[%d]", i)
		switch j, dup := seen[p.Name]; {
		case p.Name == "":
			add(f+".name", "empty population name")
		case dup:
			add(f+".name", "population %q appears twice (also scatter[%d])", p.Name, j)
		default:
			seen[p.Name] = i
		}
		if p.Density == "" {
			add(f+".density", "no density child named")
		}
		if !finite(p.Spacing) || p.Spacing < 0 {
			add(f+".spacing", "%v: want finite metres ≥ 0 (0: nothing placed)", p.Spacing)
		}
		if p.Count < 0 || p.Count > MaxScatterCount {
			add(f+".count", "%d: want 0 … %d instances", p.Count, MaxScatterCount)
		}
		lo, hi := p.Scale[0], p.Scale[1]
		if !finite(lo) || !finite(hi) || !(lo > 0) || !(hi > 0) || lo > hi {
			add(f+".scale", "%v: want [lo, hi] with 0 < lo ≤ hi", p.Scale)
		}
	}
}
