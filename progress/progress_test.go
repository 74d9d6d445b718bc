package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestBarNonTerminalPrintsTenths(t *testing.T) {
	var buf bytes.Buffer
	b := NewBar(&buf)
	for i := 0; i <= 100; i++ {
		b.Update("bake", i, 100)
	}
	b.Update("write", 1, 2)
	b.Finish()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 12 {
		t.Fatalf("got %d lines, want 11 tenths of bake + 1 write:\n%s", len(lines), buf.String())
	}
	if lines[0] != "bake: 0% (0/100)" || lines[10] != "bake: 100% (100/100)" || lines[11] != "write: 50% (1/2)" {
		t.Errorf("unexpected lines:\n%s", buf.String())
	}
}
