package terraindata

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"strata/exr"
	"strata/internal/safeio"
	"strata/internal/sysmem"
)

// Limits on what a container may declare (docs/limits.md). They bound what a lying texture.yaml
// or payload header can make a reader allocate; the grid limits are field.MaxSide and
// field.MaxTexels (a test binds them), so every container a bake can write is readable.
const (
	MaxSide   = 1 << 16 // texels along one side of any child
	MaxTexels = 1 << 28 // texels of any child: 1 GiB of float32 per channel
	// MinHeightSide is the smallest height grid: one quad is the least ground a renderer draws.
	MinHeightSide = 2
	// MaxScatterCount bounds a population's count: scatter.MaxInstances (a test binds them).
	MaxScatterCount = 1 << 25
	// MaxAtlasSide is the largest atlas sheet side PackAtlas writes.
	MaxAtlasSide = 16384

	maxManifestBytes = 4 << 20  // terrain.yaml: a manifest is a few KB; 4 MiB is thousands of populations
	maxInfoBytes     = 64 << 10 // texture.yaml: five keys
	// expansionRatio is the most one stored byte of a payload can decode to (zlib tops out near
	// 1032:1): a header claiming more texels than its file can hold at that ratio is a lie, refused
	// before anything is allocated.
	expansionRatio = 1100
)

// ChildError is a problem with one child of a container: the file at fault, the manifest field
// that names it ("controls[1]", "channels.mask.snow", "scatter[0].density") and why. Every Ref
// method returns one, so a reader's message says what to fix exactly as validate's does.
type ChildError struct {
	File  string
	Field string
	Err   error
}

func (e *ChildError) Error() string {
	if e.Field == "" {
		return "terraindata: " + e.File + ": " + e.Err.Error()
	}
	return "terraindata: " + e.File + ": " + e.Field + ": " + e.Err.Error()
}

// childErr builds a ChildError; a file-system error's own copy of the path is dropped, since the
// ChildError names the file.
func childErr(file, field string, err error) *ChildError {
	return &ChildError{File: file, Field: field, Err: safeio.Unnamed(err)}
}

func (e *ChildError) Unwrap() error { return e.Err }

// problem turns a reader's error into a validation Problem (file, field, message).
func problem(err error, file, field string) Problem {
	var ce *ChildError
	if errors.As(err, &ce) {
		return Problem{File: ce.File, Field: ce.Field, Msg: ce.Err.Error()}
	}
	return Problem{File: file, Field: field, Msg: strings.TrimPrefix(err.Error(), "terraindata: ")}
}

// resolveIn is the containment check every reader of a container goes through: the real location
// of p (after every symlink) must be root's real location or inside it. A link pointing out of the
// container, and a dangling one, are refused by name.
func resolveIn(root, p string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := os.Lstat(p); lerr == nil {
				return "", errors.New("named child is absent (a dangling symbolic link)")
			}
			return "", errors.New("named child is absent")
		}
		return "", err
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("resolves to %s, outside the container", real)
	}
	return real, nil
}

// resolveExisting is resolveIn for a file that must be there: when os.Lstat cannot examine p, its
// error, which names p and keeps fs.ErrNotExist for a caller telling an absent file from a bad
// one; a refusal by resolveIn, which does not name p, is prefixed with name when one is given.
func resolveExisting(root, p, name string) (string, error) {
	if _, err := os.Lstat(p); err != nil {
		return "", err
	}
	real, err := resolveIn(root, p)
	if err != nil && name != "" {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return real, err
}

// readManifestFile reads terrain.yaml of the container folder root: contained, a regular file,
// at most maxManifestBytes.
func readManifestFile(root string) ([]byte, error) {
	mf := filepath.Join(root, ManifestFile)
	if _, err := resolveExisting(root, mf, mf); err != nil {
		return nil, err
	}
	return safeio.ReadFile(mf, maxManifestBytes)
}

// decodeOne decodes exactly one YAML document: a second document is an error, not silently
// dropped (a manifest or texture.yaml edited by concatenation).
func decodeOne(b []byte, dst any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(dst); err != nil {
		if err == io.EOF {
			return nil // an empty file is an empty document
		}
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return err
		}
		return fmt.Errorf("line %d: a second YAML document (---): the file must hold one", extra.Line)
	}
	return nil
}

