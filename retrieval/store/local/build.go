package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/store/local/embed"
)

// Backend names reported in stats.
const (
	// BackendLocal is an index of the user's own docs.
	BackendLocal = "local"
	// BackendDemo is the embedded demo textbook.
	BackendDemo = "demo"
)

// Where a corpus's docs base URL came from.
const (
	BaseFromFlag    = "flag"
	BaseFromConfig  = "docusaurus-config"
	BaseFromFile    = "index-file"
	BaseFromDefault = "default"
)

// BuildOptions configures Build.
type BuildOptions struct {
	// Chunk configures the chunker; Chunk.DocsDir is the docs folder in the
	// file system given to Build (default "docs").
	Chunk ChunkOptions
	// BaseURL is the published URL of the docs route (from a flag), e.g.
	// "https://owner.github.io/book/docs/". When empty it is read from a
	// docusaurus.config.{js,ts,…} in the docs folder's parent.
	BaseURL string
	// Backend and Name label the index in stats (defaults "local" and the
	// docs folder's name).
	Backend string
	Name    string
	// NewEmbedder makes the embedder from the texts to index (default
	// DefaultEmbedder).
	NewEmbedder EmbedderFunc
	// Docs, when set, embeds the chunks with a provider's model instead
	// (NewEmbedder is then unused); the index records the provider, model
	// and dimensions, and its corpus has no query embedder (the caller
	// builds the provider's).
	Docs *DocEmbedding
	// FollowSymlinks makes BuildDir index files and folders under the docs
	// folder whose symbolic links lead outside it; by default they are
	// skipped with a warning. Links to folders are followed once each: a
	// link back to a folder it is in (a loop) is skipped with a warning.
	FollowSymlinks bool
	// Progress, if not nil, is told how the build goes: each phase
	// starts with done 0 and ends with done == total. It is called from
	// one goroutine at a time and must be quick.
	Progress func(phase string, done, total int)
}

// DocEmbedding embeds a build's chunk texts with a provider's model.
type DocEmbedding struct {
	// Provider and Model name what embeds; Dimensions is the vector size
	// asked of it (0: the model's own).
	Provider, Model string
	Dimensions      int
	// Embed returns one vector per text, in order, calling progress (if
	// not nil) with the number of texts done so far, from one goroutine at
	// a time.
	Embed func(ctx context.Context, texts []string, progress func(done int)) ([][]float32, error)
}

// Build phases, as reported to BuildOptions.Progress.
const (
	// PhaseFit is fitting the embedder to the chunks (total 1).
	PhaseFit = "fitting the embedder"
	// PhaseEmbed is embedding the chunks (total: the chunks).
	PhaseEmbed = "embedding chunks"
)

func report(fn func(string, int, int), phase string, done, total int) {
	if fn != nil {
		fn(phase, done, total)
	}
}

// Corpus is what a built or loaded index comes with: the embedder fitted to
// its texts (queries must be embedded with it) and where citations point.
type Corpus struct {
	// Embedder embeds queries the way the index was built.
	Embedder retrieval.Embedder
	// DocsBase is the URL of the docs route ("" when unknown: the URL
	// builder then uses "/docs/").
	DocsBase string
	// SiteURL is the site origin, when known.
	SiteURL string
	// BaseSource says where DocsBase came from: "flag",
	// "docusaurus-config", "index-file" or "default".
	BaseSource string
	// ConfigFile is the Docusaurus config read, if any.
	ConfigFile string
	// TrailingSlash is the site's trailingSlash setting ("true", "false" or
	// "" when undefined or unknown), which citation URLs follow.
	TrailingSlash string
	// SiteDir is the absolute path of the Docusaurus site folder (the one
	// with docusaurus.config.js) the docs folder sits in, when it was built
	// from one on disk; an index file keeps it so that its links can be
	// audited against the same site without --site.
	SiteDir string
	// Warnings are the chunker's warnings (empty for a loaded index).
	Warnings []Warning
	// Pages is the number of pages indexed and Skipped the number of files
	// skipped with a warning (both 0 for a loaded index).
	Pages, Skipped int
}

