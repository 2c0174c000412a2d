//go:build unix

package readlimit

import "syscall"

// openNonblock opens a named pipe without waiting for a writer; it changes
// nothing for a regular file.
const openNonblock = syscall.O_NONBLOCK
