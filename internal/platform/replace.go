package platform

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// ReplaceFile renames the finished file oldpath over newpath in one step,
// so a reader sees the old file or the new one, never half of either. On
// Unix a rename replaces even a file that is open. On Windows a rename
// over a file another program holds open (a virus scanner, an indexer, a
// second ragscope reading it) fails with a sharing error until that
// program lets go, so the rename (MoveFileEx with
// MOVEFILE_REPLACE_EXISTING, as os.Rename does there) is tried again for
// about two seconds before giving up with an error that says so.
func ReplaceFile(oldpath, newpath string) error {
	r := replacer{goos: runtime.GOOS, rename: os.Rename, busy: isSharingError, wait: time.Sleep}
	return r.replace(oldpath, newpath)
}

// replacer is ReplaceFile with its system calls as values, for tests.
type replacer struct {
	goos string
	// rename renames a file over another.
	rename func(oldpath, newpath string) error
	// busy reports whether a rename failed because another program holds
	// the destination (or the source) open.
	busy func(error) bool
	// wait sleeps between tries.
	wait func(time.Duration)
}

// replaceBudget bounds the pauses between tries on Windows; they start
// at 10 ms and double up to 250 ms.
const replaceBudget = 2 * time.Second

func (r replacer) replace(oldpath, newpath string) error {
	err := r.rename(oldpath, newpath)
	if err == nil || r.goos != "windows" || !r.busy(err) {
		return err
	}
	for d, waited := 10*time.Millisecond, time.Duration(0); waited < replaceBudget; d = min(2*d, 250*time.Millisecond) {
		r.wait(d)
		waited += d
		if err = r.rename(oldpath, newpath); err == nil || !r.busy(err) {
			return err
		}
	}
	return fmt.Errorf("another program keeps %s open (close it and try again): %w", newpath, err)
}
