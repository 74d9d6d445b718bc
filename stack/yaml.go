package stack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"strata/internal/safeio"
)

// ErrSyntax is wrapped by every stack.yaml parse error: malformed YAML, a value of the wrong type,
// an unknown or duplicate key.
var ErrSyntax = errors.New("malformed stack.yaml")

// ParseError locates a stack.yaml problem: file, line (0 when YAML gave none), the field path
// (`layers[2].rules[0]`) and what is wrong.
type ParseError struct {
	File string
	Line int
	Path string
	Msg  string
}

func (e *ParseError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Path != "" {
		return fmt.Sprintf("stack: %s: %s: %s", loc, e.Path, e.Msg)
	}
	return fmt.Sprintf("stack: %s: %s", loc, e.Msg)
}

func (e *ParseError) Unwrap() error { return ErrSyntax }

// Load reads and parses a stack.yaml file. It does not validate; call Validate for that. Only a
// regular file of at most MaxFileBytes is read: a FIFO or a device named as a stack is refused by
// name instead of being read forever.
func Load(path string) (*Stack, error) {
	data, err := safeio.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("stack: %w", err)
	}
	return Parse(data, path)
}

// Parse decodes stack.yaml bytes; name is the file name used in errors. Every omitted key gets its
// default (docs/stack.md). Unknown keys, duplicate keys, anchors/aliases and values of the wrong
// type are errors naming the line and the field path. Parse never panics on any input.
func Parse(data []byte, name string) (s *Stack, err error) {
	defer func() {
		if r := recover(); r != nil { // yaml.v3 is not known to panic; this keeps the promise anyway
			s, err = nil, &ParseError{File: name, Msg: fmt.Sprintf("unreadable YAML (%v)", r)}
		}
	}()
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, &ParseError{File: name, Msg: err.Error()}
	}
	var second yaml.Node
	if err := dec.Decode(&second); err != io.EOF {
		if err != nil {
			return nil, &ParseError{File: name, Msg: err.Error()}
		}
		// A second document would otherwise be dropped without a word (issue 12).
		return nil, &ParseError{File: name, Line: second.Line, Msg: "a second YAML document (---): a stack.yaml holds one stack"}
	}
	d := &decoder{file: name}
	s = New()
	if doc.Kind == 0 || len(doc.Content) == 0 { // empty file: an empty stack (Validate says "no layers")
		return s, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return s, nil
	}
	if err := d.stack(root, s); err != nil {
		return nil, err
	}
	return s, nil
}

type decoder struct{ file string }

func (d *decoder) errf(n *yaml.Node, path, format string, a ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &ParseError{File: d.file, Line: line, Path: path, Msg: fmt.Sprintf(format, a...)}
}

// fields walks a mapping node, calling f for each key with a non-null value and rejecting unknown
// and duplicate keys. f returns false for a key it does not know.
func (d *decoder) fields(n *yaml.Node, path string, f func(key string, v *yaml.Node, p string) (bool, error)) error {
	if err := d.plain(n, path); err != nil {
		return err
	}
	if n.Kind != yaml.MappingNode {
		return d.errf(n, path, "want a mapping, got %s", kindName(n))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return d.errf(k, path, "keys must be plain names")
		}
		if seen[k.Value] {
			return d.errf(k, path, "duplicate key %s", safeio.Excerpt(k.Value))
		}
		seen[k.Value] = true
		p := k.Value
		if len(p) > safeio.ExcerptBytes { // a path names a known key; an unknown one is shown short
			p = safeio.Excerpt(p)
		}
		if path != "" {
			p = path + "." + p
		}
		if err := d.plain(v, p); err != nil {
			return err
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" { // `key:` or `key: ~` means omitted
			if known, _ := f(k.Value, nil, p); !known {
				return d.errf(k, path, "unknown key %s", safeio.Excerpt(k.Value))
			}
			continue
		}
		known, err := f(k.Value, v, p)
		if err != nil {
			return err
		}
		if !known {
			return d.errf(k, path, "unknown key %s", safeio.Excerpt(k.Value))
		}
	}
	return nil
}

// plain refuses aliases: a handful of anchors can stand for millions of rules, and a stack has no
// use for them.
func (d *decoder) plain(n *yaml.Node, path string) error {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return d.errf(n, path, "anchors and aliases are not supported")
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return safeio.Excerpt(n.Value)
	}
	return "something else"
}

