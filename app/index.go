package app

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"

	"ragscope/config"
	"ragscope/internal/platform"
	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedcache"
	"ragscope/retrieval/store/local"
)

// IndexJob describes a local index build: the docs folder, the file to
// save, and the callbacks that show its progress.
type IndexJob struct {
	// Docs is the docs folder (or the site folder holding it); Out the
	// index file to write.
	Docs, Out string
	// FollowSymlinks indexes files whose links lead outside Docs.
	FollowSymlinks bool
	// Settings gives the citation base URL and the chunker's facets.
	Settings config.Config
	// Note receives remarks (a symbolic link written through, a site
	// folder's docs folder taken); Warn the build's warnings. Either may
	// be nil.
	Note, Warn func(msg string)
	// Progress shows a stage's progress; Clear clears it. Either may be nil.
	Progress func(stage string, done, total int)
	Clear    func()
	// Before runs once the output is locked, as the build starts.
	Before func()
	// Check, when set, reads the built index before it is saved (e.g. the
	// chunks over a model's input); an error stops the build.
	Check func(ctx context.Context, ix retrieval.Walker) error

	// Embedder names the provider whose model embeds the chunks (a row of
	// Providers: cohere, openai, gemini); "", auto and local keep the
	// offline embedder. Model is its model ("": the provider's default),
	// Dimensions the vector size asked of it (0: the model's own).
	Embedder, Model string
	Dimensions      int
	// Concurrency is the embedding calls in flight (0: the provider's
	// IndexCalls).
	Concurrency int
	// CacheDir is the folder of the document vector cache ("" keeps
	// nothing between runs; EmbedCacheDir is the user's).
	CacheDir string
	// Providers is the provider table (Providers() when nil).
	Providers Table
	// Log is the debug log (nil: none): the provider may record its calls
	// there (EmbedOptions.Log), and the build records each embedding
	// pass. Its writer must hide the configuration's secrets.
	Log *slog.Logger
	// ChunkChars bounds chunks in characters (0: DefaultChunkChars);
	// Overlap is the words a chunk repeats of the one before (0: none);
	// Split is headings or size ("": DefaultSplit). The command line's
	// defaults are DefaultChunkChars, DefaultOverlap and DefaultSplit.
	ChunkChars, Overlap int
	Split               string
}

// How pages are cut (IndexJob.Split).
const (
	SplitHeadings = local.SplitHeadings
	SplitSize     = local.SplitSize
)

// The chunking of local indexes (ragscope index, --docs, the demo): at
// headings, 1500 characters, no overlap. Measured against the other
// chunkings on the tuning halves of the reader-phrased sets and confirmed
// on their held-back halves (local's TestTuneReaderChunking and
// TestChunkingDefaultChosenOnHeldBack; the chunking table in docs/performance.md).
const (
	DefaultSplit      = local.SplitHeadings
	DefaultChunkChars = local.DefaultMaxChars
	DefaultOverlap    = 0
)

// Chunking bounds (IndexJob.ChunkChars, Overlap).
const (
	// MinChunkChars is the smallest --chunk-size.
	MinChunkChars = 200
	// charsPerWord estimates a word's characters with its space, to bound
	// --overlap (words) by --chunk-size (characters).
	charsPerWord = 6
)

// chunkOptions are the job's chunker options, checked: the error matches
// retrieval.ErrConfig.
func (job IndexJob) chunkOptions() (local.ChunkOptions, error) {
	o := ChunkOptions(job.Settings)
	split, err := local.ParseSplit(cmp.Or(job.Split, DefaultSplit))
	if err != nil {
		return o, fmt.Errorf("%w: --split: %w", retrieval.ErrConfig, err)
	}
	size := cmp.Or(job.ChunkChars, DefaultChunkChars)
	switch {
	case size < MinChunkChars:
		return o, fmt.Errorf("%w: --chunk-size %d: give at least %d characters (the default is %d)", retrieval.ErrConfig, job.ChunkChars, MinChunkChars, DefaultChunkChars)
	case job.Overlap < 0:
		return o, fmt.Errorf("%w: --overlap %d: give 0 or more words", retrieval.ErrConfig, job.Overlap)
	case 2*job.Overlap*charsPerWord >= size:
		return o, fmt.Errorf("%w: --overlap %d: give less than half the chunk size (%d characters, about %d words)", retrieval.ErrConfig, job.Overlap, size, size/charsPerWord)
	}
	o.MaxChars, o.Overlap, o.Split = size, job.Overlap, split
	return o, nil
}

