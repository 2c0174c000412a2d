package local

import (
	"fmt"

	"ragscope/retrieval"
)

// errLockHeld is LockOutput's error when another run holds the lock on
// path (the same words on every system).
func errLockHeld(path string) error {
	return fmt.Errorf("%w: another \"ragscope index\" is writing %s now: wait for it to finish, or write to another file with -o", retrieval.ErrConfig, path)
}
