package procgen

import (
	"os"
	"strings"
	"testing"
)

// docs/procgen.md documents every node type, in a section of its own, with every param.
func TestDocsListEveryParam(t *testing.T) {
	b, err := os.ReadFile("../docs/procgen.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, name := range typeNames() {
		i := strings.Index(doc, "### "+name+" ")
		if i < 0 {
			t.Errorf("docs/procgen.md has no section \"### %s\"", name)
			continue
		}
		section := doc[i+4:]
		if j := strings.Index(section, "\n### "); j >= 0 {
			section = section[:j]
		}
		for _, p := range nodeTypes[name].params {
			if !strings.Contains(section, "| `"+p.key+"`") && !strings.Contains(section, ", `"+p.key+"` |") && !strings.Contains(section, "`"+p.key+"`, `") {
				t.Errorf("docs/procgen.md, %s: param %q is not in its table", name, p.key)
			}
		}
	}
}