func (d *decoder) seq(n *yaml.Node, path string, f func(i int, v *yaml.Node, p string) error) error {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, path, "want a list, got %s", kindName(n))
	}
	for i, v := range n.Content {
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := d.plain(v, p); err != nil {
			return err
		}
		if err := f(i, v, p); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) scalar(n *yaml.Node, path string) error {
	if n.Kind != yaml.ScalarNode {
		return d.errf(n, path, "want a value, got %s", kindName(n))
	}
	return nil
}

func (d *decoder) float(n *yaml.Node, path string, dst *float64) error {
	if n == nil {
		return nil
	}
	if err := d.scalar(n, path); err != nil {
		return err
	}
	if n.Tag != "!!int" && n.Tag != "!!float" {
		return d.errf(n, path, "want a number, got %s", safeio.Excerpt(n.Value))
	}
	if err := n.Decode(dst); err != nil {
		return d.errf(n, path, "want a number, got %s", safeio.Excerpt(n.Value))
	}
	return nil
}

func (d *decoder) optFloat(n *yaml.Node, path string, dst **float64) error {
	if n == nil {
		*dst = nil
		return nil
	}
	var v float64
	if err := d.float(n, path, &v); err != nil {
		return err
	}
	*dst = &v
	return nil
}

func (d *decoder) int(n *yaml.Node, path string, dst *int, lo, hi int64) error {
	if n == nil {
		return nil
	}
	if err := d.scalar(n, path); err != nil {
		return err
	}
	var v int64
	if n.Tag != "!!int" || n.Decode(&v) != nil || v < lo || v > hi {
		return d.errf(n, path, "want an integer in [%d, %d], got %s", lo, hi, safeio.Excerpt(n.Value))
	}
	*dst = int(v)
	return nil
}

func (d *decoder) seed(n *yaml.Node, path string, dst *uint32) error {
	if n == nil {
		return nil
	}
	var v int
	if err := d.int(n, path, &v, 0, math.MaxUint32); err != nil {
		return err
	}
	*dst = uint32(v)
	return nil
}

func (d *decoder) str(n *yaml.Node, path string, dst *string) error {
	if n == nil {
		return nil
	}
	if err := d.scalar(n, path); err != nil {
		return err
	}
	*dst = n.Value // any scalar reads as text: `name: 2024` is a fine layer name
	return nil
}

func (d *decoder) bool(n *yaml.Node, path string, dst *bool) error {
	if n == nil {
		return nil
	}
	if err := d.scalar(n, path); err != nil {
		return err
	}
	if n.Tag != "!!bool" || n.Decode(dst) != nil {
		return d.errf(n, path, "want true or false, got %s", safeio.Excerpt(n.Value))
	}
	return nil
}

func (d *decoder) stack(n *yaml.Node, s *Stack) error {
	return d.fields(n, "", func(key string, v *yaml.Node, p string) (bool, error) {
		switch key {
		case "version":
			return true, d.int(v, p, &s.Version, math.MinInt32, math.MaxInt32)
		case "noise":
			if v == nil {
				return true, nil
			}
			return true, d.fields(v, p, func(key string, v *yaml.Node, p string) (bool, error) {
				switch key {
				case "featureSize":
					return true, d.float(v, p, &s.Noise.FeatureSize)
				case "octaves":
					return true, d.int(v, p, &s.Noise.Octaves, math.MinInt32, math.MaxInt32)
				case "seed":
					return true, d.seed(v, p, &s.Noise.Seed)
				}
				return false, nil
			})
		case "gradientStep":
			return true, d.optFloat(v, p, &s.GradientStep)
		case "layers":
			return true, d.seq(v, "layers", func(i int, v *yaml.Node, p string) error {
				L := NewLayer("")
				if err := d.layer(v, p, &L); err != nil {
					return err
				}
				s.Layers = append(s.Layers, L)
				return nil
			})
		case "populations":
			return true, d.seq(v, "populations", func(i int, v *yaml.Node, p string) error {
				P := NewPopulation("")
				if err := d.population(v, p, &P); err != nil {
					return err
				}
				s.Populations = append(s.Populations, P)
				return nil
			})
		}
		return false, nil
	})
}

