package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"ragscope/internal/readlimit"
)

// The rule for every file ragscope writes (reports, golden sets, indexes,
// logs), in ResolveOutput, CheckOutput and WriteFile:
//
//   - a regular file, or a name that does not exist yet, is replaced
//     atomically: written to a temporary file in its folder, then renamed
//     over it;
//   - a symbolic link is written through: the file it leads to is
//     replaced so, in that file's folder, and the link is kept;
//   - a named pipe (FIFO) or a device (/dev/stdout, /dev/null, a
//     terminal) is opened for writing and written to directly, never
//     replaced; a descriptor path (/dev/stdout, /dev/fd/N,
//     /proc/self/fd/N, as `>(cat)` gives) writes to that open descriptor
//     of this process;
//   - the check made before a long run never opens a named pipe in a way
//     that waits for a reader: it looks at the file's mode.

// ErrIsFolder is matched (errors.Is) by the error for an output path that
// names a folder.
var ErrIsFolder = errors.New("it is a folder")

// maxLinkHops is how many symbolic links ResolveOutput follows.
const maxLinkHops = 40

// Output is what writing to a path means (ResolveOutput).
type Output struct {
	// Path is the path as given.
	Path string
	// Target is the file written: Path, or when Path is a symbolic link
	// to a file that is replaced, the file the links lead to (it need not
	// exist yet). A link to a named pipe or a device is written through
	// as it is: its Target is Path.
	Target string
	// Exists reports whether Target exists; Mode is its mode then.
	Exists bool
	Mode   fs.FileMode
	// fd is the descriptor a descriptor path names, when desc is set.
	fd   int
	desc bool
}

// Stream reports whether the output is written directly (opened for
// writing, never replaced): a named pipe, a device or a descriptor of
// this process.
func (o Output) Stream() bool {
	return o.desc || o.Exists && o.Mode&(fs.ModeNamedPipe|fs.ModeDevice|fs.ModeCharDevice) != 0
}

// Linked reports whether Path is a symbolic link whose target is
// replaced (Target differs from Path).
func (o Output) Linked() bool { return o.Target != o.Path }

// Stdout reports whether the output is this process's standard output
// (/dev/stdout, /dev/fd/1, /proc/self/fd/1).
func (o Output) Stdout() bool { return o.desc && o.fd == 1 }

// IsStdout reports whether path names this process's standard output
// (/dev/stdout, /dev/fd/1 or /proc/self/fd/1, possibly through links).
func IsStdout(path string) bool {
	o, err := ResolveOutput(path)
	return err == nil && o.Stdout()
}

// ResolveOutput describes what writing to path means: its links followed
// to the file replaced, and the kind of that file. It opens nothing.
func ResolveOutput(path string) (Output, error) {
	o := Output{Path: path}
	p := path
	for range maxLinkHops {
		if fd, ok := descriptorPath(p); ok {
			st, err := os.Stat(p)
			if err != nil {
				return o, err
			}
			o.Target, o.Exists, o.Mode, o.fd, o.desc = p, true, st.Mode(), fd, true
			return o, nil
		}
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			o.Target = p
			return o, nil
		}
		if err != nil {
			return o, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			o.Target, o.Exists, o.Mode = p, true, st.Mode()
			return o, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return o, err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		// A link to a pipe or a device is opened through the link (the
		// system follows it, even where the link's text names no path);
		// a link to a descriptor path is that descriptor.
		if _, desc := descriptorPath(to); !desc {
			if fin, err := os.Stat(p); err == nil && !fin.Mode().IsRegular() && !fin.IsDir() {
				o.Target, o.Exists, o.Mode = p, true, fin.Mode()
				return o, nil
			}
		}
		p = to
	}
	return o, fmt.Errorf("%s: more than %d symbolic links in a row (a loop?)", path, maxLinkHops)
}

