package sysmem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t *testing.T, meminfo string, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	oldM, oldC := meminfoPath, cgroupRoot
	t.Cleanup(func() { meminfoPath, cgroupRoot = oldM, oldC })
	meminfoPath = filepath.Join(dir, "meminfo")
	cgroupRoot = filepath.Join(dir, "cgroup")
	if meminfo != "" {
		os.WriteFile(meminfoPath, []byte(meminfo), 0o644)
	}
	for name, v := range files {
		p := filepath.Join(cgroupRoot, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(v), 0o644)
	}
}

const meminfo = "MemTotal:       24684092 kB\nMemFree:         1000000 kB\nMemAvailable:    2097152 kB\n"

func TestAvailable(t *testing.T) {
	tests := []struct {
		desc   string
		files  map[string]string
		env    string
		want   uint64
		source string
	}{
		{"meminfo only", nil, "", 2 << 30, "MemAvailable"},
		{"cgroup v2 lower", map[string]string{"memory.max": "1073741824\n", "memory.current": "536870912\n"}, "", 512 << 20, "memory.max"},
		{"cgroup v2 unlimited", map[string]string{"memory.max": "max\n", "memory.current": "5\n"}, "", 2 << 30, "MemAvailable"},
		{"cgroup v1 lower", map[string]string{"memory/memory.limit_in_bytes": "1073741824", "memory/memory.usage_in_bytes": "1073741000"}, "", 824, "limit_in_bytes"},
		{"cgroup v1 unlimited", map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712", "memory/memory.usage_in_bytes": "1"}, "", 2 << 30, "MemAvailable"},
		{"environment lowest", nil, "1GiB", 1 << 30, EnvLimit},
		{"environment higher than meminfo", nil, "8G", 2 << 30, "MemAvailable"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			fixture(t, meminfo, tc.files)
			t.Setenv(EnvLimit, tc.env)
			b, err := Available()
			if err != nil || !b.Known || b.Bytes != tc.want || !strings.Contains(b.Source, tc.source) {
				t.Errorf("got %+v, %v; want %d from %s", b, err, tc.want, tc.source)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	fixture(t, meminfo, nil)
	t.Setenv(EnvLimit, "")
	if err := Check(2<<30, "x"); err != nil {
		t.Errorf("exactly the budget: %v", err)
	}
	err := Check(3<<30, "decoding h.png (16000×16000)")
	if !errors.Is(err, ErrInsufficient) || !strings.Contains(err.Error(), "decoding h.png (16000×16000) needs about 3.0 GiB, 2.0 GiB is available (MemAvailable in") {
		t.Errorf("over the budget: %v", err)
	}
	t.Setenv(EnvLimit, "lots")
	if err := Check(1, "x"); err == nil || !strings.Contains(err.Error(), EnvLimit) {
		t.Errorf("bad environment value: %v", err)
	}
}

func TestUnknownBudgetRefusesNothing(t *testing.T) {
	fixture(t, "", nil)
	t.Setenv(EnvLimit, "")
	if err := Check(1<<62, "x"); err != nil {
		t.Errorf("no source: %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]uint64{"4096": 4096, "4GiB": 4 << 30, "512 MiB": 512 << 20, "4G": 4 << 30, "4GB": 4e9, "1.5KiB": 1536} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1", "4 parsecs", "1e30"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) accepted", s)
		}
	}
}

// TestHostGPUBudget: a device whose memory is the host's keeps a quarter of STRATA_MEMORY_LIMIT,
// never more than the default; STRATA_GPU_BUDGET, when set, is taken as it is; a limit that does
// not parse is an error naming the variable.
func TestHostGPUBudget(t *testing.T) {
	for _, c := range []struct {
		limit, gpu string
		want       uint64
	}{
		{"", "", DefaultGPUBudget},
		{"2GiB", "", 512 << 20},
		{"64GiB", "", DefaultGPUBudget},
		{"2GiB", "1GiB", 1 << 30},
	} {
		t.Setenv(EnvLimit, c.limit)
		t.Setenv(EnvGPUBudget, c.gpu)
		got, err := HostGPUBudget()
		if err != nil || got != c.want {
			t.Errorf("%s=%q %s=%q: %d, %v; want %d", EnvLimit, c.limit, EnvGPUBudget, c.gpu, got, err, c.want)
		}
	}
	t.Setenv(EnvLimit, "lots")
	t.Setenv(EnvGPUBudget, "")
	if _, err := HostGPUBudget(); err == nil || !strings.Contains(err.Error(), EnvLimit) {
		t.Errorf("an unparsable limit: %v", err)
	}
}
