//go:build windows

package local

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive lock (LockFileEx) on f without waiting; held
// reports that another process has it. unlock releases it, closes f and
// then removes lockPath (Windows does not delete an open file; when
// another run has it open, it stays, unlocked).
func lockFile(f *os.File, lockPath string) (unlock func(), held bool, err error) {
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol); err != nil {
		return nil, errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING), err
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
		os.Remove(lockPath)
	}, false, nil
}
