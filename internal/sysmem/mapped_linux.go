package sysmem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// tmpfsMagic is statfs's f_type of a tmpfs (linux/magic.h TMPFS_MAGIC); ramfsMagic a ramfs.
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

// mapFile creates an unlinked file of n reserved bytes in dir and maps it shared.
func mapFile(dir string, n int) (*Mapping, error) {
	fileBase() // the program's own file pages, before the first plane's
	f, err := os.CreateTemp(dir, ".strata-planes-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	fd := int(f.Fd())
	// Reserve the blocks: a write fault into a hole of a full disk is a SIGBUS, a reserved
	// block never is. A filesystem that cannot reserve is refused rather than risked.
	for {
		err = syscall.Fallocate(fd, 0, 0, int64(n))
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if err == syscall.ENOSPC {
			return nil, fmt.Errorf("%w: reserving %s: %w", ErrDiskFull, Format(uint64(n)), err)
		}
		return nil, fmt.Errorf("reserving %s (fallocate): %w", Format(uint64(n)), err)
	}
	data, err := syscall.Mmap(fd, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mmap of %s: %w", Format(uint64(n)), err)
	}
	// No huge (PMD) mappings of the plane: where the page cache holds the file in 2 MiB folios
	// (ext4 and xfs with large folios, Linux ≥ 6.x), one touch would map a whole folio into the
	// resident set — a pass sampling every 8th or 32nd row of a plane (a coarse page of the view,
	// the height pages of the viewport) mapped all of it in a few milliseconds, between two of the
	// governor's checks. With small pages a touch maps what fault-around maps (64 KiB).
	for _, adv := range []int{syscall.MADV_NOHUGEPAGE, syscall.MADV_RANDOM} {
		if err := syscall.Madvise(data, adv); err != nil && err != syscall.EINVAL {
			syscall.Munmap(data)
			f.Close()
			return nil, fmt.Errorf("madvise(%d) of %s: %w", adv, Format(uint64(n)), err)
		}
	}
	return &Mapping{data: data, f: f}, nil
}

func unmap(b []byte) error { return syscall.Munmap(b) }

// retire gives f's blocks back to the disk (a hole punched over the whole file) and drops b's
// pages, leaving b mapped: a reader that still holds b reads zeros instead of faulting.
func retire(b []byte, f *os.File) {
	const punchHole, keepSize = 0x02, 0x01 // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
	for {
		if err := syscall.Fallocate(int(f.Fd()), punchHole|keepSize, 0, int64(len(b))); err != syscall.EINTR {
			break
		}
	}
	syscall.Madvise(b, syscall.MADV_DONTNEED)
}

// trim drops b's pages from the resident set (MADV_DONTNEED: on a shared file mapping the dirty
// pages stay in the page cache, marked dirty).
func trim(b []byte) { syscall.Madvise(b, syscall.MADV_DONTNEED) }

// diskFree is the space an unprivileged process may still write on dir's filesystem.
func diskFree(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}

// inMemoryFS reports a tmpfs or ramfs.
func inMemoryFS(dir string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return false
	}
	return uint32(st.Type) == tmpfsMagic || uint32(st.Type) == ramfsMagic
}

// statusPath is read for the resident set; a variable so a test can point it at a fixture.
var statusPath = "/proc/self/status"

// residentSet is VmRSS and RssFile of /proc/self/status in bytes.
func residentSet() (rss, file uint64, ok bool) {
	b, err := os.ReadFile(statusPath)
	if err != nil {
		return 0, 0, false
	}
	var got int
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 2 {
			continue
		}
		var dst *uint64
		switch string(f[0]) {
		case "VmRSS:":
			dst = &rss
		case "RssFile:":
			dst = &file
		default:
			continue
		}
		n, err := strconv.ParseUint(string(f[1]), 10, 64)
		if err != nil {
			return 0, 0, false
		}
		*dst = n * 1024
		got++
	}
	return rss, file, got == 2
}