// dir resolves the child's folder inside the container.
func (r *Ref) dir() (string, error) {
	if r.Rel != "." {
		if err := checkRel(r.Rel); err != nil {
			return "", &ChildError{File: r.Dir, Field: r.Field, Err: fmt.Errorf("child path %w", err)}
		}
	}
	real, err := resolveIn(r.root, r.Dir)
	if err != nil {
		return "", childErr(r.Dir, r.Field, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", childErr(r.Dir, r.Field, err)
	}
	if !fi.IsDir() {
		return "", &ChildError{File: r.Dir, Field: r.Field, Err: errors.New("not a .texture folder")}
	}
	return real, nil
}

// Info reads the child's texture.yaml (contained, bounded, checked: a known format and a size
// within MaxSide and MaxTexels).
func (r *Ref) Info() (TextureInfo, error) {
	d, err := r.dir()
	if err != nil {
		return TextureInfo{}, err
	}
	return r.info(d)
}

func (r *Ref) info(d string) (TextureInfo, error) {
	p := filepath.Join(r.Dir, TextureInfoFile)
	fail := func(err error) (TextureInfo, error) {
		return TextureInfo{}, childErr(p, r.Field, err)
	}
	real := filepath.Join(d, TextureInfoFile)
	if _, err := resolveExisting(r.root, real, ""); err != nil {
		return fail(err)
	}
	b, err := safeio.ReadFile(real, maxInfoBytes)
	if err != nil {
		return fail(err)
	}
	var info TextureInfo
	if err := decodeOne(b, &info); err != nil {
		return fail(fmt.Errorf("does not decode: %w", err))
	}
	if !info.Format.valid() {
		return fail(fmt.Errorf("format: %q is not rgba8, rgba32f or r32f", info.Format))
	}
	if info.Width <= 0 || info.Height <= 0 {
		return fail(fmt.Errorf("width/height: %dx%d is not a size", info.Width, info.Height))
	}
	if info.Width > MaxSide || info.Height > MaxSide || int64(info.Width)*int64(info.Height) > MaxTexels {
		return fail(fmt.Errorf("width/height: %dx%d is larger than the supported %d per side, %d texels", info.Width, info.Height, MaxSide, MaxTexels))
	}
	return info, nil
}

// Block is one run of a payload's rows as Stream returns it: rows Y0 … Y0+N-1, either float values
// interleaved per texel (Format.Components() per texel) or straight RGBA bytes (rgba8).
type Block struct {
	Y0, N int
	Float []float32
	Bytes []byte
}

// Stream reads a child's payload block by block (sixteen rows of a ZIP EXR, one row of a PNG),
// holding only that block, and checks it as it goes: the payload's size and channels against
// texture.yaml, every byte of its compressed data, and its values against the child's role (finite
// floats; height coverage and mask channels in 0..1; scatter densities not negative). validate
// runs every child through it; Read fills a whole texture from it. So what validate accepts the
// readers load, and what a reader refuses validate refused first.
type Stream struct {
	Info TextureInfo
	// File is the payload (data.png, data.exr), for messages.
	File  string
	field string
	role  string
	f     *os.File
	size  int64
	er    *exr.Reader
	pr    *pngRows
	buf   []float32
	bad   badValues
}

// badValues counts texels a role does not allow and remembers the first (in row order).
type badValues struct {
	n      int
	x, y   int
	ch     string
	v      float32
	reason string
}

// err is the error a stream ends with when some texel's value is not allowed (n > 0).
func (b badValues) err() error {
	return fmt.Errorf("%d texel(s) are invalid, first at (%d,%d): %s is %v (%s)", b.n, b.x, b.y, b.ch, b.v, b.reason)
}

// Each streams every block to fn, making the checks Next makes: an EXR payload's blocks are
// decoded on every core (fn is called under a lock, blocks in no particular order — a 16384²
// height is 4 GiB of floats), a PNG payload's rows one at a time in order.
func (s *Stream) Each(fn func(Block) error) error {
	if s.pr != nil {
		for {
			b, err := s.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := fn(b); err != nil {
				return err
			}
		}
	}
	var mu sync.Mutex
	var pool sync.Pool // *[]float32: an interleave buffer per goroutine at a time
	err := s.er.Blocks(context.Background(), 0, func(y0, n int, rows [][]float32) error {
		nc := len(rows)
		vals := rows[0]
		if nc > 1 {
			buf, _ := pool.Get().(*[]float32)
			if buf == nil {
				buf = new([]float32)
			}
			defer pool.Put(buf)
			if cap(*buf) < len(rows[0])*nc {
				*buf = make([]float32, len(rows[0])*nc)
			}
			vals = (*buf)[:len(rows[0])*nc]
			for c := 0; c < nc; c++ {
				for i, v := range rows[c] {
					vals[i*nc+c] = v
				}
			}
		}
		ok := s.valuesFine(vals, nc) // the scan runs beside the other blocks' decoding
		mu.Lock()
		defer mu.Unlock()
		if !ok {
			s.recordBad(y0, vals, nc)
		}
		return fn(Block{Y0: y0, N: n, Float: vals})
	})
	if err != nil {
		return s.fail(err)
	}
	if s.bad.n > 0 {
		return s.fail(s.bad.err())
	}
	return nil
}

// Stream opens the child's payload for reading block by block.
func (r *Ref) Stream() (*Stream, error) { return r.stream(nil) }

// Copy writes the child's payload file to w byte for byte while streaming it through every check
// Stream makes, so an export copies only a payload a reader would load (a truncated control PNG
// is refused, not copied with exit 0). On error w holds a partial copy the caller discards.
func (r *Ref) Copy(w io.Writer) (TextureInfo, error) {
	s, err := r.stream(w)
	if err != nil {
		return TextureInfo{}, err
	}
	defer s.Close()
	for {
		_, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return TextureInfo{}, err
		}
	}
	if _, err := io.Copy(w, s.f); err != nil { // what the decoder did not need to read
		return TextureInfo{}, s.fail(err)
	}
	return s.Info, nil
}

