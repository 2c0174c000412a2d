package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/store/local"
	"ragscope/retrieval/store/local/demo"
)

// Backend is an opened setup: the pipeline over its embedder and store,
// and what the commands and the explorer show about it.
type Backend struct {
	// Kind is demo, local or qdrant.
	Kind config.Backend
	// Setup is what was opened.
	Setup Setup
	// Label describes the backend for headers.
	Label string
	// Collection is the collection or index name.
	Collection string
	// Pipeline answers queries.
	Pipeline *retrieval.Pipeline
	// Walker lists every chunk (nil when the backend cannot).
	Walker retrieval.Walker
	// Site is the Docusaurus site the citations point into, when known
	// (the demo's embedded site, or the --site folder).
	Site fs.FS
	// Points is the number of chunks, or -1 when unknown.
	Points int64
	// Provider is the query embedder's provider (cohere, openai), "" for
	// the local and demo backends' offline embedder.
	Provider string
	// Limits are the embedding models' input limits, from the provider
	// table (InputLimit).
	Limits chunkaudit.Limits
	// Notes are remarks for headers (e.g. a mapped port, index warnings).
	Notes []string
	// Close releases connections.
	Close func() error
	// Load is how long opening took when it loaded or built a local index
	// (demo, --index, --docs); 0 for remote backends.
	Load time.Duration
	// Search names how a local index ranks (local.Index.Describe), "" for
	// remote backends (see SearchLabel).
	Search string
	// searchPlan, for a Qdrant collection, describes how it is searched
	// once a call has read the collection ("" before, and for a plain
	// dense search).
	searchPlan func() string
	// Index is what a local or demo index records of how it was made
	// (nil for Qdrant).
	Index *IndexDescription
	// QuestionMemo is the memo of question vectors that the setups of one
	// OpenAll call on the same index share (nil otherwise): a run of many
	// questions (eval's batches) embeds through it, so a question another
	// setup embedded costs nothing. Single queries keep the pipeline's
	// own embedder, so their latency stays their own.
	QuestionMemo retrieval.Embedder
	// DocEmbedder builds the provider's document embedder with the model
	// the questions are embedded with (a what-if embeds an edited chunk
	// as the collection's chunks were); nil when the store scores text
	// itself (local indexes).
	DocEmbedder func(ctx context.Context) (retrieval.Embedder, error)
	// localMode is the search mode a local or demo index was opened in.
	localMode string
	// rerankLabel names the reranker openReranker set, with its provider
	// (RerankLabel).
	rerankLabel string

	// check verifies, before the first query, that the collection can be
	// searched with the embedder (vector size); nil when nothing to check.
	check func(ctx context.Context) error
}

// IndexDescription is what a local index records of how it was made: its
// embedder and its chunking.
type IndexDescription struct {
	// Provider is the provider whose model made the vectors ("" for the
	// offline embedder); Model the model; Dim the vector size.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model"`
	Dim      int    `json:"dimensions"`
	// Chunking is how the chunks were cut.
	Chunking local.Chunking `json:"chunking"`
}

// Embedder names the index's embedder: "cohere embed-english-v3.0 (1024
// dimensions)", or the offline model's name and size.
func (d IndexDescription) Embedder() string {
	m := d.Model
	if d.Provider != "" {
		m = d.Provider + " " + m
	}
	return fmt.Sprintf("%s (%d dimensions)", m, d.Dim)
}

// Check verifies that queries can run: for Qdrant, that the collection
// exists and its vector size matches the embedding model. It is a clear
// error before any query rather than a confusing one after.
func (b *Backend) Check(ctx context.Context) error {
	if b.check == nil {
		return nil
	}
	return b.check(ctx)
}

// Model is the embedding model's name.
func (b *Backend) Model() string {
	if b.Pipeline == nil || b.Pipeline.Embedder == nil {
		return ""
	}
	return b.Pipeline.Embedder.Name()
}

// EmbedderLabel names the query embedder as every output shows it: the
// provider and the model ("openai text-embedding-3-small"), or the model
// alone when there is no provider (the offline embedder).
func (b *Backend) EmbedderLabel() string {
	m := b.Model()
	if m != "" && b.Provider != "" {
		m = b.Provider + " " + m
	}
	return m
}

// ModelLabel is a header's model part: the embedder and, when set, how a
// local index searches ("ragscope-local-… · hybrid …").
func (b *Backend) ModelLabel() string {
	if b.SearchLabel() == "" {
		return b.EmbedderLabel()
	}
	return b.EmbedderLabel() + " · " + b.SearchLabel()
}

