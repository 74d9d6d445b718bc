package layering

import (
	"bufio"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The names the table gives the two third-party modules whose place is a rule.
const (
	fyneName   = "fyne"   // fyne.io/...: only the front end
	webgpuName = "webgpu" // github.com/cogentcore/webgpu/...: only the device and its direct users
	anything   = "*"
)

// rules is the parsed "layering" block of docs/design.md.
type rules struct {
	order    []string            // packages in the order of their lines (bottom-up)
	allow    map[string][]string // package → what its non-test files may import
	test     map[string][]string // package → what its tests may import beyond allow
	testOnly map[string]bool     // packages only _test.go files may import
	line     map[string]int      // package → its line in the block, for messages
}

// parseRules reads the lines of a layering block (without its fences).
func parseRules(block string) (*rules, error) {
	r := &rules{allow: map[string][]string{}, test: map[string][]string{}, testOnly: map[string]bool{}, line: map[string]int{}}
	sc := bufio.NewScanner(strings.NewReader(block))
	for n := 1; sc.Scan(); n++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		head, rest, ok := strings.Cut(text, ":")
		if !ok {
			return nil, fmt.Errorf("layering block line %d: %q has no colon (want PACKAGE: IMPORTS...)", n, text)
		}
		head, names := strings.TrimSpace(head), strings.Fields(rest)
		switch {
		case head == "testonly":
			for _, p := range names {
				r.testOnly[p] = true
			}
		case strings.HasPrefix(head, "test "):
			p := strings.TrimSpace(strings.TrimPrefix(head, "test "))
			if _, dup := r.test[p]; dup {
				return nil, fmt.Errorf("layering block line %d: a second test line for %s", n, p)
			}
			r.test[p] = names
		default:
			if _, dup := r.allow[head]; dup {
				return nil, fmt.Errorf("layering block line %d: a second line for %s (the first is line %d)", n, head, r.line[head])
			}
			r.allow[head] = names
			r.line[head] = n
			r.order = append(r.order, head)
		}
	}
	for p := range r.test {
		if _, ok := r.allow[p]; !ok {
			return nil, fmt.Errorf("layering block: test line for %s, which has no line of its own", p)
		}
	}
	for p := range r.testOnly {
		if _, ok := r.allow[p]; !ok {
			return nil, fmt.Errorf("layering block: testonly names %s, which has no line of its own", p)
		}
	}
	return r, nil
}

// imp is one import of one file.
type imp struct {
	path string // the imported package, as the table names it
	pos  string // file:line of the import
}

// pkgImports are a package's imports as the table sees them: strata packages relative to the
// module ("." for the root), fyne and webgpu by their table names; other imports are dropped.
type pkgImports struct {
	name string
	own  []imp // non-test files
	test []imp // _test.go files, the package's own and its external _test package
}

// check returns every way pkgs break r, one message each, sorted.
func check(r *rules, pkgs []pkgImports) []string {
	var bad []string
	addf := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	const where = "docs/design.md \"Who may import whom\""

	seen := map[string]bool{}
	usedOwn := map[string]map[string]bool{}  // package → import → used by non-test files
	usedTest := map[string]map[string]bool{} // package → import → used by tests
	for _, p := range pkgs {
		seen[p.name] = true
		allowed, ok := r.allow[p.name]
		if !ok {
			addf("%s has no line in %s: add one listing what it imports", p.name, where)
			continue
		}
		usedOwn[p.name], usedTest[p.name] = map[string]bool{}, map[string]bool{}
		for _, i := range p.own {
			usedOwn[p.name][i.path] = true
			if r.testOnly[i.path] {
				addf("%s: %s imports %s, which only tests may import (testonly in %s)", i.pos, p.name, i.path, where)
				continue
			}
			if !slices.Contains(allowed, i.path) && !slices.Contains(allowed, anything) {
				addf("%s: %s imports %s, which %s does not allow", i.pos, p.name, i.path, where)
				continue
			}
			if _, known := r.line[i.path]; known && r.line[i.path] >= r.line[p.name] {
				addf("%s: %s imports %s, which is listed after it in %s: the layering has a cycle or the lines are out of order", i.pos, p.name, i.path, where)
			}
		}
		for _, i := range p.test {
			if i.path == p.name {
				continue // an external test package imports the package it tests
			}
			usedTest[p.name][i.path] = true
			if slices.Contains(allowed, i.path) || slices.Contains(allowed, anything) || slices.Contains(r.test[p.name], i.path) {
				continue
			}
			addf("%s: the tests of %s import %s, which %s allows neither %s nor its tests (add it to \"test %s:\" with the reason)", i.pos, p.name, i.path, where, p.name, p.name)
		}
	}
	for _, p := range r.order {
		if !seen[p] {
			addf("%s lists %s, which is no package of the module any more", where, p)
			continue
		}
		for _, a := range r.allow[p] {
			if a != anything && !usedOwn[p][a] {
				addf("%s allows %s → %s, but no non-test file of %s imports it: remove it", where, p, a, p)
			}
		}
		for _, a := range r.test[p] {
			switch {
			case slices.Contains(r.allow[p], a):
				addf("%s: \"test %s:\" lists %s, which %s's own line already allows", where, p, a, p)
			case !usedTest[p][a]:
				addf("%s: \"test %s:\" lists %s, but no test of %s imports it: remove it", where, p, a, p)
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// TestCheckNamesViolations feeds check a small table and code that breaks it in every way it
// knows, so the layering test is known to fail when the code drifts, not only to pass.
func TestCheckNamesViolations(t *testing.T) {
	r, err := parseRules(`
noise:
field:       noise
gpu:         field webgpu
bake:        gpu field
ui:          bake fyne     # allowed, but nothing imports it below
testonly:    internal/fixture
internal/fixture: field
test field:  gpu           # nothing uses it
`)
	if err != nil {
		t.Fatal(err)
	}
	at := func(path string) imp { return imp{path: path, pos: "x.go:1"} }
	pkgs := []pkgImports{
		{name: "noise"},
		{name: "field", own: []imp{at("noise"), at("gpu")}}, // upward: not allowed
		{name: "gpu", own: []imp{at("field"), at("webgpu")}},
		{name: "bake", own: []imp{at("gpu"), at("field"), at("internal/fixture")}}, // test support in code
		{name: "ui", own: []imp{at("bake"), at("webgpu")}, test: []imp{at("ui"), at("field")}},
		{name: "internal/fixture", own: []imp{at("field")}},
		{name: "world"}, // no line
	}
	got := strings.Join(check(r, pkgs), "\n")
	for _, want := range []string{
		"field imports gpu, which docs/design.md \"Who may import whom\" does not allow",
		"bake imports internal/fixture, which only tests may import",
		"ui imports webgpu, which",
		"the tests of ui import field, which",
		"world has no line",
		"allows ui → fyne, but no non-test file of ui imports it",
		"\"test field:\" lists gpu, but no test of field imports it",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("check did not report %q; it reported:\n%s", want, got)
		}
	}

	// A line that imports one listed after it is a cycle, even when the line allows it.
	r, err = parseRules("a: b\nb: a\n")
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(check(r, []pkgImports{{name: "a", own: []imp{at("b")}}, {name: "b", own: []imp{at("a")}}}), "\n")
	if !strings.Contains(got, "a imports b, which is listed after it") {
		t.Errorf("a cycle was not reported; check reported:\n%s", got)
	}
}
