package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsFollowDesign holds every import between strata packages, tests' included, to the
// layering block of docs/design.md, and the block to the code: a package without a line, an
// import the block does not allow, an allowance nothing uses and a lower package importing an
// upper one each fail with the file and line of the import.
func TestImportsFollowDesign(t *testing.T) {
	root, module := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	block, err := layeringBlock(string(doc))
	if err != nil {
		t.Fatalf("docs/design.md: %v", err)
	}
	r, err := parseRules(block)
	if err != nil {
		t.Fatalf("docs/design.md: %v", err)
	}
	pkgs := listPackages(t, root, module)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages under %s; the walk is broken", len(pkgs), root)
	}
	for _, msg := range check(r, pkgs) {
		t.Error(msg)
	}
}

// moduleRoot is the folder of the module's go.mod and the module's path.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}\t{{.Path}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	dir, module, ok := strings.Cut(strings.TrimSpace(string(out)), "\t")
	if !ok {
		t.Fatalf("go list -m printed %q", out)
	}
	return dir, module
}

// layeringBlock is the text of the one ```layering fence in doc.
func layeringBlock(doc string) (string, error) {
	const open = "\n```layering\n"
	i := strings.Index(doc, open)
	if i < 0 {
		return "", errors.New("no ```layering block")
	}
	rest := doc[i+len(open):]
	if strings.Contains(rest, open) {
		return "", errors.New("two ```layering blocks; keep one")
	}
	j := strings.Index(rest, "\n```")
	if j < 0 {
		return "", errors.New("the ```layering block is not closed")
	}
	return rest[:j+1], nil
}

// listed is what go list says of one package.
type listed struct {
	ImportPath                                   string
	Dir                                          string
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
	IgnoredGoFiles                               []string
	Error                                        *struct{ Err string }
}

// listPackages lists every package of the module and reads its files' imports (go list decides
// which files build here; each file's own import lines give the position a message names).
// Files excluded by build constraints for this platform are read too, so an import on another
// platform is held to the table as well.
func listPackages(t *testing.T, root, module string) []pkgImports {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,IgnoredGoFiles,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkgImports
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var l listed
		if err := dec.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if l.Error != nil { // an import cycle, say: report it and still read the files
			t.Errorf("go list %s: %s", l.ImportPath, l.Error.Err)
			if l.Dir == "" {
				continue
			}
		}
		p := pkgImports{name: tableName(module, l.ImportPath)}
		own := append(append([]string{}, l.GoFiles...), l.CgoFiles...)
		var tests []string
		for _, f := range l.IgnoredGoFiles { // other platforms' files
			if strings.HasSuffix(f, "_test.go") {
				tests = append(tests, f)
			} else {
				own = append(own, f)
			}
		}
		tests = append(append(tests, l.TestGoFiles...), l.XTestGoFiles...)
		p.own = fileImports(t, root, module, l.Dir, own)
		p.test = fileImports(t, root, module, l.Dir, tests)
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// fileImports reads the imports of files in dir that the table rules on.
func fileImports(t *testing.T, root, module, dir string, files []string) []imp {
	t.Helper()
	var imps []imp
	fset := token.NewFileSet()
	for _, name := range files {
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			rel = path
		}
		for _, s := range f.Imports {
			ip, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			var name string
			switch {
			case ip == module || strings.HasPrefix(ip, module+"/"):
				name = tableName(module, ip)
			case strings.HasPrefix(ip, "fyne.io/"):
				name = fyneName
			case strings.HasPrefix(ip, "github.com/cogentcore/webgpu/"):
				name = webgpuName
			default:
				continue
			}
			imps = append(imps, imp{path: name, pos: fmt.Sprintf("%s:%d", rel, fset.Position(s.Pos()).Line)})
		}
	}
	return imps
}

// tableName is how the table names a package of the module: relative to it, "." for the root.
func tableName(module, importPath string) string {
	if importPath == module {
		return "."
	}
	return strings.TrimPrefix(importPath, module+"/")
}
