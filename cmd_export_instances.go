package main

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

	"gopkg.in/yaml.v3"

	"strata/bake"
	"strata/terraindata"
)

// instanceIndex is index.yaml beside the exported pools.
type instanceIndex struct {
	Format      string          `yaml:"format"`
	Populations []instanceEntry `yaml:"populations"`
}

type instanceEntry struct {
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
	idx := instanceIndex{Format: "column-major 4x4 float32 matrices, little-endian, 64 bytes per instance; column 3 is the translation (x, y, z, 1)"}
	for _, p := range pops {
		file := strings.NewReplacer("/", "_", "\\", "_", " ", "_").Replace(p.Name) + ".f32"
		if err := writeFloats(filepath.Join(dir, file), p.Matrices); err != nil {
			return err
		}
		idx.Populations = append(idx.Populations, instanceEntry{Name: p.Name, File: file, Count: p.Count, Mesh: p.Mesh, Scale: p.Scale})
		fmt.Fprintf(stdout, "wrote %s (%d instances)\n", filepath.Join(dir, file), p.Count)
	}
	b, err := yaml.Marshal(&idx)
	if err != nil {
		return err
	}
	ip := filepath.Join(dir, "index.yaml")
	if err := os.WriteFile(ip, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d populations)\n", ip, len(pops))
	return nil
}

func writeFloats(path string, v []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	var b [4]byte
	for _, x := range v {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		if _, err := w.Write(b[:]); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
