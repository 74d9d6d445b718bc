package bake

import (
	"context"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"strata/field"
	"strata/progress"
	"strata/stack"
	"strata/terraindata"
)

// Landscape is everything one container holds, in working form: the stack that made it, the field
// it was evaluated over, the weights and (when the stack has populations) the scatter.
type Landscape struct {
	Stack *stack.Stack
	// StackDir resolves the stack's relative texture paths (SPEC: relative to the stack.yaml).
	StackDir string
	Field    *field.Field
	Geometry Geometry
	Weights  *Weights
	Scatter  []Population
	// AtlasSize is the atlas sheet size; zero = terraindata.DefaultAtlasSize.
	AtlasSize [2]int
	// GUID is the landscape's identity once it has been opened or saved; "" lets Write keep the
	// guid already at the path (or make one).
	GUID string
	// Holes has one entry per height texel, true where there is NO ground; nil when solid.
	Holes []bool
	// Baked is set, and Stack nil, for a container baked elsewhere: its weights are kept as they
	// are and its surface table and atlas are carried over.
	Baked *Baked
}

// Population is one baked scatter population: its density over the weights grid and the
// placement it produced.
type Population struct {
	Name    string
	Mesh    string
	Seed    uint32
	Scale   [2]float64
	Density *field.Grid // weights grid, instances/m²
	Spacing float32     // metres between candidate sites; 0 when the density is 0 everywhere
	// Matrices holds Count column-major mat4s, 16 floats each (the pool layout).
	Matrices []float32
	Count    int
}

// childName turns a channel name into its child folder: "mask.snow" → "mask_snow.texture".
func childName(prefix, name string) string {
	r := strings.NewReplacer(".", "_", "/", "_", "\\", "_", " ", "_")
	return prefix + r.Replace(name) + ".texture"
}

// Write saves l as the terrainData container at path, atomically (terraindata.Save): the old
// container stays until the new one is complete and valid. Re-baking the same path keeps its guid.
func Write(path string, l *Landscape) error {
	return WriteContext(context.Background(), path, l, WriteOptions{})
}

// WriteOptions add progress and timing to WriteContext.
type WriteOptions struct {
	Progress progress.Func // StageEncode (MiB of payload), then StageValidate; nil = none
	Timings  *Timings      // encode per child, validate, sync + swap; nil = none
}

// WriteContext is Write with cancellation and progress: the payloads are compressed on every core
// (reported as StageEncode, MiB of payload), then the container is validated, made durable and
// swapped in (StageValidate). A cancelled ctx before the swap leaves the old container exactly as
// it was (terraindata.SaveWith).
func WriteContext(ctx context.Context, path string, l *Landscape, o WriteOptions) error {
	if l.Weights == nil || l.Field == nil || (l.Stack == nil && l.Baked == nil) {
		return fmt.Errorf("bake: write %s: nothing evaluated", path)
	}
	report := o.Progress
	if report == nil {
		report = progress.Nop
	}
	c := terraindata.New()
	c.SetGUID(l.GUID)
	total := mib(l.payloadBytes())
	var done atomic.Int64
	enc := &terraindata.Encoder{Context: ctx, Progress: func(n int64) { report(StageEncode, mib(done.Add(n)), total) }}
	report(StageEncode, 0, total)
	// The steps after the payloads are timed from Save's own reports: validated, durable, swapped.
	t0 := time.Now()
	steps := func(stage string, k, n int) {
		report(stage, k, n)
		if stage == StageValidate {
			switch k {
			case 0:
				t0 = time.Now()
			case 1:
				t0 = o.Timings.Since("validate", t0)
			case 2:
				t0 = o.Timings.Since("fsync", t0)
			case 3:
				o.Timings.Since("swap in", t0)
			}
		}
	}
	err := terraindata.SaveWith(path, c, func(dir string) error { return l.writeChildren(dir, c, enc, o.Timings) },
		terraindata.SaveOptions{Context: ctx, Progress: steps})
	if err != nil {
		return err
	}
	l.GUID = c.GUID()
	return nil
}

// payloadBytes is the raw size of the payloads writeChildren compresses: the progress total.
func (l *Landscape) payloadBytes() int64 {
	f, w := l.Field, l.Weights
	hw, hh := int64(f.Height.W), int64(f.Height.H)
	n := 16 * hw * hh // rgba32f height
	for _, h := range l.Holes {
		if h {
			n += hh * (1 + 4*hw)
			break
		}
	}
	png := int64(w.H) * (1 + 4*int64(w.W))
	n += png * int64(len(l.controls()))
	n += 4 * hw * hh * int64(len(f.Channels))
	for _, p := range l.Scatter {
		n += 4 * int64(p.Density.W) * int64(p.Density.H)
	}
	return n
}

// controls are the control textures' pixels: layers 0–3, and 4–7 when the stack has more than four.
func (l *Landscape) controls() [][]byte {
	nLayers := 0
	if l.Stack != nil {
		nLayers = len(l.Stack.Layers)
	} else {
		nLayers = len(l.Baked.Layers)
	}
	if nLayers > 4 {
		return [][]byte{l.Weights.Lo, l.Weights.Hi}
	}
	return [][]byte{l.Weights.Lo}
}

