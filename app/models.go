package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"ragscope/config"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/retrieval/store/local"
)

// openReranker gives be's pipeline the reranker its setup names:
// "bm25" is the offline lexical reranker (term statistics from the
// whole local index, or from each query's candidates for Qdrant); any
// other name is a rerank model of the first provider that reranks.
func (as *Assembler) openReranker(ctx context.Context, be *Backend) error {
	model := strings.TrimSpace(be.Setup.RerankModel)
	if model == "" || be.Pipeline == nil {
		return nil
	}
	rr, err := as.Reranker(ctx, be, model)
	if err != nil {
		return err
	}
	be.Pipeline.Reranker = rr
	be.rerankLabel = as.providers().RerankLabel(rr.Name())
	return nil
}

// rerankProvider is the row that serves rerank models other than bm25.
func (t Table) rerankProvider() (Provider, bool) {
	for _, p := range t {
		if p.NewReranker != nil {
			return p, true
		}
	}
	return Provider{}, false
}

// Reranker builds the reranker model names for be's pipeline.
func (as *Assembler) Reranker(ctx context.Context, be *Backend, model string) (retrieval.Reranker, error) {
	if strings.EqualFold(model, config.BM25Reranker) {
		var corpus []retrieval.Chunk
		if be.Walker != nil && be.Kind != config.BackendQdrant {
			err := be.Walker.Walk(ctx, func(page []retrieval.Chunk, _ int) error {
				corpus = append(corpus, page...)
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("rerank bm25: read the index: %w", err)
			}
		}
		return local.NewBM25(corpus), nil
	}
	p, ok := as.providers().rerankProvider()
	if !ok {
		return nil, fmt.Errorf("%w: --rerank %s: no provider reranks in this build; use --rerank bm25", retrieval.ErrConfig, model)
	}
	cfg := be.Setup.Config()
	return p.NewReranker(ModelOptions{Config: cfg, Model: model, Timeout: cfg.Timeout, Log: as.Log})
}

// RerankLabel names be's reranker for headers, with what it costs:
// "rerank cohere rerank-v3.5 (1 call per question)" or "rerank bm25
// (offline)"; "" without reranking.
func (b *Backend) RerankLabel() string {
	if b.Pipeline == nil || b.Pipeline.Reranker == nil {
		return ""
	}
	if b.rerankLabel != "" {
		return b.rerankLabel
	}
	return "rerank " + b.Pipeline.Reranker.Name()
}

// RerankLabel names the rerank model called name with the provider that
// serves it (the table's row that reranks) and what it costs.
func (t Table) RerankLabel(name string) string {
	if strings.EqualFold(name, local.BM25Name) {
		return "rerank bm25 (offline)"
	}
	p, ok := t.rerankProvider()
	if !ok {
		return "rerank " + name
	}
	return "rerank " + p.Name + " " + name + " (1 call per question)"
}

// Generator builds the chat model the provider table resolves for the
// setup. With none configured the error matches retrieval.ErrNoGenerator
// and says which settings enable one.
func (as *Assembler) Generator(s Setup) (retrieval.Generator, error) {
	t := as.providers()
	cfg := s.Config()
	if p, ok := t.Lookup(t.ResolvedChatProvider(cfg)); ok && p.NewChat != nil {
		return p.NewChat(ModelOptions{Config: cfg, Model: s.ChatModel, Timeout: cfg.Timeout, Log: as.Log})
	}
	return nil, fmt.Errorf("%w: %s", retrieval.ErrNoGenerator, t.ChatHint())
}

// InputLimit is the input limit of b's query embedding model, from the
// provider table's rows.
func (b *Backend) InputLimit() chunkaudit.Limit { return b.Limits.For(b.Model()) }

// Message is the line a person sees for err: validation errors are shown
// as their actionable text without the wrapping chain.
func Message(err error) string {
	var ve *retrieval.ValidationError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	return strings.TrimPrefix(err.Error(), retrieval.ErrConfig.Error()+": ")
}
