package sysmem

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"strata/internal/pool"
)

// Planes on disk (docs/limits.md "Planes on disk"): a landscape whose planes (height, channels,
// holes, weights) would take more than MapShare of the budget keeps them in a memory-mapped file
// instead of the Go heap. The file is created in the plane folder, unlinked at once (nothing is
// left behind, whatever ends the process), its blocks reserved with fallocate and mapped
// MAP_SHARED: the kernel writes cold pages back and drops them under pressure instead of killing
// the process, and the residency governor (residency below) keeps the process's resident set under
// STRATA_MEMORY_LIMIT by dropping the planes' pages from it while they stay in the page cache.

// EnvMapPlanes says when planes go on disk: "auto" (or unset) when they would take more than
// MapShare of the budget, "always" (tests force it to reach the mapped path on small fields),
// "never" (the heap, as before).
const EnvMapPlanes = "STRATA_MAP_PLANES"

// EnvMapDir names the folder the plane files are created in; unset: the user's cache folder
// (os.UserCacheDir()/strata/planes), else the temporary folder, skipping a tmpfs (whose pages
// are memory: a file there frees nothing).
const EnvMapDir = "STRATA_MAP_DIR"

// MapShare is the share of the budget a landscape's planes may take on the heap.
const MapShare = 0.5

// diskReserve is the free space a plane file leaves on its disk beyond its own size.
const diskReserve = 256 << 20

// ErrMapping is wrapped by every failure to back planes with a file: no usable folder, a
// filesystem that cannot reserve blocks, mmap refused.
var ErrMapping = errors.New("cannot keep planes on disk")

// ErrDiskFull is wrapped (with ErrMapping) when the plane folder's disk has less free space than
// the planes need.
var ErrDiskFull = errors.New("not enough free disk space for the planes")

// PlanesOnDisk reports whether planes of need bytes go on disk: EnvMapPlanes "always" or "never",
// else (auto) when they are more than MapShare of the budget.
func PlanesOnDisk(need uint64) (bool, error) {
	switch v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvMapPlanes))); v {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "", "auto":
	default:
		return false, fmt.Errorf("sysmem: %s=%q: want auto, always or never", EnvMapPlanes, v)
	}
	b, err := Available()
	if err != nil {
		return false, err
	}
	return b.Known && float64(need) > MapShare*float64(b.Bytes), nil
}

// PlanesForced reports EnvMapPlanes=always: a failure to map is then an error, never a fallback
// to the heap.
func PlanesForced() bool {
	return strings.EqualFold(strings.TrimSpace(os.Getenv(EnvMapPlanes)), "always")
}

// CheckPlanes is Check for planes of need bytes held in memory (onDisk false) or on disk: a
// mapped plane needs no resident memory, so what it is checked against is the free space of the
// plane folder's disk (the error wraps ErrDiskFull).
func CheckPlanes(need uint64, onDisk bool, what string) error {
	if !onDisk {
		return Check(need, what)
	}
	dir, err := mapDir()
	if err != nil {
		return err
	}
	return checkDisk(dir, need, what)
}

// checkDisk refuses need bytes in dir when its disk has less free space than need and the
// reserve.
func checkDisk(dir string, need uint64, what string) error {
	free, ok := diskFree(dir)
	if ok && free < need+diskReserve {
		return fmt.Errorf("%w: %w: %s needs %s on disk, %s is free in %s (keep %s free; set %s to a folder on a larger disk)",
			ErrMapping, ErrDiskFull, what, Format(need), Format(free), dir, Format(diskReserve), EnvMapDir)
	}
	return nil
}

// mapDir is the folder plane files are created in: EnvMapDir when set (created if missing),
// else the first of the user's cache folder and the temporary folder that is not a tmpfs.
func mapDir() (string, error) {
	if d := os.Getenv(EnvMapDir); d != "" {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", fmt.Errorf("%w: %s=%q: %w", ErrMapping, EnvMapDir, d, err)
		}
		return d, nil
	}
	var tried []string
	var cands []string
	if c, err := os.UserCacheDir(); err == nil {
		cands = append(cands, filepath.Join(c, "strata", "planes"))
	}
	cands = append(cands, os.TempDir())
	for _, d := range cands {
		if err := os.MkdirAll(d, 0o700); err != nil {
			tried = append(tried, d+" ("+err.Error()+")")
			continue
		}
		if inMemoryFS(d) {
			tried = append(tried, d+" (a tmpfs: its pages are memory)")
			continue
		}
		return d, nil
	}
	return "", fmt.Errorf("%w: no folder on a disk (tried %s; set %s)", ErrMapping, strings.Join(tried, ", "), EnvMapDir)
}

