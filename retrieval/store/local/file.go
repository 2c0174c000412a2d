package local

import (
	"bufio"
	"context"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path/filepath"

	"ragscope/internal/platform"
	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
	"ragscope/retrieval/store/local/internal/flat"
)

// The index file is binary, little-endian, read whole and checked before
// use:
//
//	magic "RAGSCOPE", u32 format version, u32 0 (reserved)
//	u64 n, n bytes: JSON metadata (indexFile)
//	u64 n, n bytes: the chunks (chunkcodec.go)
//	u64 n, n bytes: the fitted embedder's state (may be empty)
//	u64 n, n bytes: the BM25 postings (lexindex.go)
//	u64 n, n float32: the vectors, chunk after chunk
//	u32 CRC-32 (IEEE) of everything before it but the embedder's state
//
// The embedder's state checks itself (embed.Model.MarshalBinary): most of
// a large index is its lexical postings, which a question reads only a
// little of, so they are checked a block at a time as they are read
// instead of all on every load.
//
// Each section is padded with zeros to an 8-byte boundary, so the numbers
// of the vectors and of the embedder's state are used where they lie in
// the file's buffer (package flat) and chunk strings share it too: loading
// is reading the file, checking it and restoring the embedder, nothing is
// refitted or copied. Version 1 files were gzip'd JSON whose embedder had
// to be refitted on every load, version 2 files had JSON chunks and an
// embedder without exact lexical postings, version 3 files no BM25
// postings, version 4 files one checksum over everything (read whole on
// every load), version 5 files no record of a provider's embedder or of
// the chunking (a version 5 reader would embed the questions of a
// provider's index offline); all are refused with a "rebuild" message.
const (
	indexMagic   = "RAGSCOPE"
	indexFormat  = "ragscope-index"
	indexVersion = 6
	headerLen    = len(indexMagic) + 8
)

// crcTable is the IEEE polynomial's: Go computes it with carry-less multiplication
// at over 10 GB/s, where Castagnoli's ran at 1.4 GB/s on the same machine and
// was most of a large load's CPU time.
var crcTable = crc32.IEEETable

// indexError is an index file problem. It matches retrieval.ErrConfig, so
// the CLI reports it as a configuration error.
type indexError struct{ msg string }

func (e *indexError) Error() string { return e.msg }
func (e *indexError) Unwrap() error { return retrieval.ErrConfig }

// Index file errors, for errors.Is.
var (
	// ErrCorruptIndex: the file is not a ragscope index or is damaged.
	ErrCorruptIndex error = &indexError{"not a readable ragscope index file"}
	// ErrIncompatibleIndex: the file was made by another ragscope version
	// or embedder.
	ErrIncompatibleIndex error = &indexError{"index file is incompatible with this ragscope"}
)

// missingError is a missing index file; it matches fs.ErrNotExist and
// retrieval.ErrNotFound.
type missingError struct{ path string }

func (e *missingError) Error() string {
	return fmt.Sprintf("index file %s does not exist: build one with \"ragscope index DOCS_DIR -o %s\"", e.path, e.path)
}

func (e *missingError) Unwrap() []error { return []error{fs.ErrNotExist, retrieval.ErrNotFound} }

// indexFile is the metadata section of an index file, plus the sections
// that are not JSON.
type indexFile struct {
	Format  string `json:"format"`
	Backend string `json:"backend"`
	Name    string `json:"name"`
	Model   string `json:"model"`
	Dim     int    `json:"dim"`
	// Provider is the provider whose model made the vectors ("" for the
	// offline embedder); Dimensions the vector size asked of it.
	Provider   string `json:"provider,omitempty"`
	Dimensions int    `json:"dimensions,omitempty"`
	// Chunking is how the chunks were cut.
	Chunking *Chunking `json:"chunking,omitempty"`
	DocsBase string    `json:"docs_base,omitempty"`
	SiteURL  string    `json:"site_url,omitempty"`
	// TrailingSlash is the site's trailingSlash setting ("true", "false", "").
	TrailingSlash string `json:"trailing_slash,omitempty"`
	// SiteDir is the site folder the docs were indexed from (Corpus.SiteDir).
	SiteDir string `json:"site_dir,omitempty"`
	// Stride is the number of floats stored per chunk when the vectors are
	// compact (their semantic part and their lexical part's norm: the
	// lexical cosines come from the embedder's postings); 0 when whole.
	Stride int `json:"stride,omitempty"`
	// Chunks are the indexed chunks, in their own section.
	Chunks []retrieval.Chunk `json:"-"`

	// Version is the header's format version.
	Version int `json:"-"`
	// Embedder is the fitted embedder's state (embed.Model.MarshalBinary),
	// empty for embedders that cannot save one: those are refitted.
	Embedder []byte `json:"-"`
	// state, when set, writes the embedder's state in place of Embedder,
	// a block at a time: a large state is not copied whole to be saved.
	state stateWriter
	// Vectors are the chunks' vectors, Dim floats each.
	Vectors []float32 `json:"-"`
	// BM25 is the lexical index over the chunks (nil when absent: a
	// damaged file).
	BM25 *bm25Index `json:"-"`
}