// SearchLabel names how the backend ranks: a local index's search mode,
// or a Qdrant collection's hybrid search once the collection was read
// ("hybrid: dense (embed-english-v3.0) + bm25 (qdrant/bm25), RRF k=2");
// "" for a plain dense search or before the collection was read.
func (b *Backend) SearchLabel() string {
	if b.Search == "" && b.searchPlan != nil {
		return b.searchPlan()
	}
	return b.Search
}

// Mode is what a command needs of an opened setup.
type Mode int

const (
	// Search opens everything a question needs: store, embedder, reranker.
	Search Mode = iota
	// SelectionOnly opens what selected-text mode needs: no index is built
	// and no server is contacted, but the URL builder is configured.
	SelectionOnly
	// StoreOnly opens the store for a command that embeds no question
	// (stats, links): a Qdrant collection needs no embedding key, and when
	// the embedder cannot be built a note says so.
	StoreOnly
)

// Open turns the setup into a pipeline: it opens the backend (Qdrant, a
// local index or docs folder, or the demo), builds the query embedder and
// the reranker, and configures the citation URLs. Each call builds its
// own; nothing is shared between two opened setups.
func (as *Assembler) Open(ctx context.Context, s Setup, mode Mode) (*Backend, error) {
	cfg := s.Config()
	t := as.providers()
	validate := t.Validate
	if mode == StoreOnly {
		validate = t.ValidateStore
	}
	if err := validate(cfg); err != nil {
		if !(mode == SelectionOnly && s.Backend == config.BackendQdrant) {
			return nil, err
		}
	}
	var (
		be  *Backend
		err error
	)
	switch s.Backend {
	case config.BackendQdrant:
		be, err = as.openQdrant(ctx, s, mode)
	case config.BackendLocal:
		be, err = as.openLocal(ctx, s, mode)
	default:
		be, err = as.openDemo(ctx, s, mode == SelectionOnly)
	}
	if err != nil {
		return nil, err
	}
	be.Setup = s
	be.Limits = t.Limits()
	if s.LocalSearch == "" {
		// No mode configured: the one the index chose (fillLocal).
		be.Setup.LocalSearch = be.localMode
	}
	be.Label = s.Labelled(be.Label)
	if mode != SelectionOnly {
		if err := as.openReranker(ctx, be); err != nil {
			if be.Close != nil {
				_ = be.Close()
			}
			return nil, err
		}
	}
	return be, nil
}

// urlBuilder is the setup's URL builder with the blanks filled in from
// the --site folder's Docusaurus config, then from the corpus (a local
// index knows the site it was built from).
func urlBuilder(cfg config.Config, c *local.Corpus) retrieval.URLBuilder {
	b := cfg.URLBuilder()
	fill := func(docsBase, siteURL, trailing string) {
		if b.DocsBase == "" {
			b.DocsBase = docsBase
		}
		if b.SiteURL == "" {
			b.SiteURL = siteURL
		}
		if b.TrailingSlash == "" {
			b.TrailingSlash = trailing
		}
	}
	if cfg.SiteDir != "" {
		siteFS := os.DirFS(cfg.SiteDir)
		if dc, _, ok := docusaurus.FindConfig(siteFS, "."); ok && dc.Origin() != "" {
			fill(dc.CurrentDocsBase(siteFS, "."), dc.Origin(), dc.TrailingSlashSetting())
		}
	}
	if c != nil {
		fill(c.DocsBase, c.SiteURL, c.TrailingSlash)
	}
	return b
}

func (as *Assembler) openDemo(ctx context.Context, s Setup, selectionOnly bool) (*Backend, error) {
	cfg := s.Config()
	be := &Backend{Kind: config.BackendDemo, Label: "demo textbook (embedded, offline embedder)", Collection: demo.Name, Site: demo.Site(), Points: -1}
	if selectionOnly {
		dc, _, _ := docusaurus.FindConfig(demo.Site(), ".")
		corpus := &local.Corpus{DocsBase: demo.DocsBaseURL, SiteURL: demo.SiteURL, TrailingSlash: dc.TrailingSlashSetting()}
		be.Pipeline = &retrieval.Pipeline{URLs: urlBuilder(cfg, corpus), Backend: string(be.Kind), Collection: be.Collection}
		return be, nil
	}
	sl, err := as.share.load("demo", func() (*local.Index, *local.Corpus, bool, error) {
		ix, corpus, err := local.OpenDemo(ctx)
		return ix, corpus, false, err
	})
	if err != nil {
		return nil, err
	}
	be.Load = sl.took
	if err := fillLocal(cfg, be, sl); err != nil {
		return nil, err
	}
	return be, nil
}

