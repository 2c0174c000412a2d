package retrieval

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// Reranking. With Query.Rerank.On, a normal-mode query runs
// these stages, in this order:
//
//  1. The store is asked for CandidateLimit(q) chunks: top_k × candidates
//     (default 4), at most MaxRerankCandidates.
//  2. The vector result is built from them exactly as without reranking
//     (the first top_k, the threshold, dedup): RerankInfo.Vector. It is
//     what movement is measured against, what eval scores as "without",
//     and what a failed rerank returns.
//  3. The vector threshold cuts candidates: only chunks whose similarity
//     reaches it are sent to the reranker, in vector order.
//  4. The reranker returns at most top_k of them with relevance scores.
//     They are ordered by relevance, ties by vector position, so the order
//     is deterministic whatever order the reranker answered in.
//  5. Rerank.Threshold (optional) drops hits whose relevance is below it
//     (reason below_rerank_threshold).
//  6. Dedup runs on this final order: a chunk that duplicates a better
//     ranked kept chunk is dropped.
//  7. Kept hits are ranked from 1 and grounded.
//
// A reranker failure (timeout, refused key, invalid answer) is not a
// query failure: the result is the vector result, with RerankInfo.Err set.

// Reranker reorders candidate documents by relevance to a question
// (Cohere rerank, the local BM25 reranker). Implementations must be safe
// for concurrent use and honour ctx.
type Reranker interface {
	// Rerank scores docs against query and returns at most topN of them,
	// each with its index in docs and a relevance score in 0..1, in any
	// order (the pipeline sorts them).
	Rerank(ctx context.Context, query string, docs []string, topN int) ([]Relevance, error)
	// Name is the rerank model's name.
	Name() string
}

// Relevance is a reranker's score for one document.
type Relevance struct {
	// Index is the document's position in the docs given to Rerank.
	Index int
	// Score is the relevance, 0..1, higher is better.
	Score float64
}

// Rerank limits.
const (
	// DefaultRerankCandidates is the multiplier of top_k when
	// RerankOptions.Candidates is 0.
	DefaultRerankCandidates = 4
	// MaxRerankCandidates caps the chunks searched and sent to the
	// reranker (Cohere bills one search per 100 documents).
	MaxRerankCandidates = 100
)

// ReasonBelowRerankThreshold drops a hit whose relevance is below
// RerankOptions.Threshold.
const ReasonBelowRerankThreshold = "below_rerank_threshold"

// RerankOptions ask for reranking a query.
type RerankOptions struct {
	// On reranks with the pipeline's Reranker.
	On bool `json:"on"`
	// Candidates multiplies top_k to give the number of chunks searched and
	// reranked (1..100, 0 means DefaultRerankCandidates).
	Candidates int `json:"candidates,omitempty"`
	// Threshold is the minimum relevance a hit needs (0..1).
	Threshold float64 `json:"threshold,omitempty"`
}

// Rerank validation errors; each matches ErrInvalidQuery.
var (
	ErrRerankCandidatesRange = &ValidationError{Field: "rerank_candidates", Msg: fmt.Sprintf("rerank candidates must be between 1 and %d (a multiple of top_k).", MaxRerankCandidates)}
	ErrRerankThresholdRange  = &ValidationError{Field: "rerank_threshold", Msg: "rerank threshold must be between 0.0 and 1.0."}
)

// normalize checks o and fills in the default candidates.
func (o *RerankOptions) normalize() error {
	if o.Candidates == 0 {
		o.Candidates = DefaultRerankCandidates
	}
	if o.Candidates < 1 || o.Candidates > MaxRerankCandidates {
		return invalid(ErrRerankCandidatesRange, strconv.Itoa(o.Candidates))
	}
	if math.IsNaN(o.Threshold) || o.Threshold < 0 || o.Threshold > 1 {
		return invalid(ErrRerankThresholdRange, strconv.FormatFloat(o.Threshold, 'g', -1, 64))
	}
	return nil
}

// CandidateLimit is the number of chunks a query asks of the store: top_k,
// or with reranking top_k × candidates, at most MaxRerankCandidates (never
// fewer than top_k).
func CandidateLimit(q Query) int {
	if !q.Rerank.On {
		return q.TopK
	}
	c := q.Rerank.Candidates
	if c == 0 {
		c = DefaultRerankCandidates
	}
	return max(q.TopK, min(q.TopK*c, MaxRerankCandidates))
}

// RerankInfo describes how a result was reranked.
type RerankInfo struct {
	// Model is the reranker's name.
	Model string `json:"model"`
	// Searched is the number of chunks asked of the store; Candidates the
	// number sent to the reranker (those at or above the threshold);
	// Returned the number it scored.
	Searched   int `json:"searched"`
	Candidates int `json:"candidates"`
	Returned   int `json:"returned"`
	// Threshold is the relevance threshold used.
	Threshold float64 `json:"threshold"`
	// Vector is the result the vector order alone gives (what the query
	// shows without reranking), with VectorRank and VectorScore set.
	Vector []Hit `json:"vector"`
	// VectorDropped is what the vector result left out.
	VectorDropped []DroppedHit `json:"-"`
	// FellOut are the hits of Vector that are not in the final list.
	FellOut []Hit `json:"fell_out"`
	// Err is the reranker's failure; then the result's hits are Vector.
	Err error `json:"-"`
	// Error is Err's message ("" when the rerank succeeded).
	Error string `json:"error,omitempty"`
}