// Mapping is n bytes of a memory-mapped, unlinked file: the backing of planes on disk.
type Mapping struct {
	mu   sync.Mutex
	data []byte
	f    *os.File
}

// live is every mapping not yet released, for the governor and MappedBytes.
var live struct {
	sync.Mutex
	set   map[*Mapping]struct{}
	bytes uint64
	gov   bool // the governor is running
}

// Map returns n zeroed bytes backed by a new file in the plane folder (mapDir): the free space
// is checked first (ErrDiskFull), the file is unlinked as soon as it is created and its blocks are
// reserved (fallocate) before it is mapped, so a write to the mapping never meets a full disk
// (no SIGBUS). what names the planes for messages. Every error wraps ErrMapping.
func Map(n int, what string) (*Mapping, error) {
	if n <= 0 {
		return nil, fmt.Errorf("%w: %s: %d bytes", ErrMapping, what, n)
	}
	dir, err := mapDir()
	if err != nil {
		return nil, err
	}
	if err := checkDisk(dir, uint64(n), what); err != nil {
		return nil, err
	}
	m, err := mapFile(dir, n)
	if err != nil {
		return nil, fmt.Errorf("%w: %s in %s: %w", ErrMapping, what, dir, err)
	}
	live.Lock()
	if live.set == nil {
		live.set = map[*Mapping]struct{}{}
	}
	live.set[m] = struct{}{}
	live.bytes += uint64(n)
	if !live.gov {
		if limit, ok := residentCap(); ok {
			live.gov = true
			govLimit.Store(limit)
			pool.SetBetween(pollResidency)
			go govern(limit)
		}
	}
	live.Unlock()
	return m, nil
}

// Bytes is the mapped memory (nil once released).
func (m *Mapping) Bytes() []byte {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data
}

