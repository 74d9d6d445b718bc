// Package sysmem says how much memory Strata may plan to use, so work whose size grows with a
// small input (a 249 KB PNG that decodes to 16000², a bake of 2²⁸ texels) is refused by name
// before it allocates, instead of ending in "fatal error: runtime: out of memory" or the kernel's
// OOM killer.
//
// The budget is the smallest of: MemAvailable in /proc/meminfo (what the kernel can hand out
// without swapping: free memory plus reclaimable cache); the cgroup's limit less its usage (a
// container sees the host's /proc/meminfo, not its own limit); and STRATA_MEMORY_LIMIT, which a
// user sets to keep Strata within a share of a shared machine. Where none of them is known (a
// system without /proc), nothing is refused.
package sysmem

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvLimit names the environment variable that caps the budget: bytes, or a number with a unit
// (KiB, MiB, GiB, TiB; KB, MB, GB, TB; K, M, G, T as binary units), for example "4GiB".
const EnvLimit = "STRATA_MEMORY_LIMIT"

// ErrInsufficient is wrapped by every refusal for lack of memory.
var ErrInsufficient = errors.New("not enough memory")

// Budget is the memory Strata may plan to allocate and where that figure came from.
type Budget struct {
	Bytes  uint64
	Source string // for messages: "MemAvailable in /proc/meminfo", "STRATA_MEMORY_LIMIT=4GiB", …
	Known  bool   // false when no source was readable: no limit is applied
}

// Files read; variables so a test can point them at fixtures.
var (
	meminfoPath = "/proc/meminfo"
	cgroupRoot  = "/sys/fs/cgroup"
)

// Available returns the current budget. It reads a few small files on every call (memory changes
// while Strata runs), which costs microseconds next to the allocations it guards.
func Available() (Budget, error) {
	var b Budget
	take := func(n uint64, src string) {
		if !b.Known || n < b.Bytes {
			b = Budget{Bytes: n, Source: src, Known: true}
		}
	}
	if n, ok := memAvailable(); ok {
		take(n, "MemAvailable in "+meminfoPath)
	}
	if n, src, ok := cgroupHeadroom(); ok {
		take(n, src)
	}
	if v := strings.TrimSpace(os.Getenv(EnvLimit)); v != "" {
		n, err := ParseBytes(v)
		if err != nil {
			return Budget{}, fmt.Errorf("sysmem: %s=%q: %w", EnvLimit, v, err)
		}
		take(n, EnvLimit+"="+v)
	}
	return b, nil
}

// Check refuses work that needs more than the budget. what names the work for the message
// ("decoding heights.png (16000×16000 8-bit grayscale PNG)"); the error wraps ErrInsufficient and
// says how much is needed, how much is available and by which measure.
func Check(need uint64, what string) error {
	b, err := Available()
	if err != nil {
		return err
	}
	if !b.Known || need <= b.Bytes {
		return nil
	}
	return fmt.Errorf("%w: %s needs about %s, %s is available (%s)", ErrInsufficient, what, Format(need), Format(b.Bytes), b.Source)
}

// memAvailable reads MemAvailable (kB) from /proc/meminfo.
func memAvailable() (uint64, bool) {
	b, err := os.ReadFile(meminfoPath)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			n, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				return 0, false
			}
			return n * 1024, true
		}
	}
	return 0, false
}

// cgroupHeadroom is the cgroup's memory limit less its usage: cgroup v2 (memory.max,
// memory.current) or v1 (memory/memory.limit_in_bytes, memory.usage_in_bytes), read where a
// container mounts its own cgroup (the mount's root). "max" or a v1 limit near 2⁶³ means none.
func cgroupHeadroom() (uint64, string, bool) {
	for _, c := range [][2]string{
		{filepath.Join(cgroupRoot, "memory.max"), filepath.Join(cgroupRoot, "memory.current")},
		{filepath.Join(cgroupRoot, "memory", "memory.limit_in_bytes"), filepath.Join(cgroupRoot, "memory", "memory.usage_in_bytes")},
	} {
		lim, ok1 := readUint(c[0])
		use, ok2 := readUint(c[1])
		if !ok1 || !ok2 || lim >= 1<<62 {
			continue
		}
		head := uint64(0)
		if lim > use {
			head = lim - use
		}
		return head, "the cgroup limit " + c[0], true
	}
	return 0, "", false
}

func readUint(p string) (uint64, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// ParseBytes reads "4294967296", "4GiB", "512 MiB", "4G" (binary) or "4GB" (decimal).
func ParseBytes(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("want a number of bytes such as 4GiB")
	}
	mult := map[string]float64{"": 1, "B": 1,
		"K": 1 << 10, "KiB": 1 << 10, "KB": 1e3, "M": 1 << 20, "MiB": 1 << 20, "MB": 1e6,
		"G": 1 << 30, "GiB": 1 << 30, "GB": 1e9, "T": 1 << 40, "TiB": 1 << 40, "TB": 1e12}
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", unit)
	}
	if v*m >= 1<<63 {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return uint64(v * m), nil
}

// Format writes a byte count for people: "5.9 GiB", "412 MiB", "900 B".
func Format(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// EnvGPUBudget names the environment variable that bounds what the editor keeps on the GPU
// (its resident field, the viewport's atlases): "8GiB", "512MiB", a byte count.
const EnvGPUBudget = "STRATA_GPU_BUDGET"

// DefaultGPUBudget is the device memory the editor keeps within when EnvGPUBudget is unset.
const DefaultGPUBudget = 8 << 30

// GPUBudget is EnvGPUBudget's value, or DefaultGPUBudget when it is unset; a value that does not
// parse is an error that names the variable.
func GPUBudget() (uint64, error) {
	v := os.Getenv(EnvGPUBudget)
	if v == "" {
		return DefaultGPUBudget, nil
	}
	n, err := ParseBytes(v)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%s=%q: want a size such as 8GiB or 512MiB", EnvGPUBudget, v)
	}
	return n, nil
}

// HostGPUShare is the share of STRATA_MEMORY_LIMIT a device whose memory is the host's (a CPU
// adapter) may keep when STRATA_GPU_BUDGET does not say otherwise.
const HostGPUShare = 0.25

// HostGPUBudget is GPUBudget for a device whose memory is the host's: STRATA_GPU_BUDGET when it is
// set, else the smaller of DefaultGPUBudget and HostGPUShare of STRATA_MEMORY_LIMIT (when that is
// set), so the device's pages count against the user's cap like the heap's.
func HostGPUBudget() (uint64, error) {
	if os.Getenv(EnvGPUBudget) != "" {
		return GPUBudget()
	}
	n := uint64(DefaultGPUBudget)
	if v := strings.TrimSpace(os.Getenv(EnvLimit)); v != "" {
		lim, err := ParseBytes(v)
		if err != nil {
			return 0, fmt.Errorf("sysmem: %s=%q: %w", EnvLimit, v, err)
		}
		n = min(n, uint64(float64(lim)*HostGPUShare))
	}
	return n, nil
}
