//go:build linux

package sysmem

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// mapsHas reports whether /proc/self/maps lists a mapping starting at p.
func mapsHas(t *testing.T, p uintptr) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), fmt.Sprintf("%x-", p))
}

// A mapping is zeroed, writable, leaves no file in its folder, is counted while it lives, and
// Release unmaps it (the address leaves /proc/self/maps) and is idempotent.
func TestMapRelease(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvMapDir, dir)
	t.Setenv(EnvLimit, "")
	before := MappedBytes()
	m, err := Map(3<<20+5, "a test plane")
	if err != nil {
		t.Fatal(err)
	}
	b := m.Bytes()
	if len(b) != 3<<20+5 || MappedBytes() != before+3<<20+5 {
		t.Fatalf("%d bytes, %d mapped; want %d more", len(b), MappedBytes(), 3<<20+5)
	}
	for i, v := range b {
		if v != 0 {
			t.Fatalf("byte %d is %d, want 0", i, v)
		}
	}
	for i := range b {
		b[i] = byte(i * 7)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the plane folder holds %v: the file must be unlinked at once", ents)
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	if !mapsHas(t, p) {
		t.Fatal("the mapping is not in /proc/self/maps")
	}
	m.Trim() // drops the pages from the resident set, keeps the data
	for i := range b {
		if b[i] != byte(i*7) {
			t.Fatalf("byte %d is %d after Trim, want %d", i, b[i], byte(i*7))
		}
	}
	if err := m.Release(); err != nil {
		t.Fatal(err)
	}
	if mapsHas(t, p) || m.Bytes() != nil || MappedBytes() != before {
		t.Errorf("after Release: mapped %v, bytes %v, counted %d (want %d)", mapsHas(t, p), m.Bytes() != nil, MappedBytes(), before)
	}
	if err := m.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	var nilMap *Mapping
	nilMap.Trim()
	if nilMap.Release() != nil || nilMap.Bytes() != nil {
		t.Error("a nil Mapping is not nil-safe")
	}
}

// Retire gives a mapping's blocks and pages back but leaves its memory readable: a slice still
// held reads zeros instead of faulting.
func TestMapRetire(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvMapDir, dir)
	t.Setenv(EnvLimit, "")
	before := MappedBytes()
	m, err := Map(1<<20, "a test plane")
	if err != nil {
		t.Fatal(err)
	}
	b := m.Bytes()
	for i := range b {
		b[i] = 0x5a
	}
	m.Retire()
	if MappedBytes() != before || m.Bytes() != nil {
		t.Errorf("after Retire: %d mapped bytes counted (want %d), Bytes %v", MappedBytes(), before, m.Bytes() != nil)
	}
	if !mapsHas(t, uintptr(unsafe.Pointer(&b[0]))) {
		t.Error("Retire unmapped the memory a slice still holds")
	}
	for i, v := range b {
		if v != 0 {
			t.Fatalf("byte %d reads %#x after Retire, want 0 (the blocks given back)", i, v)
		}
	}
	m.Retire()
	if err := m.Release(); err != nil {
		t.Errorf("Release after Retire: %v", err)
	}
}

// Trim takes the pages of a written mapping out of the resident set.
func TestTrimLowersResidentSet(t *testing.T) {
	t.Setenv(EnvMapDir, t.TempDir())
	m, err := Map(32<<20, "a test plane")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	b := m.Bytes()
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	_, file, ok := residentSet()
	if !ok {
		t.Fatal("no resident set in " + statusPath)
	}
	m.Trim()
	_, after, _ := residentSet()
	if after+24<<20 > file {
		t.Errorf("file-backed resident set %d MiB before Trim, %d MiB after: want 32 MiB less", file>>20, after>>20)
	}
}

