package local

import (
	"errors"
	"fmt"
	"io"
	"os"

	"ragscope/internal/readlimit"
)

// notIndexError is a file that is not a ragscope index at all (it does not
// start with the index header), or not a file: reported as such rather
// than as a damaged index. It matches ErrCorruptIndex.
type notIndexError struct{ path, why string }

func (e *notIndexError) Error() string {
	return fmt.Sprintf("%s is not a ragscope index (%s): build one with \"ragscope index DOCS_DIR -o FILE\"", e.path, e.why)
}

func (e *notIndexError) Unwrap() error { return ErrCorruptIndex }

// openIndexFile opens the index file at path for readIndexBytes and
// returns its size, after the checks that need none of its content but
// its header: a regular file (a folder, a named pipe or a device such as
// /dev/zero is refused without blocking or reading it), at most
// readlimit.IndexFile bytes, starting with the index header (or the gzip
// header of the version 1 files, which the decoder names).
func openIndexFile(path string) (*os.File, int64, error) {
	f, st, err := readlimit.Open(path)
	var notFile *readlimit.NotRegularError
	if errors.As(err, &notFile) {
		return nil, 0, &notIndexError{path: path, why: "it is " + readlimit.Kind(notFile.Mode)}
	}
	if err != nil {
		return nil, 0, err
	}
	size := st.Size()
	if size > readlimit.IndexFile {
		f.Close()
		return nil, 0, fmt.Errorf("%w: %s is larger than %s, the most ragscope reads of an index file", ErrCorruptIndex, path, readlimit.Size(readlimit.IndexFile))
	}
	var hdr [len(indexMagic)]byte
	n, err := f.ReadAt(hdr[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		f.Close()
		return nil, 0, err
	}
	if !isIndexHeader(hdr[:n]) {
		f.Close()
		why := "it does not start with the ragscope index header"
		if size == 0 {
			why = "it is empty"
		}
		return nil, 0, &notIndexError{path: path, why: why}
	}
	return f, size, nil
}

// isIndexHeader tells whether b, a file's first bytes, starts an index
// file of some format version: the magic, or gzip's (version 1).
func isIndexHeader(b []byte) bool {
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		return true
	}
	return len(b) >= len(indexMagic) && string(b[:len(indexMagic)]) == indexMagic
}

// readAllSized reads f's size bytes: the size described when it was
// opened, so a file that grows meanwhile is not read past it, and one that
// shrank is reported as truncated.
func readAllSized(f *os.File, path string, size int64) ([]byte, error) {
	buf := make([]byte, size)
	if _, err := io.ReadFull(f, buf); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: %s shrank while it was read: rebuild it with \"ragscope index DOCS_DIR -o FILE\"", ErrCorruptIndex, path)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf, nil
}
