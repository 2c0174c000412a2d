package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"ragscope/internal/platform"
	"ragscope/internal/redact"
	"ragscope/retrieval"
)

// toStdout reports whether the file a flag names (--out, --junit,
// --markdown, -o) is standard output: "-", or a path that names this
// process's standard output (/dev/stdout, /dev/fd/1). Such a report is
// written to the command's standard output, and the command's own text
// goes to standard error so that the two do not mix.
func toStdout(path string) bool { return path == "-" || platform.IsStdout(path) }

// checkOutPath checks that the file a flag names (--out, --junit, -o) can
// be written, before any work (platform.CheckOutput): a folder, a missing
// folder or one without write permission is a configuration error (exit
// 2). Nothing is opened in a way that waits (a named pipe is judged by
// its mode), an existing file is left as it is, and nothing is left
// behind. Standard output ("-") is always writable. example is a file
// name the message suggests.
func checkOutPath(flag, path, example string) error {
	if toStdout(path) {
		return nil
	}
	o, err := platform.CheckOutput(path)
	switch {
	case errors.Is(err, platform.ErrIsFolder):
		return fmt.Errorf("%w: %s %s is a folder: give a file name, e.g. %s", retrieval.ErrConfig, flag, path, filepath.Join(o.Target, example))
	case err != nil:
		return fmt.Errorf("%w: %s: cannot write %s: %w", retrieval.ErrConfig, flag, path, err)
	}
	return nil
}

// writeOutFile writes the file a flag names by the rule of
// platform.WriteFile, or to stdout when it is standard output (toStdout).
func writeOutFile(ctx context.Context, path string, stdout io.Writer, write func(io.Writer) error) error {
	if toStdout(path) {
		return write(stdout)
	}
	return platform.WriteFile(ctx, path, write)
}

// writeHidden writes what write writes to w whole and without the
// configuration's secrets: a report quotes the backends' and the judge's
// errors, and a provider's error may quote its key (its URLs are data,
// kept as they are: redact.Hide).
func writeHidden(w io.Writer, secrets []string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	_, err := io.WriteString(w, redact.Hide(buf.String(), secrets...))
	return err
}