// URLBuilder returns the citation URL builder for the corpus.
func (c *Corpus) URLBuilder(style docusaurus.SlugStyle) retrieval.URLBuilder {
	return retrieval.URLBuilder{DocsBase: c.DocsBase, SiteURL: c.SiteURL, Style: style, TrailingSlash: c.TrailingSlash}
}

// Build chunks the markdown under opts.Chunk.DocsDir of fsys, fits the
// embedder to the chunks and indexes their vectors. Chunks carry no URL:
// the pipeline builds citations from their doc path, page slug and heading
// with the configured slug style and the corpus's DocsBase.
func Build(ctx context.Context, fsys fs.FS, opts BuildOptions) (*Index, *Corpus, error) {
	_, statErr := fs.Stat(fsys, opts.Chunk.docsDir())
	chunks, warns, err := ChunkDocs(ctx, fsys, opts.Chunk)
	if statErr == nil && errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrNoMarkdown) {
		// A folder vanished between being listed and being read.
		return nil, nil, fmt.Errorf("%w: docs folder %s changed or disappeared while it was being indexed (%w): nothing was written; run the command again",
			retrieval.ErrConfig, opts.Chunk.docsDir(), err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("build index: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("build index: %w", err)
	}
	// BM25's postings first: their counting's garbage is gone before the
	// embedder's fitting and embedding, the build's peak.
	lex, err := newBM25Index(ctx, chunks)
	if err != nil {
		return nil, nil, fmt.Errorf("build index: %w", err)
	}
	texts := embedTexts(chunks)
	var emb retrieval.Embedder
	var vecs []float32
	var dim int
	info := IndexInfo{Backend: opts.Backend, Name: opts.Name, Chunking: opts.Chunk.Chunking()}
	switch {
	case opts.Docs != nil:
		vecs, dim, err = embedDocs(ctx, opts.Docs, texts, opts.Progress)
		info.Model, info.Provider, info.Dimensions = opts.Docs.Model, opts.Docs.Provider, opts.Docs.Dimensions
	case opts.NewEmbedder == nil:
		emb, vecs, dim, err = fitEmbedDefault(ctx, texts, opts.Progress)
	default:
		emb, vecs, dim, err = fitThenEmbed(ctx, opts.NewEmbedder, texts, opts.Progress)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("build index: %w", err)
	}
	if emb != nil {
		info.Model = emb.Name()
	}
	docsDir := opts.Chunk.docsDir()
	if info.Backend == "" {
		info.Backend = BackendLocal
	}
	if info.Name == "" {
		info.Name = path.Base(docsDir)
	}
	ix, err := newIndexFlat(chunks, vecs, dim, info)
	if err != nil {
		return nil, nil, fmt.Errorf("build index: %w", err)
	}
	ix.useLexical(emb)
	ix.bm25 = lex
	corpus := &Corpus{Embedder: emb, Warnings: warns, BaseSource: BaseFromDefault}
	pages := map[string]bool{}
	for i := range chunks {
		pages[chunks[i].DocPath] = true
	}
	corpus.Pages, corpus.Skipped = len(pages), skippedFiles(pages, warns)
	if opts.BaseURL != "" {
		if err := corpus.setBase(opts.BaseURL); err != nil {
			return nil, nil, err
		}
	}
	if cfg, file, ok := docusaurus.FindConfig(fsys, path.Dir(docsDir)); ok {
		if opts.BaseURL == "" && cfg.Origin() != "" {
			corpus.DocsBase, corpus.SiteURL = cfg.CurrentDocsBase(fsys, path.Dir(docsDir)), cfg.Origin()
			corpus.BaseSource = BaseFromConfig
		}
		corpus.ConfigFile = file
		corpus.TrailingSlash = cfg.TrailingSlashSetting()
	}
	return ix, corpus, nil
}

// setBase takes a docs base URL from a flag: absolute ("https://x.io/b/docs/")
// or site-relative ("/b/docs/").
func (c *Corpus) setBase(base string) error {
	base = strings.TrimSpace(base)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme == "" && !strings.HasPrefix(base, "/")) || (u.Scheme != "" && u.Host == "") {
		return fmt.Errorf("%w: base URL %q: give the docs URL, e.g. https://owner.github.io/book/docs/", retrieval.ErrConfig, base)
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	c.DocsBase, c.BaseSource = base, BaseFromFlag
	if u.Scheme != "" {
		c.SiteURL = u.Scheme + "://" + u.Host
	}
	return nil
}

// BuildDir builds an index of the docs folder dir on disk; its parent is
// searched for a Docusaurus config when opts.BaseURL is empty.
func BuildDir(ctx context.Context, dir string, opts BuildOptions) (*Index, *Corpus, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: docs folder %s: %w", retrieval.ErrConfig, dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: docs folder %s: %w", retrieval.ErrConfig, dir, err)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("%w: docs folder %s is a file: give the folder that holds the .md files", retrieval.ErrConfig, dir)
	}
	parent := filepath.Dir(abs)
	opts.Chunk.DocsDir = filepath.Base(abs)
	if parent == abs { // the file system root
		return nil, nil, fmt.Errorf("%w: docs folder %s: the root folder cannot be indexed", retrieval.ErrConfig, dir)
	}
	if opts.Name == "" {
		opts.Name = filepath.Base(abs)
	}
	fsys, err := newConfinedFS(parent, opts.Chunk.DocsDir, opts.FollowSymlinks)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: docs folder %s: %w", retrieval.ErrConfig, dir, err)
	}
	ix, c, err := Build(ctx, fsys, opts)
	if err == nil {
		if docusaurus.HasConfig(parent) {
			c.SiteDir = parent
		}
	}
	if errors.Is(err, ErrNoMarkdown) {
		// Pointing at the wrong folder is a configuration problem.
		err = fmt.Errorf("%w: %w", retrieval.ErrConfig, err)
	}
	return ix, c, err
}

