package landscape

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"strata/field"
	"strata/internal/sysmem"
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
	return OpenWith(context.Background(), path, OpenOptions{})
}

// OpenWith is Open telling o what it reads as it reads it (OpenOptions); cancelling ctx stops the
// read between two blocks of a child, and the error then wraps ctx.Err().
func OpenWith(ctx context.Context, path string, o OpenOptions) (*Landscape, error) {
	c, err := terraindata.Open(path)
	if err != nil {
		return nil, err
	}
	if probs := CheckContainer(c); len(probs) > 0 {
		return nil, fmt.Errorf("bake: %s cannot be opened:\n%w", path, probs)
	}
	m := c.Manifest()
	onDisk, err := containerOnDisk(c, len(m.Channels))
	if err != nil {
		return nil, fmt.Errorf("bake: %s: %w", path, err)
	}
	rd := newReading(ctx, c, &m, o)
	h, err := containerHeight(rd, c, onDisk)
	if err != nil {
		return nil, err
	}
	f, err := field.New(field.Placement{Size: m.Size, Origin: m.Origin}, h)
	if err != nil {
		h.Release()
		return nil, fmt.Errorf("bake: %s: %w", path, err)
	}
	l := &Landscape{Field: f, GUID: m.GUID, StackDir: path}
	// A failed open releases the planes it read (their files' blocks go back at once).
	ok := false
	defer func() {
		if !ok {
			l.Release()
		}
	}()
	holes, holesMem, err := containerHoles(rd, c, h.W, h.H, onDisk)
	if err != nil {
		return nil, err
	}
	l.Holes = holes
	l.setHolesMem(holesMem)
	names := make([]string, 0, len(m.Channels))
	for name := range m.Channels {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		g, err := readR32F(rd, c.Channel(name), h.W, h.H, onDisk)
		if err != nil {
			return nil, err
		}
		if err := f.AddChannel(name, g); err != nil {
			g.Release()
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
	if l.Script, err = openScript(c, m.Script); err != nil {
		return nil, err
	}
	if l.Weights, err = containerWeights(rd, c, onDisk); err != nil {
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
		dens, err := readR32F(rd, c.ScatterDensity(mp.Name), l.Geometry.Field.WeightsW, l.Geometry.Field.WeightsH, false)
		if err != nil {
			return nil, fmt.Errorf("bake: %s: scatter[%d] %q: %w", path, i, mp.Name, err)
		}
		l.Scatter = append(l.Scatter, Population{Name: mp.Name, Mesh: mp.Mesh, Seed: mp.Seed, Scale: mp.Scale,
			Density: dens, Spacing: float32(mp.Spacing), Count: mp.Count})
	}
	ok = true
	return l, nil
}

// containerOnDisk reports whether a container's planes go on disk (field.PlanesOnDisk): its
// height and channels (4 bytes a height texel each), holes (1) and controls (8 bytes a weights
// texel). A child whose size cannot be read counts nothing here: its read reports it.
func containerOnDisk(c *terraindata.Container, channels int) (bool, error) {
	ref := c.Height()
	if ref == nil {
		return false, nil
	}
	info, err := ref.Info()
	if err != nil {
		return false, nil
	}
	w, h := info.Width, info.Height
	var extra uint64
	if c.Holes() != nil {
		extra += uint64(w) * uint64(h)
	}
	if refs := c.Controls(); len(refs) > 0 && refs[0] != nil {
		if ci, err := refs[0].Info(); err == nil {
			extra += 8 * uint64(ci.Width) * uint64(ci.Height)
		}
	}
	return field.PlanesOnDisk(w, h, 1+channels, extra)
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

// ContainerHeight reads a container's height child back into a grid of metres (its R channel),
// streamed block by block into the grid: the whole RGBA payload (4 GiB at 16384²) is never held.
func ContainerHeight(c *terraindata.Container) (*field.Grid, error) {
	return containerHeight(nil, c, false)
}

// containerHeight is ContainerHeight on disk when onDisk is set, telling rd's Rows the rows
// complete as the blocks land (in any order: a band is told once the rows before it are).
func containerHeight(rd *reading, c *terraindata.Container, onDisk bool) (*field.Grid, error) {
	ref := c.Height()
	if ref == nil {
		return nil, fmt.Errorf("bake: %s: manifest names no height child", c.Path())
	}
	var g *field.Grid
	var rows *field.RowsPrefix
	rng := field.Range{Min: float32(math.Inf(1)), Max: float32(math.Inf(-1))}
	err := streamChild(rd, ref, terraindata.RGBA32F, "a height", onDisk, func(w, h int) (err error) {
		g, err = field.NewPlane(w, h, onDisk)
		rows = field.NewRowsPrefix(h)
		return err
	},
		func(b terraindata.Block) {
			row := g.Data[b.Y0*g.W : (b.Y0+b.N)*g.W]
			lo, hi := rng.Min, rng.Max
			for i := range row {
				v := b.Float[4*i]
				row[i] = v
				lo, hi = min(lo, v), max(hi, v)
			}
			rng.Min, rng.Max = lo, hi
			if rd != nil && rd.rows != nil {
				if done, more := rows.Add(b.Y0, b.Y0+b.N); more {
					rd.rows(g, done)
				}
			}
		})
	if err != nil {
		g.Release()
		return nil, err
	}
	if rd != nil && rd.rangeOut != nil {
		*rd.rangeOut = rng // the stream checked every value finite
	}
	return g, nil
}

// streamChild streams ref's payload through every check terraindata.Stream makes, after checking
// its format: alloc is called once with the size, before any block (with the memory a grid of
// float32 of that size needs checked against what the machine has), then each block goes to put
// (called one at a time; blocks in any order, each carrying its rows). onDisk says alloc maps its
// plane: the disk's free space is checked instead of memory (sysmem.CheckPlanes).
func streamChild(rd *reading, ref *terraindata.Ref, want terraindata.Format, what string, onDisk bool, alloc func(w, h int) error, put func(terraindata.Block)) error {
	s, err := ref.Stream()
	if err != nil {
		return err
	}
	defer s.Close()
	info := s.Info
	if info.Format != want {
		return fmt.Errorf("bake: %s: %s: %s, want %s", ref.Dir, ref.Field, info.Format, want)
	}
	if err := sysmem.CheckPlanes(uint64(info.Width)*uint64(info.Height)*4, onDisk, fmt.Sprintf("reading %s %s (%dx%d)", what, ref.Field, info.Width, info.Height)); err != nil {
		return fmt.Errorf("bake: %s: %w", ref.Dir, err)
	}
	if err := alloc(info.Width, info.Height); err != nil {
		return fmt.Errorf("bake: %s: %s: %w", ref.Dir, ref.Field, err)
	}
	err = s.Each(func(b terraindata.Block) error {
		if err := rd.err(); err != nil {
			return err
		}
		put(b)
		rd.read(b.N)
		return nil
	})
	if cerr := rd.err(); err != nil && cerr != nil {
		return fmt.Errorf("bake: %s: %s: %w", ref.Dir, ref.Field, cerr)
	}
	return err
}

// readR32F reads an r32f child of size w×h, on disk when onDisk is set.
func readR32F(rd *reading, ref *terraindata.Ref, w, h int, onDisk bool) (*field.Grid, error) {
	if ref == nil {
		return nil, fmt.Errorf("the manifest names no child")
	}
	var g *field.Grid
	err := streamChild(rd, ref, terraindata.R32F, "a grid", onDisk, func(cw, ch int) (err error) {
		if cw == w && ch == h {
			g, err = field.NewPlane(w, h, onDisk)
		}
		return err
	}, func(b terraindata.Block) {
		if g != nil {
			copy(g.Data[b.Y0*w:(b.Y0+b.N)*w], b.Float)
		}
	})
	if err != nil {
		g.Release()
		return nil, err
	}
	if g == nil {
		info, _ := ref.Info()
		return nil, fmt.Errorf("bake: %s: %s: %d×%d, want %d×%d", ref.Dir, ref.Field, info.Width, info.Height, w, h)
	}
	return g, nil
}

// containerHoles reads the holes child into a mask (true = no ground); nil when there is none.
// On disk (onDisk) the mask lies in the mapping returned, which the caller owns.
func containerHoles(rd *reading, c *terraindata.Container, w, h int, onDisk bool) ([]bool, *sysmem.Mapping, error) {
	ref := c.Holes()
	if ref == nil {
		return nil, nil, nil
	}
	var holes []bool
	var mem *sysmem.Mapping
	var got [2]int
	err := streamChild(rd, ref, terraindata.RGBA8, "holes", onDisk, func(cw, ch int) (err error) {
		if got = [2]int{cw, ch}; cw == w && ch == h {
			holes, mem, err = newHoles(w*h, onDisk)
		}
		return err
	}, func(b terraindata.Block) {
		if holes == nil {
			return
		}
		row := holes[b.Y0*w : (b.Y0+b.N)*w]
		for i := range row {
			row[i] = b.Bytes[4*i] == 0
		}
	})
	if err != nil {
		mem.Release()
		return nil, nil, err
	}
	if holes == nil {
		return nil, nil, fmt.Errorf("bake: %s: holes are %dx%d, the height is %dx%d", ref.Dir, got[0], got[1], w, h)
	}
	return holes, mem, nil
}

// ContainerWeights reads the control textures into Weights (a missing control1 is zero; nil when
// there are none), each streamed row by row into its plane.
func ContainerWeights(c *terraindata.Container) (*Weights, error) {
	return containerWeights(nil, c, false)
}

// containerWeights is ContainerWeights on disk when onDisk is set.
func containerWeights(rd *reading, c *terraindata.Container, onDisk bool) (*Weights, error) {
	refs := c.Controls()
	if len(refs) == 0 || refs[0] == nil {
		return nil, nil
	}
	var w *Weights
	for i, ref := range refs {
		if i >= 2 || ref == nil {
			continue
		}
		var dst []byte
		var got [2]int
		err := streamChild(rd, ref, terraindata.RGBA8, "a control", onDisk, func(cw, ch int) (err error) {
			got = [2]int{cw, ch}
			if w == nil {
				if w, err = NewWeightsOn(cw, ch, onDisk); err != nil {
					return err
				}
			}
			if cw == w.W && ch == w.H {
				dst = w.Lo
				if i == 1 {
					dst = w.Hi
				}
			}
			return nil
		}, func(b terraindata.Block) {
			if dst != nil {
				copy(dst[b.Y0*w.W*4:(b.Y0+b.N)*w.W*4], b.Bytes)
			}
		})
		if err != nil {
			w.Release()
			return nil, err
		}
		if dst == nil {
			w.Release()
			return nil, fmt.Errorf("bake: %s: control %d is %dx%d, control 0 is %dx%d", ref.Dir, i, got[0], got[1], w.W, w.H)
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
