//go:build unix

package local

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) on f without waiting;
// held reports that another process has it. unlock removes lockPath and
// closes f.
func lockFile(f *os.File, lockPath string) (unlock func(), held bool, err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil, errors.Is(err, syscall.EWOULDBLOCK), err
	}
	return func() {
		os.Remove(lockPath)
		f.Close()
	}, false, nil
}
