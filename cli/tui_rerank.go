package cli

import (
	"context"
	"slices"
	"strings"
	"sync"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/cohere"
	"ragscope/ui"
)

// tuiRerank offers reranking in the explorer (issue 15): the model of
// --rerank first (and on at start), then bm25 (offline), then Cohere's
// default rerank model when a Cohere key is set. Each model's reranker is
// built the way query --rerank builds it, once, on its first question.
func (a *App) tuiRerank(be *Backend, base *checkedRetriever) ui.RerankSetup {
	if be.Pipeline == nil {
		return ui.RerankSetup{}
	}
	configured := rerankModelName(a.Cfg.RerankModel)
	var models []string
	add := func(m string) {
		if m != "" && !slices.Contains(models, m) {
			models = append(models, m)
		}
	}
	add(configured)
	add(config.BM25Reranker)
	if a.Cfg.CohereAPIKey.IsSet() {
		add(cohere.DefaultRerankModel)
	}
	rs := &tuiRerankers{a: a, be: be, base: base, open: map[string]*retrieval.Pipeline{}}
	if configured != "" && be.Pipeline.Reranker != nil {
		rs.open[configured] = be.Pipeline
	}
	return ui.RerankSetup{
		Models:     models,
		On:         configured != "",
		Candidates: a.Cfg.RerankCandidates,
		Threshold:  a.Cfg.RerankThreshold,
		Retriever:  rs.retriever,
		Label:      rerankLabel,
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

// tuiRerankers opens the explorer's rerank models, each once: a copy of
// the backend's pipeline with that model's reranker.
type tuiRerankers struct {
	a    *App
	be   *Backend
	base *checkedRetriever
	// mu guards open; it is held while a reranker is built, so two
	// questions never build the same one twice.
	mu   sync.Mutex
	open map[string]*retrieval.Pipeline
}

// retriever implements ui.RerankSetup.Retriever.
func (r *tuiRerankers) retriever(ctx context.Context, model string) (ui.Retriever, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.open[model]
	if !ok {
		rr, err := r.a.newReranker(ctx, r.be, model)
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