// encode writes f in the file layout.
func (f *indexFile) encode(w io.Writer) error {
	meta, err := json.Marshal(f)
	if err != nil {
		return err
	}
	crc := &summer{}
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<16)
	le := binary.LittleEndian
	var hdr []byte
	hdr = append(hdr, indexMagic...)
	hdr = le.AppendUint32(hdr, uint32(f.Version))
	hdr = le.AppendUint32(hdr, 0)
	bw.Write(hdr)
	var zeros [flat.Align]byte
	section := func(n, size int, data []byte) {
		bw.Write(le.AppendUint64(nil, uint64(n)))
		bw.Write(data)
		bw.Write(zeros[:flat.PadLen(n*size)])
	}
	section(len(meta), 1, meta)
	chunks := encodeChunks(f.Chunks)
	section(len(chunks), 1, chunks)
	// The embedder's state is left out of the checksum (it has its own).
	stateLen := len(f.Embedder)
	if f.state != nil {
		stateLen = f.state.StateLen()
	}
	bw.Write(le.AppendUint64(nil, uint64(stateLen)))
	if err := bw.Flush(); err != nil {
		return err
	}
	crc.skip = true
	if f.state != nil {
		if err := f.state.WriteState(bw); err != nil {
			return err
		}
	} else {
		bw.Write(f.Embedder)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	crc.skip = false
	bw.Write(zeros[:flat.PadLen(stateLen)])
	if f.BM25 == nil {
		section(0, 1, nil)
	} else {
		// Written in blocks: a large index's postings are not copied.
		n := f.BM25.encodedLen()
		bw.Write(le.AppendUint64(nil, uint64(n)))
		if err := f.BM25.write(bw); err != nil {
			return err
		}
		bw.Write(zeros[:flat.PadLen(n)])
	}
	bw.Write(le.AppendUint64(nil, uint64(len(f.Vectors))))
	buf := make([]byte, 0, 1<<16)
	for lo := 0; lo < len(f.Vectors); lo += 1 << 14 {
		buf = flat.AppendFloat32s(buf[:0], f.Vectors[lo:min(lo+1<<14, len(f.Vectors))])
		bw.Write(buf)
	}
	bw.Write(zeros[:flat.PadLen(4*len(f.Vectors))])
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err = w.Write(le.AppendUint32(nil, crc.sum))
	return err
}

// summer is the CRC-32 of what is written to it while skip is false.
type summer struct {
	sum  uint32
	skip bool
}

func (s *summer) Write(b []byte) (int, error) {
	if !s.skip {
		s.sum = crc32.Update(s.sum, crcTable, b)
	}
	return len(b), nil
}

// stateWriter is an embedder that streams its state (embed.Model): what
// WriteState writes is what MarshalBinary returns, StateLen bytes.
type stateWriter interface {
	StateLen() int
	WriteState(w io.Writer) error
}

