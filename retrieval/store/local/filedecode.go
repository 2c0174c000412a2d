package local

// Reading an index file: its checksum, checked beside the decoding; its
// header; its sections, decoded in place (see the layout at the top of
// file.go).

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"

	"ragscope/retrieval/store/local/internal/flat"
)

// errChecksum is a file whose checksum does not match.
var errChecksum = fmt.Errorf("%w: checksum mismatch (truncated or damaged): rebuild it with \"ragscope index DOCS_DIR -o FILE\"", ErrCorruptIndex)

// checksum starts checking b's trailing CRC-32 in the background: reading
// a large file's every byte takes as long as the rest of a load, which
// runs meanwhile. The returned function waits for the check and returns
// errChecksum on a mismatch. A file too short to hold one is left to
// decodeIndexFile.
func checksum(b []byte) func() error {
	if len(b) < headerLen+4 {
		return func() error { return nil }
	}
	done := make(chan bool, 1)
	go func() {
		body := b[:len(b)-4]
		lo, hi := stateRange(body)
		done <- crcOf(crcOf(0, body[:lo]), body[hi:]) == binary.LittleEndian.Uint32(b[len(b)-4:])
	}()
	return func() error {
		if !<-done {
			return errChecksum
		}
		return nil
	}
}

// crcStep is how many bytes crcOf checks per call. The checksum's
// assembly cannot be preempted: one call over a 200 MB file kept the
// garbage collector spinning (and signalling the thread) until it ended,
// which took a whole core from the load beside it.
const crcStep = 1 << 20

// crcOf is crc updated with b, computed a crcStep at a time.
func crcOf(crc uint32, b []byte) uint32 {
	for len(b) > 0 {
		n := min(len(b), crcStep)
		crc = crc32.Update(crc, crcTable, b[:n])
		b = b[n:]
	}
	return crc
}

// stateRange is where the embedder's state lies in an index file's body,
// which the file's checksum leaves out; an empty range when the sections
// before it do not fit in body (the checksum then fails).
func stateRange(body []byte) (lo, hi int) {
	le := binary.LittleEndian
	off := headerLen
	for i := range 3 {
		if len(body)-off < 8 {
			return 0, 0
		}
		n := le.Uint64(body[off:])
		off += 8
		if n > uint64(len(body)-off) {
			return 0, 0
		}
		if i == 2 {
			return off, off + int(n)
		}
		off += int(n) + flat.PadLen(int(n))
	}
	return 0, 0
}

// decodeIndexFile checks and decodes a whole index file.
func decodeIndexFile(b []byte) (*indexFile, error) {
	wait := checksum(b)
	f, err := decodeUnchecked(b)
	if cerr := wait(); cerr != nil && !olderFormat(b) && isIndexHeader(b) {
		return nil, cerr
	}
	return f, err
}

// olderFormat tells whether b's header is another format version's (whose
// checksum is not this one's): that, not a checksum mismatch, is what to
// tell the user.
func olderFormat(b []byte) bool {
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		return true
	}
	return len(b) >= headerLen && string(b[:len(indexMagic)]) == indexMagic && binary.LittleEndian.Uint32(b[len(indexMagic):]) != indexVersion
}