// DemoTitles gives a selection-only demo pipeline the embedded demo index
// as its store, so that a selected-text hit from --source-doc is titled
// with its page's title (retrieval.PageTitler) as in the explorer, not
// with the page's slug. Selected-text mode never searches the store. The
// index is embedded, so this cannot fail in practice; if it does, the hit
// keeps the slug.
func DemoTitles(ctx context.Context, be *Backend) {
	if be.Kind != config.BackendDemo || be.Pipeline == nil || be.Pipeline.Store != nil {
		return
	}
	if ix, _, err := local.OpenDemo(ctx); err == nil {
		be.Pipeline.Store = ix
	}
}

func (as *Assembler) openLocal(ctx context.Context, s Setup, mode Mode) (*Backend, error) {
	var (
		sl  *sharedLoad
		err error
		cfg = s.Config()
	)
	be := &Backend{Kind: config.BackendLocal, Points: -1}
	if s.IndexFile != "" {
		done := as.progress("Loading index " + s.IndexFile + "…")
		embedder := as.indexEmbedder(s, mode, be)
		sl, err = as.share.load(fileKey("index", s.IndexFile), func() (*local.Index, *local.Corpus, bool, error) {
			private := false
			ix, corpus, err := local.LoadIndex(ctx, s.IndexFile, local.LoadOptions{QueryEmbedder: func(ctx context.Context, info local.IndexInfo) (retrieval.Embedder, error) {
				private = true // a provider's, built from this setup's keys
				return embedder(ctx, info)
			}})
			return ix, corpus, private, err
		})
		done()
		be.Label = "local index " + s.IndexFile
	} else {
		docsDir := s.DocsDir
		if d, ok := SiteDocsDir(docsDir); ok {
			docsDir = d // a site folder: its docs folder
		}
		done := as.progress("Indexing " + docsDir + "… (save it with 'ragscope index' to skip this next time)")
		opts := local.BuildOptions{BaseURL: cfg.DocsBaseURL, Chunk: ChunkOptions(cfg)}
		key := ""
		if abs, aerr := filepath.Abs(docsDir); aerr == nil {
			key = fmt.Sprintf("docs\x00%s\x00%+v", abs, opts)
		}
		sl, err = as.share.load(key, func() (*local.Index, *local.Corpus, bool, error) {
			ix, corpus, err := local.BuildDir(ctx, docsDir, opts)
			return ix, corpus, false, err
		})
		done()
		be.Label = "local docs " + docsDir
		if err == nil {
			if docusaurus.HasConfig(filepath.Join(docsDir, "..")) {
				be.Site = os.DirFS(filepath.Join(docsDir, ".."))
			}
		}
	}
	if err != nil {
		return nil, err
	}
	be.Load = sl.took
	corpus := sl.corpus
	if s.IndexFile != "" && corpus.SiteDir != "" {
		// The index remembers the site it was built from: its links are
		// audited against that folder while it is still there.
		if docusaurus.HasConfig(corpus.SiteDir) {
			be.Site = os.DirFS(corpus.SiteDir)
		}
	}
	for _, w := range corpus.Warnings {
		be.Notes = append(be.Notes, "warning: "+w.String())
	}
	if err := fillLocal(cfg, be, sl); err != nil {
		return nil, err
	}
	return be, nil
}

// fillLocal gives be its view of the loaded index sl, in the setup's
// search mode.
func fillLocal(cfg config.Config, be *Backend, sl *sharedLoad) error {
	ix, corpus := sl.ix, sl.corpus
	mode, err := local.ParseSearchMode(cfg.LocalSearch)
	if err != nil {
		return err
	}
	if strings.TrimSpace(cfg.LocalSearch) == "" {
		// BM25 for the offline embedder; an index of a provider's
		// embeddings, which a question is embedded for anyway, searches
		// with its vectors fused with BM25.
		mode = ix.DefaultSearchMode()
	}
	be.localMode = string(mode)
	if ix, err = ix.WithMode(mode); err != nil {
		return err
	}
	if mode == local.ModeHybrid {
		if ix, err = ix.WithFusion(cfg.Fusion, cfg.RRFK, cfg.PrefetchLimit); err != nil {
			return fmt.Errorf("%w: %w", retrieval.ErrConfig, err)
		}
	}
	be.Search = ix.Describe()
	info := ix.Info()
	be.Index = &IndexDescription{Provider: info.Provider, Model: info.Model, Dim: ix.Dim(), Chunking: info.Chunking}
	be.Collection = info.Name
	be.Points = int64(ix.Len())
	be.Walker = ix
	be.Pipeline = &retrieval.Pipeline{
		Embedder:   corpus.Embedder,
		Store:      ix,
		URLs:       urlBuilder(cfg, corpus),
		Backend:    string(be.Kind),
		Collection: info.Name,
	}
	if sl.memo != nil {
		be.QuestionMemo = sl.memo
	}
	if cfg.SiteDir != "" {
		be.Site = os.DirFS(cfg.SiteDir)
	}
	return nil
}

