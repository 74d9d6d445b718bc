// Package terraindata reads, writes and validates the terrainData container
// (../shared/seeds/terrainData.txt, extended as SPEC "terrainData on disk" records): a folder
// holding terrain.yaml and the .texture children a renderer samples — height, holes, control
// weights, layer atlases — plus what the editor needs to reopen a landscape (stack.yaml, named
// field channels, scatter populations).
//
// Nothing in a container is a private format: children are PNG and OpenEXR files an engine or
// ImageMagick can open, so the package's job is mostly to agree with itself about names, sizes
// and formats, and to refuse containers that do not.
package terraindata

import (
	"crypto/rand"
	"crypto/sha1"
	"fmt"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"
)

// Version is the only manifest version this build reads and writes.
const Version = 1

// ManifestFile is the manifest's name inside a container.
const ManifestFile = "terrain.yaml"

// Manifest is terrain.yaml decoded. It is a plain struct so the bake can fill it (or the Container
// setters can) and every reader sees the same fields; keys it does not know are ignored on read,
// so a newer writer's additions do not break an older reader.
type Manifest struct {
	Version int `yaml:"version"`
	// GUID identifies the landscape across re-bakes: Save keeps the one already at the path.
	GUID string `yaml:"guid,omitempty"`
	// Size is the ground's extent in metres along world X and Z; Origin its world centre.
	Size   [2]float64 `yaml:"size,flow"`
	Origin [2]float64 `yaml:"origin,flow"`
	// HeightRange is the lowest and highest ground height in metres, from the data.
	HeightRange [2]float64        `yaml:"heightRange,flow"`
	Height      string            `yaml:"height,omitempty"`   // rgba32f child: R metres, G/B gradient, A coverage
	Holes       string            `yaml:"holes,omitempty"`    // rgba8 child, absent when the ground is solid
	Controls    []string          `yaml:"controls,flow"`      // rgba8 children, four layers each
	Layers      []Layer           `yaml:"layers"`             // bottom first; layer i is control i/4, channel i%4
	Atlas       *Atlas            `yaml:"atlas,omitempty"`    // nil when no layer carries a texture
	Stack       string            `yaml:"stack,omitempty"`    // the editable stack.yaml the controls were baked from
	Channels    map[string]string `yaml:"channels,omitempty"` // field channel name → r32f child
	Scatter     []Population      `yaml:"scatter,omitempty"`
	// Script is set when a procgen script wrote the container: a copy of it (and of the files it
	// read) lives inside, so the landscape can be generated again in place.
	Script *Script `yaml:"script,omitempty"`
}

// Script names the procgen script a container was written by. The copies keep their paths
// relative to the script, so running the copy inside the container resolves the same assets.
type Script struct {
	File   string   `yaml:"file"`             // the script's copy, e.g. script/dunes.lua
	Write  string   `yaml:"write"`            // the terrain.write name that wrote this container
	Assets []string `yaml:"assets,omitempty"` // copies of the files the script read, beside File
}

// Layer is one row of the surface table: what a control channel stands for.
type Layer struct {
	Name string `yaml:"name"`
	// Albedo, Normal and Mask name the layer's source maps as the stack gave them; the packed
	// copies live in the atlas sheets. Mask is R metallic, G occlusion, B height, A smoothness.
	Albedo string  `yaml:"albedo,omitempty"`
	Normal string  `yaml:"normal,omitempty"`
	Mask   string  `yaml:"mask,omitempty"`
	Tiling float64 `yaml:"tiling,omitempty"` // metres one repeat of the maps covers
	Tint   string  `yaml:"tint,omitempty"`   // "#rrggbb" when a colour is all the surface needs
}

// UnmarshalYAML accepts the seed's bare form (a layer that is only a name) beside the table form.
func (l *Layer) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = Layer{Name: n.Value}
		return nil
	}
	type plain Layer
	return n.Decode((*plain)(l))
}

// MarshalYAML writes a layer on one line, the way the seed's example reads.
func (l Layer) MarshalYAML() (any, error) {
	type plain Layer
	var n yaml.Node
	if err := n.Encode(plain(l)); err != nil {
		return nil, err
	}
	n.Style = yaml.FlowStyle
	return &n, nil
}

// HasTexture reports whether the layer declares any map, which is what decides whether atlases
// are written at all.
func (l Layer) HasTexture() bool { return l.Albedo != "" || l.Normal != "" || l.Mask != "" }

// Atlas names the packed sheets. A role no layer declares has an empty name and no child.
type Atlas struct {
	Albedo string `yaml:"albedo,omitempty"`
	Normal string `yaml:"normal,omitempty"`
	Mask   string `yaml:"mask,omitempty"`
	// Size is the sheet size in texels, [2048, 1024] when zero; each of the 4×2 cells is a
	// quarter of the width and half of the height.
	Size [2]int `yaml:"size,flow"`
}

// DefaultAtlasSize is the sheet size when the stack does not choose one.
var DefaultAtlasSize = [2]int{2048, 1024}

// Population is one scatter population as baked: where its density lives and what the placement
// kernel needs to place it again without re-running the rules.
type Population struct {
	Name    string     `yaml:"name"`
	Density string     `yaml:"density"` // r32f child on the weights grid, instances/m²
	Spacing float64    `yaml:"spacing"` // site spacing in metres, 1/sqrt(max density)
	Seed    uint32     `yaml:"seed"`
	Scale   [2]float64 `yaml:"scale,flow"`
	Mesh    string     `yaml:"mesh,omitempty"`
	Count   int        `yaml:"count"` // instances placed at bake time
}

// DecodeManifest parses terrain.yaml. It fails only when the YAML does not decode into the
// manifest's shape; whether the values make a valid landscape is Validate's question.
func DecodeManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := decodeOne(b, &m); err != nil {
		return nil, fmt.Errorf("terraindata: %s: %w", ManifestFile, err)
	}
	return &m, nil
}

// Encode renders the manifest as terrain.yaml.
func (m *Manifest) Encode() ([]byte, error) {
	b, err := yaml.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("terraindata: encoding %s: %w", ManifestFile, err)
	}
	return b, nil
}

// NewGUID returns a random RFC 4122 version 4 UUID.
func NewGUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics on the impossible)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// ChildGUID derives a child's guid from the container's and the child's path (a version 5 style
// name-based UUID), so re-baking the same landscape keeps every child's guid too and writes
// byte-identical files when nothing changed. A world derives each cell's guid from its own the
// same way.
func ChildGUID(container, rel string) string {
	h := sha1.Sum([]byte(container + "/" + rel))
	var b [16]byte
	copy(b[:], h[:16])
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// The package's own names for them.
var (
	newGUID   = NewGUID
	childGUID = ChildGUID
)

func formatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// clone is a copy of m that shares nothing a setter changes.
func (m Manifest) clone() Manifest {
	m.Controls = slices.Clone(m.Controls)
	m.Layers = slices.Clone(m.Layers)
	m.Channels = maps.Clone(m.Channels)
	m.Scatter = slices.Clone(m.Scatter)
	if m.Atlas != nil {
		a := *m.Atlas
		m.Atlas = &a
	}
	if m.Script != nil {
		sc := *m.Script
		sc.Assets = slices.Clone(sc.Assets)
		m.Script = &sc
	}
	return m
}
