package terraindata

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"strata/internal/pool"
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
	role   string
	rel    string
	format Format // "" for a plain file (stack.yaml)
}

// children lists every child the manifest names, in manifest order.
func children(m *Manifest) []child {
	var out []child
	add := func(field, role, rel string, f Format) {
		if rel != "" {
			out = append(out, child{field, role, rel, f})
		}
	}
	add("height", "height", m.Height, RGBA32F)
	add("holes", "holes", m.Holes, RGBA8)
	for i, c := range m.Controls {
		add(fmt.Sprintf("controls[%d]", i), fmt.Sprintf("control%d", i), c, RGBA8)
	}
	if a := m.Atlas; a != nil {
		add("atlas.albedo", "atlas.albedo", a.Albedo, RGBA8)
		add("atlas.normal", "atlas.normal", a.Normal, RGBA8)
		add("atlas.mask", "atlas.mask", a.Mask, RGBA8)
	}
	add("stack", "stack", m.Stack, "")
	names := make([]string, 0, len(m.Channels))
	for n := range m.Channels {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add("channels."+n, "channels."+n, m.Channels[n], R32F)
	}
	for i, p := range m.Scatter {
		add(fmt.Sprintf("scatter[%d].density", i), "scatter."+p.Name, p.Density, R32F)
	}
	if s := m.Script; s != nil {
		add("script.file", "script", s.File, "")
		for i, a := range s.Assets {
			add(fmt.Sprintf("script.assets[%d]", i), "script.asset", a, "")
		}
	}
	return out
}

// Validate is the publish gate and the promise behind `strata validate`: it returns every problem
// of the container at path, nil when every reader (info, render, export, the editor) can load it.
// It runs Check on the manifest, then reads every child through the same Ref code the readers
// use — contained, regular, bounded — decoding every payload block by block (every row of every
// PNG and EXR, never more than a block in memory), so a truncated or corrupt payload, a value no
// reader accepts, or a size texture.yaml does not state is found here first. Across children it
// checks that grids that must agree do, that control weights sum to 255 at every texel, and that
// heightRange holds the ground. It only reads; it does not recover an interrupted save.
func Validate(path string) []Problem {
	return validate(path, nil)
}

// validate is Validate trusting the payloads in early (by field) that were read back whole before
// (Saving.Prevalidate) and have not changed since.
func validate(path string, early map[string]earlyCheck) []Problem {
	v := &validator{root: path, early: early}
	v.run()
	return v.probs
}

type validator struct {
	root  string
	probs []Problem
	early map[string]earlyCheck
	// record, when not nil, receives the controls read whole and found sound (Prevalidate).
	record map[string]earlyCheck
	// segmented decodes control textures laid out as encodeRGBA8 writes them on every core
	// (pngsegments.go): Prevalidate, for the payloads its save wrote.
	segmented bool
}

// earlyCheck is a payload Saving.Prevalidate read back whole and found sound: what it read and
// the file it read, so that the container's validation knows the payload unchanged without
// decoding it again.
type earlyCheck struct {
	rel    string
	info   TextureInfo
	ground [2]float64 // the height's ground range (lo > hi: no ground)
	// For a control texture: how many layers its sums were checked over, and how many controls.
	layers, group int
	payload       string // the payload file
	stat          os.FileInfo
}

