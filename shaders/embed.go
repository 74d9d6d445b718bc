// Package shaders holds Strata's WGSL, embedded into the binary. Shared snippets (hash, noise)
// live in one file each; a kernel pulls them in with a line of the form
//
//	//!include noise.wgsl
//
// which Load replaces with that file's text (recursively, each file once).
package shaders

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.wgsl
var files embed.FS

const includeDirective = "//!include "

// Raw returns one embedded file's text as stored, without expanding includes.
func Raw(name string) (string, error) {
	b, err := files.ReadFile(fileName(name))
	if err != nil {
		return "", fmt.Errorf("shaders: %w", err)
	}
	return string(b), nil
}

// Load returns the WGSL of name ("terrain_layer_weights" or "terrain_layer_weights.wgsl") with
// its includes expanded, ready for a shader module.
func Load(name string) (string, error) {
	var sb strings.Builder
	if err := expand(&sb, fileName(name), map[string]bool{}); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// Names lists the embedded files, sorted.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func fileName(name string) string {
	if strings.HasSuffix(name, ".wgsl") {
		return name
	}
	return name + ".wgsl"
}

func expand(sb *strings.Builder, name string, seen map[string]bool) error {
	if seen[name] {
		return nil
	}
	seen[name] = true
	src, err := Raw(name)
	if err != nil {
		return err
	}
	for i, line := range strings.SplitAfter(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if inc, ok := strings.CutPrefix(trimmed, includeDirective); ok {
			inc = strings.TrimSpace(inc)
			if err := expand(sb, inc, seen); err != nil {
				return fmt.Errorf("shaders: %s:%d: include %s: %w", name, i+1, inc, err)
			}
			continue
		}
		sb.WriteString(line)
	}
	if !strings.HasSuffix(src, "\n") {
		sb.WriteByte('\n')
	}
	return nil
}
