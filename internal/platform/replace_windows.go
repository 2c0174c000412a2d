//go:build windows

package platform

import (
	"errors"

	"golang.org/x/sys/windows"
)

// isSharingError reports whether err says another program holds a file
// open in a way that forbids the rename: Windows answers "access denied"
// when the destination is open without FILE_SHARE_DELETE.
func isSharingError(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION) ||
		errors.Is(err, windows.ERROR_ACCESS_DENIED)
}
