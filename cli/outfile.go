package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"ragscope/retrieval"
)

// checkOutPath checks that the file a flag names (--out, --junit, -o) can
// be written, before any work: a folder, a missing folder or one without
// write permission is a configuration error (exit 2). An existing file is
// left as it is, and no new file is left behind. example is a file name
// the message suggests.
func checkOutPath(flag, path, example string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%w: %s %s is a folder: give a file name, e.g. %s", retrieval.ErrConfig, flag, path, filepath.Join(path, example))
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("%w: %s: cannot write %s: %w", retrieval.ErrConfig, flag, path, errors.Unwrap(err))
	}
	f.Close()
	if errors.Is(statErr, fs.ErrNotExist) {
		_ = os.Remove(path)
	}
	return nil
}
