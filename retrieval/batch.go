package retrieval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"ragscope/internal/parallel"
)

// BatchSearcher is implemented by stores that answer many searches in one
// call (Qdrant's QueryBatch). out[i] answers reqs[i]. An error fails the
// whole batch.
type BatchSearcher interface {
	SearchBatch(ctx context.Context, reqs []SearchRequest) ([][]ScoredChunk, error)
}

// DefaultBatchConcurrency bounds the single searches a batch runs at once
// when the store is not a BatchSearcher (or a batch must be retried one by
// one).
const DefaultBatchConcurrency = 8

// IsBackendError reports whether err is the backend's failure (unreachable,
// refused credentials, missing collection, configuration, timeout) rather
// than something about one query.
func IsBackendError(err error) bool {
	for _, target := range []error{ErrUnavailable, ErrAuth, ErrNotFound, ErrConfig, context.DeadlineExceeded, context.Canceled} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// RetrieveBatch answers normal-mode queries whose questions were already
// embedded: vecs[i] is qs[i]'s vector and embedTook[i] its share of the
// embedding time. It searches them in one BatchSearcher call when the store
// has one, else with bounded concurrent single searches; either way each
// query keeps its own filters, top_k and threshold, and results[i] is what
// RetrieveVector(ctx, qs[i], vecs[i], embedTook[i]) returns. When a batch
// call fails with an error about the request (say, a filter a strict
// server rejects), the queries are retried one by one so that only the
// offending ones fail; a backend error (auth, unreachable, missing
// collection) fails them all without retrying.
func (p *Pipeline) RetrieveBatch(ctx context.Context, qs []Query, vecs [][]float32, embedTook []time.Duration) ([]Result, []error) {
	results := make([]Result, len(qs))
	errs := make([]error, len(qs))
	if len(vecs) != len(qs) || len(embedTook) != len(qs) {
		err := fmt.Errorf("retrieve batch: %d queries, %d vectors, %d timings", len(qs), len(vecs), len(embedTook))
		for i := range errs {
			errs[i] = err
		}
		return results, errs
	}
	qs = append([]Query(nil), qs...)
	arms := make([][]ArmList, len(qs))
	var idx []int
	var reqs []SearchRequest
	for i, q := range qs {
		nq, res, err := p.prepare(q)
		if err != nil {
			errs[i] = err
			continue
		}
		if nq.Mode == ModeSelectedText {
			// No search: answer it as RetrieveVector would.
			results[i], errs[i] = p.RetrieveVector(ctx, q, vecs[i], embedTook[i])
			continue
		}
		if d := p.Embedder.Dim(); d > 0 && len(vecs[i]) != d {
			errs[i] = fmt.Errorf("embed question: got a %d-dimensional vector, want %d", len(vecs[i]), d)
			continue
		}
		res.Timings.Embed = embedTook[i]
		qs[i], results[i] = nq, res
		idx = append(idx, i)
		reqs = append(reqs, SearchRequest{Vector: vecs[i], Text: nq.Question, Limit: CandidateLimit(nq), Filters: nq.Filters, Exact: nq.Exact})
		if nq.WithArms {
			reqs[len(reqs)-1].ArmHits = &arms[i]
		}
	}
	if len(reqs) == 0 {
		return results, errs
	}
	t0 := time.Now()
	scored, serrs := p.searchByMode(ctx, qs, idx, reqs)
	took := time.Since(t0)
	p.rerankMany(ctx, qs, idx, scored, serrs, results, embedTook, took)
	for j, i := range idx {
		if serrs[j] != nil {
			errs[i] = fmt.Errorf("search: %w", serrs[j])
			results[i] = Result{}
			continue
		}
		results[i].Arms = p.citeArms(arms[i])
		if qs[i].Rerank.On {
			continue // rerankMany did it
		}
		res := &results[i]
		res.Timings.Search = took
		t1 := time.Now()
		PostProcess(scored[j], qs[i], p.URLs, res)
		res.Timings.Post = time.Since(t1)
		// Its own work, as with a rerank: not the others' post-processing
		// it waited behind.
		res.Timings.Total = embedTook[i] + took + res.Timings.Post
	}
	return results, errs
}

// rerankMany reranks the batch's queries that ask for it, at most
// DefaultBatchConcurrency reranker calls at a time. A query's total is
// its embed share, the batch search, and its own post-processing and
// rerank call (not the time spent waiting for the others').
func (p *Pipeline) rerankMany(ctx context.Context, qs []Query, idx []int, scored [][]ScoredChunk, serrs []error, results []Result, embedTook []time.Duration, took time.Duration) {
	var g errgroup.Group
	g.SetLimit(DefaultBatchConcurrency)
	for j, i := range idx {
		if serrs[j] != nil || !qs[i].Rerank.On {
			continue
		}
		g.Go(func() error {
			res := &results[i]
			res.Timings.Search = took
			p.rerank(ctx, qs[i], scored[j], res)
			res.Timings.Total = embedTook[i] + took + res.Timings.Post + res.Timings.Rerank
			return nil
		})
	}
	_ = g.Wait() // rerank records its failures in the result
}

// searchByMode runs reqs (reqs[j] asks for qs[idx[j]]) with searchMany,
// one call per search mode the queries name, each on the store's view in
// that mode.
func (p *Pipeline) searchByMode(ctx context.Context, qs []Query, idx []int, reqs []SearchRequest) ([][]ScoredChunk, []error) {
	var modes []string
	groups := map[string][]int{}
	for j, i := range idx {
		m := qs[i].SearchMode
		if _, ok := groups[m]; !ok {
			modes = append(modes, m)
		}
		groups[m] = append(groups[m], j)
	}
	if len(modes) == 1 {
		store, err := p.storeFor(qs[idx[0]])
		if err != nil {
			return make([][]ScoredChunk, len(reqs)), slices.Repeat([]error{err}, len(reqs))
		}
		return p.searchMany(ctx, store, reqs)
	}
	scored := make([][]ScoredChunk, len(reqs))
	errs := make([]error, len(reqs))
	for _, m := range modes {
		js := groups[m]
		store, err := p.storeFor(Query{SearchMode: m})
		if err != nil {
			for _, j := range js {
				errs[j] = err
			}
			continue
		}
		sub := make([]SearchRequest, len(js))
		for k, j := range js {
			sub[k] = reqs[j]
		}
		out, serrs := p.searchMany(ctx, store, sub)
		for k, j := range js {
			scored[j], errs[j] = out[k], serrs[k]
		}
	}
	return scored, errs
}

// searchMany runs reqs on store as one batch when the store can, else (or
// when the batch is rejected for a request-level reason) one by one.
func (p *Pipeline) searchMany(ctx context.Context, store Store, reqs []SearchRequest) ([][]ScoredChunk, []error) {
	errs := make([]error, len(reqs))
	if bs, ok := store.(BatchSearcher); ok {
		out, err := bs.SearchBatch(ctx, reqs)
		if err == nil && len(out) != len(reqs) {
			err = fmt.Errorf("the store answered %d of %d searches", len(out), len(reqs))
		}
		if err == nil {
			return out, errs
		}
		if batchFatal(err) || len(reqs) == 1 {
			for i := range errs {
				errs[i] = err
			}
			return make([][]ScoredChunk, len(reqs)), errs
		}
	}
	out := make([][]ScoredChunk, len(reqs))
	l := parallel.New(DefaultBatchConcurrency)
	for i, req := range reqs {
		l.GoCtx(ctx, func() { out[i], errs[i] = store.Search(ctx, req) }, func() { errs[i] = ctx.Err() })
	}
	l.Wait()
	return out, errs
}

// batchFatal reports whether a failed batch would fail every query alike
// (refused key, unreachable, missing collection, cancelled), so retrying
// one by one would only repeat it. A rejected request (ErrConfig, say a
// filter a strict server refuses) is not: the retry finds the culprit.
func batchFatal(err error) bool {
	for _, target := range []error{ErrUnavailable, ErrAuth, ErrNotFound, context.DeadlineExceeded, context.Canceled} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
