package landscape

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"strata/internal/safeio"
	"strata/scatter"
	"strata/terraindata"
)

// Instance pools as files: one raw little-endian float32 file per population holding its
// column-major 4×4 matrices (the pool layout, 64 bytes an instance) and an index.yaml naming each
// file. `strata export --instances` writes them for engines; a world cell (package world) keeps
// its instances inside its container in the same form under InstancesDir, because a cell cannot
// place them again from its own density alone: its sites are anchored to the world's corner and
// their jitter and taps reach into the neighbours.

// InstancesDir is the folder inside a container that holds its stored instances.
const InstancesDir = "instances"

// InstanceFormat is index.yaml's description of the files.
const InstanceFormat = "column-major 4x4 float32 matrices, little-endian, 64 bytes per instance; column 3 is the translation (x, y, z, 1)"

// maxIndexBytes bounds index.yaml: a few lines per population, at most stack.MaxPopulations.
const maxIndexBytes = 64 << 10

// InstanceIndex is index.yaml beside the pools: each population's file, count, mesh and scale.
type InstanceIndex struct {
	Format      string          `yaml:"format"`
	Populations []InstanceEntry `yaml:"populations"`
}

// InstanceEntry is one population's line of index.yaml.
type InstanceEntry struct {
	Name  string     `yaml:"name"`
	File  string     `yaml:"file"`
	Count int        `yaml:"count"`
	Mesh  string     `yaml:"mesh,omitempty"`
	Scale [2]float64 `yaml:"scale,flow"`
}

// InstanceFileNames names each population's file: its name with anything but letters, digits, '_'
// and '-' as '_', plus ".f32". Two populations whose names clean to one file ("a/b" and "a_b",
// or names differing only in case, one file on macOS and Windows) get "_2", "_3" … in order, so
// no population's instances overwrite another's; index.yaml says which file is whose.
func InstanceFileNames(names []string) []string {
	used := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		base := cleanName(n)
		name := base
		for k := 2; used[strings.ToLower(name)]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		used[strings.ToLower(name)] = true
		out[i] = name + ".f32"
	}
	return out
}

// WriteInstances writes each population's matrices to dir (created) as <file>.f32 and the
// index.yaml naming them, every file written beside its name and renamed when complete. It
// returns the index.
func WriteInstances(dir string, pops []Population) (InstanceIndex, error) {
	idx := InstanceIndex{Format: InstanceFormat}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return idx, err
	}
	names := make([]string, len(pops))
	for i, p := range pops {
		names[i] = p.Name
	}
	files := InstanceFileNames(names)
	for i, p := range pops {
		if len(p.Matrices) < p.Count*scatter.MatrixFloats {
			return idx, fmt.Errorf("bake: population %q: %d matrix floats for %d instances", p.Name, len(p.Matrices), p.Count)
		}
		if err := WriteFloats(filepath.Join(dir, files[i]), p.Matrices[:p.Count*scatter.MatrixFloats]); err != nil {
			return idx, err
		}
		idx.Populations = append(idx.Populations, InstanceEntry{Name: p.Name, File: files[i], Count: p.Count, Mesh: p.Mesh, Scale: p.Scale})
	}
	b, err := yaml.Marshal(&idx)
	if err != nil {
		return idx, err
	}
	ip := filepath.Join(dir, "index.yaml")
	f, err := safeio.Create(ip)
	if err != nil {
		return idx, err
	}
	defer f.Abort()
	if _, err := f.Write(b); err != nil {
		return idx, fmt.Errorf("writing %s: %w", ip, err)
	}
	return idx, f.Commit()
}

