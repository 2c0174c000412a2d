//go:build !linux

package local

import "os"

// readIndexBytes reads a whole index file.
func readIndexBytes(path string) ([]byte, error) { return os.ReadFile(path) }