func (d *decoder) layer(n *yaml.Node, path string, L *Layer) error {
	return d.fields(n, path, func(key string, v *yaml.Node, p string) (bool, error) {
		switch key {
		case "name":
			return true, d.str(v, p, &L.Name)
		case "tint":
			if v == nil {
				return true, nil
			}
			var t string
			if err := d.str(v, p, &t); err != nil {
				return true, err
			}
			c, err := ParseColor(t)
			if err != nil {
				return true, d.errf(v, p, "%s is not a #rrggbb colour", safeio.Excerpt(t))
			}
			L.Tint = c
			return true, nil
		case "strength":
			return true, d.float(v, p, &L.Strength)
		case "tiling":
			return true, d.float(v, p, &L.Tiling)
		case "albedo":
			return true, d.str(v, p, &L.Albedo)
		case "normal":
			return true, d.str(v, p, &L.Normal)
		case "mask":
			return true, d.str(v, p, &L.Mask)
		case "rules":
			return true, d.rules(v, p, &L.Rules)
		}
		return false, nil
	})
}

func (d *decoder) population(n *yaml.Node, path string, P *Population) error {
	return d.fields(n, path, func(key string, v *yaml.Node, p string) (bool, error) {
		switch key {
		case "name":
			return true, d.str(v, p, &P.Name)
		case "density":
			return true, d.float(v, p, &P.Density)
		case "seed":
			return true, d.seed(v, p, &P.Seed)
		case "scale":
			if v == nil {
				return true, nil
			}
			if v.Kind != yaml.SequenceNode || len(v.Content) != 2 {
				return true, d.errf(v, p, "want [lo, hi]")
			}
			for i := 0; i < 2; i++ {
				if err := d.plain(v.Content[i], p); err != nil {
					return true, err
				}
				if err := d.float(v.Content[i], fmt.Sprintf("%s[%d]", p, i), &P.Scale[i]); err != nil {
					return true, err
				}
			}
			return true, nil
		case "mesh":
			return true, d.str(v, p, &P.Mesh)
		case "rules":
			return true, d.rules(v, p, &P.Rules)
		}
		return false, nil
	})
}

func (d *decoder) rules(n *yaml.Node, path string, dst *[]Rule) error {
	return d.seq(n, path, func(i int, v *yaml.Node, p string) error {
		r := Rule{Input: InputHeight}
		err := d.fields(v, p, func(key string, v *yaml.Node, p string) (bool, error) {
			switch key {
			case "input":
				if v == nil {
					return true, nil
				}
				var s string
				err := d.str(v, p, &s)
				r.Input = Input(s)
				return true, err
			case "channel":
				return true, d.str(v, p, &r.Channel)
			case "layer":
				return true, d.str(v, p, &r.Layer)
			case "min":
				return true, d.optFloat(v, p, &r.Min)
			case "max":
				return true, d.optFloat(v, p, &r.Max)
			case "softness":
				return true, d.float(v, p, &r.Softness)
			case "jitter":
				return true, d.float(v, p, &r.Jitter)
			case "invert":
				return true, d.bool(v, p, &r.Invert)
			case "enabled":
				var on bool
				err := d.bool(v, p, &on)
				r.Disabled = !on
				return true, err
			case "featureSize":
				return true, d.optFloat(v, p, &r.FeatureSize)
			}
			return false, nil
		})
		*dst = append(*dst, r)
		return err
	})
}

