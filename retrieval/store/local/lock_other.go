//go:build !unix && !windows

package local

// LockOutput does nothing where advisory file locks are not available:
// two runs writing the same file still each replace it atomically.
func LockOutput(path string) (unlock func(), err error) { return func() {}, nil }
