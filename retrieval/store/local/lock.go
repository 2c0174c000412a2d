//go:build unix || windows

package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"ragscope/internal/readlimit"
	"ragscope/retrieval"
	"ragscope/termsafe"
)

// LockOutput takes a lock that only one `ragscope index` writing path can
// hold at a time (an exclusive lock, failing at once, on a small
// ".NAME.lock" file next to it: flock on Unix, LockFileEx on Windows). A
// second run gets an error matching retrieval.ErrConfig at once, before
// any work, instead of the two racing to replace the file; the error
// names the holder (its process id and host, which the holder writes in
// the file) where the system lets the file be read. The lock belongs to
// the process, not to the file: a run that is killed leaves the file
// behind, but its lock ends with it, and the next run takes it. The
// returned function releases the lock and removes the lock file.
func LockOutput(path string) (unlock func(), err error) {
	lockPath := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	// Another run may remove the file between our open and our lock
	// (its unlock): a lock on a removed file locks nothing, so the lock
	// is taken again on the file now at lockPath.
	for range 10 {
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot write the index to %s: %w: choose a writable folder with -o", retrieval.ErrConfig, path, err)
		}
		unlock, held, err := lockFile(f, lockPath)
		if err != nil {
			f.Close()
			if held {
				return nil, errLockHeld(path, lockPath)
			}
			return nil, fmt.Errorf("%w: lock %s: %w", retrieval.ErrConfig, lockPath, err)
		}
		if !stillAt(f, lockPath) {
			f.Close()
			continue
		}
		writeHolder(f)
		return unlock, nil
	}
	return nil, errLockHeld(path, lockPath)
}

// stillAt reports whether the open file f is the file at path.
func stillAt(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// writeHolder records this process in the lock file ("pid 1234 on
// host"), for the message another run gives.
func writeHolder(f *os.File) {
	host, _ := os.Hostname()
	rec := "pid " + strconv.Itoa(os.Getpid())
	if host != "" {
		rec += " on " + host
	}
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(rec+"\n"), 0)
	}
}

// holder is the record writeHolder left in the lock file, "" when it
// cannot be read (Windows keeps a locked file from other readers).
func holder(lockPath string) string {
	b, err := readlimit.ReadFile(lockPath, 256)
	if err != nil {
		return ""
	}
	return termsafe.Line(strings.TrimSpace(string(b)))
}

// errLockHeld is LockOutput's error when another run holds the lock on
// path (the same words on every system).
func errLockHeld(path, lockPath string) error {
	who := "another \"ragscope index\""
	if h := holder(lockPath); strings.HasPrefix(h, "pid ") {
		who += " (" + h + ")"
	}
	return fmt.Errorf("%w: %s is writing %s now: wait for it to finish, or write to another file with -o", retrieval.ErrConfig, who, path)
}
