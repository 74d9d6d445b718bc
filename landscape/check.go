package landscape

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"strata/field"
	"strata/scatter"
	"strata/stack"
	"strata/terraindata"
)

// Validate is `strata validate`: terraindata.Validate (the manifest, and every payload decoded
// block by block) plus CheckContainer's checks of what the editor and the scatter readers need.
// No problem means info, render, export and Open all load the container.
func Validate(path string) terraindata.Problems {
	c, err := terraindata.Open(path)
	if err != nil {
		return terraindata.Validate(path) // the manifest itself is broken: Validate lists why
	}
	probs, _ := ValidateContainer(c)
	return probs
}

// ValidateContainer is Validate of a container already open (its folder, c.Path(), is decoded as
// Validate decodes it). It also returns the instances the container stores, read and checked once
// here (StoredInstances' pools), so a caller checking them further need not read them again: nil
// when it stores none, or when they are broken (a problem then says why).
func ValidateContainer(c *terraindata.Container) (terraindata.Problems, map[string][]float32) {
	path := c.Path()
	probs := terraindata.Problems(terraindata.Validate(path))
	if len(c.Check()) > 0 {
		return probs, nil // the manifest itself is broken: Validate listed why
	}
	seen := map[string]bool{}
	for _, p := range probs {
		seen[p.String()] = true
	}
	for _, p := range containerProblems(c) {
		if !seen[p.String()] {
			probs = append(probs, p)
		}
	}
	var pools map[string][]float32
	if _, err := storedIndex(c); err == nil { // stored instances: their values too, as for payloads
		if pools, _, err = StoredInstances(c); err != nil {
			probs = append(probs, problemOf(err, filepath.Join(path, InstancesDir), "instances"))
		}
	}
	return probs, pools
}

// CheckContainer returns what would stop a reader of c before any payload is read: the manifest's
// own problems (Container.Check), then what bake needs beyond them — the stack child parses,
// validates, names the manifest's layers in order, reads only channels the container stores and
// names its textures inside the container; channel names are ones a field can carry; each
// population's mesh is known and its spacing needs at most scatter.MaxSites sites over the field;
// the controls are a weights grid of the field. It reads stack.yaml and two texture.yaml files.
// Open, render and export call it first, so a broken container is refused with every problem
// named rather than half loaded.
func CheckContainer(c *terraindata.Container) terraindata.Problems {
	if probs := c.Check(); len(probs) > 0 {
		return probs
	}
	return containerProblems(c)
}

