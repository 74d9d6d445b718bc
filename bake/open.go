package bake

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"strata/field"
	"strata/stack"
	"strata/terraindata"
)

// Baked is what a container baked elsewhere (with no stack.yaml) carries instead of a stack: its
// surface table and atlas, kept as they are so saving it again loses nothing.
type Baked struct {
	Layers []terraindata.Layer
	Atlas  *terraindata.Atlas
	// From is the container the atlas children are copied from on save.
	From string
}

// Open reads the container at path back into a Landscape for editing: the field (height, holes,
// placement, every stored channel), the stack it was baked from (textures resolve inside the
// container), the weights (its controls), the populations' densities and placement parameters,
// and its guid. A container with no stack opens with Stack nil and Baked set: its weights can be
// shown and saved again, not re-evaluated. Open reads only; it never changes the disk.
//
// Every read goes through the container's checks: CheckContainer first (every problem of the
// manifest and the stack, listed at once), then each child through its terraindata.Ref —
// contained, regular, bounded, checked against texture.yaml and its role. A broken container
// returns an error naming the file and field and no Landscape, so the editor keeps what it had.
func Open(path string) (*Landscape, error) {
	c, err := terraindata.Open(path)
	if err != nil {
		return nil, err
	}
	if probs := CheckContainer(c); len(probs) > 0 {
		return nil, fmt.Errorf("bake: %s cannot be opened:\n%w", path, probs)
	}
	m := c.Manifest()
	h, err := ContainerHeight(c)
	if err != nil {
		return nil, err
	}
	f, err := field.New(field.Placement{Size: m.Size, Origin: m.Origin}, h)
	if err != nil {
		return nil, fmt.Errorf("bake: %s: %w", path, err)
	}
	l := &Landscape{Field: f, GUID: m.GUID, StackDir: path}
	if l.Holes, err = containerHoles(c, h.W, h.H); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(m.Channels))
	for name := range m.Channels {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		g, err := readR32F(c.Channel(name), h.W, h.H)
		if err != nil {
			return nil, err
		}
		if err := f.AddChannel(name, g); err != nil {
			return nil, fmt.Errorf("bake: %s: channels.%s: %w", path, name, err)
		}
	}
	if m.Stack != "" {
		if l.Stack, _, err = containerStack(c, &m); err != nil {
			return nil, err
		}
	} else {
		l.Baked = &Baked{Layers: m.Layers, Atlas: m.Atlas, From: path}
	}
	if l.Script, err = openScript(path, m.Script); err != nil {
		return nil, err
	}
	if l.Weights, err = containerWeights(c); err != nil {
		return nil, err
	}
	resolution := 0.0
	if l.Weights != nil && (l.Weights.W != h.W || l.Weights.H != h.H) {
		resolution = m.Size[0] / float64(l.Weights.W)
	}
	s := l.Stack
	if s == nil {
		s = stack.New()
	}
	if l.Geometry, err = NewGeometry(s, f, resolution); err != nil {
		return nil, fmt.Errorf("bake: %s: %w", path, err)
	}
	if l.Weights != nil && (l.Weights.W != l.Geometry.Field.WeightsW || l.Weights.H != l.Geometry.Field.WeightsH) {
		return nil, fmt.Errorf("bake: %s: controls are %d×%d, which is no weights grid of a %.6g×%.6g m field",
			path, l.Weights.W, l.Weights.H, m.Size[0], m.Size[1])
	}
	for i, mp := range m.Scatter {
		dens, err := readR32F(c.ScatterDensity(mp.Name), l.Geometry.Field.WeightsW, l.Geometry.Field.WeightsH)
		if err != nil {
			return nil, fmt.Errorf("bake: %s: scatter[%d] %q: %w", path, i, mp.Name, err)
		}
		l.Scatter = append(l.Scatter, Population{Name: mp.Name, Mesh: mp.Mesh, Seed: mp.Seed, Scale: mp.Scale,
			Density: dens, Spacing: float32(mp.Spacing), Count: mp.Count})
	}
	return l, nil
}

// Resolution is the metres per weights texel the landscape was evaluated at, 0 when the weights
// grid is the height grid (the default).
func (l *Landscape) Resolution() float64 {
	g := &l.Geometry.Field
	if g.WeightsW == 0 || (g.WeightsW == l.Field.Height.W && g.WeightsH == l.Field.Height.H) {
		return 0
	}
	return l.Field.Size[0] / float64(g.WeightsW)
}

// readR32F reads an r32f child of size w×h.
func readR32F(ref *terraindata.Ref, w, h int) (*field.Grid, error) {
	if ref == nil {
		return nil, fmt.Errorf("the manifest names no child")
	}
	t, err := ref.Read()
	if err != nil {
		return nil, err
	}
	if t.Format != terraindata.R32F || len(t.Float) != t.Width*t.Height {
		return nil, fmt.Errorf("bake: %s: %s: format %s, want r32f", ref.Dir, ref.Field, t.Format)
	}
	if t.Width != w || t.Height != h {
		return nil, fmt.Errorf("bake: %s: %s: %d×%d, want %d×%d", ref.Dir, ref.Field, t.Width, t.Height, w, h)
	}
	return &field.Grid{W: t.Width, H: t.Height, Data: t.Float}, nil
}

// containerHoles reads the holes child into a mask (true = no ground); nil when there is none.
func containerHoles(c *terraindata.Container, w, h int) ([]bool, error) {
	ref := c.Holes()
	if ref == nil {
		return nil, nil
	}
	t, err := ref.Read()
	if err != nil {
		return nil, err
	}
	if t.RGBA8 == nil || t.Width != w || t.Height != h {
		return nil, fmt.Errorf("bake: %s: holes are %dx%d %s, the height is %dx%d", ref.Dir, t.Width, t.Height, t.Format, w, h)
	}
	holes := make([]bool, w*h)
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			holes[j*w+i] = t.RGBA8.Pix[t.RGBA8.PixOffset(i, j)] == 0
		}
	}
	return holes, nil
}

// containerWeights reads the control textures into Weights (a missing control1 is zero).
func containerWeights(c *terraindata.Container) (*Weights, error) {
	refs := c.Controls()
	if len(refs) == 0 || refs[0] == nil {
		return nil, nil
	}
	var w *Weights
	for i, ref := range refs {
		if i >= 2 || ref == nil {
			continue
		}
		t, err := ref.Read()
		if err != nil {
			return nil, err
		}
		if t.RGBA8 == nil {
			return nil, fmt.Errorf("bake: %s: control %d is %s, want rgba8", ref.Dir, i, t.Format)
		}
		if w == nil {
			w = NewWeights(t.Width, t.Height)
		}
		if t.Width != w.W || t.Height != w.H {
			return nil, fmt.Errorf("bake: %s: control %d is %dx%d, control 0 is %dx%d", ref.Dir, i, t.Width, t.Height, w.W, w.H)
		}
		dst := w.Lo
		if i == 1 {
			dst = w.Hi
		}
		for j := 0; j < t.Height; j++ {
			o := t.RGBA8.PixOffset(0, j)
			copy(dst[j*w.W*4:(j+1)*w.W*4], t.RGBA8.Pix[o:o+4*w.W])
		}
	}
	return w, nil
}

// copyTree copies the folder src into dst (created).
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}
