// Package readlimit reads the files and streams ragscope is given with a
// bound on their size, and opens a file given by path only when it is a
// regular file: a named pipe never blocks ragscope, a device such as
// /dev/zero never streams into memory, and a file past its bound is a
// clear error instead of memory that grows until the system gives out.
package readlimit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The most ragscope reads of each kind of input, in bytes.
const (
	// GoldenSet is the bound of an eval golden set file (YAML or JSON).
	GoldenSet int64 = 16 << 20
	// IndexFile is the bound of a local index file: about 800,000 chunks
	// at the 5 KB a chunk takes.
	IndexFile int64 = 4 << 30
	// DotEnv is the bound of a .env file.
	DotEnv int64 = 1 << 20
	// ConfigFile is the bound of a ragscope.toml file.
	ConfigFile int64 = 1 << 20
	// Markdown is the bound of one markdown page of a docs folder.
	Markdown int64 = 64 << 20
	// Stdin is the bound of the selected text read from standard input.
	Stdin int64 = 8 << 20
	// Report is the bound of an eval report read back (--baseline).
	Report int64 = 256 << 20
	// SiteFile is the bound of one file of a Docusaurus site read for
	// its routes and ids (docusaurus.config.*, _category_.json, pages,
	// partials).
	SiteFile int64 = 64 << 20
	// History is the bound of the explorer's question history file,
	// which ragscope keeps to a few hundred questions.
	History int64 = 16 << 20
	// Questions is the bound of a file of real questions read by golden
	// import (a chatbot log as JSONL, CSV or plain lines); one line or
	// record of it is bounded by QuestionRecord.
	Questions int64 = 256 << 20
	// QuestionRecord is the bound of one line or CSV record of such a file.
	QuestionRecord = 16 << 20
)

// ErrNotRegular is matched (errors.Is) by a NotRegularError.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is matched (errors.Is) by a TooLargeError.
var ErrTooLarge = errors.New("larger than ragscope reads")

// NotRegularError is a path that names a folder, a named pipe, a device
// or a socket where a file was expected.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error says what the path is: "x is a folder, not a file".
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a file", e.Path, Kind(e.Mode))
}

// Is matches ErrNotRegular.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// Kind names a file mode's kind of file for messages: "a folder", "a
// named pipe (FIFO)", "a device", "a socket", "a regular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// TooLargeError is an input larger than its bound. Path is "" for a
// stream (standard input).
type TooLargeError struct {
	Path  string
	Limit int64
}

// Error says which input passed which bound.
func (e *TooLargeError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("more than %s, the most ragscope reads", Size(e.Limit))
	}
	return fmt.Sprintf("%s is larger than %s, the most ragscope reads of it", e.Path, Size(e.Limit))
}

// Is matches ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Size formats a bound: "16 MiB", "4 GiB", "512 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens path for reading when it is a regular file (symbolic links
// followed) and returns it with its description. Anything else is a
// NotRegularError, found without blocking: the path is described before
// it is opened, and opened without waiting for a writer (a named pipe put
// in its place meanwhile is found by describing the opened file).
func Open(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return f, st, nil
}

// ReadFile reads the regular file at path, at most limit bytes: a larger
// one (or one that grows past limit while it is read) is a TooLargeError,
// anything but a regular file a NotRegularError.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	b, err := Read(f, limit)
	var tl *TooLargeError
	if errors.As(err, &tl) {
		tl.Path = path
	}
	return b, err
}

// Read reads r to its end, at most limit bytes: more is a TooLargeError
// (with no path) and nothing past limit+1 bytes is read.
func Read(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return b, nil
}

// Reader is r that gives at most limit bytes, then fails with a
// TooLargeError (no path) instead of giving more: for a decoder that reads
// a stream as it goes.
func Reader(r io.Reader, limit int64) io.Reader {
	return &boundedReader{r: r, left: limit, limit: limit}
}

type boundedReader struct {
	r           io.Reader
	left, limit int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a stream that ends at the bound from one
		// that goes on.
		var one [1]byte
		if n, err := b.r.Read(one[:]); n > 0 {
			return 0, &TooLargeError{Limit: b.limit}
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// ReadFS reads the file name of fsys as ReadFile does: it must describe
// itself as a regular file before it is opened (so a named pipe is never
// opened) and hold at most limit bytes.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Mode: st.Mode()}
	}
	if st.Size() > limit {
		return nil, &TooLargeError{Path: name, Limit: limit}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := Read(f, limit)
	var tl *TooLargeError
	if errors.As(err, &tl) {
		tl.Path = name
	}
	return b, err
}