// IndexEmbedder reports whether name asks for a provider's embeddings
// (not "", auto or local).
func IndexEmbedder(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", config.EmbedderAuto, config.EmbedderLocal:
		return false
	}
	return true
}

// docEmbedding is the job's provider embedding, built before any work: a
// missing key or an unknown model stops the build at once (nil: the
// offline embedder). usage reports the tokens and calls when it is done.
func (job IndexJob) docEmbedding(ctx context.Context, res *IndexResult) (*local.DocEmbedding, error) {
	if !IndexEmbedder(job.Embedder) {
		return nil, nil
	}
	t := job.Providers
	if t == nil {
		t = Providers()
	}
	name := strings.ToLower(strings.TrimSpace(job.Embedder))
	p, ok := t.Lookup(name)
	if !ok || p.NewEmbedder == nil {
		return nil, fmt.Errorf("%w: --embedder %s cannot embed an index: use %s, or leave --embedder out for the offline embedder", retrieval.ErrConfig, job.Embedder, listOr(t.embedNames(), ", ", " or "))
	}
	model := job.Model
	if model == "" {
		model = p.DefaultEmbedModel
	}
	emb, err := p.embedder(ctx, EmbedOptions{
		Config: job.Settings, Model: model, Dimensions: job.Dimensions, Timeout: job.Settings.Timeout,
		Documents: true, MaxAttempts: indexAttempts, NoCache: true, Log: job.Log,
	})
	if err != nil {
		return nil, err
	}
	var store *embedcache.Store
	if job.CacheDir != "" {
		store = embedcache.Open(job.CacheDir, embedcache.Key{Provider: p.Name, Model: emb.Name(), Dimensions: job.Dimensions, InputType: p.DocInputType})
	}
	conc := job.Concurrency
	if conc <= 0 {
		conc = max(p.IndexCalls, 1)
	}
	res.Provider, res.Concurrency = p.Name, conc
	return &local.DocEmbedding{
		Provider: p.Name, Model: emb.Name(), Dimensions: job.Dimensions,
		Embed: func(ctx context.Context, texts []string, progress func(int)) ([][]float32, error) {
			r, err := embedcache.EmbedAll(ctx, emb, store, texts, embedcache.Options{Batch: p.MaxBatch, BatchTokens: p.MaxBatchTokens, Concurrency: conc, Progress: progress})
			res.Calls, res.Embedded, res.Cached = r.Calls, r.Embedded, r.Cached
			if tc, ok := emb.(interface{ Tokens() int64 }); ok && tc.Tokens() > 0 {
				res.Tokens = tc.Tokens()
			} else if r.Embedded > 0 {
				res.Tokens, res.TokensEstimated = int64(r.EstimatedTokens), true
			}
			if job.Log != nil {
				job.Log.Debug("index embeddings", "provider", p.Name, "model", emb.Name(), "texts", len(texts),
					"calls", r.Calls, "embedded", r.Embedded, "cached", r.Cached, "error", err)
			}
			return r.Vectors, err
		},
	}, nil
}

// indexAttempts is the attempts of one embedding call of an index build:
// more patient than a question's, since a long build meets rate limits.
const indexAttempts = 5

// IndexResult is what a build made.
type IndexResult struct {
	// Docs is the docs folder indexed; Target the file written (Out, or
	// the file its link leads to).
	Docs, Target string
	// Pages, Chunks and Skipped count the pages read, the chunks made and
	// the files skipped.
	Pages, Chunks, Skipped int
	// Model and Dim are the offline embedder's.
	Model string
	Dim   int
	// DocsBase is the citation base ("" when none was found).
	DocsBase string
	// Layout says how modules are derived (LayoutNote).
	Layout string
	// Chunking is how the chunks were cut.
	Chunking local.Chunking
	// Provider is the provider that embedded the chunks ("" offline);
	// Concurrency its calls in flight. Calls counts the embedding calls,
	// Embedded the texts sent, Cached those the cache answered; Tokens the
	// input tokens, as the provider counted them or, when it does not
	// (TokensEstimated), estimated. Set even when the build failed.
	Provider                string
	Concurrency             int
	Calls, Embedded, Cached int
	Tokens                  int64
	TokensEstimated         bool
}

