package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/docusaurus"
	"ragscope/retrieval/local"
	"ragscope/retrieval/local/demo"
)

// Backend is an opened backend: the pipeline over its embedder and store,
// and what the commands and the TUI show about it.
type Backend struct {
	// Kind is demo, local or qdrant.
	Kind config.Backend
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
	// Notes are remarks for headers (e.g. a mapped port, index warnings).
	Notes []string
	// Close releases connections.
	Close func() error
	// Load is how long opening took when it loaded or built a local index
	// (demo, --index, --docs); 0 for remote backends.
	Load time.Duration
	// Search names how a local index ranks (local.Index.Describe), "" for
	// remote backends.
	Search string

	// check verifies, before the first query, that the collection can be
	// searched with the embedder (vector size); nil when nothing to check.
	check func(ctx context.Context) error
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

// Header is the first line of human output: which backend answers.
func (b *Backend) Header() string {
	s := "ragscope · " + b.Label
	if b.Collection != "" && b.Kind == config.BackendQdrant {
		s += " · collection " + b.Collection
	}
	if b.Points >= 0 {
		s += fmt.Sprintf(" · %d chunks", b.Points)
	}
	if m := b.EmbedderLabel(); m != "" {
		s += " · " + m
	}
	if b.Search != "" {
		s += " · " + b.Search
	}
	if r := b.RerankLabel(); r != "" {
		s += " · " + r
	}
	return cleanLine(s)
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

// OpenBackend opens the configured backend once per run. selectionOnly
// skips what selected-text mode does not need (no index is built and no
// server is contacted, but the URL builder is configured).
func (a *App) OpenBackend(ctx context.Context, selectionOnly bool) (*Backend, error) {
	return a.openBackend(ctx, selectionOnly, true)
}

// OpenStore opens the configured backend for a command that reads the
// store but embeds no question (stats, links): a Qdrant collection needs no
// embedding key, and when the embedder cannot be built a note says so.
func (a *App) OpenStore(ctx context.Context) (*Backend, error) {
	return a.openBackend(ctx, false, false)
}

func (a *App) openBackend(ctx context.Context, selectionOnly, embeds bool) (*Backend, error) {
	validate := a.Cfg.Validate
	if !embeds {
		validate = a.Cfg.ValidateStore
	}
	if err := validate(); err != nil {
		if !(selectionOnly && a.Cfg.Resolved() == config.BackendQdrant) {
			return nil, err
		}
	}
	var (
		be  *Backend
		err error
	)
	switch a.Cfg.Resolved() {
	case config.BackendQdrant:
		be, err = a.openQdrant(ctx, selectionOnly, embeds)
	case config.BackendLocal:
		be, err = a.openLocal(ctx)
	default:
		be, err = a.openDemo(ctx, selectionOnly)
	}
	if err != nil {
		return nil, err
	}
	if !selectionOnly {
		if err := a.openReranker(ctx, be); err != nil {
			if be.Close != nil {
				_ = be.Close()
			}
			return nil, err
		}
	}
	a.backends = append(a.backends, be)
	return be, nil
}

// urlBuilder is the config's URL builder with the blanks filled in from
// the --site folder's Docusaurus config, then from the corpus (a local
// index knows the site it was built from).
func (a *App) urlBuilder(c *local.Corpus) retrieval.URLBuilder {
	b := a.Cfg.URLBuilder()
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
	if a.Cfg.SiteDir != "" {
		siteFS := os.DirFS(a.Cfg.SiteDir)
		if cfg, _, ok := docusaurus.FindConfig(siteFS, "."); ok && cfg.Origin() != "" {
			fill(cfg.CurrentDocsBase(siteFS, "."), cfg.Origin(), cfg.TrailingSlashSetting())
		}
	}
	if c != nil {
		fill(c.DocsBase, c.SiteURL, c.TrailingSlash)
	}
	return b
}

func (a *App) openDemo(ctx context.Context, selectionOnly bool) (*Backend, error) {
	be := &Backend{Kind: config.BackendDemo, Label: "demo textbook (embedded, offline embedder)", Collection: demo.Name, Site: demo.Site(), Points: -1}
	if selectionOnly {
		cfg, _, _ := docusaurus.FindConfig(demo.Site(), ".")
		corpus := &local.Corpus{DocsBase: demo.DocsBaseURL, SiteURL: demo.SiteURL, TrailingSlash: cfg.TrailingSlashSetting()}
		be.Pipeline = &retrieval.Pipeline{URLs: a.urlBuilder(corpus), Backend: string(be.Kind), Collection: be.Collection}
		return be, nil
	}
	start := time.Now()
	ix, corpus, err := local.OpenDemo(ctx)
	if err != nil {
		return nil, err
	}
	be.Load = time.Since(start)
	if err := a.fillLocal(be, ix, corpus); err != nil {
		return nil, err
	}
	return be, nil
}

// demoTitles gives a selection-only demo pipeline the embedded demo index
// as its store, so that a selected-text hit from --source-doc is titled
// with its page's title (retrieval.PageTitler) as in the explorer, not
// with the page's slug. Selected-text mode never searches the store. The
// index is embedded, so this cannot fail in practice; if it does, the hit
// keeps the slug.
func (a *App) demoTitles(ctx context.Context, be *Backend) {
	if be.Kind != config.BackendDemo || be.Pipeline == nil || be.Pipeline.Store != nil {
		return
	}
	if ix, _, err := local.OpenDemo(ctx); err == nil {
		be.Pipeline.Store = ix
	}
}

func (a *App) openLocal(ctx context.Context) (*Backend, error) {
	var (
		ix     *local.Index
		corpus *local.Corpus
		err    error
	)
	be := &Backend{Kind: config.BackendLocal, Points: -1}
	start := time.Now()
	if a.Cfg.IndexFile != "" {
		done := a.progress("Loading index " + a.Cfg.IndexFile + "…")
		ix, corpus, err = local.LoadIndex(ctx, a.Cfg.IndexFile, local.LoadOptions{})
		done()
		be.Label = "local index " + a.Cfg.IndexFile
	} else {
		docsDir := a.Cfg.DocsDir
		if d, ok := siteDocsDir(docsDir); ok {
			docsDir = d // a site folder: its docs folder
		}
		done := a.progress("Indexing " + docsDir + "… (save it with 'ragscope index' to skip this next time)")
		ix, corpus, err = local.BuildDir(ctx, docsDir, local.BuildOptions{BaseURL: a.Cfg.DocsBaseURL, Chunk: a.chunkOptions()})
		done()
		be.Label = "local docs " + docsDir
		if err == nil {
			if st, serr := os.Stat(filepath.Join(docsDir, "..", "docusaurus.config.js")); serr == nil && !st.IsDir() {
				be.Site = os.DirFS(filepath.Join(docsDir, ".."))
			}
		}
	}
	if err != nil {
		return nil, err
	}
	be.Load = time.Since(start)
	if a.Cfg.IndexFile != "" && corpus.SiteDir != "" {
		// The index remembers the site it was built from: its links are
		// audited against that folder while it is still there.
		if st, serr := os.Stat(filepath.Join(corpus.SiteDir, "docusaurus.config.js")); serr == nil && !st.IsDir() {
			be.Site = os.DirFS(corpus.SiteDir)
		}
	}
	for _, w := range corpus.Warnings {
		be.Notes = append(be.Notes, "warning: "+w.String())
	}
	if err := a.fillLocal(be, ix, corpus); err != nil {
		return nil, err
	}
	return be, nil
}

func (a *App) fillLocal(be *Backend, ix *local.Index, corpus *local.Corpus) error {
	mode, err := local.ParseSearchMode(a.Cfg.LocalSearch)
	if err != nil {
		return err
	}
	if ix, err = ix.WithMode(mode); err != nil {
		return err
	}
	be.Search = ix.Describe()
	info := ix.Info()
	be.Collection = info.Name
	be.Points = int64(ix.Len())
	be.Walker = ix
	be.Pipeline = &retrieval.Pipeline{
		Embedder:   corpus.Embedder,
		Store:      ix,
		URLs:       a.urlBuilder(corpus),
		Backend:    string(be.Kind),
		Collection: info.Name,
	}
	if a.Cfg.SiteDir != "" {
		be.Site = os.DirFS(a.Cfg.SiteDir)
	}
	return nil
}

// progress shows msg on standard error while long work runs, when standard
// error is a terminal, and returns the func that clears it.
func (a *App) progress(msg string) func() {
	if !isTerminal(a.Stderr) {
		return func() {}
	}
	fmt.Fprint(a.Stderr, cleanLine(msg))
	return func() { fmt.Fprint(a.Stderr, "\r\x1b[K") }
}

// joinLabel is the explorer header's model part: the embedder and, when
// set, how a local index searches ("ragscope-local-… · hybrid …").
func joinLabel(label, search string) string {
	if search == "" {
		return label
	}
	return label + " · " + search
}
