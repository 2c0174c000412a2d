//go:build unix || windows

package local

import (
	"fmt"
	"os"
	"path/filepath"

	"ragscope/retrieval"
)

// LockOutput takes a lock that only one `ragscope index` writing path can
// hold at a time (an exclusive lock, failing at once, on a small
// ".NAME.lock" file next to it: flock on Unix, LockFileEx on Windows). A
// second run gets an error matching retrieval.ErrConfig at once, before
// any work, instead of the two racing to replace the file. The returned
// function releases the lock and removes the lock file.
func LockOutput(path string) (unlock func(), err error) {
	lockPath := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot write the index to %s: %w: choose a writable folder with -o", retrieval.ErrConfig, path, err)
	}
	unlock, held, err := lockFile(f, lockPath)
	if err != nil {
		f.Close()
		if held {
			return nil, errLockHeld(path)
		}
		return nil, fmt.Errorf("%w: lock %s: %w", retrieval.ErrConfig, lockPath, err)
	}
	return unlock, nil
}

// errLockHeld is LockOutput's error when another run holds the lock on
// path (the same words on every system).
func errLockHeld(path string) error {
	return fmt.Errorf("%w: another \"ragscope index\" is writing %s now: wait for it to finish, or write to another file with -o", retrieval.ErrConfig, path)
}