func (r *Ref) stream(tee io.Writer) (*Stream, error) {
	d, err := r.dir()
	if err != nil {
		return nil, err
	}
	info, err := r.info(d)
	if err != nil {
		return nil, err
	}
	s := &Stream{Info: info, File: filepath.Join(r.Dir, info.Format.DataFile()), field: r.Field, role: r.Role}
	real := filepath.Join(d, info.Format.DataFile())
	if _, err := resolveExisting(r.root, real, ""); err != nil {
		return nil, s.fail(err)
	}
	if s.f, s.size, err = safeio.Open(real); err != nil {
		return nil, s.fail(err)
	}
	var src io.Reader = s.f
	if tee != nil {
		src = io.TeeReader(s.f, tee)
	}
	if err := s.header(src); err != nil {
		s.f.Close()
		return nil, s.fail(err)
	}
	return s, nil
}

func (s *Stream) fail(err error) error { return childErr(s.File, s.field, err) }

// header reads the payload's header and checks it against texture.yaml.
func (s *Stream) header(src io.Reader) error {
	var w, h int
	if s.Info.Format == RGBA8 {
		pr, err := newPNGRows(src)
		if err != nil {
			return err
		}
		s.pr, w, h = pr, pr.w, pr.h
	} else {
		er, err := exr.NewReader(src)
		if err != nil {
			return err
		}
		s.er = er
		hd := er.Header()
		w, h = hd.Width, hd.Height
		names := er.Channels()
		switch {
		case s.Info.Format == R32F && len(names) != 1:
			return fmt.Errorf("%w: %d channels %v for format r32f (one channel)", errPayload, len(names), names)
		case s.Info.Format == RGBA32F && strings.Join(names, ",") != "R,G,B,A":
			return fmt.Errorf("%w: channels %v for format rgba32f (R, G, B, A)", errPayload, names)
		}
	}
	if w != s.Info.Width || h != s.Info.Height {
		return fmt.Errorf("%w: %dx%d, texture.yaml says %dx%d", errPayload, w, h, s.Info.Width, s.Info.Height)
	}
	if need := int64(w) * int64(h); need > s.size*expansionRatio+1<<16 {
		return fmt.Errorf("%w: %dx%d texels cannot fit in a %d-byte file (truncated?)", errPayload, w, h, s.size)
	}
	return nil
}