// unchanged says whether the child ref names is still the payload e read: the same texture.yaml
// (but for the guid Commit stamps), the same file, size and modification time.
func (e earlyCheck) unchanged(ref *Ref) bool {
	if ref.Rel != e.rel {
		return false
	}
	info, err := ref.Info()
	if err != nil {
		return false
	}
	info.GUID, e.info.GUID = "", ""
	if info != e.info {
		return false
	}
	st, err := os.Lstat(e.payload)
	return err == nil && st.Mode().IsRegular() && os.SameFile(st, e.stat) && st.Size() == e.stat.Size() && st.ModTime().Equal(e.stat.ModTime())
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
	b, err := readManifestFile(v.root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			v.add(mf, "", "missing manifest: %v", err)
		} else {
			v.add(mf, "", "unreadable manifest: %v", err)
		}
		return
	}
	m, err := DecodeManifest(b)
	if err != nil {
		v.add(mf, "", "manifest does not decode: %v", errors.Unwrap(err))
		return
	}
	c := &Container{path: v.root, readDir: v.root, m: *m}
	v.probs = append(v.probs, checkManifest(mf, m)...)

	// Every child is read on its own, several at a time: the control textures (their PNG rows
	// decode one after another) beside the float payloads (decoded on every core). Each job keeps
	// its own problems, merged in manifest order with the controls' after the rest, as read one
	// by one.
	var kids []child
	for _, ch := range children(m) {
		if checkRel(ch.rel) == nil && !strings.HasPrefix(ch.field, "controls[") {
			kids = append(kids, ch) // Check reported a bad path; controls are read together
		}
	}
	type job struct {
		v   validator
		got map[string]TextureInfo // field → info of children that read fine
	}
	jobs := make([]job, len(kids)+1) // the controls last
	for k := range jobs {
		jobs[k] = job{v: validator{root: v.root, early: v.early}, got: map[string]TextureInfo{}}
	}
	pool.Each(context.Background(), len(jobs), validateJobs, func(k int) {
		// The controls go first: the longest, and one core's work.
		k = (k + len(jobs) - 1) % len(jobs)
		j := &jobs[k]
		if k == len(kids) {
			if !j.v.earlyControls(c, j.got) {
				j.v.controls(c, j.got)
			}
			return
		}
		j.v.child(c, m, kids[k], j.got)
	}, nil)
	got := map[string]TextureInfo{}
	for _, j := range jobs {
		v.probs = append(v.probs, j.v.probs...)
		maps.Copy(got, j.got)
	}
	v.sizes(m, got)
}

// validateJobs is how many children Validate reads at once: enough to keep the controls' one core
// beside the float payloads' many, few enough that their blocks in flight stay small.
const validateJobs = 4

// child checks one child other than the controls, recording its info in got when it reads fine.
func (v *validator) child(c *Container, m *Manifest, ch child, got map[string]TextureInfo) {
	ref := c.ref(ch.role, ch.field, ch.rel)
	if ch.format == "" {
		v.plainFile(c, ref)
		return
	}
	if e, ok := v.early[ch.field]; ok && e.unchanged(ref) {
		got[ch.field] = e.info
		v.heightRange(ref, m, e.ground)
		return
	}
	if e := v.texture(ref, ch.format); e != nil {
		got[ch.field] = e.info
		v.heightRange(ref, m, e.ground)
	}
}

// plainFile checks a child that is a file (stack.yaml) exactly as readers resolve it
// (Container.File): present, inside, regular.
func (v *validator) plainFile(c *Container, ref *Ref) {
	if _, err := c.File(ref.Rel, ref.Field); err != nil {
		v.probs = append(v.probs, problem(err, ref.Dir, ref.Field))
	}
}