// fitThenEmbed fits the embedder newEmb makes to texts and embeds them
// with it, reporting both phases to progress.
func fitThenEmbed(ctx context.Context, newEmb EmbedderFunc, texts []string, progress func(string, int, int)) (retrieval.Embedder, []float32, int, error) {
	report(progress, PhaseFit, 0, 1)
	emb, err := fitEmbedder(ctx, newEmb, texts)
	if err != nil {
		return nil, nil, 0, err
	}
	report(progress, PhaseFit, 1, 1)
	vecs, dim, err := embedAll(ctx, emb, texts, func(done int) { report(progress, PhaseEmbed, done, len(texts)) })
	if err != nil {
		return nil, nil, 0, err
	}
	return emb, vecs, dim, nil
}

// embedDocs embeds texts with a provider's model (d.Embed) and returns
// the vectors L2-normalised, back to back, dim floats each.
func embedDocs(ctx context.Context, d *DocEmbedding, texts []string, progress func(string, int, int)) ([]float32, int, error) {
	report(progress, PhaseEmbed, 0, len(texts))
	vecs, err := d.Embed(ctx, texts, func(done int) { report(progress, PhaseEmbed, done, len(texts)) })
	if err != nil {
		return nil, 0, fmt.Errorf("embed %d chunks with %s %s: %w", len(texts), d.Provider, d.Model, err)
	}
	if len(vecs) != len(texts) {
		return nil, 0, fmt.Errorf("embed %d chunks with %s %s: %d vectors came back", len(texts), d.Provider, d.Model, len(vecs))
	}
	if len(vecs) == 0 {
		return nil, 0, nil
	}
	dim := len(vecs[0])
	flat := make([]float32, 0, len(vecs)*dim)
	for i, v := range vecs {
		if len(v) != dim || dim == 0 {
			return nil, 0, fmt.Errorf("embed %d chunks with %s %s: vector %d has %d dimensions, want %d", len(texts), d.Provider, d.Model, i, len(v), dim)
		}
		flat = append(flat, normalized(v)...)
	}
	return flat, dim, nil
}

