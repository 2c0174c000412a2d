//go:build !linux

package local

// readIndexBytes reads a whole index file. What is not a regular file,
// larger than readlimit.IndexFile or without an index header is refused
// before it is read (openIndexFile).
func readIndexBytes(path string) ([]byte, error) {
	f, size, err := openIndexFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllSized(f, path, size)
}