// MoveKind says how a hit moved against the vector result.
type MoveKind string

// Move kinds.
const (
	MoveSame MoveKind = "same"
	MoveUp   MoveKind = "up"
	MoveDown MoveKind = "down"
	MoveNew  MoveKind = "new"
)

// String returns the kind's wire name.
func (k MoveKind) String() string { return string(k) }

// Movement is where a reranked hit moved from.
type Movement struct {
	Kind MoveKind `json:"kind"`
	// By is how many places it moved (0 for same and new).
	By int `json:"by,omitempty"`
	// From is its rank in the vector result (0 for new).
	From int `json:"from,omitempty"`
}

// String renders the movement as the CLI and the TUI show it: "↑3",
// "↓1", "=" or "new".
func (m Movement) String() string {
	switch m.Kind {
	case MoveUp:
		return "↑" + strconv.Itoa(m.By)
	case MoveDown:
		return "↓" + strconv.Itoa(m.By)
	case MoveNew:
		return "new"
	}
	return "="
}

// Movements returns the movement of each of r.Hits against the vector
// result, in hit order; nil when r was not reranked.
func (r Result) Movements() []Movement {
	if r.Rerank == nil {
		return nil
	}
	from := make(map[string]int, len(r.Rerank.Vector))
	for _, h := range r.Rerank.Vector {
		from[chunkKey(&h.Chunk)] = h.Rank
	}
	out := make([]Movement, len(r.Hits))
	for i, h := range r.Hits {
		f, ok := from[chunkKey(&h.Chunk)]
		switch {
		case !ok:
			out[i] = Movement{Kind: MoveNew}
		case f > h.Rank:
			out[i] = Movement{Kind: MoveUp, By: f - h.Rank, From: f}
		case f < h.Rank:
			out[i] = Movement{Kind: MoveDown, By: h.Rank - f, From: f}
		default:
			out[i] = Movement{Kind: MoveSame, From: f}
		}
	}
	return out
}

// chunkKey identifies a chunk within one result.
func chunkKey(c *Chunk) string {
	i, _ := c.Index()
	return c.ID + "\x00" + c.DocPath + "\x00" + strconv.Itoa(i)
}

// RerankDocument is the text a reranker sees for c: its title and section
// on a first line (when known), then its text.
func RerankDocument(c *Chunk) string {
	head := c.Title
	if c.Section != "" {
		if head != "" {
			head += " - "
		}
		head += c.Section
	}
	if head == "" {
		return c.Text
	}
	return head + "\n\n" + c.Text
}

// rerank runs stages 2 to 7 over the store's answer. It never fails: a
// reranker error is recorded in res.Rerank and the vector result kept.
func (p *Pipeline) rerank(ctx context.Context, q Query, scored []ScoredChunk, res *Result) {
	t0 := time.Now()
	sorted := sortScored(scored)
	// Both passes (vector result, final order) share the dedup keys.
	keys := make(map[string]dedupKey)
	keyOf := func(c *Chunk) dedupKey {
		k := chunkKey(c)
		dk, ok := keys[k]
		if !ok {
			dk = newDedupKey(c)
			keys[k] = dk
		}
		return dk
	}
	postSorted(sorted, q, p.URLs, res, keyOf)
	info := &RerankInfo{Model: p.Reranker.Name(), Searched: CandidateLimit(q), Threshold: q.Rerank.Threshold, FellOut: []Hit{}}
	res.Rerank = info
	pos, cands := rerankCandidates(sorted, q.Threshold)
	markVectorRanks(res, pos)
	info.Vector, info.VectorDropped = res.Hits, res.Dropped
	info.Candidates = len(cands)
	post := time.Since(t0)
	if len(cands) == 0 {
		res.Timings.Post = post
		return
	}
	docs := make([]string, len(cands))
	for i := range cands {
		docs[i] = RerankDocument(&cands[i].Chunk)
	}
	t1 := time.Now()
	rel, err := p.Reranker.Rerank(ctx, res.Question, docs, q.TopK)
	res.Timings.Rerank = time.Since(t1)
	t2 := time.Now()
	defer func() { res.Timings.Post = post + time.Since(t2) }()
	if err == nil {
		err = checkRelevance(rel, len(docs))
	}
	if err != nil {
		info.Err = fmt.Errorf("rerank: %w", err)
		info.Error = err.Error()
		return
	}
	info.Returned = len(rel)
	hits := p.rerankedHits(rel, cands, pos, q.TopK)
	var below []DroppedHit
	for _, d := range res.Dropped {
		if d.Reason == ReasonBelowThreshold {
			below = append(below, d) // cut before the reranker saw them
		}
	}
	kept, dropped := keep(hits, func(h *Hit) bool { return Below(h.Score, q.Rerank.Threshold) }, ReasonBelowRerankThreshold, q.NoDedup, keyOf)
	res.Hits = kept
	res.Dropped = append(below, dropped...)
	res.Grounded = Ground(kept)
	in := make(map[string]bool, len(kept))
	for i := range kept {
		in[chunkKey(&kept[i].Chunk)] = true
	}
	for _, h := range info.Vector {
		if !in[chunkKey(&h.Chunk)] {
			info.FellOut = append(info.FellOut, h)
		}
	}
}

