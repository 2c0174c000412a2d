//go:build unix

package eval_test

import (
	"syscall"
	"time"
)

// processCPU is the user and system time this process has used so far
// (every goroutine, the in-process servers' included); ok false where
// it cannot be read.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
