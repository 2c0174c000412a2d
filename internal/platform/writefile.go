package platform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"ragscope/internal/readlimit"
)

// WriteFile writes path by the rule of ResolveOutput. A file (a link's
// target, for a link) is written atomically: write fills a temporary file
// in the same folder, which is synced and then replaces the file in one
// step (ReplaceFile), so a reader sees the old file or the whole new one,
// and a failed write leaves the old file as it was and no temporary file
// behind; an existing file keeps its permissions, a new one is 0644. A
// named pipe, a device or a descriptor path is written to directly; ctx
// ends the wait for a named pipe's reader.
func WriteFile(ctx context.Context, path string, write func(io.Writer) error) (err error) {
	o, err := ResolveOutput(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	switch {
	case o.Stream():
		return writeStream(ctx, o, write)
	case o.Exists && o.Mode.IsDir():
		return fmt.Errorf("write %s: %w", path, ErrIsFolder)
	case o.Exists && !o.Mode.IsRegular():
		return fmt.Errorf("write %s: it is %s", path, readlimit.Kind(o.Mode))
	}
	return replaceWith(o.Target, write, path)
}

// writeStream writes to a pipe, a device or a descriptor directly.
func writeStream(ctx context.Context, o Output, write func(io.Writer) error) error {
	var f *os.File
	var err error
	if o.desc {
		f, err = openDescriptor(o.fd)
	} else {
		f, err = openStream(ctx, o.Target)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", o.Path, err)
	}
	werr := write(f)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", o.Path, err)
	}
	return nil
}

// replaceWith writes target atomically (WriteFile); name is the path the
// caller gave, for messages.
func replaceWith(target string, write func(io.Writer) error, name string) (err error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), tempPattern(target))
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	// CreateTemp makes the file 0600; the result is an ordinary file.
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := ReplaceFile(tmp.Name(), target); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	// Sync the folder so that the rename itself survives a crash; not
	// every file system supports it, and the file is complete, so a
	// failure here is not an error.
	if d, derr := os.Open(filepath.Dir(target)); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
