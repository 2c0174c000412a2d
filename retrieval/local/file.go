package local

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"ragscope/retrieval"
)

// The index file: gzip'd JSON with a format name and version, the chunks,
// the model name and the vectors as little-endian float32 (base64 in JSON).
const (
	indexFormat  = "ragscope-index"
	indexVersion = 1
)

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

type indexFile struct {
	Format   string `json:"format"`
	Version  int    `json:"version"`
	Backend  string `json:"backend"`
	Name     string `json:"name"`
	Model    string `json:"model"`
	Dim      int    `json:"dim"`
	DocsBase string `json:"docs_base,omitempty"`
	SiteURL  string `json:"site_url,omitempty"`
	// TrailingSlash is the site's trailingSlash setting ("true", "false", "").
	TrailingSlash string            `json:"trailing_slash,omitempty"`
	Chunks        []retrieval.Chunk `json:"chunks"`
	Vectors       []byte            `json:"vectors"`
}

// SaveIndex writes ix (with the corpus's base URL, if c is not nil) to
// path, atomically: the file is written to a temporary file next to path,
// synced to disk and renamed over path, so a reader never sees half a file
// and an interrupted or failed save (ctx cancelled, disk full) leaves the
// previous file intact and no temporary file behind.
func SaveIndex(ctx context.Context, path string, ix *Index, c *Corpus) (err error) {
	f := indexFile{
		Format: indexFormat, Version: indexVersion,
		Backend: ix.info.Backend, Name: ix.info.Name, Model: ix.info.Model, Dim: ix.dim,
		Chunks:  ix.chunks,
		Vectors: make([]byte, 4*len(ix.vecs)),
	}
	if c != nil {
		f.DocsBase, f.SiteURL, f.TrailingSlash = c.DocsBase, c.SiteURL, c.TrailingSlash
	}
	for i, x := range ix.vecs {
		binary.LittleEndian.PutUint32(f.Vectors[4*i:], math.Float32bits(x))
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	zw := gzip.NewWriter(bw)
	if err := json.NewEncoder(zw).Encode(&f); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	// The last moment an interrupt can still keep the old file.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	// Sync the folder so that the rename itself survives a crash; not every
	// file system supports it, and the file is already complete, so a
	// failure here is not an error.
	if d, derr := os.Open(filepath.Dir(path)); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// CheckWritable reports, before any work is done, whether an index can be
// saved to path: its folder must exist and accept new files (SaveIndex
// writes a temporary file there), and path must not be a folder. The error
// matches retrieval.ErrConfig.
func CheckWritable(path string) error {
	if path == "" {
		return fmt.Errorf("%w: no index file given", retrieval.ErrConfig)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%w: cannot write the index to %s: it is a folder: give a file name, e.g. %s", retrieval.ErrConfig, path, filepath.Join(path, "book.idx"))
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%w: cannot write the index to %s: folder %s: %w", retrieval.ErrConfig, path, dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: cannot write the index to %s: %s is not a folder", retrieval.ErrConfig, path, dir)
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("%w: cannot write the index to %s: %w: choose a writable folder with -o", retrieval.ErrConfig, path, err)
	}
	probe.Close()
	if err := os.Remove(probe.Name()); err != nil {
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
}

// LoadIndex reads an index file written by SaveIndex and refits the
// embedder on the chunk texts, which gives the embedder the index was built
// with (it is deterministic); a spot check of a few stored vectors proves
// it. A missing file matches fs.ErrNotExist and retrieval.ErrNotFound; a
// damaged one ErrCorruptIndex; one from another ragscope or embedder
// ErrIncompatibleIndex.
func LoadIndex(ctx context.Context, path string, opts LoadOptions) (*Index, *Corpus, error) {
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &missingError{path: path}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load index: %w", err)
	}
	defer fh.Close()
	f, err := decodeIndexFile(fh)
	if err != nil {
		return nil, nil, fmt.Errorf("load index %s: %w", path, err)
	}
	chunks := f.Chunks
	texts := embedTexts(chunks)
	emb := opts.NewEmbedder.orDefault()(texts)
	if emb.Name() != f.Model {
		return nil, nil, fmt.Errorf("load index %s: %w: it was built with the embedder %q, this ragscope has %q: rebuild it with \"ragscope index\"",
			path, ErrIncompatibleIndex, f.Model, emb.Name())
	}
	vecs := make([][]float32, len(chunks))
	for i := range vecs {
		v := make([]float32, f.Dim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(f.Vectors[4*(i*f.Dim+j):]))
		}
		vecs[i] = v
	}
	if err := spotCheck(ctx, emb, texts, vecs); err != nil {
		return nil, nil, fmt.Errorf("load index %s: %w", path, err)
	}
	backend := f.Backend
	if backend == "" {
		backend = BackendLocal
	}
	ix, err := NewIndex(chunks, vecs, IndexInfo{Backend: backend, Name: f.Name, Model: f.Model})
	if err != nil {
		return nil, nil, fmt.Errorf("load index %s: %w: %w", path, ErrCorruptIndex, err)
	}
	c := &Corpus{Embedder: emb, DocsBase: f.DocsBase, SiteURL: f.SiteURL, TrailingSlash: f.TrailingSlash, BaseSource: BaseFromFile}
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

// decodeIndexFile reads and validates the file's structure.
func decodeIndexFile(r io.Reader) (*indexFile, error) {
	zr, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("%w (%v): build one with \"ragscope index DOCS_DIR -o FILE\"", ErrCorruptIndex, err)
	}
	defer zr.Close()
	var f indexFile
	if err := json.NewDecoder(zr).Decode(&f); err != nil {
		return nil, fmt.Errorf("%w (%v): rebuild it with \"ragscope index\"", ErrCorruptIndex, err)
	}
	if f.Format != indexFormat {
		return nil, fmt.Errorf("%w: format %q, want %q", ErrCorruptIndex, f.Format, indexFormat)
	}
	if f.Version != indexVersion {
		return nil, fmt.Errorf("%w: format version %d, this ragscope reads version %d: rebuild it with \"ragscope index\"",
			ErrIncompatibleIndex, f.Version, indexVersion)
	}
	if f.Dim < 0 || (len(f.Chunks) > 0 && f.Dim == 0) || len(f.Vectors) != 4*f.Dim*len(f.Chunks) {
		return nil, fmt.Errorf("%w: %d bytes of vectors for %d chunks of dimension %d", ErrCorruptIndex, len(f.Vectors), len(f.Chunks), f.Dim)
	}
	return &f, nil
}

// spotCheck re-embeds a few chunks and compares them with the stored
// vectors: a refitted embedder that disagrees would make every query wrong.
func spotCheck(ctx context.Context, emb retrieval.Embedder, texts []string, vecs [][]float32) error {
	if len(texts) == 0 {
		return nil
	}
	picks := []int{0, len(texts) / 2, len(texts) - 1}
	sample := make([]string, len(picks))
	for k, i := range picks {
		sample[k] = texts[i]
	}
	got, err := embedAll(ctx, emb, sample)
	if err != nil {
		return fmt.Errorf("check vectors: %w", err)
	}
	for k, i := range picks {
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
