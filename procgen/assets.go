package procgen

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"strata/internal/safeio"
)

// Asset references. A param naming a file (a heightmap, a stack.yaml, a layer's maps) is either a
// slash path relative to the script's folder ("maps/valley.png") or a dotted reference whose last
// part is the file's name without extension ("textures.sand_albedo" → textures/sand_albedo.png,
// trying each extension the role allows). Either resolves below the script's folder first, then
// below each --assets folder, and nowhere else: absolute paths, "..", and links that lead out are
// refused. Every file a run reads is recorded, so the container can carry a copy of it.

// Extensions each role tries, in order.
var (
	imageExts = []string{"png", "jpg", "jpeg", "tga", "exr"}
	heightExt = []string{"png", "tif", "tiff", "exr", "r16", "f32", "raw"}
	stackExts = []string{"yaml", "yml"}
)

// asset is one resolved file: its slash path relative to the root it was found in, and the file.
type asset struct {
	Rel  string
	Path string
}

// resolver finds assets below its roots (the script's folder first) and remembers what it found.
type resolver struct {
	roots []string
	used  map[*node][]asset
}

func newResolver(roots []string) *resolver {
	return &resolver{roots: roots, used: map[*node][]asset{}}
}

// errOutside marks a reference that would read outside the sandbox.
var errOutside = errors.New("outside the script's folder and --assets")

// candidates returns the relative paths a reference may name, most specific first.
func candidates(ref string, exts []string) ([]string, error) {
	if ref == "" {
		return nil, errors.New("empty reference")
	}
	if strings.ContainsAny(ref, "\\\x00") || strings.HasPrefix(ref, "/") || filepath.IsAbs(ref) || filepath.VolumeName(ref) != "" {
		return nil, fmt.Errorf("%q is not a relative slash path: %w", ref, errOutside)
	}
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(ref)), ".")
	known := false
	for _, e := range exts {
		known = known || e == ext
	}
	if strings.Contains(ref, "/") || known {
		rel := path.Clean(ref)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("%q climbs out with ..: %w", ref, errOutside)
		}
		if rel == "." {
			return nil, fmt.Errorf("%q names a folder, not a file", ref)
		}
		return []string{rel}, nil
	}
	parts := strings.Split(ref, ".")
	for _, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("%q is not a reference like textures.sand_albedo (empty part)", ref)
		}
	}
	base := strings.Join(parts, "/")
	out := make([]string, len(exts))
	for i, e := range exts {
		out[i] = base + "." + e
	}
	return out, nil
}

// resolve finds ref for node n. Not found, it returns an error that says where it looked.
func (r *resolver) resolve(n *node, ref string, exts []string) (asset, error) {
	rels, err := candidates(ref, exts)
	if err != nil {
		return asset{}, err
	}
	var looked []string
	for _, root := range r.roots {
		for _, rel := range rels {
			p := filepath.Join(root, filepath.FromSlash(rel))
			looked = append(looked, p)
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if err := inside(root, p); err != nil {
				return asset{}, fmt.Errorf("%q: %w", ref, err)
			}
			a := asset{Rel: rel, Path: p}
			if n != nil {
				r.used[n] = append(r.used[n], a)
			}
			return a, nil
		}
	}
	return asset{}, &notFound{ref: ref, looked: looked}
}

// notFound is an unresolved reference with every place it was looked for.
type notFound struct {
	ref    string
	looked []string
}

func (e *notFound) Error() string {
	return fmt.Sprintf("%q not found; looked for %s", e.ref, strings.Join(e.looked, ", "))
}

// inside refuses p when its real location (after links) is not below root's (safeio.Within).
func inside(root, p string) error {
	in, err := safeio.Within(root, p)
	if err != nil {
		return err
	}
	if !in {
		rp, _ := filepath.EvalSymlinks(p)
		return fmt.Errorf("it leads to %s: %w", rp, errOutside)
	}
	return nil
}

// checkOutputName refuses a terrain.write name that is not a relative slash path staying below
// --out (the part of outputPath that needs no disk).
func checkOutputName(name string) error {
	if name == "" || strings.ContainsAny(name, "\\:\x00") || strings.HasPrefix(name, "/") || filepath.IsAbs(name) {
		return fmt.Errorf("%q must be a relative slash path below --out", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%q would write outside --out (no empty, . or .. parts)", name)
		}
	}
	return nil
}

// outputKey is the container a terrain.write name writes, below --out: its clean path with the
// .terrainData suffix, so two names that write one container have one key.
func outputKey(name string) string {
	k := path.Clean(name)
	if !strings.HasSuffix(k, ".terrainData") {
		k += ".terrainData"
	}
	return k
}

// outputPath is where terrain.write name writes below out: out/<name>.terrainData. The name is a
// slash path that stays below out (folders are made as needed); a link leading out is refused.
func outputPath(out, name string) (string, error) {
	if err := checkOutputName(name); err != nil {
		return "", err
	}
	if !strings.HasSuffix(name, ".terrainData") {
		name += ".terrainData"
	}
	if out == "" {
		out = "."
	}
	p := filepath.Join(out, filepath.FromSlash(name))
	// Its folder must really be below out: the part that exists already, after links.
	in, err := safeio.Within(out, filepath.Dir(p))
	if err != nil {
		return "", fmt.Errorf("%q: %w", name, err)
	}
	if !in {
		return "", fmt.Errorf("%q: %w", name, errors.New("a link below --out leads outside it"))
	}
	return p, nil
}