// newIndexFile is the file content of ix and, if c is not nil, its
// corpus's base URL and embedder state.
func newIndexFile(ix *Index, c *Corpus) (*indexFile, error) {
	f := &indexFile{
		Format: indexFormat, Version: indexVersion,
		Backend: ix.info.Backend, Name: ix.info.Name, Model: ix.info.Model, Dim: ix.dim,
		Provider: ix.info.Provider, Dimensions: ix.info.Dimensions,
		Chunks:  ix.chunks,
		Vectors: ix.vecs,
		BM25:    ix.bm25,
	}
	switch {
	case ix.compact():
		f.Stride = ix.stride
	case ix.lex != nil && !ix.lex.LexicalInVectors():
		// The lexical parts are hashed and searches use the postings:
		// only their norms are needed, a fifth of the floats.
		f.Stride = ix.semDim + 1
		f.Vectors = make([]float32, 0, len(ix.chunks)*f.Stride)
		for i := range ix.chunks {
			f.Vectors = append(f.Vectors, compactVector(ix.vector(i), ix.semDim)...)
		}
	}
	if ix.info.Chunking.Unit != "" {
		ch := ix.info.Chunking
		f.Chunking = &ch
	}
	if c != nil {
		f.DocsBase, f.SiteURL, f.TrailingSlash, f.SiteDir = c.DocsBase, c.SiteURL, c.TrailingSlash, c.SiteDir
		if sw, ok := c.Embedder.(stateWriter); ok {
			f.state = sw
		} else if m, ok := c.Embedder.(encoding.BinaryMarshaler); ok {
			state, err := m.MarshalBinary()
			if err != nil {
				return nil, fmt.Errorf("embedder state: %w", err)
			}
			f.Embedder = state
		}
	}
	return f, nil
}

// SaveIndex writes ix (with the corpus's base URL, if c is not nil) to
// path by the rule of platform.WriteFile: a file is written atomically
// (to a temporary file next to it, synced to disk and renamed over it),
// so a reader never sees half a file and an interrupted or failed save
// (ctx cancelled, disk full) leaves the previous file intact and no
// temporary file behind; a symbolic link's target is replaced so, and
// the link kept; a named pipe or a device is written to directly.
func SaveIndex(ctx context.Context, path string, ix *Index, c *Corpus) (err error) {
	f, err := newIndexFile(ix, c)
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	err = platform.WriteFile(ctx, path, func(w io.Writer) error {
		if err := f.encode(w); err != nil {
			return err
		}
		// The last moment an interrupt can still keep the old file.
		return ctx.Err()
	})
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	return nil
}

// CheckWritable reports, before any work is done, whether an index can be
// saved to path (platform.CheckOutput): a file's folder must exist and
// accept new files (SaveIndex writes a temporary file there), and path
// must not be a folder; a named pipe or a device must be writable, and is
// not opened. The error matches retrieval.ErrConfig.
func CheckWritable(path string) error {
	if path == "" {
		return fmt.Errorf("%w: no index file given", retrieval.ErrConfig)
	}
	o, err := platform.CheckOutput(path)
	switch {
	case errors.Is(err, platform.ErrIsFolder):
		return fmt.Errorf("%w: cannot write the index to %s: it is a folder: give a file name, e.g. %s", retrieval.ErrConfig, path, filepath.Join(o.Target, "book.idx"))
	case err != nil && !o.Stream():
		return fmt.Errorf("%w: cannot write the index to %s: %w: choose a writable folder with -o", retrieval.ErrConfig, path, err)
	case err != nil:
		return fmt.Errorf("%w: cannot write the index to %s: %w", retrieval.ErrConfig, path, err)
	}
	return nil
}

// LoadOptions configures LoadIndex.
type LoadOptions struct {
	// NewEmbedder must be the constructor the index was built with
	// (default DefaultEmbedder).
	NewEmbedder EmbedderFunc
	// BaseURL overrides the docs base URL saved in the file.
	BaseURL string
	// QueryEmbedder builds the query embedder of an index whose vectors
	// come from a provider (info names the provider, model and
	// dimensions); without it such an index is an error. It may return a
	// nil embedder: the index then serves what needs no question (stats).
	QueryEmbedder func(ctx context.Context, info IndexInfo) (retrieval.Embedder, error)
}

