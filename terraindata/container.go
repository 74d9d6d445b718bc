package terraindata

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Container is an open terrainData landscape: its manifest plus where it lives. Children are
// handed out as Refs and read on demand, because a height payload can be a gigabyte and most
// callers (info, a Terrain component binding textures) need only names and sizes.
type Container struct {
	path string // the .terrainData folder; "" for a container not yet saved
	// readDir is where children are read from: path, or its backup while a crashed save's
	// swap is undone (see Open).
	readDir string
	// mu guards m against setters called from several goroutines (a bake writes the ground and
	// the rest of a save side by side); readers of an opened container only read.
	mu sync.Mutex
	m  Manifest
}

// New returns an empty version-1 container for the bake to fill through the setters and Save.
func New() *Container { return &Container{m: Manifest{Version: Version}} }

// Open reads the manifest at path. It reads only: a save another process has in flight beside
// path (.NAME.new, .NAME.old) is left alone, so a watcher reopening a container while someone
// saves it cannot delete that save's work. When a crash left only the backup (.NAME.old and no
// NAME), Open reads the backup, which is the last complete landscape; Save and Recover put it
// back. It does not validate; Validate is the publish gate.
func Open(path string) (*Container, error) {
	_, oldDir := siblings(path)
	if have, _ := exists(path); !have {
		if haveOld, _ := exists(oldDir); haveOld {
			c, err := openAt(oldDir)
			if err != nil {
				return nil, err
			}
			c.path = path
			c.readDir = oldDir
			return c, nil
		}
	}
	return openAt(path)
}

func openAt(path string) (*Container, error) {
	b, err := readManifestFile(path)
	if err != nil {
		return nil, fmt.Errorf("terraindata: %w", err)
	}
	m, err := DecodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("terraindata: %s: %w", path, err)
	}
	return &Container{path: path, readDir: path, m: *m}, nil
}

// GUID is the landscape's identity ("" before the first Save).
func (c *Container) GUID() string { return c.m.GUID }

// SetGUID gives the landscape the identity Save will write (see Save).
func (c *Container) SetGUID(g string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.GUID = g
}

// Path is the container's folder ("" before the first Save).
func (c *Container) Path() string { return c.path }

// Placement is where the ground stands and how far it reaches (the seed's :placement()).
type Placement struct {
	Size        [2]float64 // metres along X and Z
	Origin      [2]float64 // world centre
	HeightRange [2]float64 // metres, lowest and highest ground
}

// Placement returns the ground's placement.
func (c *Container) Placement() Placement {
	return Placement{Size: c.m.Size, Origin: c.m.Origin, HeightRange: c.m.HeightRange}
}

// Ref is one child texture of a container: its role, its path relative to the container and the
// resolved folder. Reading it is separate so listing a landscape costs no payload I/O.
//
// Every read through a Ref (Info, Stream, Read) goes through the same checks validate makes: the
// path stays inside the container after symlinks, files are regular and read with a bound, and
// the payload agrees with texture.yaml; errors are *ChildError naming the file and Field.
type Ref struct {
	Role  string // "height", "holes", "control0", "atlas.albedo", "channels.mask.snow", "scatter.pines"
	Field string // the manifest field naming it: "height", "controls[0]", "scatter[2].density", …
	Rel   string // as the manifest names it
	Dir   string // joined to the container's folder (not yet resolved: see Info)
	root  string // the container folder every read must stay inside
}

func (c *Container) ref(role, field, rel string) *Ref {
	if rel == "" {
		return nil
	}
	return &Ref{Role: role, Field: field, Rel: rel, Dir: filepath.Join(c.readDir, filepath.FromSlash(rel)), root: c.readDir}
}

// Height returns the heightfield child (nil when the manifest names none, which Validate refuses).
func (c *Container) Height() *Ref { return c.ref("height", "height", c.m.Height) }

// Holes returns the holes mask, or nil when the ground is solid everywhere.
func (c *Container) Holes() *Ref { return c.ref("holes", "holes", c.m.Holes) }

// Control returns control texture i (0-based), nil when out of range.
func (c *Container) Control(i int) *Ref {
	if i < 0 || i >= len(c.m.Controls) {
		return nil
	}
	return c.ref("control"+strconv.Itoa(i), "controls["+strconv.Itoa(i)+"]", c.m.Controls[i])
}

// Controls returns the weight textures in channel order.
func (c *Container) Controls() []*Ref {
	out := make([]*Ref, len(c.m.Controls))
	for i := range out {
		out[i] = c.Control(i)
	}
	return out
}

// Layers returns the surface table, bottom layer first.
func (c *Container) Layers() []Layer { return append([]Layer(nil), c.m.Layers...) }

// AtlasRefs is the seed's :atlas() result.
type AtlasRefs struct {
	Albedo, Normal, Mask *Ref // nil for a role no layer declares
	Size                 [2]int
}

// Atlas returns the packed sheets, or nil when no layer carries a texture.
func (c *Container) Atlas() *AtlasRefs {
	a := c.m.Atlas
	if a == nil || (a.Albedo == "" && a.Normal == "" && a.Mask == "") {
		return nil
	}
	size := a.Size
	if size == [2]int{} {
		size = DefaultAtlasSize
	}
	return &AtlasRefs{Albedo: c.ref("atlas.albedo", "atlas.albedo", a.Albedo), Normal: c.ref("atlas.normal", "atlas.normal", a.Normal),
		Mask: c.ref("atlas.mask", "atlas.mask", a.Mask), Size: size}
}

