package terraindata

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"strata/exr"
)

// Problem is one reason a container is refused, naming the file and the manifest field so the
// message says what to fix.
type Problem struct {
	File  string // the file or child folder at fault
	Field string // the manifest field involved, "" when none
	Msg   string
}

func (p Problem) String() string {
	if p.Field == "" {
		return p.File + ": " + p.Msg
	}
	return p.File + ": " + p.Field + ": " + p.Msg
}

// Problems is every problem of a container as one error.
type Problems []Problem

func (ps Problems) Error() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, "\n")
}

// child is one path the manifest names.
type child struct {
	field  string
	rel    string
	format Format // "" for a plain file (stack.yaml)
}

// children lists every child the manifest names, in manifest order.
func children(m *Manifest) []child {
	var out []child
	add := func(field, rel string, f Format) {
		if rel != "" {
			out = append(out, child{field, rel, f})
		}
	}
	add("height", m.Height, RGBA32F)
	add("holes", m.Holes, RGBA8)
	for i, c := range m.Controls {
		add(fmt.Sprintf("controls[%d]", i), c, RGBA8)
	}
	if a := m.Atlas; a != nil {
		add("atlas.albedo", a.Albedo, RGBA8)
		add("atlas.normal", a.Normal, RGBA8)
		add("atlas.mask", a.Mask, RGBA8)
	}
	add("stack", m.Stack, "")
	names := make([]string, 0, len(m.Channels))
	for n := range m.Channels {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add("channels."+n, m.Channels[n], R32F)
	}
	for i, p := range m.Scatter {
		add(fmt.Sprintf("scatter[%d].density", i), p.Density, R32F)
	}
	return out
}

// Validate is the publish gate: it returns every problem of the container at path, nil when it
// is valid. It refuses what the seed refuses — a manifest that does not decode, no placement, a
// named child that is absent, more layers than the controls carry — and what would break a
// reader later: unknown versions, children of the wrong format or size, NaN in height, and child
// paths that leave the container. It only reads; it does not recover an interrupted save.
func Validate(path string) []Problem {
	v := &validator{root: path}
	v.run()
	return v.probs
}

type validator struct {
	root  string
	probs []Problem
}

func (v *validator) add(file, field, format string, a ...any) {
	v.probs = append(v.probs, Problem{File: file, Field: field, Msg: fmt.Sprintf(format, a...)})
}

func (v *validator) run() {
	mf := filepath.Join(v.root, ManifestFile)
	fi, err := os.Stat(v.root)
	if err != nil {
		v.add(v.root, "", "not a terrainData container: %v", err)
		return
	}
	if !fi.IsDir() {
		v.add(v.root, "", "not a terrainData container: a terrainData is a folder holding %s", ManifestFile)
		return
	}
	b, err := os.ReadFile(mf)
	if err != nil {
		v.add(mf, "", "missing manifest: %v", err)
		return
	}
	m, err := DecodeManifest(b)
	if err != nil {
		v.add(mf, "", "manifest does not decode: %v", errors.Unwrap(err))
		return
	}
	if m.Version != Version {
		v.add(mf, "version", "unknown version %d (this build reads version %d)", m.Version, Version)
	}
	finite := func(x [2]float64) bool {
		return !math.IsNaN(x[0]) && !math.IsNaN(x[1]) && !math.IsInf(x[0], 0) && !math.IsInf(x[1], 0)
	}
	if !(m.Size[0] > 0) || !(m.Size[1] > 0) || !finite(m.Size) {
		v.add(mf, "size", "missing or not positive (%v): the manifest must say where its ground stands, in metres along X and Z", m.Size)
	}
	if !finite(m.Origin) {
		v.add(mf, "origin", "not finite (%v)", m.Origin)
	}
	if !finite(m.HeightRange) || m.HeightRange[0] > m.HeightRange[1] {
		v.add(mf, "heightRange", "%v is not a range [low, high]", m.HeightRange)
	}
	if m.Height == "" {
		v.add(mf, "height", "no heightfield named: a landscape without one is ground nothing can stand on")
	}
	v.layers(mf, m)

	sizes := map[string]TextureInfo{} // field → info of children that read fine
	for _, ch := range children(m) {
		if info, ok := v.child(mf, ch); ok {
			sizes[ch.field] = info
		}
	}
	v.sizes(m, sizes)
	if info, ok := sizes["height"]; ok {
		v.heightData(filepath.Join(v.root, filepath.FromSlash(m.Height)), info, m)
	}
}