// LoadIndex reads an index file written by SaveIndex. The default embedder
// is restored from the state saved in the file, without refitting; another
// (opts.NewEmbedder, or one that saved no state) is refitted on the chunk
// texts, which gives the embedder the index was built with (it is
// deterministic). Either way a spot check of a few stored vectors proves
// it. A missing file matches fs.ErrNotExist and retrieval.ErrNotFound; a
// damaged one, or one that is not an index (no index header, a folder, a
// named pipe, a device, larger than readlimit.IndexFile), ErrCorruptIndex;
// one from another ragscope or embedder ErrIncompatibleIndex. Every other
// error matches retrieval.ErrConfig too.
func LoadIndex(ctx context.Context, path string, opts LoadOptions) (*Index, *Corpus, error) {
	raw, err := readIndexBytes(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &missingError{path: path}
	}
	if errors.Is(err, ErrCorruptIndex) {
		return nil, nil, fmt.Errorf("load index: %w", err)
	}
	if err != nil {
		// Unreadable (no permission, an I/O error): the index setting
		// names a file that cannot be used.
		return nil, nil, fmt.Errorf("%w: load index: %w", retrieval.ErrConfig, err)
	}
	return loadIndexBytes(ctx, path, raw, opts)
}

// loadIndexBytes is LoadIndex of an index file's bytes, which the index
// then shares: raw must not change afterwards.
func loadIndexBytes(ctx context.Context, path string, raw []byte, opts LoadOptions) (ix *Index, c *Corpus, err error) {
	// The checksum is checked beside the decoding and the embedder's
	// restore; whatever they found, a mismatch is the error reported.
	wait := checksum(raw)
	defer func() {
		// A file that is not an index at all (no header) is said to be
		// that, not to have a wrong checksum.
		if cerr := wait(); cerr != nil && !olderFormat(raw) && isIndexHeader(raw) {
			ix, c, err = nil, nil, fmt.Errorf("load index %s: %w", path, cerr)
		}
	}()
	// The embedder's state is restored beside the decoding too.
	var restoring chan restoredModel
	if lo, hi := stateRange(raw[:max(len(raw)-4, 0)]); opts.NewEmbedder == nil && hi > lo && !olderFormat(raw) {
		restoring = make(chan restoredModel, 1)
		go func() {
			m, err := embed.Restore(raw[lo:hi])
			restoring <- restoredModel{m, err}
		}()
	}
	f, err := decodeUnchecked(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("load index %s: %w", path, err)
	}
	chunks := f.Chunks
	info := f.info()
	emb, err := fileEmbedder(ctx, path, f, info, opts, restoring)
	if err != nil {
		return nil, nil, err
	}
	if f.Provider == "" {
		// A provider's vectors are not re-embedded to be checked: that
		// would cost calls at every load.
		if err := spotCheck(ctx, emb, chunks, f.Vectors, f.Dim, f.Stride); err != nil {
			return nil, nil, fmt.Errorf("load index %s: %w", path, err)
		}
	}
	ix, err = newIndexStrided(chunks, f.Vectors, f.Dim, f.Stride, info)
	if err != nil {
		return nil, nil, fmt.Errorf("load index %s: %w: %w", path, ErrCorruptIndex, err)
	}
	ix.useLexical(emb)
	ix.bm25 = f.BM25
	if ix.compact() && ix.lex == nil {
		return nil, nil, fmt.Errorf("load index %s: %w: its compact vectors need the embedder's lexical postings: rebuild it with \"ragscope index\"", path, ErrIncompatibleIndex)
	}
	c = &Corpus{Embedder: emb, DocsBase: f.DocsBase, SiteURL: f.SiteURL, TrailingSlash: f.TrailingSlash, SiteDir: f.SiteDir, BaseSource: BaseFromFile}
	if f.DocsBase == "" {
		c.BaseSource = BaseFromDefault
	}
	if opts.BaseURL != "" {
		if err := c.setBase(opts.BaseURL); err != nil {
			return nil, nil, err
		}
	}
	return ix, c, nil
}

// info is what the index file says of how it was built.
func (f *indexFile) info() IndexInfo {
	backend := f.Backend
	if backend == "" {
		backend = BackendLocal
	}
	info := IndexInfo{Backend: backend, Name: f.Name, Model: f.Model, Provider: f.Provider, Dimensions: f.Dimensions}
	if f.Chunking != nil {
		info.Chunking = *f.Chunking
	}
	return info
}

// restoredModel is the embedder restored from an index file's state.
type restoredModel struct {
	m   *embed.Model
	err error
}

