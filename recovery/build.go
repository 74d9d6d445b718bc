package recovery

import (
	"context"
	"fmt"
	"path/filepath"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// Landscape rebuilds the document the copy holds: its base opened again, then the stack, the
// channels and the journal's blocks of the height, channels and holes put over it. The weights
// are not in it: the editor evaluates them, `strata recover` re-evaluates them as Save does.
// Errors name the copy's folder and what does not fit.
func (s *State) Landscape(ctx context.Context) (*landscape.Landscape, error) {
	m := &s.Meta
	l, err := openBase(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("recovery: %s: the landscape's base (%s): %w", s.Dir, m.Base.Describe(), err)
	}
	f := l.Field
	if f.Height.W != m.Width || f.Height.H != m.Height {
		return nil, fmt.Errorf("recovery: %s: the base (%s) is now %d×%d texels, the copy's %d×%d: it changed since", s.Dir, m.Base.Describe(), f.Height.W, f.Height.H, m.Width, m.Height)
	}
	if s.HasStack {
		if s.NoStack {
			l.Stack = nil
		} else {
			st, err := stack.Parse(s.Stack, filepath.Join(s.Dir, journalFile)+": stack.yaml")
			if err != nil {
				return nil, fmt.Errorf("recovery: %w", err)
			}
			l.Stack = st
			l.Baked, l.Weights, l.Scatter = nil, nil, nil
		}
	}
	chans := map[string]*field.Grid{}
	for _, c := range s.channels() {
		if err := field.CheckChannelName(c.Name); err != nil {
			return nil, fmt.Errorf("recovery: %s: %w", s.Dir, err)
		}
		if g := f.Channels[c.Name]; g != nil && !c.Fresh {
			chans[c.Name] = g
		} else {
			chans[c.Name] = field.NewGrid(f.Height.W, f.Height.H)
		}
	}
	f.Channels = map[string]*field.Grid{}
	for name, g := range chans {
		if err := f.AddChannel(name, g); err != nil {
			return nil, fmt.Errorf("recovery: %s: %w", s.Dir, err)
		}
	}
	for _, k := range s.Keys() {
		b := s.Blocks[k]
		w, h := f.Height.W, f.Height.H
		if b.X+b.W > w || b.Y+b.H > h {
			return nil, fmt.Errorf("recovery: %s: a block of %q at %d,%d (%d×%d) lies outside the %d×%d field", s.Dir, b.Target, b.X, b.Y, b.W, b.H, w, h)
		}
		switch {
		case b.Target == Holes:
			if l.Holes == nil {
				l.Holes = make([]bool, w*h)
			}
			for j := 0; j < b.H; j++ {
				for i := 0; i < b.W; i++ {
					l.Holes[(b.Y+j)*w+b.X+i] = b.Data[j*b.W+i] >= 0.5
				}
			}
		default:
			g := f.Height
			if b.Target != "" {
				g = f.Channels[b.Target]
			}
			if g == nil {
				return nil, fmt.Errorf("recovery: %s: blocks of channel %q, which the copy's channel list lacks", s.Dir, b.Target)
			}
			for j := 0; j < b.H; j++ {
				copy(g.Data[(b.Y+j)*w+b.X:(b.Y+j)*w+b.X+b.W], b.Data[j*b.W:(j+1)*b.W])
			}
		}
	}
	if l.Stack != nil {
		for _, u := range l.Stack.ChannelUses() { // flow is routed from the height, not stored
			if f.Channels[u.Channel] == nil {
				return nil, fmt.Errorf("recovery: %s: the stack reads channel %q, which the recovered field does not have", s.Dir, u.Channel)
			}
		}
		geo, err := landscape.NewGeometry(l.Stack, f, m.Resolution)
		if err != nil {
			return nil, fmt.Errorf("recovery: %s: %w", s.Dir, err)
		}
		l.Geometry = geo
	}
	return l, nil
}

// openBase opens the landscape a copy started from.
func openBase(ctx context.Context, m *Meta) (*landscape.Landscape, error) {
	b := m.Base
	switch b.Kind {
	case BaseContainer:
		l, err := landscape.Open(b.Path)
		if err != nil {
			return nil, err
		}
		if l.Stack != nil {
			absoluteTextures(l.Stack, b.Path)
		}
		return l, nil
	case BaseHeightmap:
		var imp field.ImportOptions
		if b.Import != nil {
			imp = *b.Import
		}
		f, _, err := landscape.LoadFieldContext(ctx, b.Path, imp, b.Size, nil)
		if err != nil {
			return nil, err
		}
		return &landscape.Landscape{Stack: stack.Starter(), Field: f}, nil
	case BaseSample:
		n := b.Texels
		if n <= 0 {
			n = field.DunesTexels
		}
		if err := field.CheckSize(n, n); err != nil {
			return nil, err
		}
		return &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunesSized(n)}, nil
	case BaseFlat:
		return Flat(b.FlatSize, b.FlatTexels, b.FlatHeight)
	case BaseInline:
		if err := field.CheckSize(m.Width, m.Height); err != nil {
			return nil, err
		}
		f, err := field.New(field.Placement{Size: m.Extent, Origin: m.Origin}, field.NewGrid(m.Width, m.Height))
		if err != nil {
			return nil, err
		}
		return &landscape.Landscape{Stack: stack.New(), Field: f}, nil
	}
	return nil, fmt.Errorf("unknown kind %q", b.Kind)
}

// Flat is the editor's New → Flat: a ground of size metres at texels, at height metres, with one
// ground layer.
func Flat(size [2]float64, texels [2]int, height float64) (*landscape.Landscape, error) {
	if err := field.CheckSize(texels[0], texels[1]); err != nil {
		return nil, err
	}
	g := field.NewGrid(texels[0], texels[1])
	for i := range g.Data {
		g.Data[i] = float32(height)
	}
	f, err := field.New(field.Placement{Size: size}, g)
	if err != nil {
		return nil, err
	}
	st := stack.New()
	st.Layers = []stack.Layer{stack.NewLayer("ground")}
	st.Layers[0].Tint = stack.Color{0x8a, 0x7a, 0x5a}
	return &landscape.Landscape{Stack: st, Field: f}, nil
}

// absoluteTextures makes a stack's relative texture paths absolute against dir (as the editor's
// open does).
func absoluteTextures(st *stack.Stack, dir string) {
	for i := range st.Layers {
		for _, p := range []*string{&st.Layers[i].Albedo, &st.Layers[i].Normal, &st.Layers[i].Mask} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(dir, filepath.FromSlash(*p))
			}
		}
	}
}