// A disk without room for the planes, an unusable folder and an unknown setting are refused by
// name, before anything is mapped.
func TestMapRefusals(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvMapDir, dir)
	free, ok := diskFree(dir)
	if !ok {
		t.Fatal("no free space figure for " + dir)
	}
	_, err := Map(int(free), "a huge plane")
	if !errors.Is(err, ErrDiskFull) || !errors.Is(err, ErrMapping) || !strings.Contains(err.Error(), "a huge plane needs") {
		t.Errorf("a plane larger than the free space: %v", err)
	}
	if err := CheckPlanes(free, true, "the planes"); !errors.Is(err, ErrDiskFull) {
		t.Errorf("CheckPlanes on disk: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	t.Setenv(EnvMapDir, filepath.Join(file, "sub"))
	if _, err := Map(4096, "a plane"); !errors.Is(err, ErrMapping) || !strings.Contains(err.Error(), EnvMapDir) {
		t.Errorf("a folder that cannot be made: %v", err)
	}
	if _, err := Map(0, "nothing"); !errors.Is(err, ErrMapping) {
		t.Errorf("an empty mapping: %v", err)
	}
}

// PlanesOnDisk: always, never, and auto against MapShare of the budget.
func TestPlanesOnDisk(t *testing.T) {
	fixture(t, meminfo, nil) // 2 GiB available
	for _, tc := range []struct {
		mode, limit string
		need        uint64
		want        bool
	}{
		{"always", "", 1, true},
		{"never", "1KiB", 1 << 40, false},
		{"", "", 1 << 30, false},
		{"auto", "", 1<<30 + 1, true},
		{"", "1MiB", 512 << 10, false},
		{"", "1MiB", 512<<10 + 1, true},
	} {
		t.Setenv(EnvMapPlanes, tc.mode)
		t.Setenv(EnvLimit, tc.limit)
		if got, err := PlanesOnDisk(tc.need); err != nil || got != tc.want {
			t.Errorf("%s=%q, %s=%q, %d bytes: %v, %v; want %v", EnvMapPlanes, tc.mode, EnvLimit, tc.limit, tc.need, got, err, tc.want)
		}
	}
	t.Setenv(EnvMapPlanes, "sometimes")
	if _, err := PlanesOnDisk(1); err == nil || !strings.Contains(err.Error(), EnvMapPlanes) {
		t.Errorf("an unknown setting: %v", err)
	}
}

// The governor's check trims when the resident set is over TrimAt of the cap and holds at least
// TrimMin of it in mapped pages, or over TrimHard and more than TrimFloor; otherwise it leaves
// it alone.
func TestTrimOver(t *testing.T) {
	base := fileBase() // the real program's, read before the fixture
	old := statusPath
	t.Cleanup(func() { statusPath = old })
	statusPath = filepath.Join(t.TempDir(), "status")
	write := func(rss, file uint64) {
		os.WriteFile(statusPath, fmt.Appendf(nil, "Name:\tx\nVmRSS:\t%d kB\nRssAnon:\t1 kB\nRssFile:\t%d kB\n", rss>>10, file>>10), 0o600)
	}
	const limit = 1 << 30
	write(limit, base+limit/8)
	if !TrimOver(limit) {
		t.Error("over the cap with mapped pages: no trim")
	}
	write(limit/2, base+limit/8)
	if TrimOver(limit) {
		t.Error("under TrimAt of the cap: trimmed")
	}
	write(limit*8/10, base+limit/32)
	if TrimOver(limit) {
		t.Error("fewer mapped pages than TrimMin of the cap, under TrimHard: trimmed")
	}
	write(limit*9/10, base+limit/32)
	if !TrimOver(limit) {
		t.Error("fewer mapped pages than TrimMin of the cap, over TrimHard: no trim")
	}
	write(limit, base+TrimFloor)
	if TrimOver(limit) {
		t.Error("no more than TrimFloor of mapped pages: trimmed")
	}
	write(limit, base)
	if TrimOver(limit) {
		t.Error("no mapped pages resident: trimmed")
	}
}

// A sparse touch of a written plane maps little of it: one byte read every 2 MiB of a 64 MiB
// mapping must not bring the whole of it back into the resident set. Before the mapping was made
// with small pages and no read-ahead, Linux 6.18 on ext4 mapped each 2 MiB folio whole at its
// first touch, so a coarse pass over a plane (every 32nd row) mapped all of it between two of the
// governor's checks (the peak RSS over STRATA_MEMORY_LIMIT after the first frame).
func TestSparseTouchMapsLittle(t *testing.T) {
	t.Setenv(EnvMapDir, t.TempDir())
	const n = 64 << 20
	m, err := Map(n, "a test plane")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	b := m.Bytes()
	for i := 0; i < len(b); i += 4096 {
		b[i] = byte(i >> 12)
	}
	m.Trim()
	_, before, ok := residentSet()
	if !ok {
		t.Fatal("no resident set in " + statusPath)
	}
	var sum byte
	for i := 0; i < len(b); i += 2 << 20 {
		sum += b[i]
	}
	_, after, _ := residentSet()
	if after > before+16<<20 {
		t.Errorf("reading one byte every 2 MiB of a 64 MiB plane mapped %d MiB (sum %d): want at most 16 MiB", (after-before)>>20, sum)
	}
}