// descriptorPath reports whether p names a descriptor of this process
// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), and which.
// Windows has none.
func descriptorPath(p string) (int, bool) {
	if runtime.GOOS == "windows" {
		return 0, false
	}
	switch p = filepath.Clean(p); p {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	switch filepath.Dir(p) {
	case "/dev/fd", "/proc/self/fd", "/proc/thread-self/fd":
		if n, err := strconv.Atoi(filepath.Base(p)); err == nil && n >= 0 {
			return n, true
		}
	}
	return 0, false
}

// CheckOutput reports, before any work, whether path can be written by
// WriteFile, and what it is. It never blocks and leaves nothing behind:
// a folder is an error matching ErrIsFolder; a named pipe or a device
// must grant write permission (it is not opened); a regular file must be
// writable, and the folder it is replaced in (the target's, for a link)
// must exist and accept a new file.
func CheckOutput(path string) (Output, error) {
	o, err := ResolveOutput(path)
	switch {
	case err != nil:
		return o, err
	case o.desc:
		return o, nil
	case o.Exists && o.Mode.IsDir():
		return o, fmt.Errorf("%s: %w", o.Target, ErrIsFolder)
	case o.Stream():
		return o, canWriteStream(o.Target)
	case o.Exists && !o.Mode.IsRegular():
		return o, fmt.Errorf("%s is %s: ragscope writes only files, pipes and devices", o.Target, readlimit.Kind(o.Mode))
	case o.Exists:
		// Opened without waiting: a pipe put in its place meanwhile
		// fails here instead of blocking.
		f, err := os.OpenFile(o.Target, os.O_WRONLY|openNonblock, 0)
		if err != nil {
			return o, err
		}
		f.Close()
	}
	dir := filepath.Dir(o.Target)
	st, err := os.Stat(dir)
	if err != nil {
		return o, fmt.Errorf("folder %s: %w", dir, unwrapPath(err))
	}
	if !st.IsDir() {
		return o, fmt.Errorf("%s is not a folder", dir)
	}
	probe, err := os.CreateTemp(dir, tempPattern(o.Target))
	if err != nil {
		return o, fmt.Errorf("folder %s: %w", dir, unwrapPath(err))
	}
	probe.Close()
	return o, os.Remove(probe.Name())
}

// tempPattern names the temporary file a write to target goes through.
func tempPattern(target string) string { return "." + filepath.Base(target) + ".*.tmp" }

// unwrapPath is a *fs.PathError's cause (the path is said otherwise).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// OpenRegular opens path with flag (such as os.O_WRONLY|os.O_APPEND|
// os.O_CREATE) only when it is, or is made, a regular file: a named pipe,
// a device or a folder is a *readlimit.NotRegularError matching
// readlimit.ErrNotRegular, found without waiting for a pipe's reader. It
// is for the files ragscope keeps for itself (caches, history), which are
// never anything but files.
func OpenRegular(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, &readlimit.NotRegularError{Path: path, Mode: st.Mode()}
	}
	f, err := os.OpenFile(path, flag|openNonblock, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &readlimit.NotRegularError{Path: path, Mode: st.Mode()}
	}
	return f, nil
}

// OpenAppend opens path for appending by the rule of ResolveOutput, for a
// log: a file (a link's target) is created with perm when missing and
// written at its end; a named pipe or a device is opened for writing (a
// pipe no program reads yet is waited for until ctx ends, never in a way
// that blocks); a descriptor path gives that descriptor.
func OpenAppend(ctx context.Context, path string, perm fs.FileMode) (*os.File, error) {
	o, err := ResolveOutput(path)
	switch {
	case err != nil:
		return nil, err
	case o.desc:
		return openDescriptor(o.fd)
	case o.Stream():
		return openStream(ctx, o.Target)
	case o.Exists && o.Mode.IsDir():
		return nil, fmt.Errorf("%s: %w", o.Target, ErrIsFolder)
	}
	return OpenRegular(o.Target, os.O_CREATE|os.O_APPEND|os.O_WRONLY, perm)
}
