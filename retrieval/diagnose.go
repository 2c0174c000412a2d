package retrieval

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// "Why not this chunk?": for each expected source of a question, its best
// chunk for the question, its rank and score among the points, and the
// first stage of the pipeline that cut it. The cuts are read from the
// query's own record (Result.Dropped, the candidates it searched); only
// what the pipeline cannot know is asked of the store, in one call beside
// the query's search (a QueryBatch on Qdrant, so --expect adds no wait
// beyond one round trip's share): the expected chunk's score (a search
// restricted to its page or point id) and the ids and scores of the top
// RankCap+1 points, which rank it without scanning the collection. All
// of them are exact searches, so a chunk an approximate index cannot
// reach is still found.

// RankCap bounds the ranking: an expected chunk below this many points is
// "ranked beyond 1,000".
const RankCap = 1000

// pageChunkLimit bounds the chunks of one page read to find a section.
const pageChunkLimit = 256

// dupWindow is how many of the best points are read with their text to
// count the near-duplicates above an expected chunk the query's
// candidates do not hold: below it, its rank counts them.
const dupWindow = 100

// Cut codes of Expected.Cut, in pipeline order.
const (
	CutNone        = ""
	CutNotFound    = "not_found"
	CutNoMatch     = "no_match"
	CutFilter      = "filter"
	CutThreshold   = "threshold"
	CutApproximate = "approximate"
	CutTopK        = "top_k"
	CutDuplicate   = "duplicate"
	CutRerank      = "rerank"
)

// Diagnosis is what a diagnosed query says beside its result.
type Diagnosis struct {
	// Expected says where each expected source went (in refs order).
	Expected []Expected
	// ANN compares the approximate search with an exact one (nil when not
	// asked, or when the server refused exact search).
	ANN *ANNCheck
	// Notes say what could not be shown (a server that refuses exact
	// search).
	Notes []string
}

// Diagnose runs q like Retrieve and, for each of refs, says where its
// best chunk for the question went (see Expected); with annCheck it also
// compares the query's search with an exact one (ANNCheck). What the
// diagnosis asks of the store runs beside the query's search, in one
// batched call (see diagSearch). A ref that matches nothing comes back
// with Cut CutNotFound. Selected-text queries have no search to explain.
func (p *Pipeline) Diagnose(ctx context.Context, q Query, refs []ExpectRef, annCheck bool) (Result, Diagnosis, error) {
	return p.diagnose(ctx, q, nil, 0, refs, annCheck)
}

// DiagnoseVector is Diagnose for a question already embedded (vec), as
// RetrieveVector is to Retrieve.
func (p *Pipeline) DiagnoseVector(ctx context.Context, q Query, vec []float32, embedTook time.Duration, refs []ExpectRef, annCheck bool) (Result, Diagnosis, error) {
	if vec == nil {
		vec = []float32{}
	}
	return p.diagnose(ctx, q, vec, embedTook, refs, annCheck)
}

func (p *Pipeline) diagnose(ctx context.Context, q Query, vec []float32, embedTook time.Duration, refs []ExpectRef, annCheck bool) (Result, Diagnosis, error) {
	var d Diagnosis
	if q.Mode == ModeSelectedText {
		return Result{}, d, fmt.Errorf("%w: expected sources and the ANN check explain a search; selected-text mode runs none", ErrConfig)
	}
	nq, _, _, err := Normalize(q)
	if err != nil {
		return Result{}, d, err
	}
	// URL refs name pages by their citation; map them to doc paths first.
	resolved, err := p.ResolveRefs(ctx, refs)
	if err != nil {
		return Result{}, d, err
	}
	// A doc-path lookup is a filtered search: let the store prepare for
	// it beside the embedding.
	var prep chan error
	if fp, ok := p.Store.(FilterPreparer); ok && byDocPath(resolved) {
		prep = make(chan error, 1)
		go func() { prep <- fp.PrepareFilters(ctx) }()
	}
	var diag diagSearch
	var diagErr error
	b := &beside{run: func(ctx context.Context, store Store, vec []float32) {
		if prep != nil {
			diagErr = <-prep
			prep = nil
		}
		if diagErr == nil {
			diag, diagErr = p.diagSearch(ctx, store, nq, vec, resolved, annCheck)
		}
	}}
	res, err := p.retrieve(ctx, q, vec, embedTook, b)
	if prep != nil {
		<-prep // the search failed before the diagnosis ran
	}
	if err != nil {
		return Result{}, d, err
	}
	if diagErr != nil {
		return Result{}, d, fmt.Errorf("expected sources or exact search: %w", diagErr)
	}
	store, err := p.storeFor(nq)
	if err != nil {
		return Result{}, d, err
	}
	d.Notes = diag.notes
	if annCheck && !diag.approxOnly {
		d.ANN = compareANN(nq, b.cands, diag.exact, isApproximate(store))
		if diag.quantized {
			d.ANN.Quantization = &QuantizationCheck{
				RescoreOn:  compareANN(nq, diag.rescoreOn, diag.exact, true).Recall,
				RescoreOff: compareANN(nq, diag.rescoreOff, diag.exact, true).Recall,
				Applied:    "the query's search left rescoring to the server's default (on)",
			}
		}
	}
	d.Expected = p.expectedOf(nq, &res, b.cands, store, refs, resolved, &diag)
	return res, d, nil
}

