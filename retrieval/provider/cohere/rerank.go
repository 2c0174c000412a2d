package cohere

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	cohereapi "github.com/cohere-ai/cohere-go/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/embedx"
)

// DefaultRerankModel is Cohere's current rerank model.
const DefaultRerankModel = "rerank-v3.5"

// MaxRerankDocs is the most documents sent in one rerank call; Cohere
// bills one search per 100 documents, and the pipeline never sends more
// (retrieval.MaxRerankCandidates).
const MaxRerankDocs = 1000

// RerankOptions configure a Reranker (embedx.ClientOptions). Only APIKey
// is required.
type RerankOptions = embedx.ClientOptions

// Reranker reranks documents with Cohere's rerank API (V2). It shares the
// embedder's client rules: ragscope's retries, timeout, key redaction and
// error classes. It is safe for concurrent use.
type Reranker struct {
	*conn
	model string
}

var _ retrieval.Reranker = (*Reranker)(nil)

// NewReranker returns a Reranker. A missing API key or a bad base URL is
// an error matching retrieval.ErrConfig.
func NewReranker(opts RerankOptions) (*Reranker, error) {
	c, err := newConn(opts.APIKey, opts.BaseURL, opts.Timeout, opts.MaxAttempts, opts.HTTPClient, opts.Sleep, opts.Limits)
	if err != nil {
		return nil, err
	}
	model := strings.TrimSpace(opts.Model)
	if model == "" {
		model = DefaultRerankModel
	}
	return &Reranker{conn: c, model: model}, nil
}

// Name returns the model name.
func (r *Reranker) Name() string { return r.model }

// Rerank sends one POST /v2/rerank with the documents and top_n, and
// returns Cohere's relevance scores. Its errors are *embedx.Error, so
// they match retrieval.ErrAuth, ErrConfig or ErrUnavailable.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string, topN int) ([]retrieval.Relevance, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	if len(docs) > MaxRerankDocs {
		return nil, fmt.Errorf("%w: %d documents to rerank, Cohere takes at most %d", retrieval.ErrConfig, len(docs), MaxRerankDocs)
	}
	topN = min(max(topN, 1), len(docs))
	req := &cohereapi.V2RerankRequest{Model: r.model, Query: query, Documents: docs, TopN: &topN}
	resp, attempts, err := retry(ctx, r.conn, func() (*cohereapi.V2RerankResponse, error) { return r.co.Rerank(ctx, req) })
	if err != nil {
		return nil, rerankError(r.classify(ctx, err, attempts, r.endpoint()))
	}
	if resp == nil || resp.Results == nil {
		return nil, rerankError(r.invalidAnswer("no results"))
	}
	out := make([]retrieval.Relevance, 0, len(resp.Results))
	for _, it := range resp.Results {
		if it == nil {
			return nil, rerankError(r.invalidAnswer("an empty result"))
		}
		if s := it.RelevanceScore; math.IsNaN(s) || s < 0 || s > 1 {
			// Not a relevance: it would print as a 39-digit number and
			// pass any --rerank-threshold.
			return nil, rerankError(r.invalidAnswer(fmt.Sprintf("relevance score %s for document %d, outside 0..1", strconv.FormatFloat(s, 'g', 4, 64), it.Index)))
		}
		out = append(out, retrieval.Relevance{Index: it.Index, Score: it.RelevanceScore})
	}
	return out, nil
}

func (r *Reranker) endpoint() endpoint {
	return endpoint{name: "rerank", verb: "rerank", model: r.model, modelVar: "RAGSCOPE_RERANK_MODEL (--rerank)"}
}

// rerankError is the shared provider error (embedx.Error) of a failure.
func rerankError(f failure) error {
	return &embedx.Error{Status: f.status, Invalid: f.invalid, Msg: f.msg, Err: f.cause}
}