// Marshal writes s as stack.yaml in the layout of SPEC's example: two-space block lists, noise and
// each rule as one flow mapping. Keys whose value equals its default are left out, except version,
// noise, layer and population names and rule inputs, which are always written because a reader
// looks for them. Comments of a parsed file are not kept. Parse(Marshal(s)) equals s.
func Marshal(s *Stack) ([]byte, error) {
	if s == nil {
		return nil, errors.New("stack: marshal: nil stack")
	}
	root := mapping(false)
	add(root, "version", intNode(s.Version))
	nz := mapping(true)
	add(nz, "featureSize", floatNode(s.Noise.FeatureSize))
	add(nz, "octaves", intNode(s.Noise.Octaves))
	add(nz, "seed", intNode(int(s.Noise.Seed)))
	add(root, "noise", nz)
	if s.GradientStep != nil {
		add(root, "gradientStep", floatNode(*s.GradientStep))
	}
	layers := &yaml.Node{Kind: yaml.SequenceNode}
	for i := range s.Layers {
		L := &s.Layers[i]
		m := mapping(false)
		add(m, "name", strNode(L.Name))
		if L.Tint != DefaultTint {
			t := strNode(L.Tint.String())
			t.Style = yaml.DoubleQuotedStyle
			add(m, "tint", t)
		}
		if L.Strength != DefaultStrength || math.Signbit(L.Strength) {
			add(m, "strength", floatNode(L.Strength))
		}
		if L.Tiling != DefaultTiling {
			add(m, "tiling", floatNode(L.Tiling))
		}
		for _, kv := range [][2]string{{"albedo", L.Albedo}, {"normal", L.Normal}, {"mask", L.Mask}} {
			if kv[1] != "" {
				add(m, kv[0], strNode(kv[1]))
			}
		}
		if len(L.Rules) > 0 {
			add(m, "rules", rulesNode(L.Rules))
		}
		layers.Content = append(layers.Content, m)
	}
	add(root, "layers", layers)
	if len(s.Populations) > 0 {
		pops := &yaml.Node{Kind: yaml.SequenceNode}
		for i := range s.Populations {
			P := &s.Populations[i]
			m := mapping(false)
			add(m, "name", strNode(P.Name))
			if P.Density != DefaultDensity {
				add(m, "density", floatNode(P.Density))
			}
			if P.Seed != 0 {
				add(m, "seed", intNode(int(P.Seed)))
			}
			if P.Scale != DefaultScale {
				sc := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
				sc.Content = []*yaml.Node{floatNode(P.Scale[0]), floatNode(P.Scale[1])}
				add(m, "scale", sc)
			}
			if P.Mesh != DefaultMesh {
				add(m, "mesh", strNode(P.Mesh))
			}
			if len(P.Rules) > 0 {
				add(m, "rules", rulesNode(P.Rules))
			}
			pops.Content = append(pops.Content, m)
		}
		add(root, "populations", pops)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("stack: marshal: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("stack: marshal: %w", err)
	}
	return b.Bytes(), nil
}

// Save writes s to path atomically (a temporary file beside it, then rename), so a crash leaves
// the old file or the new one, never half of one.
func Save(s *Stack, path string) error {
	data, err := Marshal(s)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("stack: save %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("stack: save %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("stack: save %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("stack: save %s: %w", path, err)
	}
	return nil
}

func rulesNode(rules []Rule) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for i := range rules {
		r := &rules[i]
		m := mapping(true)
		add(m, "input", strNode(string(r.Input)))
		if r.Channel != "" {
			add(m, "channel", strNode(r.Channel))
		}
		if r.Layer != "" {
			add(m, "layer", strNode(r.Layer))
		}
		if r.Min != nil {
			add(m, "min", floatNode(*r.Min))
		}
		if r.Max != nil {
			add(m, "max", floatNode(*r.Max))
		}
		if r.Softness != 0 || math.Signbit(r.Softness) {
			add(m, "softness", floatNode(r.Softness))
		}
		if r.Jitter != 0 || math.Signbit(r.Jitter) {
			add(m, "jitter", floatNode(r.Jitter))
		}
		if r.Invert {
			add(m, "invert", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
		}
		if r.FeatureSize != nil {
			add(m, "featureSize", floatNode(*r.FeatureSize))
		}
		if r.Disabled {
			add(m, "enabled", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"})
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

func intNode(v int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
}

// floatNode writes the shortest decimal that reads back as the same float64; YAML's .nan/.inf
// spellings keep even invalid values round-trippable so Validate can name them.
func floatNode(v float64) *yaml.Node {
	s, tag := num(v), "!!float"
	switch {
	case v == 0 && math.Signbit(v):
		s = "-0.0"
	case finite(v) && v == math.Trunc(v) && math.Abs(v) < 1e15:
		s, tag = strconv.FormatFloat(v, 'f', -1, 64), "!!int"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s}
}

// strNode writes a string; one with control characters or edge spaces is double-quoted, because
// yaml.v3 picks a literal block for them that loses a leading newline (found by FuzzParse).
func strNode(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
	if v != strings.TrimSpace(v) || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 }) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}
