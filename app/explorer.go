package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/store/local"
	"ragscope/ui"
)

// ExplorerBase is the explorer's options that need no backend: the
// setup's starting query settings, the history file and the per-call
// timeout.
func ExplorerBase(s Setup, historyFile string) ui.Options {
	return ui.Options{
		Defaults: retrieval.Query{
			TopK:      s.TopK,
			Threshold: s.Threshold,
			NoDedup:   !s.Dedup,
			Filters:   s.Filters,
		},
		HistoryFile: historyFile,
		Timeout:     s.Settings.Timeout,
	}
}

// Explorer opens the setup and builds the explorer's options on base
// (ExplorerBase): the retriever (selected-text only when credentials are
// missing, with a note saying which variable to set), stats, rerank and
// search-mode settings, expected sources and the ANN check, link states, eval, the page view's lister and
// embedding model, the chat model and the header's
// backend description. It returns the opened backend, for its notes and
// Close.
func (as *Assembler) Explorer(ctx context.Context, s Setup, base ui.Options) (ui.Options, *Backend, error) {
	// The explorer opens its backend after its first frame and says in
	// its status line what it waits for: nothing here writes progress.
	as = as.quiet()
	opts := base
	t := as.providers()
	be, err := as.Open(ctx, s, Search)
	switch {
	case err == nil:
	case errors.Is(err, retrieval.ErrConfig):
		// Missing credentials: selected-text mode still works, and the
		// status line says which variable to set.
		be, err = as.Open(ctx, s, SelectionOnly)
		if err != nil || be.Pipeline == nil {
			return ui.Options{}, nil, fmt.Errorf("open backend: %w", err)
		}
		cfgErr := t.Validate(s.Config())
		opts.Note = "Search unavailable: " + strings.TrimRight(Message(cfgErr), ".") + ". Selected-text mode (ctrl+t) still works."
		opts.Retriever = selectionOnly{p: be.Pipeline, err: cfgErr}
	default:
		return ui.Options{}, nil, err
	}
	if opts.Retriever == nil {
		cr := &checkedRetriever{be: be}
		opts.Retriever = cr
		opts.Rerank = as.explorerRerank(be, cr)
		opts.LocalSearch = explorerLocalSearch(be)
		opts.Expect = explorerExpect(be, cr, opts.Rerank)
		opts.Explain = explorerExplain(be, cr, base.Explain.Editor)
		if be.Pipeline.Store != nil {
			opts.Stats = explorerStats(be)
		}
	}
	var linkNote string
	opts.LinkStatus, linkNote = LinkStatus(be)
	if opts.Note == "" {
		opts.Note = linkNote
	}
	opts.Eval, opts.EvalDefault = as.explorerEval(be)
	// The page view (p on a result) lists a page's chunks with the
	// embedding model's input limit.
	if pc, ok := be.Walker.(retrieval.PageChunker); ok {
		opts.PageChunks = pc.PageChunks
	}
	opts.EmbedLimit = be.InputLimit()
	// The Chunks view (C) audits every chunk the backend can list.
	if be.Walker != nil {
		opts.Audit = ExplorerAudit(be)
	}
	opts.Generator, opts.ChatHint = as.explorerGenerator(s)
	opts.Judge = as.explorerJudge(opts.Generator)
	opts.Backend = ui.BackendInfo{
		Kind:       string(be.Kind),
		Label:      be.Label,
		Collection: be.Collection,
		Model:      explorerModelLabel(be, opts.LocalSearch),
		Points:     be.Points,
		Setup:      s.Name(),
	}
	return opts, be, nil
}

// explorerStats are the store's stats with the search described as the
// header shows it: a hybrid collection's dense arm names the query
// embedder's model ("hybrid: dense (embed-english-v3.0) + bm25
// (qdrant/bm25), RRF k=2"), known once the stats read the collection.
func explorerStats(be *Backend) func(context.Context) (retrieval.Stats, error) {
	return func(ctx context.Context) (retrieval.Stats, error) {
		st, err := be.Pipeline.Store.Stats(ctx)
		if err == nil && st.Search != "" {
			st.Search = cmp.Or(be.SearchLabel(), st.Search)
		}
		return st, err
	}
}

// checkedRetriever runs the backend's pre-flight check (for Qdrant: the
// collection exists and its vector size fits the model) before the first
// search, so a mismatch is a clear error rather than a confusing one. A
// failed check is tried again on the next query.
type checkedRetriever struct {
	be      *Backend
	mu      sync.Mutex
	checked bool
}

// Retrieve implements ui.Retriever.
func (c *checkedRetriever) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	return c.retrieveWith(ctx, c.be.Pipeline, q)
}

// retrieveWith runs the check, then q on p (the backend's pipeline, or a
// copy of it with another reranker).
func (c *checkedRetriever) retrieveWith(ctx context.Context, p *retrieval.Pipeline, q retrieval.Query) (retrieval.Result, error) {
	if q.Mode != retrieval.ModeSelectedText {
		if err := c.checkOnce(ctx); err != nil {
			return retrieval.Result{}, err
		}
	}
	return p.Retrieve(ctx, q)
}

// checkOnce runs the backend's check until it passes once.
func (c *checkedRetriever) checkOnce(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.checked {
		if err := c.be.Check(ctx); err != nil {
			return err
		}
		c.checked = true
	}
	return nil
}

