//go:build !windows

package platform

// isSharingError is false: a rename on Unix replaces a file whatever
// holds it open.
func isSharingError(error) bool { return false }