func (l *Landscape) writeChildren(dir string, c *terraindata.Container, enc *terraindata.Encoder, tm *Timings) error {
	f := l.Field
	ts := f.TexelSize()
	hg := &terraindata.HeightGrid{W: f.Height.W, H: f.Height.H, Heights: f.Height.Data, TexelX: ts[0], TexelZ: ts[1], Holes: l.Holes}
	t0 := time.Now()
	if _, err := enc.Height(filepath.Join(dir, "height.texture"), hg); err != nil {
		return err
	}
	t0 = tm.Since("encode height", t0)
	if err := c.SetChild("height", "height.texture"); err != nil {
		return err
	}
	wrote, err := enc.Holes(filepath.Join(dir, "holes.texture"), hg)
	if err != nil {
		return err
	}
	if wrote {
		if err := c.SetChild("holes", "holes.texture"); err != nil {
			return err
		}
		t0 = tm.Since("encode holes", t0)
	}
	rng := hg.Range()
	c.SetPlacement(terraindata.Placement{Size: f.Placement.Size, Origin: f.Placement.Origin,
		HeightRange: [2]float64{short32(float32(rng[0])), short32(float32(rng[1]))}})

	w := l.Weights
	for i, pix := range l.controls() {
		img := &image.NRGBA{Pix: pix, Stride: w.W * 4, Rect: image.Rect(0, 0, w.W, w.H)}
		name := fmt.Sprintf("control%d.texture", i)
		if _, err := enc.RGBA8(filepath.Join(dir, name), img, terraindata.Linear); err != nil {
			return err
		}
		if err := c.SetChild(fmt.Sprintf("control%d", i), name); err != nil {
			return err
		}
		t0 = tm.Since("encode "+name, t0)
	}

	if l.Stack == nil {
		if err := l.Baked.write(dir, c); err != nil {
			return err
		}
	} else if err := l.writeStack(dir, c); err != nil {
		return err
	}
	t0 = tm.Since("stack, layers, atlas", t0)

	for name, g := range f.Channels {
		child := childName("", name)
		if _, err := enc.FloatPixels(filepath.Join(dir, child), terraindata.R32F, g.W, g.H, g.Data); err != nil {
			return err
		}
		if err := c.SetChild("channels."+name, child); err != nil {
			return err
		}
		t0 = tm.Since("encode "+child, t0)
	}

	var pops []terraindata.Population
	for _, p := range l.Scatter {
		child := childName("scatter_", p.Name)
		if _, err := enc.FloatPixels(filepath.Join(dir, child), terraindata.R32F, p.Density.W, p.Density.H, p.Density.Data); err != nil {
			return err
		}
		pops = append(pops, terraindata.Population{Name: p.Name, Density: child, Spacing: short32(p.Spacing),
			Seed: p.Seed, Scale: p.Scale, Mesh: p.Mesh, Count: p.Count})
		t0 = tm.Since("encode "+child, t0)
	}
	c.SetScatter(pops)
	return nil
}

// writeStack writes the layer table, the atlas and stack.yaml. The container carries the stack
// and its source maps, so it reopens for editing wherever it is moved: maps are copied under
// textures/ and the saved stack names them there.
func (l *Landscape) writeStack(dir string, c *terraindata.Container) error {
	saved, layers, err := l.copySources(dir)
	if err != nil {
		return err
	}
	c.SetLayers(layers)
	atlas, err := terraindata.PackAtlas(dir, layers, dir, l.AtlasSize)
	if err != nil {
		return err
	}
	c.SetAtlas(atlas)
	data, err := stack.Marshal(saved)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), data, 0o644); err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	return c.SetChild("stack", "stack.yaml")
}

// write carries a baked container's surface table and atlas sheets over unchanged.
func (b *Baked) write(dir string, c *terraindata.Container) error {
	c.SetLayers(b.Layers)
	if b.Atlas == nil {
		return nil
	}
	a := *b.Atlas
	for _, rel := range []string{a.Albedo, a.Normal, a.Mask} {
		if rel == "" {
			continue
		}
		src := filepath.Join(b.From, filepath.FromSlash(rel))
		if err := copyTree(src, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("bake: carrying atlas %s over: %w", rel, err)
		}
	}
	c.SetAtlas(&a)
	return nil
}

// short32 is v as the float64 with float32 v's shortest decimal form, so the manifest reads
// "15.908029" rather than "15.908028602600098" and converts back to exactly v.
func short32(v float32) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	return f
}

// copySources copies every layer's albedo/normal/mask map into dir/textures and returns the stack
// and layer table naming those copies (container-relative).
func (l *Landscape) copySources(dir string) (*stack.Stack, []terraindata.Layer, error) {
	s := *l.Stack
	s.Layers = append([]stack.Layer(nil), l.Stack.Layers...)
	layers := make([]terraindata.Layer, len(s.Layers))
	for i := range s.Layers {
		ly := &s.Layers[i]
		for _, m := range []struct {
			role string
			p    *string
		}{{"albedo", &ly.Albedo}, {"normal", &ly.Normal}, {"mask", &ly.Mask}} {
			if *m.p == "" {
				continue
			}
			src := *m.p
			if !filepath.IsAbs(src) {
				src = filepath.Join(l.StackDir, src)
			}
			rel := "textures/" + strings.ReplaceAll(childName("", ly.Name+"_"+m.role), ".texture", "") + strings.ToLower(filepath.Ext(src))
			if err := copyFile(src, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
				return nil, nil, fmt.Errorf("bake: layers[%d] %q %s: %w", i, ly.Name, m.role, err)
			}
			*m.p = rel
		}
		layers[i] = terraindata.Layer{Name: ly.Name, Albedo: ly.Albedo, Normal: ly.Normal, Mask: ly.Mask,
			Tiling: ly.Tiling, Tint: ly.Tint.String()}
	}
	return &s, layers, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