// explain turns the located chunks into Expected entries: each is ranked
// among the top points (with the query's filters when they keep it) and
// its cut read from the query's record.
func (p *Pipeline) expectedOf(q Query, res *Result, cands []ScoredChunk, store Store, refs, resolved []ExpectRef, d *diagSearch) []Expected {
	out := make([]Expected, len(refs))
	for i, r := range refs {
		e := &out[i]
		e.Ref = r.Raw
		sc := d.best[i]
		if sc == nil && d.unscored[i] > 0 {
			e.DocPath = resolved[i].DocPath
			e.Cut, e.Chunks, e.Detail = CutNoMatch, d.unscored[i], noMatchDetail(d.unscored[i], rankingOf(store))
			continue
		}
		if sc == nil {
			e.Cut, e.Detail = CutNotFound, notFoundDetail(r, resolved[i])
			continue
		}
		score := sc.Score
		e.PointID, e.DocPath, e.Section, e.Score = sc.Chunk.ID, sc.Chunk.DocPath, sc.Chunk.Section, &score
		e.ChunkIndex, e.TotalChunks = sc.Chunk.ChunkIndex, sc.Chunk.TotalChunks
		top := d.top
		if !q.Filters.IsEmpty() && q.Filters.Match(&sc.Chunk) {
			top = d.filtered
		}
		// Points above it, and tied points the pipeline orders first
		// (ties go by chunk id, as lessScored orders them).
		n := 1
		for _, s := range top {
			if s.Chunk.ID != e.PointID && (s.Score > score || (s.Score == score && s.Chunk.ID < e.PointID)) {
				n++
			}
		}
		e.ExactRank = n
		if n > RankCap {
			e.ExactRank, e.Beyond = RankCap+1, true
		}
		if fusedRanking(top) {
			// A fused score depends on the other points the arms
			// return: the chunk's place is its place in the fused
			// ranking itself, not a score compared with it.
			fusedPlace(top, e, sc)
		}
		e.Rank = e.ExactRank
		p.cutOf(q, res, cands, store, sc, e, d.approxOnly, d.window)
		if e.Arms != nil {
			e.Detail = armsDetail(e.Arms, e.ExactRank) + ", " + e.Detail
		}
	}
	return out
}

// duplicatesAbove counts the near-duplicates among sorted[:n] (in
// lessScored order) that dedup would leave out of a list holding them.
func duplicatesAbove(sorted []ScoredChunk, n int) int {
	var accepted []dedupKey
	dups := 0
	for i := 0; i < n && i < len(sorted); i++ {
		key := newDedupKey(&sorted[i].Chunk)
		if _, _, dup := key.duplicateOf(accepted); dup {
			dups++
			continue
		}
		key.rank = len(accepted) + 1
		accepted = append(accepted, key)
	}
	return dups
}

// noMatchDetail says that none of a source's n chunks was scored: on a
// lexical ranking (BM25, hybrid) none holds a word of the question.
func noMatchDetail(n int, ranking string) string {
	switch {
	case ranking == "" && n == 1:
		return "in the collection (1 chunk), but the search did not return it"
	case ranking == "":
		return "in the collection (" + strconv.Itoa(n) + " chunks), but the search returned none of them"
	case n == 1:
		return "1 chunk, which matches no word of the question"
	}
	return strconv.Itoa(n) + " chunks, none matches a word of the question"
}

// fusedRanking reports whether top comes from a fused search: its hits
// carry their arms, or their parts say the fusion read ranks (a local
// index's reciprocal rank fusion).
func fusedRanking(top []ScoredChunk) bool {
	return len(top) > 0 && (top[0].Arms != nil || top[0].Parts != nil && top[0].Parts.Ranked)
}

// fusedPlace sets e's rank, score and arms from the chunk's place in the
// fused ranking top (beyond it when the ranking does not hold it), and
// sc's score to its fused one.
func fusedPlace(top []ScoredChunk, e *Expected, sc *ScoredChunk) {
	for j := range top {
		if top[j].Chunk.ID == e.PointID {
			score := top[j].Score
			e.ExactRank, e.Beyond, e.Score, e.Arms = j+1, false, &score, top[j].Arms
			sc.Score = score
			return
		}
	}
	e.ExactRank, e.Beyond = RankCap+1, true
}

// armsDetail places a chunk in each arm and in the fusion: "dense #40,
// bm25: no query word in the chunk, fused #22".
func armsDetail(arms []Arm, fused int) string {
	parts := make([]string, 0, len(arms)+1)
	for _, a := range arms {
		switch {
		case a.Rank > 0:
			parts = append(parts, fmt.Sprintf("%s #%d", a.Label, a.Rank))
		case a.Label == "bm25":
			parts = append(parts, "bm25: no query word in the chunk")
		default:
			parts = append(parts, a.Label+": beyond its prefetch limit")
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("fused #%d", fused)), ", ")
}