// Release unmaps the memory and closes the file, whose blocks the system then frees. Nothing
// may touch the memory afterwards. It is nil-safe and idempotent.
func (m *Mapping) Release() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	data, f := m.data, m.f
	m.data, m.f = nil, nil
	m.mu.Unlock()
	if data == nil {
		return nil
	}
	live.Lock()
	delete(live.set, m)
	live.bytes -= uint64(len(data))
	live.Unlock()
	err := unmap(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Retire is Release for a mapping whose memory something may still hold a slice of (a plane the
// collector found unreachable while a goroutine still reads its Data, which the collector does not
// see): the file's blocks go back to the disk and the pages are dropped, but the memory stays
// mapped — a late reader gets zeros, never a fault. The address range is kept until the process
// ends (address space, not memory). Nil-safe and idempotent, and after Release a no-op.
func (m *Mapping) Retire() {
	if m == nil {
		return
	}
	m.mu.Lock()
	data, f := m.data, m.f
	m.data, m.f = nil, nil
	m.mu.Unlock()
	if data == nil {
		return
	}
	live.Lock()
	delete(live.set, m)
	live.bytes -= uint64(len(data))
	live.Unlock()
	retire(data, f)
	f.Close() // the mapping keeps the file open
}

// Trim drops the mapping's pages from the process's resident set: the data stays (in the page
// cache, dirty pages marked so, or on disk once the kernel has written them back and reclaimed
// them) and the next touch of a page maps it again. Write-back is left to the kernel: starting
// it at every trim (sync_file_range) would write the Go evaluator's weights again and again while
// it writes them, and a write to a page under write-back waits for it. It is nil-safe; a released
// mapping is left alone.
func (m *Mapping) Trim() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.data != nil {
		trim(m.data)
	}
}

// MappedBytes is the size of every mapping not yet released.
func MappedBytes() uint64 {
	live.Lock()
	defer live.Unlock()
	return live.bytes
}

// TrimAll trims every live mapping (Trim).
func TrimAll() {
	live.Lock()
	ms := make([]*Mapping, 0, len(live.set))
	for m := range live.set {
		ms = append(ms, m)
	}
	live.Unlock()
	for _, m := range ms {
		m.Trim()
	}
}

// Residency governor: while planes are mapped and a cap is known (STRATA_MEMORY_LIMIT, else a
// cgroup's memory.max), the process's resident set is read every governMin … governMax (governMin
// while it is over TrimAt of the cap, doubling while it is under); when it passes TrimAt of the
// cap and the planes' pages are part of it, every mapping is trimmed. Between two reads a pass over
// the planes can map again what it touches meanwhile: the resident set overshoots by that (page
// cache pages, which the kernel can take back at any time), not by what the process needs. The
// planes are mapped with small pages and no read-ahead (mapFile), so a touch maps at most what
// fault-around maps (64 KiB), never a whole 2 MiB folio.
const (
	TrimAt = 0.6
	// TrimMin is the share of the cap the planes' resident pages must reach before a trim, while
	// the resident set is under TrimHard of the cap: when the process's private memory alone is
	// over TrimAt, trimming the few pages a pass just touched would only make it fault them again.
	TrimMin = 1.0 / 16
	// TrimHard is the share of the cap past which any resident plane pages beyond TrimFloor are
	// trimmed: near the cap, faulting pages again is the price of staying under it.
	TrimHard  = 0.85
	TrimFloor = 2 << 20
	governMin = 5 * time.Millisecond
	governMax = 40 * time.Millisecond
)

// residentCap is the resident set the governor keeps the process under.
func residentCap() (uint64, bool) {
	if v := strings.TrimSpace(os.Getenv(EnvLimit)); v != "" {
		if n, err := ParseBytes(v); err == nil && n > 0 {
			return n, true
		}
	}
	for _, p := range []string{filepath.Join(cgroupRoot, "memory.max"), filepath.Join(cgroupRoot, "memory", "memory.limit_in_bytes")} {
		if n, ok := readUint(p); ok && n < 1<<62 {
			return n, true
		}
	}
	return 0, false
}

// govern is the governor's loop; it ends when no mapping is left.
func govern(limit uint64) {
	wait := governMin
	t := time.NewTimer(wait)
	defer t.Stop()
	for range t.C {
		live.Lock()
		if len(live.set) == 0 {
			live.gov = false
			govLimit.Store(0)
			live.Unlock()
			return
		}
		live.Unlock()
		if _, high := check(limit); high {
			wait = governMin
		} else {
			wait = min(2*wait, governMax)
		}
		t.Reset(wait)
	}
}

// govLimit is the running governor's cap, for pollResidency; lastPoll the time (UnixNano) of the
// last check by either; govHigh whether that check found the resident set over TrimAt.
var (
	govLimit, lastPoll atomic.Uint64
	govHigh            atomic.Bool
)

// pollHigh is pollResidency's interval while the resident set is over TrimAt of the cap: a pass
// maps what it touches meanwhile, and on a busy machine the governor's timer waits behind it.
const pollHigh = time.Millisecond

// pollResidency is the governor's check from the worker pool's items (pool.SetBetween): at most
// once per governMin (pollHigh near the cap), by whichever worker comes first.
func pollResidency() {
	limit := govLimit.Load()
	if limit == 0 {
		return
	}
	every := governMin
	if govHigh.Load() {
		every = pollHigh
	}
	now := uint64(time.Now().UnixNano())
	last := lastPoll.Load()
	if now-last < uint64(every) || !lastPoll.CompareAndSwap(last, now) {
		return
	}
	check(limit)
}

// TrimOver trims every mapping when the resident set is over TrimAt of limit and the planes'
// pages in it (file-backed resident pages beyond the program's own) are at least TrimMin of
// limit, or when it is over TrimHard of limit and they are more than TrimFloor. It reports whether
// it trimmed.
func TrimOver(limit uint64) bool {
	trimmed, _ := check(limit)
	return trimmed
}

// check is TrimOver, reporting besides whether the resident set was over TrimAt of limit (the
// governor then checks again soon).
func check(limit uint64) (trimmed, high bool) {
	rss, file, ok := residentSet()
	high = ok && float64(rss) > TrimAt*float64(limit)
	govHigh.Store(high)
	if !high {
		return false, false
	}
	var planes uint64
	if base := fileBase(); file > base {
		planes = file - base
	}
	if float64(planes) < TrimMin*float64(limit) && (float64(rss) <= TrimHard*float64(limit) || planes <= TrimFloor) {
		return false, true
	}
	TrimAll()
	return true, true
}

// fileBase is the file-backed resident set before the first mapping (the program's text and
// libraries), read once.
var fileBase = sync.OnceValue(func() uint64 {
	_, file, _ := residentSet()
	return file + 16<<20
})