// texture streams one child through every check and returns what it read, nil when it failed
// (a problem says why): its texture.yaml, the payload file (its path and what it was) and, for the
// height, the ground range (lo, hi; lo > hi when no texel is ground) for heightRange.
func (v *validator) texture(ref *Ref, want Format) *earlyCheck {
	info, err := ref.Info()
	if err != nil {
		v.probs = append(v.probs, problem(err, ref.Dir, ref.Field))
		return nil
	}
	if info.Format != want {
		v.add(ref.Dir, ref.Field, "format %s, want %s", info.Format, want)
		return nil
	}
	if ref.Role == "height" && (info.Width < MinHeightSide || info.Height < MinHeightSide) {
		v.add(ref.Dir, ref.Field, "%dx%d: a height grid has at least %dx%d texels (one quad of ground)", info.Width, info.Height, MinHeightSide, MinHeightSide)
		return nil
	}
	s, err := ref.Stream()
	if err != nil {
		v.probs = append(v.probs, problem(err, ref.Dir, ref.Field))
		return nil
	}
	defer s.Close()
	// The ground's range, in float32 with plain comparisons (Each calls this under its lock, one
	// block at a time: math.Min's care for NaN and -0 made it a fifth of a height's validation on
	// two cores; a NaN compares false and is refused by the value checks anyway).
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	err = s.Each(func(b Block) error {
		if ref.Role == "height" {
			for i := 0; i+3 < len(b.Float); i += 4 {
				if h := b.Float[i]; b.Float[i+3] > 0 {
					if h < lo {
						lo = h
					}
					if h > hi {
						hi = h
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		v.probs = append(v.probs, problem(err, s.File, ref.Field))
		return nil
	}
	st, err := s.f.Stat()
	if err != nil {
		v.probs = append(v.probs, problem(err, s.File, ref.Field))
		return nil
	}
	return &earlyCheck{rel: ref.Rel, info: info, ground: [2]float64{float64(lo), float64(hi)}, payload: s.f.Name(), stat: st}
}

// heightRange checks that the manifest's heightRange holds the ground range of the height child.
func (v *validator) heightRange(ref *Ref, m *Manifest, ground [2]float64) {
	lo, hi := ground[0], ground[1]
	if hr := m.HeightRange; ref.Role == "height" && lo <= hi && (float32(lo) < float32(hr[0]) || float32(hi) > float32(hr[1])) {
		v.add(filepath.Join(v.root, ManifestFile), "heightRange", "%v does not contain the ground's heights [%v, %v]", hr, lo, hi)
	}
}

// controls reads the control textures row by row together: each is checked as any child is, and
// at every texel the weights of the manifest's layers must sum to exactly 255 with nothing in the
// channels no layer uses (SPEC "Quantization": a shader blends by them with no renormalization).
func (v *validator) controls(c *Container, got map[string]TextureInfo) {
	var streams []*Stream
	defer func() {
		for _, s := range streams {
			s.Close()
		}
	}()
	ok := true
	for _, ref := range c.Controls() {
		if ref == nil || checkRel(ref.Rel) != nil {
			ok = false
			continue
		}
		info, err := ref.Info()
		if err == nil && info.Format != RGBA8 {
			v.add(ref.Dir, ref.Field, "format %s, want %s", info.Format, RGBA8)
			ok = false
			continue
		}
		s, err := ref.Stream()
		if err != nil {
			v.probs = append(v.probs, problem(err, ref.Dir, ref.Field))
			ok = false
			continue
		}
		streams = append(streams, s)
	}
	for i, s := range streams {
		if i > 0 && (s.Info.Width != streams[0].Info.Width || s.Info.Height != streams[0].Info.Height) {
			ok = false
		}
	}
	if !ok || len(streams) == 0 {
		// Sizes disagree (sizes() says so) or one failed: check each payload on its own.
		for _, s := range streams {
			if v.drain(s) {
				got[s.field] = s.Info
			}
		}
		return
	}
	// keep[k]: the bytes of control k that hold a layer's weight (little-endian: R lowest).
	layers := len(c.m.Layers)
	keep := make([]uint32, len(streams))
	for k := range keep {
		for ch := 0; ch < 4; ch++ {
			if 4*k+ch < layers {
				keep[k] |= 0xff << (8 * ch)
			}
		}
	}
	if v.segmented && v.controlsSegmented(c, streams, keep, layers, got) {
		return
	}
	w := streams[0].Info.Width
	bad, first, firstSum := 0, "", 0
	rows := make([][]byte, len(streams))
	for y := 0; ; y++ {
		for k, s := range streams {
			b, err := s.Next()
			if err == io.EOF {
				for _, s := range streams {
					got[s.field] = s.Info
				}
				if bad == 0 && !v.recordControls(c, streams, layers) {
					return
				}
				if bad > 0 {
					v.add(streams[0].File, "controls", "%d texel(s) whose layer weights do not sum to 255 (or that weigh channels no layer uses), first at %s: %d", bad, first, firstSum)
				}
				return
			}
			if err != nil {
				v.probs = append(v.probs, problem(err, s.File, s.field))
				return
			}
			rows[k] = b.Bytes
		}
		if n, x := badTexels(rows, keep, w); n > 0 {
			if bad == 0 {
				all := 0
				for _, r := range rows {
					for _, b := range r[4*x : 4*x+4] {
						all += int(b)
					}
				}
				first, firstSum = fmt.Sprintf("(%d,%d)", x, y), all
			}
			bad += n
		}
	}
}

// recordControls records the control textures read whole and found sound for Commit (when the
// validator records: Prevalidate); false when a payload's file cannot be stat'ed (a problem says
// why).
func (v *validator) recordControls(c *Container, streams []*Stream, layers int) bool {
	if v.record == nil {
		return true
	}
	for i, s := range streams {
		ref := c.Controls()[i]
		st, err := s.f.Stat()
		if err != nil {
			v.probs = append(v.probs, problem(err, s.File, s.field))
			return false
		}
		v.record[s.field] = earlyCheck{rel: ref.Rel, info: s.Info, payload: s.f.Name(), stat: st, layers: layers, group: len(streams)}
	}
	return true
}

// badTexels counts the texels of one row of the controls (rows[k]: control k's 4·w bytes) whose
// layer weights do not sum to 255 or that weigh a channel no layer uses (keep[k]: the bytes of
// control k that are layers), and says the first. A texel's four bytes are one word: the layers'
// bytes summed two lanes at a time, the others must be zero.
func badTexels(rows [][]byte, keep []uint32, w int) (n, first int) {
	sum := func(v uint32) uint32 {
		v = v&0x00ff00ff + v>>8&0x00ff00ff
		return v&0xffff + v>>16
	}
	if len(rows) == 1 { // up to four layers: the common case, kept tight
		r, k := rows[0][:4*w], keep[0]
		for x := 0; x < w; x++ {
			v := binary.LittleEndian.Uint32(r[4*x:])
			if sum(v&k) != 255 || v&^k != 0 {
				if n == 0 {
					first = x
				}
				n++
			}
		}
		return n, first
	}
	for x := 0; x < w; x++ {
		s, stray := uint32(0), uint32(0)
		for k, r := range rows {
			v := binary.LittleEndian.Uint32(r[4*x:])
			s += sum(v & keep[k])
			stray |= v &^ keep[k]
		}
		if s != 255 || stray != 0 {
			if n == 0 {
				first = x
			}
			n++
		}
	}
	return n, first
}

// earlyControls takes the control textures as Prevalidate found them when every one is unchanged
// and the layers they were summed over are the manifest's; it says whether it did.
func (v *validator) earlyControls(c *Container, got map[string]TextureInfo) bool {
	refs := c.Controls()
	if len(refs) == 0 {
		return false
	}
	for _, ref := range refs {
		if ref == nil {
			return false
		}
		e, ok := v.early[ref.Field]
		if !ok || e.layers != len(c.m.Layers) || e.group != len(refs) || !e.unchanged(ref) {
			return false
		}
	}
	for _, ref := range refs {
		got[ref.Field] = v.early[ref.Field].info
	}
	return true
}

// drain reads a stream to its end, reporting a problem; it says whether the payload is sound.
func (v *validator) drain(s *Stream) bool {
	if err := s.Each(func(Block) error { return nil }); err != nil {
		v.probs = append(v.probs, problem(err, s.File, s.field))
		return false
	}
	return true
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
