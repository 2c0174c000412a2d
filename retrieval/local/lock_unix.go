//go:build unix

package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"ragscope/retrieval"
)

// LockOutput takes a lock that only one `ragscope index` writing path can
// hold at a time (an advisory lock on a small ".NAME.lock" file next to
// it). A second run gets an error matching retrieval.ErrConfig at once,
// before any work, instead of the two racing to replace the file. The
// returned function releases the lock and removes the lock file.
func LockOutput(path string) (unlock func(), err error) {
	lockPath := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot write the index to %s: %w: choose a writable folder with -o", retrieval.ErrConfig, path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLockHeld(path)
		}
		return nil, fmt.Errorf("%w: lock %s: %w", retrieval.ErrConfig, lockPath, err)
	}
	return func() {
		os.Remove(lockPath)
		f.Close()
	}, nil
}