// indexEmbedder builds the query embedder of a local index whose vectors
// came from a provider: that provider's, with the model and dimensions the
// index records and its query input type. A setup that asks for another
// provider, model or size is an error matching retrieval.ErrConfig (exit
// 2); StoreOnly, an embedder that cannot be built (no key) is left out
// with a note.
func (as *Assembler) indexEmbedder(s Setup, mode Mode, be *Backend) func(ctx context.Context, info local.IndexInfo) (retrieval.Embedder, error) {
	return func(ctx context.Context, info local.IndexInfo) (retrieval.Embedder, error) {
		cfg := s.Config()
		t := as.providers()
		label := info.Provider + " " + info.Model
		other := func(what string) error {
			return fmt.Errorf("%w: index %s holds vectors of %s, so questions are embedded by it; %s asks for another: leave it out, or build an index with it (ragscope index DOCS --embedder PROVIDER --model MODEL -o FILE)",
				retrieval.ErrConfig, s.IndexFile, label, what)
		}
		if e, _ := t.ConfigRows().ParseEmbedder(s.Embedder); e != "" && e != config.EmbedderAuto && e != info.Provider {
			return nil, other("--embedder " + e)
		}
		if m := strings.TrimSpace(s.EmbedModel); m != "" && m != config.DefaultEmbedModel && bareModel(m) != bareModel(info.Model) {
			return nil, other("--model " + m)
		}
		p, ok := t.Lookup(info.Provider)
		if !ok || p.NewEmbedder == nil {
			return nil, fmt.Errorf("%w: index %s holds vectors of %s, a provider this ragscope cannot embed questions with: rebuild it with \"ragscope index\"", local.ErrIncompatibleIndex, s.IndexFile, label)
		}
		be.Provider = p.Name
		emb, err := p.embedder(ctx, EmbedOptions{Config: cfg, Model: info.Model, Dimensions: info.Dimensions, Timeout: cfg.Timeout, Log: as.Log})
		if err != nil && mode == StoreOnly && errors.Is(err, retrieval.ErrConfig) {
			be.Notes = append(be.Notes, "questions need "+label+"'s query embedder, which is not set up ("+Message(err)+"); stats and links do without")
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if d := s.EmbedDimensions; d > 0 && d != info.Dimensions && !(info.Dimensions == 0 && emb.Dim() == d) {
			return nil, other(fmt.Sprintf("--dimensions %d", d))
		}
		return emb, nil
	}
}

// ChunkOptions are the chunker options ragscope.toml configures for local
// indexes: how module and chapter are derived ([facets]).
func ChunkOptions(cfg config.Config) local.ChunkOptions {
	return local.ChunkOptions{Facets: local.FacetOptions{ModuleDepth: cfg.ModuleDirDepth, ModulePrefixes: cfg.ModulePrefixes}}
}

// SiteDocsDir is the docs folder of dir when dir is a Docusaurus site
// folder (it holds docusaurus.config.* and the docs folder that config
// names): what a user who points `index` at the site means.
func SiteDocsDir(dir string) (string, bool) {
	dc, _, ok := docusaurus.FindConfig(os.DirFS(dir), ".")
	if !ok || dc.DocsPath == "" {
		return "", false
	}
	docs := filepath.Join(dir, filepath.FromSlash(dc.DocsPath))
	if st, err := os.Stat(docs); err != nil || !st.IsDir() {
		return "", false
	}
	return docs, true
}

// LayoutNote says how a docs folder's modules are derived ("module =
// folder level 2 under docs (detected from the folders)"), or "" when the
// folder cannot be read (the build reports that).
func LayoutNote(cfg config.Config, docsDir string) string {
	abs, err := filepath.Abs(docsDir)
	if err != nil {
		return ""
	}
	l, err := local.DetectLayout(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), ChunkOptions(cfg).Facets)
	if err != nil {
		return ""
	}
	return l.Describe()
}
