//go:build windows

package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"ragscope/retrieval"
)

// LockOutput takes a lock that only one `ragscope index` writing path can
// hold at a time (LockFileEx on a small ".NAME.lock" file next to it,
// exclusive and failing at once). A second run gets an error matching
// retrieval.ErrConfig at once, before any work, instead of the two racing
// to replace the file. The returned function releases the lock and
// removes the lock file (after closing it: Windows does not delete an
// open file; when another run has it open, it stays, unlocked).
func LockOutput(path string) (unlock func(), err error) {
	lockPath := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot write the index to %s: %w: choose a writable folder with -o", retrieval.ErrConfig, path, err)
	}
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol); err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
			return nil, errLockHeld(path)
		}
		return nil, fmt.Errorf("%w: lock %s: %w", retrieval.ErrConfig, lockPath, err)
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
		os.Remove(lockPath)
	}, nil
}