// fileEmbedder is the query embedder of the index file f: its
// provider's (providerEmbedder); else the one restored from its state
// (by restoring, when the load started that beside the decoding); else
// one LoadOptions.NewEmbedder fits to its chunks. A built-in embedder
// must have the name the file recorded.
func fileEmbedder(ctx context.Context, path string, f *indexFile, info IndexInfo, opts LoadOptions, restoring <-chan restoredModel) (retrieval.Embedder, error) {
	if f.Provider != "" {
		return providerEmbedder(ctx, path, info, f.Dim, opts)
	}
	var emb retrieval.Embedder
	if opts.NewEmbedder == nil && len(f.Embedder) > 0 {
		var r restoredModel
		if restoring != nil {
			r = <-restoring // decodeUnchecked found the state where stateRange did
		} else {
			r.m, r.err = embed.Restore(f.Embedder)
		}
		if r.err != nil {
			return nil, fmt.Errorf("load index %s: %w: %w: rebuild it with \"ragscope index\"", path, ErrIncompatibleIndex, r.err)
		}
		emb = r.m
	} else {
		emb = opts.NewEmbedder.orDefault()(embedTexts(f.Chunks))
	}
	if emb.Name() != f.Model {
		return nil, fmt.Errorf("load index %s: %w: it was built with the embedder %q, this ragscope has %q: rebuild it with \"ragscope index\"",
			path, ErrIncompatibleIndex, f.Model, emb.Name())
	}
	return emb, nil
}

// providerEmbedder is the query embedder of an index whose vectors come
// from info's provider (LoadOptions.QueryEmbedder), checked against the
// stored vector size when it knows its own.
func providerEmbedder(ctx context.Context, path string, info IndexInfo, dim int, opts LoadOptions) (retrieval.Embedder, error) {
	if opts.QueryEmbedder == nil {
		return nil, fmt.Errorf("load index %s: %w: its vectors come from %s, and no query embedder for it was given", path, ErrIncompatibleIndex, info.EmbedderLabel())
	}
	emb, err := opts.QueryEmbedder(ctx, info)
	if err != nil {
		return nil, err
	}
	if emb == nil {
		return nil, nil
	}
	if d := emb.Dim(); d > 0 && d != dim {
		return nil, fmt.Errorf("load index %s: %w: it holds %d-dimensional vectors of %s, and that embedder now makes %d: rebuild it with \"ragscope index --embedder %s\"",
			path, ErrIncompatibleIndex, dim, info.EmbedderLabel(), d, info.Provider)
	}
	return emb, nil
}

// spotCheck re-embeds a few chunks and compares them with the stored
// vectors: a refitted embedder that disagrees would make every query wrong.
func spotCheck(ctx context.Context, emb retrieval.Embedder, chunks []retrieval.Chunk, flatVecs []float32, dim, stride int) error {
	if len(chunks) == 0 {
		return nil
	}
	picks := []int{0, len(chunks) / 2, len(chunks) - 1}
	sample := make([]string, len(picks))
	vecs := make([][]float32, len(chunks))
	for k, i := range picks {
		sample[k] = embedText(&chunks[i])
		vecs[i] = flatVecs[i*stride : (i+1)*stride]
	}
	got, err := emb.Embed(ctx, sample)
	if err == nil && len(got) != len(sample) {
		err = fmt.Errorf("the embedder returned %d vectors for %d texts", len(got), len(sample))
	}
	if err != nil {
		return fmt.Errorf("check vectors: %w", err)
	}
	for k, i := range picks {
		if stride != dim && len(got[k]) == dim {
			got[k] = compactVector(got[k], stride-1)
		}
		if len(got[k]) != len(vecs[i]) {
			return fmt.Errorf("%w: stored vectors have %d dimensions, the embedder gives %d: rebuild it with \"ragscope index\"",
				ErrIncompatibleIndex, len(vecs[i]), len(got[k]))
		}
		a, b := normalized(got[k]), normalized(vecs[i])
		if d := dot(a, b); d < 0.999 && !(isZero(a) && isZero(b)) {
			return fmt.Errorf("%w: stored vectors differ from this embedder's (cosine %.3f for chunk %d): rebuild it with \"ragscope index\"",
				ErrIncompatibleIndex, d, i)
		}
	}
	return nil
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
