package local

import (
	"fmt"
	"io"
	"syscall"
)

// hugeFileMin is the size from which readIndexBytes reads into huge pages.
const hugeFileMin = 8 << 20

// readIndexBytes reads a whole index file. A large one is mapped read-only
// with its pages populated in one call: no copy and no page faults one 4 KB
// page at a time, which on a virtual machine were most of a load's time
// (23,000 faults, 0.3 s of system time for a 70 MB index). If it cannot be
// mapped it is read into anonymous memory advised to use 2 MB pages. Either
// way the memory lives as long as the process: the loaded index's chunks
// and arrays point into it. `ragscope index` replaces a file by renaming a
// new one over it, which leaves a mapping intact; a file truncated in place
// by another program while ragscope runs would crash it.
//
// What is not a regular file, larger than readlimit.IndexFile or without
// an index header is refused before it is read (openIndexFile).
func readIndexBytes(path string) ([]byte, error) {
	f, size, err := openIndexFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size < hugeFileMin {
		return readAllSized(f, path, size)
	}
	if m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE); err == nil {
		return m, nil
	}
	const huge = 2 << 20
	mapped := int((size + huge - 1) / huge * huge)
	buf, err := syscall.Mmap(-1, 0, mapped, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return readAllSized(f, path, size)
	}
	_ = syscall.Madvise(buf, 14) // MADV_HUGEPAGE; only advice
	if _, err := io.ReadFull(f, buf[:size]); err != nil {
		syscall.Munmap(buf)
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf[:size:size], nil
}