// Channel returns the stored field channel name (for example "mask.snow"), nil when absent.
func (c *Container) Channel(name string) *Ref {
	return c.ref("channels."+name, "channels."+name, c.m.Channels[name])
}

// ScatterDensity returns the density child of the named scatter population (nil when absent).
func (c *Container) ScatterDensity(name string) *Ref {
	for i, p := range c.m.Scatter {
		if p.Name == name {
			return c.ref("scatter."+name, "scatter["+strconv.Itoa(i)+"].density", p.Density)
		}
	}
	return nil
}

// LayerSlot says which control texture and channel carry the named layer, both 0-based: layer i
// is texture i/4, channel i%4 (R, G, B, A). The seed counts from 1: its layer n is channel
// ((n-1)%4)+1 of texture ceil(n/4), and its layer 1 is our layer 0. ok is false for an unknown
// name.
func (c *Container) LayerSlot(name string) (texture, channel int, ok bool) {
	for i, l := range c.m.Layers {
		if l.Name == name {
			t, ch := LayerSlot(i)
			return t, ch, true
		}
	}
	return 0, 0, false
}

// LayerSlot is the 0-based slot of layer index i, shared with the weights kernel's packing.
func LayerSlot(i int) (texture, channel int) { return i / 4, i % 4 }

// Manifest returns a copy of the whole manifest, decoded (safe while setters run elsewhere).
func (c *Container) Manifest() Manifest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.clone()
}

// SetManifest replaces the manifest whole (the version is forced to this build's), for a bake
// that prefers filling the struct to calling setters.
func (c *Container) SetManifest(m Manifest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m.Version = Version
	c.m = m
}

// SetChild names the child for a role: "height", "holes", "stack", "control<i>",
// "atlas.albedo|normal|mask", "channels.<name>" or "scatter.<population>" (its density). An empty
// file removes the role. The path must be relative, slash-separated and stay inside the container.
func (c *Container) SetChild(role, file string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if file != "" {
		if err := checkRel(file); err != nil {
			return fmt.Errorf("terraindata: SetChild %s: %w", role, err)
		}
	}
	switch {
	case role == "height":
		c.m.Height = file
	case role == "holes":
		c.m.Holes = file
	case role == "stack":
		c.m.Stack = file
	case strings.HasPrefix(role, "control"):
		i, err := strconv.Atoi(strings.TrimPrefix(role, "control"))
		if err != nil || i < 0 || i >= MaxLayers/4 {
			return fmt.Errorf("terraindata: SetChild: role %q: want control0 or control1", role)
		}
		for len(c.m.Controls) <= i {
			c.m.Controls = append(c.m.Controls, "")
		}
		c.m.Controls[i] = file
		for len(c.m.Controls) > 0 && c.m.Controls[len(c.m.Controls)-1] == "" {
			c.m.Controls = c.m.Controls[:len(c.m.Controls)-1]
		}
	case strings.HasPrefix(role, "atlas."):
		if c.m.Atlas == nil {
			c.m.Atlas = &Atlas{}
		}
		switch strings.TrimPrefix(role, "atlas.") {
		case "albedo":
			c.m.Atlas.Albedo = file
		case "normal":
			c.m.Atlas.Normal = file
		case "mask":
			c.m.Atlas.Mask = file
		default:
			return fmt.Errorf("terraindata: SetChild: unknown atlas role %q", role)
		}
	case strings.HasPrefix(role, "channels."):
		name := strings.TrimPrefix(role, "channels.")
		if file == "" {
			delete(c.m.Channels, name)
			break
		}
		if c.m.Channels == nil {
			c.m.Channels = map[string]string{}
		}
		c.m.Channels[name] = file
	case strings.HasPrefix(role, "scatter."):
		name := strings.TrimPrefix(role, "scatter.")
		for i := range c.m.Scatter {
			if c.m.Scatter[i].Name == name {
				c.m.Scatter[i].Density = file
				return nil
			}
		}
		c.m.Scatter = append(c.m.Scatter, Population{Name: name, Density: file})
	default:
		return fmt.Errorf("terraindata: SetChild: unknown role %q", role)
	}
	return nil
}

// SetPlacement sets size, origin and height range.
func (c *Container) SetPlacement(p Placement) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.Size, c.m.Origin, c.m.HeightRange = p.Size, p.Origin, p.HeightRange
}

// SetLayers replaces the surface table.
func (c *Container) SetLayers(l []Layer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.Layers = append([]Layer(nil), l...)
}

// SetAtlas replaces the atlas section; nil removes it (no layer carries a texture).
func (c *Container) SetAtlas(a *Atlas) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a == nil {
		c.m.Atlas = nil
		return
	}
	cp := *a
	c.m.Atlas = &cp
}

// SetScript names the procgen script the container carries (nil: none).
func (c *Container) SetScript(sc *Script) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc == nil {
		c.m.Script = nil
		return
	}
	cp := *sc
	cp.Assets = slices.Clone(sc.Assets)
	c.m.Script = &cp
}

// SetScatter replaces the scatter section (one entry per population).
func (c *Container) SetScatter(p []Population) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.Scatter = append([]Population(nil), p...)
}

// checkRel refuses a child path that is absolute, not clean, or climbs out with "..".
func checkRel(rel string) error {
	if rel == "" {
		return fmt.Errorf("empty path")
	}
	if strings.Contains(rel, `\`) || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return fmt.Errorf("%q is not a relative slash-separated path", rel)
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".." {
			return fmt.Errorf("%q escapes the container with ..", rel)
		}
	}
	return nil
}