// Close releases the payload file.
func (s *Stream) Close() error { return s.f.Close() }

// Next returns the next block. At the end it returns io.EOF, or — when some texel's value is not
// allowed for the child's role — an error counting them and naming the first.
func (s *Stream) Next() (Block, error) {
	if s.pr != nil {
		y := s.pr.y
		row, err := s.pr.next()
		if err == io.EOF {
			return Block{}, io.EOF
		}
		if err != nil {
			return Block{}, s.fail(err)
		}
		return Block{Y0: y, N: 1, Bytes: row}, nil
	}
	y0, n, rows, err := s.er.Next()
	if err == io.EOF {
		if s.bad.n > 0 {
			return Block{}, s.fail(s.bad.err())
		}
		return Block{}, io.EOF
	}
	if err != nil {
		return Block{}, s.fail(err)
	}
	w := s.Info.Width
	nc := len(rows)
	var vals []float32
	if nc == 1 {
		vals = rows[0]
	} else {
		if cap(s.buf) < n*w*nc {
			s.buf = make([]float32, n*w*nc)
		}
		vals = s.buf[:n*w*nc]
		for c := 0; c < nc; c++ {
			for i, v := range rows[c] {
				vals[i*nc+c] = v
			}
		}
	}
	s.checkValues(y0, vals, nc)
	return Block{Y0: y0, N: n, Float: vals}, nil
}

// checkValues records texels the child's role does not allow.
func (s *Stream) checkValues(y0 int, vals []float32, nc int) {
	if !s.valuesFine(vals, nc) {
		s.recordBad(y0, vals, nc)
	}
}

// valuesFine reports that every value is one the child's role allows (the fast pass; it touches
// nothing of s but its role).
func (s *Stream) valuesFine(vals []float32, nc int) bool {
	return valuesOK(vals, nc, s.role == "height", strings.HasPrefix(s.role, "channels.mask."), strings.HasPrefix(s.role, "scatter."))
}

// recordBad records the texels of vals the child's role does not allow: how many, and the first
// in row order.
func (s *Stream) recordBad(y0 int, vals []float32, nc int) {
	mask := strings.HasPrefix(s.role, "channels.mask.")
	density := strings.HasPrefix(s.role, "scatter.")
	for i, v := range vals {
		reason := ""
		c := i % nc
		switch {
		case math.IsNaN(float64(v)) || math.IsInf(float64(v), 0):
			reason = "values must be finite"
		case s.role == "height" && c == 3 && (v < 0 || v > 1):
			reason = "coverage A is 0 (hole) … 1 (ground)"
		case mask && (v < 0 || v > 1):
			reason = "a mask channel holds 0..1"
		case density && v < 0:
			reason = "a density is not negative"
		}
		if reason == "" {
			continue
		}
		// The first in row order, whatever order the blocks come in (Each), as Next finds it.
		t := i / nc
		x, y := t%s.Info.Width, y0+t/s.Info.Width
		if s.bad.n == 0 || y < s.bad.y || (y == s.bad.y && x < s.bad.x) {
			n := s.bad.n
			s.bad = badValues{n: n, x: x, y: y, ch: [4]string{"R", "G", "B", "A"}[c], v: v, reason: reason}
			if nc == 1 {
				s.bad.ch = "the value"
			}
		}
		s.bad.n++
	}
}

