// Package landscape is the landscape document: a stack, the field it is evaluated over, the
// weights and scatter it gave, and their container on disk — Open, Write (and the staged save
// bake.Rebake runs beside an evaluation), CheckContainer/Validate, the stored instances, the
// children's names, a procgen script's copy and loading from sources (Load, LoadField). It
// evaluates nothing: package bake, which imports it, fills a Landscape's Weights and Scatter with
// the GPU kernels or the Go reference (docs/design.md "The landscape document and its evaluation").
package landscape

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"strata/field"
	"strata/internal/safeio"
	"strata/internal/sysmem"
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
	// Script is set for a landscape a procgen script generated: Write keeps a copy of the script
	// (and of what it read) inside the container instead of a stack.yaml (script.go).
	Script *Script

	// holesMem is the mapping Holes lies in when the landscape's planes are on disk (planes.go).
	holesMem *sysmem.Mapping
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

// writeStack writes the layer table, the atlas and stack.yaml. The container carries the stack
// and its source maps, so it reopens for editing wherever it is moved: maps are copied under
// textures/ and the saved stack names them there.
func (l *Landscape) writeStack(dir string, c *terraindata.Container) error {
	saved, layers, err := l.copySources(dir)
	if err != nil {
		return err
	}
	l.Script.layerTable(layers)
	c.SetLayers(layers)
	atlas, err := terraindata.PackAtlas(dir, layers, dir, l.AtlasSize)
	if err != nil {
		return err
	}
	c.SetAtlas(atlas)
	if l.Script != nil {
		return nil // a script's landscape: its editable source is the script, not a stack
	}
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
	used := map[string]bool{}
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
			_, format, err := terraindata.CheckSourceImage(src)
			if err != nil {
				return nil, nil, fmt.Errorf("bake: layers[%d] %q %s: %w", i, ly.Name, m.role, err)
			}
			base := strings.TrimSuffix(childName("", ly.Name+"_"+m.role), ".texture")
			if used[strings.ToLower(base)] { // "a.b" and "a_b" clean to one name: keep both maps
				base += fmt.Sprintf("_%d", i)
			}
			used[strings.ToLower(base)] = true
			rel := "textures/" + base + "." + format
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

// copyFile copies a source map into the container being written: a regular file only (a FIFO or
// /dev/zero named as a texture would otherwise fill the disk), at most MaxSourceBytes.
func copyFile(src, dst string) error {
	in, size, err := safeio.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if size > terraindata.MaxSourceBytes {
		return fmt.Errorf("%s is %d bytes, more than the %d a layer texture may be", src, size, int64(terraindata.MaxSourceBytes))
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, terraindata.MaxSourceBytes)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