func notFoundDetail(r, resolved ExpectRef) string {
	switch {
	case r.URLPath != "" && resolved.DocPath == "":
		return "not in the collection (no chunk cites that URL)"
	case r.Anchor != "":
		return "not in the collection (no chunk of that page has section #" + r.Anchor + ")"
	}
	return "not in the collection"
}

// cutOf fills e's Cut and Detail: the first stage, in pipeline order,
// that cut the expected chunk sc, read from the query's record.
func (p *Pipeline) cutOf(q Query, res *Result, cands []ScoredChunk, store Store, sc *ScoredChunk, e *Expected, approxOnly bool, window []ScoredChunk) {
	if !q.Filters.Match(&sc.Chunk) {
		e.Cut, e.Detail = CutFilter, "filtered out by "+q.Filters.String()
		return
	}
	key := chunkKey(&sc.Chunk)
	inCands := placeAmong(q, cands, window, key, e)
	for _, h := range res.Hits {
		if chunkKey(&h.Chunk) == key {
			e.Rank = h.Rank
			e.Cut, e.Detail = CutNone, "in the results at #"+strconv.Itoa(h.Rank)
			return
		}
	}
	for _, d := range res.Dropped {
		if chunkKey(&d.Chunk) == key {
			e.Cut, e.Detail = droppedCut(q, d)
			return
		}
	}
	limit := CandidateLimit(q)
	switch {
	case Below(sc.Score, q.Threshold):
		e.Cut, e.Detail = CutThreshold, fmt.Sprintf("below the score threshold %.2f", q.Threshold)
	case inCands && q.Rerank.On && res.Rerank != nil && res.Rerank.Err == nil:
		// Sent to the reranker, which placed it below its top_k.
		e.Cut, e.Detail = CutRerank, fmt.Sprintf("moved out by the reranker (not in its top %d)", q.TopK)
	case inCands && q.Rerank.On:
		// The rerank failed: the vector result's top_k cut it.
		e.Cut, e.Detail = CutTopK, fmt.Sprintf("cut by top_k %d (the rerank failed; the vector order stands)", q.TopK)
	case !e.Beyond && e.ExactRank <= limit && isApproximate(store) && !q.Exact && !approxOnly:
		e.Cut, e.Detail = CutApproximate, fmt.Sprintf("missed by approximate search (an exact search ranks it within the %d searched)", limit)
	case q.Rerank.On:
		e.Cut, e.Detail = CutTopK, fmt.Sprintf("cut by top_k %d: beyond the %d candidates searched for the reranker", q.TopK, limit)
	default:
		e.Cut, e.Detail = CutTopK, fmt.Sprintf("cut by top_k %d", q.TopK)
	}
}

// placeAmong sets e's rank: the expected chunk's (key's) place among the
// candidates the query searched, else among the best points (window);
// less the near-duplicates above it the list leaves out (with a reranker
// the list's order is the reranker's: the place is the vector search's).
// It reports whether the chunk is among the candidates.
func placeAmong(q Query, cands, window []ScoredChunk, key string, e *Expected) bool {
	sorted := sortScored(cands)
	placed := false
	for i := range sorted {
		if chunkKey(&sorted[i].Chunk) == key {
			e.Rank, placed = i+1, true
			if !q.NoDedup && !q.Rerank.On {
				e.DuplicatesAbove = duplicatesAbove(sorted, i)
			}
			break
		}
	}
	if !placed && !q.NoDedup && !q.Rerank.On {
		w := sortScored(window)
		for i := range w {
			if chunkKey(&w[i].Chunk) == key {
				e.DuplicatesAbove = duplicatesAbove(w, i)
				break
			}
		}
	}
	e.Rank -= e.DuplicatesAbove
	return placed
}

// droppedCut is the cut and detail of an expected chunk the query's
// record lists as dropped (d), by its reason.
func droppedCut(q Query, d DroppedHit) (string, string) {
	switch d.Reason {
	case ReasonBelowThreshold:
		return CutThreshold, fmt.Sprintf("below the score threshold %.2f", q.Threshold)
	case ReasonDuplicate:
		return CutDuplicate, fmt.Sprintf("folded into a duplicate (#%d)", d.DuplicateOf)
	case ReasonBelowRerankThreshold:
		rel := 0.0
		if d.RerankScore != nil {
			rel = *d.RerankScore
		}
		return CutRerank, fmt.Sprintf("moved out by the reranker (relevance %.3f below the rerank threshold %.2f)", rel, q.Rerank.Threshold)
	}
	return d.Reason, d.Reason
}

// isApproximate reports whether store's searches may miss points an exact
// search returns.
func isApproximate(store Store) bool {
	a, ok := store.(Approximator)
	return ok && a.Approximate()
}