// rerankCandidates returns each chunk's place in the vector order
// (sorted; a repeated chunk keeps its first), and the chunks the
// reranker is sent: those at or above the score threshold.
func rerankCandidates(sorted []ScoredChunk, threshold float64) (map[string]int, []ScoredChunk) {
	pos := make(map[string]int, len(sorted))
	cands := make([]ScoredChunk, 0, len(sorted))
	for i := range sorted {
		k := chunkKey(&sorted[i].Chunk)
		if _, dup := pos[k]; !dup {
			pos[k] = i + 1
		}
		if !Below(sorted[i].Score, threshold) {
			cands = append(cands, sorted[i])
		}
	}
	return pos, cands
}

// markVectorRanks records on res's hits and dropped chunks (the vector
// result) their vector rank and score.
func markVectorRanks(res *Result, pos map[string]int) {
	for i := range res.Hits {
		h := &res.Hits[i]
		h.VectorRank, h.VectorScore = pos[chunkKey(&h.Chunk)], h.Score
	}
	for i := range res.Dropped {
		d := &res.Dropped[i]
		d.VectorRank, d.VectorScore = pos[chunkKey(&d.Chunk)], d.Score
	}
}

// rerankedHits are the candidates in the reranker's order (rel, most
// relevant first, ties by candidate order), at most topK, each scored by
// its relevance and keeping its vector rank and score.
func (p *Pipeline) rerankedHits(rel []Relevance, cands []ScoredChunk, pos map[string]int, topK int) []Hit {
	sort.SliceStable(rel, func(i, j int) bool {
		if rel[i].Score != rel[j].Score {
			return rel[i].Score > rel[j].Score
		}
		return rel[i].Index < rel[j].Index
	})
	if len(rel) > topK {
		rel = rel[:topK]
	}
	hits := make([]Hit, len(rel))
	for i, r := range rel {
		sc := &cands[r.Index]
		score := r.Score
		hits[i] = Hit{Score: score, Chunk: sc.Chunk, Citation: p.URLs.Cite(&sc.Chunk),
			VectorRank: pos[chunkKey(&sc.Chunk)], VectorScore: sc.Score, RerankScore: &score}
	}
	return hits
}

// VectorResult is the result r would have been without reranking (the
// same search, threshold, dedup and top_k; the timings less the rerank
// call), or r itself when it was not reranked.
func (r Result) VectorResult() Result {
	if r.Rerank == nil {
		return r
	}
	v := r
	v.Hits, v.Dropped, v.Grounded, v.Rerank = r.Rerank.Vector, r.Rerank.VectorDropped, Ground(r.Rerank.Vector), nil
	v.Timings.Total -= r.Timings.Rerank
	v.Timings.Rerank = 0
	return v
}

// checkRelevance rejects an answer that does not fit the documents sent,
// or whose scores are not relevances (a number in 0..1).
func checkRelevance(rel []Relevance, n int) error {
	if len(rel) == 0 && n > 0 {
		// Fewer than asked is fine; none at all is a broken server, and
		// an empty list would hide every candidate.
		return fmt.Errorf("%w: the reranker returned no results for %d documents", ErrUnavailable, n)
	}
	seen := make(map[int]bool, len(rel))
	for _, r := range rel {
		switch {
		case r.Index < 0 || r.Index >= n:
			return fmt.Errorf("%w: the reranker answered with document %d of %d", ErrUnavailable, r.Index, n)
		case seen[r.Index]:
			return fmt.Errorf("%w: the reranker scored document %d twice", ErrUnavailable, r.Index)
		case math.IsNaN(r.Score) || math.IsInf(r.Score, 0):
			return fmt.Errorf("%w: the reranker answered with a score that is not a number", ErrUnavailable)
		case r.Score < 0 || r.Score > 1:
			// A relevance is 0..1: anything else would be shown as is and
			// pass or fail any rerank threshold.
			return fmt.Errorf("%w: the reranker answered with a relevance score of %s for document %d, outside 0..1", ErrUnavailable, strconv.FormatFloat(r.Score, 'g', 4, 64), r.Index)
		}
		seen[r.Index] = true
	}
	return nil
}