// valuesOK is checkValues' first pass over a block: whether every value passes, with no
// bookkeeping (a block that does not is checked again value by value, for the first and the
// count). A value is finite when its exponent bits are not all ones; a comparison with NaN is
// false, so the ranges refuse it too.
func valuesOK(vals []float32, nc int, height, mask, density bool) bool {
	const exp = 0x7f800000
	finite := func(v float32) bool { return math.Float32bits(v)&exp != exp }
	switch {
	case height:
		if nc != 4 || len(vals)%4 != 0 {
			return false
		}
		for i := 0; i < len(vals); i += 4 {
			t := vals[i : i+4 : i+4]
			if !finite(t[0]) || !finite(t[1]) || !finite(t[2]) || !(t[3] >= 0 && t[3] <= 1) {
				return false
			}
		}
	case mask:
		for _, v := range vals {
			if !(v >= 0 && v <= 1) {
				return false
			}
		}
	case density:
		for _, v := range vals {
			if !(v >= 0) || !finite(v) {
				return false
			}
		}
	default:
		for _, v := range vals {
			if !finite(v) {
				return false
			}
		}
	}
	return true
}

// Read reads the child whole, through Stream: every check Stream makes, plus the memory the whole
// texture needs against what the machine has (internal/sysmem) before allocating it.
func (r *Ref) Read() (*Texture, error) {
	s, err := r.Stream()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	info := s.Info
	t := &Texture{TextureInfo: info}
	n := info.Width * info.Height
	need := uint64(n) * 4 * uint64(info.Format.Components())
	if err := sysmem.Check(need, fmt.Sprintf("reading %dx%d %s", info.Width, info.Height, info.Format)); err != nil {
		return nil, s.fail(err)
	}
	if info.Format == RGBA8 {
		t.RGBA8 = image.NewNRGBA(image.Rect(0, 0, info.Width, info.Height))
	} else {
		t.Float = make([]float32, n*info.Format.Components())
	}
	stride := info.Width * info.Format.Components()
	err = s.Each(func(b Block) error { // blocks in any order: each carries its rows
		if b.Bytes != nil {
			copy(t.RGBA8.Pix[b.Y0*t.RGBA8.Stride:], b.Bytes)
		} else {
			copy(t.Float[b.Y0*stride:(b.Y0+b.N)*stride], b.Float)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// standalone is a Ref to a .texture folder outside any container: it is its own root, so its
// texture.yaml and payload must still be inside it.
func standalone(dir string) *Ref { return &Ref{Role: "", Rel: ".", Dir: dir, root: dir} }

// ReadTextureInfo reads a .texture folder's texture.yaml only (Ref.Info for a folder on its own).
func ReadTextureInfo(dir string) (TextureInfo, error) { return standalone(dir).Info() }

// ReadTexture reads a .texture folder whole (Ref.Read for a folder on its own).
func ReadTexture(dir string) (*Texture, error) { return standalone(dir).Read() }

// errPayload marks a payload that disagrees with its texture.yaml.
var errPayload = errors.New("payload disagrees with texture.yaml")

// File resolves a plain file the manifest (stack.yaml) or the container's stack (a texture under
// textures/) names, by its container-relative path, through the same containment check as every
// child: relative and clean, inside the container after symlinks, a regular file. field names the
// reference in the error ("stack", `stack: layers[1] "rock" albedo`).
func (c *Container) File(rel, field string) (string, error) {
	p := filepath.Join(c.readDir, filepath.FromSlash(rel))
	if err := checkRel(rel); err != nil {
		return "", &ChildError{File: p, Field: field, Err: fmt.Errorf("path %w", err)}
	}
	real, err := resolveExisting(c.readDir, p, "")
	if errors.Is(err, fs.ErrNotExist) {
		return "", &ChildError{File: p, Field: field, Err: errors.New("named child is absent")}
	} else if err != nil {
		return "", childErr(p, field, err)
	}
	if _, err := safeio.Stat(real); err != nil {
		return "", childErr(p, field, err)
	}
	return p, nil
}