func (v *validator) layers(mf string, m *Manifest) {
	if n, c := len(m.Layers), len(m.Controls); n > 4*c {
		v.add(mf, "layers", "%d layers but %d control texture(s) carry at most %d (four layers each)", n, c, 4*c)
	}
	if len(m.Layers) > MaxLayers {
		v.add(mf, "layers", "%d layers; at most %d are supported", len(m.Layers), MaxLayers)
	}
	seen := map[string]bool{}
	for i, l := range m.Layers {
		switch {
		case l.Name == "":
			v.add(mf, fmt.Sprintf("layers[%d].name", i), "empty layer name")
		case seen[l.Name]:
			v.add(mf, fmt.Sprintf("layers[%d].name", i), "layer %q appears twice", l.Name)
		}
		seen[l.Name] = true
	}
	if a := m.Atlas; a != nil && a.Size != [2]int{} {
		if a.Size[0] <= 0 || a.Size[1] <= 0 || a.Size[0]%AtlasColumns != 0 || a.Size[1]%AtlasRows != 0 {
			v.add(mf, "atlas.size", "%v must be positive multiples of 4 (width) and 2 (height)", a.Size)
		}
	}
}

// child checks one named child: a safe path, present, inside the container, and (for textures)
// a readable texture.yaml of the expected format whose payload agrees with it.
func (v *validator) child(mf string, ch child) (TextureInfo, bool) {
	if err := checkRel(ch.rel); err != nil {
		v.add(mf, ch.field, "child path %v", err)
		return TextureInfo{}, false
	}
	p := filepath.Join(v.root, filepath.FromSlash(ch.rel))
	if _, err := os.Lstat(p); err != nil {
		v.add(p, ch.field, "named child is absent")
		return TextureInfo{}, false
	}
	if err := v.inside(p); err != nil {
		v.add(p, ch.field, "%v", err)
		return TextureInfo{}, false
	}
	if ch.format == "" {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			v.add(p, ch.field, "not a file")
		}
		return TextureInfo{}, false
	}
	info, err := ReadTextureInfo(p)
	if err != nil {
		v.add(p, ch.field, "%v", strings.TrimPrefix(err.Error(), "terraindata: "))
		return TextureInfo{}, false
	}
	if info.Format != ch.format {
		v.add(p, ch.field, "format %s, want %s", info.Format, ch.format)
		return TextureInfo{}, false
	}
	data := filepath.Join(p, info.Format.DataFile())
	if err := v.inside(data); err != nil {
		v.add(data, ch.field, "%v", err)
		return TextureInfo{}, false
	}
	if err := checkPayload(p, info); err != nil {
		v.add(data, ch.field, "%v", strings.TrimPrefix(err.Error(), "terraindata: "+data+": "))
		return TextureInfo{}, false
	}
	return info, true
}

// inside refuses a path whose real location (after symlinks) is outside the container.
func (v *validator) inside(p string) error {
	root, err := filepath.EvalSymlinks(v.root)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("named child is absent (dangling link)")
		}
		return err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("resolves to %s, outside the container", real)
	}
	return nil
}