// BuildIndex chunks every markdown page under the job's docs folder,
// embeds the chunks with the offline embedder and saves the index. The
// output is checked and locked before any work: a second build writing
// the same file stops at once, and a failed one leaves the old file.
func BuildIndex(ctx context.Context, job IndexJob) (IndexResult, error) {
	chunkOpts, err := job.chunkOptions()
	if err != nil {
		return IndexResult{}, err
	}
	var res IndexResult
	docs, err := job.docEmbedding(ctx, &res)
	if err != nil {
		return res, err
	}
	target, unlock, err := job.claimOutput()
	if err != nil {
		return IndexResult{}, err
	}
	defer unlock()
	if job.Before != nil {
		job.Before()
	}
	docsDir := job.Docs
	if d, ok := SiteDocsDir(docsDir); ok {
		job.note(docsDir + " is a Docusaurus site folder: indexing its docs folder " + d)
		docsDir = d
	}
	ix, corpus, err := job.build(ctx, docsDir, local.BuildOptions{
		BaseURL: job.Settings.DocsBaseURL, FollowSymlinks: job.FollowSymlinks, Progress: job.progress, Chunk: chunkOpts, Docs: docs,
	})
	if err != nil {
		return res, err
	}
	job.progress("saving "+job.Out, 0, 1)
	err = local.SaveIndex(ctx, target, ix, corpus)
	job.clear()
	if err != nil {
		return res, err
	}
	res.Docs, res.Target = docsDir, target
	res.Pages, res.Chunks, res.Skipped = corpus.Pages, ix.Len(), corpus.Skipped
	res.Model, res.Dim, res.DocsBase = ix.Info().Model, ix.Dim(), corpus.DocsBase
	res.Layout, res.Chunking = LayoutNote(job.Settings, docsDir), ix.Info().Chunking
	return res, nil
}

// claimOutput checks the job's output before any work and locks it: the
// file the index is written to (through a symbolic link -o names, which
// is kept) and the unlock to call once the index is saved. A read-only or
// missing folder, or another build writing the same file, is an error
// now rather than after the build. A named pipe or a device is written to
// directly: nothing to lock.
func (job IndexJob) claimOutput() (target string, unlock func(), err error) {
	o, err := platform.ResolveOutput(job.Out)
	if err != nil {
		return "", nil, fmt.Errorf("%w: cannot write the index to %s: %w", retrieval.ErrConfig, job.Out, err)
	}
	target = o.Target
	if o.Linked() {
		job.note(job.Out + " is a symbolic link: the index is written to the file it leads to, " + target + " (the link is kept)")
	}
	if err := local.CheckWritable(target); err != nil {
		return "", nil, err
	}
	if o.Stream() {
		return target, func() {}, nil
	}
	unlock, err = local.LockOutput(target)
	if err != nil {
		return "", nil, err
	}
	return target, unlock, nil
}

// build reads and chunks the pages under docsDir and embeds them, passes
// the build's warnings on, and lets the job's Check read the index before
// it is saved.
func (job IndexJob) build(ctx context.Context, docsDir string, opts local.BuildOptions) (*local.Index, *local.Corpus, error) {
	job.progress("reading "+docsDir, 0, 1)
	ix, corpus, err := local.BuildDir(ctx, docsDir, opts)
	job.clear()
	if err != nil {
		return nil, nil, err
	}
	for _, w := range corpus.Warnings {
		if job.Warn != nil {
			job.Warn(w.String())
		}
	}
	if job.Check != nil {
		if err := job.Check(ctx, ix); err != nil {
			return nil, nil, err
		}
	}
	return ix, corpus, nil
}

// note passes msg to the job's Note, when set.
func (job IndexJob) note(msg string) {
	if job.Note != nil {
		job.Note(msg)
	}
}

// progress shows a stage's progress through the job's Progress, when set.
func (job IndexJob) progress(stage string, done, total int) {
	if job.Progress != nil {
		job.Progress(stage, done, total)
	}
}

// clear clears the progress through the job's Clear, when set.
func (job IndexJob) clear() {
	if job.Clear != nil {
		job.Clear()
	}
}
