package local

import (
	"cmp"
	"context"
	"math"
	"slices"

	"ragscope/retrieval"
	"ragscope/retrieval/store/local/embed"
)

// BM25Name is the name that selects the local lexical reranker
// (--rerank bm25).
const BM25Name = "bm25"

// BM25 parameters (the usual Okapi defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// BM25 is an offline lexical reranker: Okapi BM25 over the offline
// embedder's terms, with document frequencies from a corpus (the local
// index) or, when built without one, from the documents being reranked.
// Its relevance is the BM25 score divided by the highest score the
// question could reach (every term, saturated), so it lies in 0..1 and a
// rerank threshold means the same for every question. It needs no key and
// no network. It is safe for concurrent use.
type BM25 struct {
	df    map[string]int
	n     int
	avgdl float64
}

var _ retrieval.Reranker = (*BM25)(nil)

// NewBM25 returns a reranker whose term statistics come from corpus (the
// chunks' title, section and text, as retrieval.RerankDocument gives
// them). A nil corpus takes the statistics from each call's documents.
func NewBM25(corpus []retrieval.Chunk) *BM25 {
	r := &BM25{df: map[string]int{}}
	total := 0
	for i := range corpus {
		terms := embed.Terms(retrieval.RerankDocument(&corpus[i]))
		total += len(terms)
		for t := range distinct(terms) {
			r.df[t]++
		}
	}
	r.n = len(corpus)
	if r.n > 0 {
		r.avgdl = float64(total) / float64(r.n)
	}
	return r
}

// Name returns "bm25".
func (r *BM25) Name() string { return BM25Name }

// Rerank scores every document and returns the topN best (any order; the
// pipeline sorts, ties by vector rank).
func (r *BM25) Rerank(ctx context.Context, query string, docs []string, topN int) ([]retrieval.Relevance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stats := r
	dterms := make([][]string, len(docs))
	for i, d := range docs {
		dterms[i] = embed.Terms(d)
	}
	if r.n == 0 {
		stats = &BM25{df: map[string]int{}, n: len(docs)}
		total := 0
		for _, ts := range dterms {
			total += len(ts)
			for t := range distinct(ts) {
				stats.df[t]++
			}
		}
		if len(docs) > 0 {
			stats.avgdl = float64(total) / float64(len(docs))
		}
	}
	q := distinct(embed.Terms(query))
	best := 0.0
	idf := make(map[string]float64, len(q))
	for t := range q {
		idf[t] = bm25IDF(stats.n, stats.df[t])
		best += idf[t] * (bm25K1 + 1)
	}
	out := make([]retrieval.Relevance, len(docs))
	for i, ts := range dterms {
		tf := map[string]int{}
		for _, t := range ts {
			if _, ok := q[t]; ok {
				tf[t]++
			}
		}
		s := 0.0
		for t, f := range tf {
			s += idf[t] * bm25TF(float64(f), float64(len(ts)), stats.avgdl)
		}
		if best > 0 {
			s /= best
		}
		out[i] = retrieval.Relevance{Index: i, Score: s}
	}
	// Keep the topN best, ties by document order.
	slices.SortStableFunc(out, func(a, b retrieval.Relevance) int { return cmp.Compare(b.Score, a.Score) })
	if topN > 0 && len(out) > topN {
		out = out[:topN]
	}
	return out, nil
}

// bm25IDF is the IDF of a term in df of n documents (never negative).
func bm25IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// bm25TF is the saturated term-frequency factor of a term that occurs f
// times in a document of dl terms, in a corpus of avgdl terms a document.
func bm25TF(f, dl, avgdl float64) float64 {
	return f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*dl/math.Max(avgdl, 1)))
}

func distinct(ts []string) map[string]struct{} {
	m := make(map[string]struct{}, len(ts))
	for _, t := range ts {
		m[t] = struct{}{}
	}
	return m
}