// selectionOnly answers selected-text queries and reports the
// configuration error for searches.
type selectionOnly struct {
	p   *retrieval.Pipeline
	err error
}

// Retrieve implements ui.Retriever.
func (s selectionOnly) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	if q.Mode != retrieval.ModeSelectedText {
		return retrieval.Result{}, s.err
	}
	return s.p.Retrieve(ctx, q)
}

// explorerGenerator is the chat model the explorer's Answer pane asks (the
// one `ragscope ask` uses), or, when there is none, the text saying which
// settings enable one; a chat model that is misconfigured says what to
// fix.
func (as *Assembler) explorerGenerator(s Setup) (retrieval.Generator, string) {
	g, err := as.Generator(s)
	switch {
	case err == nil:
		return g, ""
	case errors.Is(err, retrieval.ErrNoGenerator):
		return nil, as.providers().ExplorerChatHint()
	}
	return nil, "The chat model cannot be used: " + Message(err)
}

// explorerRerank offers reranking in the explorer: the model of
// --rerank first (and on at start), then bm25 (offline), then the rerank
// provider's default model when its key is set. Each model's reranker is
// built the way query --rerank builds it, once, on its first question.
func (as *Assembler) explorerRerank(be *Backend, base *checkedRetriever) ui.RerankSetup {
	if be.Pipeline == nil {
		return ui.RerankSetup{}
	}
	s := be.Setup
	configured := rerankModelName(s.RerankModel)
	var models []string
	add := func(m string) {
		if m != "" && !slices.Contains(models, m) {
			models = append(models, m)
		}
	}
	add(configured)
	add(config.BM25Reranker)
	if p, ok := as.providers().rerankProvider(); ok && p.hasKey(s.Config()) {
		add(p.DefaultRerankModel)
	}
	rs := &explorerRerankers{as: as, be: be, base: base, open: map[string]*retrieval.Pipeline{}}
	if configured != "" && be.Pipeline.Reranker != nil {
		rs.open[configured] = be.Pipeline
	}
	return ui.RerankSetup{
		Models:     models,
		On:         configured != "",
		Candidates: s.RerankCandidates,
		Threshold:  s.RerankThreshold,
		Retriever:  rs.retriever,
		Label:      as.providers().RerankLabel,
	}
}

// rerankModelName is a --rerank value as the explorer lists it ("BM25"
// is bm25).
func rerankModelName(m string) string {
	m = strings.TrimSpace(m)
	if strings.EqualFold(m, config.BM25Reranker) {
		return config.BM25Reranker
	}
	return m
}

// explorerRerankers opens the explorer's rerank models, each once: a copy
// of the backend's pipeline with that model's reranker.
type explorerRerankers struct {
	as   *Assembler
	be   *Backend
	base *checkedRetriever
	// mu guards open; it is held while a reranker is built, so two
	// questions never build the same one twice.
	mu   sync.Mutex
	open map[string]*retrieval.Pipeline
}

// retriever implements ui.RerankSetup.Retriever.
func (r *explorerRerankers) retriever(ctx context.Context, model string) (ui.Retriever, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.open[model]
	if !ok {
		rr, err := r.as.Reranker(ctx, r.be, model)
		if err != nil {
			return nil, err
		}
		cp := *r.be.Pipeline
		cp.Reranker = rr
		p = &cp
		r.open[model] = p
	}
	return pipelineRetriever{c: r.base, p: p}, nil
}

// pipelineRetriever answers on p after the backend's check.
type pipelineRetriever struct {
	c *checkedRetriever
	p *retrieval.Pipeline
}

// Retrieve implements ui.Retriever.
func (r pipelineRetriever) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	return r.c.retrieveWith(ctx, r.p, q)
}

// explorerLocalSearch offers the demo's and a local index's search modes
// in the explorer's settings, starting with the configured one
// (--local-search); each question names its mode and the pipeline
// searches the index's view in it (local.Index.WithMode). A Qdrant
// collection ranks one way: nothing is offered.
func explorerLocalSearch(be *Backend) ui.LocalSearchSetup {
	if be.Pipeline == nil {
		return ui.LocalSearchSetup{}
	}
	if _, ok := be.Pipeline.Store.(retrieval.ModalStore); !ok {
		return ui.LocalSearchSetup{}
	}
	return ui.LocalSearchSetup{
		Modes: config.LocalSearchModes(),
		Mode:  be.Setup.LocalSearch,
		Label: func(mode string) string {
			// The index's own description: a provider's index fuses
			// otherwise than the offline embedder's.
			if ix, ok := be.Pipeline.Store.(*local.Index); ok {
				if v, err := ix.WithMode(local.SearchMode(mode)); err == nil {
					return v.Describe()
				}
			}
			return local.SearchMode(mode).Describe()
		},
	}
}

// explorerModelLabel is the header's model part: the embedder, and how a
// local index searches unless the explorer shows the mode it searches
// in (it changes with the settings).
func explorerModelLabel(be *Backend, ls ui.LocalSearchSetup) string {
	if len(ls.Modes) > 0 {
		return be.EmbedderLabel()
	}
	return be.ModelLabel()
}