// sizes checks that children which must share a grid do.
func (v *validator) sizes(m *Manifest, got map[string]TextureInfo) {
	dims := func(i TextureInfo) string { return fmt.Sprintf("%dx%d", i.Width, i.Height) }
	file := func(rel string) string { return filepath.Join(v.root, filepath.FromSlash(rel)) }
	h, haveH := got["height"]
	if hol, ok := got["holes"]; ok && haveH && dims(hol) != dims(h) {
		v.add(file(m.Holes), "holes", "%s, the height is %s: the mask must match it texel for texel", dims(hol), dims(h))
	}
	var c0 *TextureInfo
	for i, rel := range m.Controls {
		ci, ok := got[fmt.Sprintf("controls[%d]", i)]
		if !ok {
			continue
		}
		if c0 == nil {
			c0 = &ci
		} else if dims(ci) != dims(*c0) {
			v.add(file(rel), fmt.Sprintf("controls[%d]", i), "%s, controls[0] is %s: control textures must share one size", dims(ci), dims(*c0))
		}
	}
	for name, rel := range m.Channels {
		if ci, ok := got["channels."+name]; ok && haveH && dims(ci) != dims(h) {
			v.add(file(rel), "channels."+name, "%s, the height is %s: channels share the height grid", dims(ci), dims(h))
		}
	}
	for i, p := range m.Scatter {
		if di, ok := got[fmt.Sprintf("scatter[%d].density", i)]; ok && c0 != nil && dims(di) != dims(*c0) {
			v.add(file(p.Density), fmt.Sprintf("scatter[%d].density", i), "%s, the controls are %s: density lives on the weights grid", dims(di), dims(*c0))
		}
	}
	if a := m.Atlas; a != nil {
		size := a.Size
		if size == [2]int{} {
			size = DefaultAtlasSize
		}
		for _, r := range []struct{ field, rel string }{{"atlas.albedo", a.Albedo}, {"atlas.normal", a.Normal}, {"atlas.mask", a.Mask}} {
			if ai, ok := got[r.field]; ok && (ai.Width != size[0] || ai.Height != size[1]) {
				v.add(file(r.rel), r.field, "%s, atlas.size says %dx%d", dims(ai), size[0], size[1])
			}
		}
	}
}

// heightData streams the height payload: every R must be finite, and the ground texels (A > 0)
// must lie inside heightRange.
func (v *validator) heightData(dir string, info TextureInfo, m *Manifest) {
	p := filepath.Join(dir, info.Format.DataFile())
	f, err := os.Open(p)
	if err != nil {
		v.add(p, "height", "%v", err)
		return
	}
	defer f.Close()
	r, err := exr.NewReader(f)
	if err != nil {
		v.add(p, "height", "%v", err)
		return
	}
	w := r.Header().Width
	// The blocks are decoded on every core (a 8192² payload is 1 GiB of floats); each folds its
	// rows into the totals under mu. first is the lowest NaN texel in row order.
	var mu sync.Mutex
	nan := 0
	firstAt := -1
	lo, hi := math.Inf(1), math.Inf(-1)
	err = r.Blocks(context.Background(), 0, func(y0, n int, rows [][]float32) error {
		if len(rows) < 4 {
			return fmt.Errorf("height payload has %d channels, want R, G, B, A", len(rows))
		}
		bn, bfirst := 0, -1
		blo, bhi := math.Inf(1), math.Inf(-1)
		for i := 0; i < n*w; i++ {
			h := float64(rows[0][i])
			if math.IsNaN(h) || math.IsInf(h, 0) {
				if bn == 0 {
					bfirst = y0*w + i
				}
				bn++
				continue
			}
			if rows[3][i] > 0 {
				blo, bhi = math.Min(blo, h), math.Max(bhi, h)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		nan += bn
		if bfirst >= 0 && (firstAt < 0 || bfirst < firstAt) {
			firstAt = bfirst
		}
		lo, hi = math.Min(lo, blo), math.Max(hi, bhi)
		return nil
	})
	if err != nil {
		v.add(p, "height", "%v", err)
		return
	}
	first := ""
	if firstAt >= 0 {
		first = fmt.Sprintf("(%d,%d)", firstAt%w, firstAt/w)
	}
	if nan > 0 {
		v.add(p, "height", "%d texel(s) of height are NaN or infinite, first at %s", nan, first)
	}
	hr := m.HeightRange
	if lo <= hi && (float32(lo) < float32(hr[0]) || float32(hi) > float32(hr[1])) {
		v.add(filepath.Join(v.root, ManifestFile), "heightRange", "%v does not contain the ground's heights [%v, %v]", hr, lo, hi)
	}
}