// fitEmbedDefault is fitThenEmbed for the default embedder, which fits and
// embeds its corpus in one go (embed.FitEmbed: the same model and vectors
// at about half the time and memory).
func fitEmbedDefault(ctx context.Context, texts []string, progress func(string, int, int)) (retrieval.Embedder, []float32, int, error) {
	report(progress, PhaseFit, 0, 1)
	fitted := false
	m, vecs, err := embed.FitEmbed(ctx, texts, func(done int) {
		if !fitted {
			fitted = true
			report(progress, PhaseFit, 1, 1)
		}
		report(progress, PhaseEmbed, done, len(texts))
	})
	if err != nil {
		return nil, nil, 0, err
	}
	if len(texts) == 0 {
		return m, nil, 0, nil
	}
	dim := m.Dim()
	for lo := 0; lo < len(vecs); lo += dim {
		normalizeInPlace(vecs[lo : lo+dim])
	}
	return m, vecs, dim, nil
}

// fitEmbedder fits the embedder to texts, returning as soon as ctx is done:
// fitting a large corpus takes seconds and has no cancellation of its own,
// so on Ctrl+C it is abandoned (its goroutine finishes in the background
// and its result is dropped) rather than waited for.
func fitEmbedder(ctx context.Context, newEmb EmbedderFunc, texts []string) (retrieval.Embedder, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	done := make(chan retrieval.Embedder, 1)
	go func() { done <- newEmb(texts) }()
	select {
	case emb := <-done:
		return emb, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("fit the embedder: %w", ctx.Err())
	}
}

// embedBatch is the number of texts embedAll hands the embedder at once.
const embedBatch = 256

// embedAll embeds texts, a batch at a time across the CPUs (the embedders
// are safe for concurrent use), checks the embedder's answer and returns
// the vectors L2-normalised, back to back, dim floats each: no per-chunk
// vectors stay behind. progress, if not nil, is called with the number of
// texts embedded so far, from one goroutine at a time.
func embedAll(ctx context.Context, emb retrieval.Embedder, texts []string, progress func(done int)) ([]float32, int, error) {
	if len(texts) == 0 {
		return nil, 0, nil
	}
	dim := emb.Dim()
	if dim <= 0 {
		first, err := emb.Embed(ctx, texts[:1])
		if err != nil {
			return nil, 0, fmt.Errorf("embed %d chunks: %w", len(texts), err)
		}
		if len(first) != 1 || len(first[0]) == 0 {
			return nil, 0, fmt.Errorf("embed %d chunks: the embedder returned no vector", len(texts))
		}
		dim = len(first[0])
	}
	flat := make([]float32, len(texts)*dim)
	batches := (len(texts) + embedBatch - 1) / embedBatch
	var next atomic.Int64
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	for range min(runtime.GOMAXPROCS(0), batches) {
		g.Go(func() error {
			for {
				b := int(next.Add(1)) - 1
				if b >= batches {
					return nil
				}
				lo, hi := b*embedBatch, min((b+1)*embedBatch, len(texts))
				part, err := emb.Embed(gctx, texts[lo:hi])
				if err != nil {
					return err
				}
				if len(part) != hi-lo {
					return fmt.Errorf("embedder returned %d vectors for %d texts", len(part), hi-lo)
				}
				for k, v := range part {
					if len(v) != dim {
						return fmt.Errorf("vector %d has %d dimensions, want %d", lo+k, len(v), dim)
					}
					copy(flat[(lo+k)*dim:(lo+k+1)*dim], normalized(v))
				}
				if progress != nil {
					mu.Lock()
					done += hi - lo
					progress(done)
					mu.Unlock()
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("embed %d chunks: %w", len(texts), err)
	}
	return flat, dim, nil
}
