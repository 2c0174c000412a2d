package platform

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes path atomically: write fills a temporary file in the
// same folder, which is synced and then replaces path in one step
// (ReplaceFile), so a reader sees the old file or the whole new one, and a
// failed write leaves the old file as it was and no temporary file
// behind. An existing file keeps its permissions; a new one is 0644.
func WriteFile(path string, write func(io.Writer) error) (err error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; the result is an ordinary file.
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := ReplaceFile(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
