package sysmem

import (
	"bytes"
	"testing"
)

// TestPopulateKeepsBytes: Populate leaves what b holds, on unaligned ends and empty slices.
func TestPopulateKeepsBytes(t *testing.T) {
	b := make([]byte, 3<<20)
	for i := range b {
		b[i] = byte(i * 7)
	}
	want := bytes.Clone(b)
	Populate(b[123 : len(b)-77])
	Populate(b[:1])
	Populate(nil)
	if !bytes.Equal(b, want) {
		t.Fatal("Populate changed the bytes")
	}
}

// TestPopulateFaultsIn: where Populate says it worked, a fresh 64 MiB slice is resident after it
// without one byte written.
func TestPopulateFaultsIn(t *testing.T) {
	b := make([]byte, 64<<20)
	before, _, ok := residentSet()
	if !Populate(b) || !ok {
		return // a kernel before 5.14, or no /proc: nothing to see
	}
	after, _, _ := residentSet()
	if after < before+48<<20 {
		t.Errorf("resident set %d → %d MiB after populating 64 MiB", before>>20, after>>20)
	}
	if b[len(b)/2] != 0 {
		t.Error("fresh memory is not zero after Populate")
	}
}

// TestPopulateLeavesPlanesOnDisk: a plane on disk is not faulted in (the memory limit keeps its
// pages out of the resident set).
func TestPopulateLeavesPlanesOnDisk(t *testing.T) {
	m, err := Map(8<<20, "a test plane")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	if Populate(m.Bytes()[4096:]) {
		t.Error("Populate faulted in a plane on disk")
	}
}