func containerProblems(c *terraindata.Container) terraindata.Problems {
	var ps terraindata.Problems
	m := c.Manifest()
	mf := filepath.Join(c.Path(), terraindata.ManifestFile)
	add := func(field, format string, a ...any) {
		ps = append(ps, terraindata.Problem{File: mf, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	for name := range m.Channels {
		if err := field.CheckChannelName(name); err != nil {
			add("channels."+name, "%v", strings.TrimPrefix(err.Error(), "field: "))
		}
	}
	if m.Stack != "" {
		ps = append(ps, stackProblems(c, &m)...)
	}
	if _, err := storedIndex(c); err != nil {
		ps = append(ps, problemOf(err, filepath.Join(c.Path(), InstancesDir, "index.yaml"), "instances"))
	}
	geo, err := containerGeometry(c)
	if err != nil {
		ps = append(ps, problemOf(err, mf, "controls"))
		return ps
	}
	for i, p := range m.Scatter {
		f := fmt.Sprintf("scatter[%d]", i)
		if !knownMesh(p.Mesh) {
			add(f+".mesh", "unknown mesh %q (want %s)", p.Mesh, strings.Join(stack.Meshes, ", "))
		}
		if geo != nil && p.Spacing > 0 {
			if _, _, err := scatter.SiteGrid(geo, float32(p.Spacing)); err != nil {
				add(f+".spacing", "%v", strings.TrimPrefix(err.Error(), "scatter: "))
			}
		}
	}
	return ps
}

func knownMesh(m string) bool {
	for _, k := range stack.Meshes {
		if k == m {
			return true
		}
	}
	return false
}

// problemOf turns an error into a Problem, keeping a *terraindata.ChildError's file and field.
func problemOf(err error, file, field string) terraindata.Problem {
	if ce, ok := err.(*terraindata.ChildError); ok {
		return terraindata.Problem{File: ce.File, Field: ce.Field, Msg: ce.Err.Error()}
	}
	return terraindata.Problem{File: file, Field: field, Msg: strings.TrimPrefix(err.Error(), "bake: ")}
}

// stackProblems checks the container's stack.yaml the way Open uses it.
func stackProblems(c *terraindata.Container, m *terraindata.Manifest) terraindata.Problems {
	s, file, err := containerStack(c, m)
	var pe *stack.ParseError
	if errors.As(err, &pe) {
		// The problem names the file and the field already: say only where in it and what.
		msg := pe.Msg
		if pe.Path != "" {
			msg = pe.Path + ": " + msg
		}
		if pe.Line > 0 {
			msg = fmt.Sprintf("line %d: %s", pe.Line, msg)
		}
		return terraindata.Problems{{File: filepath.Join(c.Path(), m.Stack), Field: "stack", Msg: msg}}
	}
	if err != nil {
		return terraindata.Problems{problemOf(err, filepath.Join(c.Path(), m.Stack), "stack")}
	}
	var ps terraindata.Problems
	add := func(where, format string, a ...any) {
		ps = append(ps, terraindata.Problem{File: file, Field: where, Msg: fmt.Sprintf(format, a...)})
	}
	for _, p := range stack.Errors(stack.Validate(s)) {
		add(p.Where, "%s", p.Message)
	}
	if len(s.Layers) != len(m.Layers) {
		add("layers", "%d layers, the manifest has %d: the controls were not baked from this stack", len(s.Layers), len(m.Layers))
	} else {
		for i := range s.Layers {
			if s.Layers[i].Name != m.Layers[i].Name {
				add(fmt.Sprintf("layers[%d]", i), "named %q, the manifest's layers[%d] is %q", s.Layers[i].Name, i, m.Layers[i].Name)
			}
		}
	}
	for _, u := range s.ChannelUses() {
		if _, ok := m.Channels[u.Channel]; !ok {
			add(u.Where, "reads channel %q, which the container does not store (channels: %s)", u.Channel, channelList(m.Channels))
		}
	}
	for i := range s.Layers {
		L := &s.Layers[i]
		for _, t := range []struct{ role, path string }{{"albedo", L.Albedo}, {"normal", L.Normal}, {"mask", L.Mask}} {
			if t.path == "" {
				continue
			}
			where := fmt.Sprintf("layers[%d] %q %s", i, L.Name, t.role)
			if _, err := c.File(t.path, where); err != nil {
				ps = append(ps, problemOf(err, file, where))
			}
		}
	}
	return ps
}

func channelList(ch map[string]string) string {
	if len(ch) == 0 {
		return "none"
	}
	names := make([]string, 0, len(ch))
	for n := range ch {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// containerStack reads the container's stack.yaml through the containment check.
func containerStack(c *terraindata.Container, m *terraindata.Manifest) (*stack.Stack, string, error) {
	p, err := c.File(m.Stack, "stack")
	if err != nil {
		return nil, "", err
	}
	s, err := stack.Load(p)
	return s, p, err
}

// containerGeometry is the field geometry the container's height and controls imply (nil when the
// manifest names no controls); an error when the controls are no weights grid of the field.
func containerGeometry(c *terraindata.Container) (*field.Geometry, error) {
	hr, c0 := c.Height(), c.Control(0)
	if hr == nil || c0 == nil {
		return nil, nil
	}
	hi, err := hr.Info()
	if err != nil {
		return nil, err
	}
	ci, err := c0.Info()
	if err != nil {
		return nil, err
	}
	g, err := WeightsGeometry(c.Placement(), hi.Width, hi.Height, ci.Width, ci.Height)
	return &g, err
}

// WeightsGeometry is the geometry of a height grid and a weights grid read from a container: the
// weights grid is the height grid, or the grid of the resolution size.X / weightsW, which must
// give weightsW × weightsH back (field.WeightsGrid), as a bake at that resolution would.
func WeightsGeometry(p terraindata.Placement, hw, hh, ww, wh int) (field.Geometry, error) {
	pl := field.Placement{Size: p.Size, Origin: p.Origin}
	if ww != hw || wh != hh {
		gw, gh, err := field.WeightsGrid(pl, hw, hh, p.Size[0]/float64(ww))
		if err != nil || gw != ww || gh != wh {
			return field.Geometry{}, fmt.Errorf("bake: controls are %d×%d, which is no weights grid of a %.6g×%.6g m field with a %d×%d height", ww, wh, p.Size[0], p.Size[1], hw, hh)
		}
	}
	return field.NewGeometry(pl, hw, hh, ww, wh)
}
