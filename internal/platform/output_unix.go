//go:build unix

package platform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// openNonblock opens a named pipe without waiting for the other end; it
// changes nothing for a regular file.
const openNonblock = syscall.O_NONBLOCK

// readerPoll is how often openStream looks again for a named pipe's
// reader.
const readerPoll = 50 * time.Millisecond

// canWriteStream reports whether this process may write to the pipe or
// device at p, from its permissions alone: nothing is opened.
func canWriteStream(p string) error {
	if err := syscall.Access(p, 2 /* W_OK */); err != nil {
		return &os.PathError{Op: "write", Path: p, Err: err}
	}
	return nil
}

// openStream opens the pipe or device at p for writing. A named pipe no
// program reads yet is waited for (as a shell's `> pipe` does) without
// blocking: opened again every readerPoll until a reader comes or ctx
// ends.
func openStream(ctx context.Context, p string) (*os.File, error) {
	for {
		f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.ENXIO) {
			return nil, err
		}
		t := time.NewTimer(readerPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("no program reads the named pipe %s: %w", p, ctx.Err())
		case <-t.C:
		}
	}
}

// openDescriptor is a new descriptor for this process's descriptor fd
// (sharing its offset, as a shell's redirection expects).
func openDescriptor(fd int) (*os.File, error) {
	d, err := syscall.Dup(fd)
	if err != nil {
		return nil, fmt.Errorf("descriptor %d: %w", fd, err)
	}
	syscall.CloseOnExec(d)
	return os.NewFile(uintptr(d), "/dev/fd/"+strconv.Itoa(fd)), nil
}