// decodeUnchecked decodes an index file without its checksum (see
// checksum): damaged data gives an error, never a panic.
func decodeUnchecked(b []byte) (*indexFile, error) {
	le := binary.LittleEndian
	if err := checkIndexHeader(b); err != nil {
		return nil, err
	}
	body := b[:len(b)-4]
	off := headerLen
	section := func(size int) ([]byte, error) {
		if len(body)-off < 8 {
			return nil, errors.New("missing section")
		}
		n := le.Uint64(body[off:])
		off += 8
		if n > uint64((len(body)-off)/size) {
			return nil, errors.New("section longer than the file")
		}
		s := body[off : off+int(n)*size]
		off += int(n)*size + flat.PadLen(int(n)*size)
		if off > len(body) {
			return nil, errors.New("section longer than the file")
		}
		return s, nil
	}
	meta, err := section(1)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %s", ErrCorruptIndex, err, rebuildIndex)
	}
	var f indexFile
	if err := json.Unmarshal(meta, &f); err != nil {
		return nil, fmt.Errorf("%w (%v): %s", ErrCorruptIndex, err, rebuildIndex)
	}
	if f.Format != indexFormat {
		return nil, fmt.Errorf("%w: format %q, want %q", ErrCorruptIndex, f.Format, indexFormat)
	}
	f.Version = indexVersion
	chunks, err := section(1)
	if err == nil {
		f.Chunks, err = decodeChunks(chunks)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %s", ErrCorruptIndex, err, rebuildIndex)
	}
	if f.Embedder, err = section(1); err != nil {
		return nil, fmt.Errorf("%w: %w: %s", ErrCorruptIndex, err, rebuildIndex)
	}
	lex, err := section(1)
	if err == nil {
		f.BM25, err = decodeBM25Index(lex, len(f.Chunks))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %s", ErrCorruptIndex, err, rebuildIndex)
	}
	vecs, err := section(4)
	if err != nil || off != len(body) {
		return nil, fmt.Errorf("%w: vectors section: %s", ErrCorruptIndex, rebuildIndex)
	}
	if err := f.setVectors(vecs); err != nil {
		return nil, err
	}
	return &f, nil
}

// How the errors of a file that is no index, or a damaged one, say what
// to do.
const (
	buildIndex   = "build one with \"ragscope index DOCS_DIR -o FILE\""
	rebuildIndex = "rebuild it with \"ragscope index DOCS_DIR -o FILE\""
)

// checkIndexHeader refuses a file that does not start with this
// version's index header, saying which it is: a version 1 (gzip) file,
// no index, a truncated one, another version.
func checkIndexHeader(b []byte) error {
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		return fmt.Errorf("%w: it has the format of ragscope's first index files (version 1), which refitted the embedder on every load: %s",
			ErrIncompatibleIndex, rebuildIndex)
	}
	if len(b) < len(indexMagic) || string(b[:len(indexMagic)]) != indexMagic {
		return fmt.Errorf("%w: not a ragscope index (it does not start with the index header): %s", ErrCorruptIndex, buildIndex)
	}
	if len(b) < headerLen+4 {
		return fmt.Errorf("%w: truncated (%d bytes): %s", ErrCorruptIndex, len(b), rebuildIndex)
	}
	if v := binary.LittleEndian.Uint32(b[len(indexMagic):]); v != indexVersion {
		return fmt.Errorf("%w: format version %d, this ragscope reads version %d: %s", ErrIncompatibleIndex, v, indexVersion, rebuildIndex)
	}
	return nil
}

// setVectors takes the vectors section, vecs, as f's vectors (sharing
// its memory) once its size fits the chunks, the dimension and the
// stored stride, and every component is a unit vector's.
func (f *indexFile) setVectors(vecs []byte) error {
	stride := f.Dim
	if f.Stride != 0 {
		stride = f.Stride
	}
	if f.Dim < 0 || stride < 0 || stride > f.Dim || (len(f.Chunks) > 0 && stride == 0) || len(vecs) != 4*stride*len(f.Chunks) {
		return fmt.Errorf("%w: %d bytes of vectors for %d chunks of dimension %d (%d stored)", ErrCorruptIndex, len(vecs), len(f.Chunks), f.Dim, stride)
	}
	f.Stride = stride
	f.Vectors = flat.Float32s(vecs)
	for _, x := range f.Vectors {
		if x != x || x > 1 || x < -1 { // NaN or not a unit vector's component
			return fmt.Errorf("%w: vector component %v: %s", ErrCorruptIndex, x, rebuildIndex)
		}
	}
	return nil
}
