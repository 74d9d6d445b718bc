//go:build unix

package safeio

import (
	"os"
	"syscall"
)

// flock takes an flock(2) lock, waiting for it (retrying when a signal interrupts the wait).
// flock locks are per open file, so two goroutines of one process opening the lock file
// separately also exclude each other; on NFS v4 Linux maps them onto byte-range locks the server
// enforces across machines.
func flock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func funlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// flockHeld tries the lock without waiting: held reports another holder (the lock is not
// taken then); when it is free it is taken, as flock would.
func flockHeld(f *os.File, exclusive bool) (held bool, err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch err {
		case nil:
			return false, nil
		case syscall.EWOULDBLOCK:
			return true, nil
		case syscall.EINTR:
			continue
		}
		return false, err
	}
}

// locksExclude: flock excludes here, so a temporary file no writer holds is a killed writer's.
const locksExclude = true