// WriteFloats writes v as little-endian float32 to path, atomically (safeio.Create).
func WriteFloats(path string, v []float32) error {
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

// storedIndex reads the container's instances/index.yaml and checks it against the manifest:
// one entry per scatter population, by name, with the manifest's count and mesh, each file a
// regular file inside the container of exactly count·64 bytes. It returns nil and no error when
// the container stores no instances (every container but a world cell's).
func storedIndex(c *terraindata.Container) (*InstanceIndex, error) {
	if _, err := os.Lstat(filepath.Join(c.Path(), InstancesDir)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	p, err := c.File(InstancesDir+"/index.yaml", "instances")
	if err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) (*InstanceIndex, error) {
		return nil, &terraindata.ChildError{File: p, Field: "instances", Err: fmt.Errorf(format, a...)}
	}
	b, err := safeio.ReadFile(p, maxIndexBytes)
	if err != nil {
		return fail("%w", safeio.Unnamed(err))
	}
	var idx InstanceIndex
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&idx); err != nil {
		return fail("%w", err)
	}
	m := c.Manifest()
	if len(idx.Populations) != len(m.Scatter) {
		return fail("%d populations, the manifest's scatter has %d", len(idx.Populations), len(m.Scatter))
	}
	for i, e := range idx.Populations {
		mp := m.Scatter[i]
		switch {
		case e.Name != mp.Name:
			return fail("populations[%d] is %q, the manifest's scatter[%d] is %q", i, e.Name, i, mp.Name)
		case e.Count != mp.Count || e.Count < 0 || e.Count > scatter.MaxInstances:
			return fail("populations[%d] %q: count %d, the manifest says %d (at most %d)", i, e.Name, e.Count, mp.Count, scatter.MaxInstances)
		case e.Mesh != mp.Mesh:
			return fail("populations[%d] %q: mesh %q, the manifest says %q", i, e.Name, e.Mesh, mp.Mesh)
		case strings.ContainsAny(e.File, `/\`) || e.File == "" || e.File == "." || e.File == "..":
			return fail("populations[%d] %q: file %q is not a file name in %s/", i, e.Name, e.File, InstancesDir)
		}
		fp, err := c.File(InstancesDir+"/"+e.File, "instances."+e.Name)
		if err != nil {
			return nil, err
		}
		fi, err := safeio.Stat(fp)
		if err != nil {
			return nil, &terraindata.ChildError{File: fp, Field: "instances." + e.Name, Err: safeio.Unnamed(err)}
		}
		if want := int64(e.Count) * 64; fi.Size() != want {
			return fail("populations[%d] %q: %s is %d bytes, %d instances are %d", i, e.Name, e.File, fi.Size(), e.Count, want)
		}
	}
	return &idx, nil
}

// StoredInstances reads the instances a container stores (a world cell's), by population name,
// through storedIndex's checks and refusing a matrix value that is not finite. ok is false when
// the container stores none: its instances are then placed again from its densities.
func StoredInstances(c *terraindata.Container) (pools map[string][]float32, ok bool, err error) {
	idx, err := storedIndex(c)
	if err != nil || idx == nil {
		return nil, false, err
	}
	pools = map[string][]float32{}
	for _, e := range idx.Populations {
		fp, err := c.File(InstancesDir+"/"+e.File, "instances."+e.Name)
		if err != nil {
			return nil, false, err
		}
		v, err := readFloats(fp, e.Count*scatter.MatrixFloats)
		if err != nil {
			return nil, false, err
		}
		pools[e.Name] = v
	}
	return pools, true, nil
}

// readFloats reads exactly n little-endian float32 from path, refusing NaN and infinities.
func readFloats(path string, n int) ([]float32, error) {
	f, size, err := safeio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size != int64(n)*4 {
		return nil, fmt.Errorf("bake: %s: %d bytes, want %d", path, size, int64(n)*4)
	}
	out := make([]float32, n)
	r := bufio.NewReaderSize(f, 1<<16)
	var b [4]byte
	for i := range out {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("bake: %s: %w", path, err)
		}
		v := math.Float32frombits(binary.LittleEndian.Uint32(b[:]))
		if v != v || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("bake: %s: instance %d: value %v is not finite", path, i/scatter.MatrixFloats, v)
		}
		out[i] = v
	}
	return out, nil
}
