//go:build !unix

package platform

import (
	"context"
	"errors"
	"os"
)

// openNonblock is 0 where named pipes are not files that block an open.
const openNonblock = 0

// canWriteStream is nil: the permissions of a pipe or device are known
// only by opening it, which the check does not do.
func canWriteStream(string) error { return nil }

// openStream opens the pipe or device at p for writing.
func openStream(_ context.Context, p string) (*os.File, error) {
	return os.OpenFile(p, os.O_WRONLY, 0)
}

// openDescriptor is never called: no path names a descriptor here.
func openDescriptor(int) (*os.File, error) {
	return nil, errors.New("descriptor paths are a Unix feature")
}
