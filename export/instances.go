package export

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"strata/bake"
	"strata/internal/safeio"
	"strata/terraindata"
)

// Index is index.yaml beside the exported pools: each population's file, count, mesh and scale.
type Index struct {
	Format      string       `yaml:"format"`
	Populations []IndexEntry `yaml:"populations"`
}

type IndexEntry struct {
	Name  string     `yaml:"name"`
	File  string     `yaml:"file"`
	Count int        `yaml:"count"`
	Mesh  string     `yaml:"mesh,omitempty"`
	Scale [2]float64 `yaml:"scale,flow"`
}

// exportInstances places every population again from the container (the Go reference: placement
// is deterministic, so this is the bake's forest) and writes each pool as raw matrices.
func exportInstances(ct *terraindata.Container, dir string, stdout io.Writer) error {
	pops, err := bake.PlaceFromContainer(context.Background(), ct, nil, nil)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	idx := Index{Format: "column-major 4x4 float32 matrices, little-endian, 64 bytes per instance; column 3 is the translation (x, y, z, 1)"}
	files := instanceFiles(pops)
	for i, p := range pops {
		file := files[i]
		if err := writeFloats(filepath.Join(dir, file), p.Matrices); err != nil {
			return err
		}
		idx.Populations = append(idx.Populations, IndexEntry{Name: p.Name, File: file, Count: p.Count, Mesh: p.Mesh, Scale: p.Scale})
		fmt.Fprintf(stdout, "wrote %s (%d instances)\n", filepath.Join(dir, file), p.Count)
	}
	b, err := yaml.Marshal(&idx)
	if err != nil {
		return err
	}
	ip := filepath.Join(dir, "index.yaml")
	f, err := safeio.Create(ip)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", ip, err)
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d populations)\n", ip, len(pops))
	return nil
}

// instanceFiles names each population's file: its name with anything but letters, digits, '_'
// and '-' as '_', plus ".f32". Two populations whose names clean to one file ("a/b" and "a_b",
// or names differing only in case, one file on macOS and Windows) get "_2", "_3" … in order, so
// no population's instances overwrite another's; index.yaml says which file is whose.
func instanceFiles(pops []*bake.PlacedPopulation) []string {
	used := map[string]bool{}
	out := make([]string, len(pops))
	for i, p := range pops {
		base := strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) {
				return r
			}
			return '_'
		}, p.Name)
		name := base
		for k := 2; used[strings.ToLower(name)]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		used[strings.ToLower(name)] = true
		out[i] = name + ".f32"
	}
	return out
}

func writeFloats(path string, v []float32) error {
	f, err := safeio.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriter(f)
	var b [4]byte
	for _, x := range v {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		if _, err := w.Write(b[:]); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}
