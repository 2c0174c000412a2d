package eval

import (
	"context"
	"fmt"
	"sort"

	"ragscope/retrieval"
)

// ANNReport compares a run's approximate searches with exact ones
// (Options.ANNCheck): the approximate search's recall@k against exact
// search over the set, and the cases that pass with exact search but miss
// with approximate search (index misses) apart from the rest (model or
// chunking misses).
type ANNReport struct {
	// Cases is the number of cases compared.
	Cases int `json:"cases"`
	// RecallAtK is the mean over the cases of |approximate top_k ∩ exact
	// top_k| / |exact top_k|.
	RecallAtK float64 `json:"recall_at_k"`
	// IndexMisses are the cases that pass with exact search and do not
	// with approximate search.
	IndexMisses []string `json:"index_misses"`
	// OtherMisses are the missed cases exact search misses too.
	OtherMisses []string `json:"other_misses"`
	// Approximate is false when the backend searches exactly (the local
	// index): then the two agree by construction and nothing is searched
	// twice.
	Approximate bool `json:"approximate"`
	// Quantization compares the run's searches (the server's default:
	// rescoring on) with the same searches without rescoring, on a
	// quantized collection (nil otherwise).
	Quantization *QuantizationReport `json:"quantization,omitempty"`
	// Verdict says it in words.
	Verdict string `json:"verdict"`
}

// QuantizationReport is recall@k against exact search with rescoring on
// (the run's own searches) and off, over the set.
type QuantizationReport struct {
	RescoreOn  float64 `json:"recall_rescore_on"`
	RescoreOff float64 `json:"recall_rescore_off"`
	Applied    string  `json:"applied"`
}

// annCase is one case's comparison.
type annCase struct {
	counted   bool
	recall    float64
	recallOff float64
	quantized bool
	indexMiss bool
	otherMiss bool
}

// annBatch is a search batch's exact searches (and, on a quantized
// collection, its searches without rescoring), made in one batched call.
type annBatch struct {
	approximate bool
	exact       []retrieval.Result
	off         [][]retrieval.ScoredChunk
	err         error
}

// exactBatch searches qs exactly in one call (one QueryBatch on Qdrant),
// and on a quantized collection also approximately without rescoring, in
// the same call. The results are the pipeline's own post-processing
// (retrieval.PostProcess) of the exact candidates: the vector order.
// A store that is exact by nature is not searched again.
func (r *runner) exactBatch(ctx context.Context, qs []retrieval.Query, vecs [][]float32) *annBatch {
	b := &annBatch{}
	store := r.p.Store
	if a, ok := store.(retrieval.Approximator); !ok || !a.Approximate() {
		return b
	}
	b.approximate = true
	quantized := false
	if qz, ok := store.(retrieval.Quantizer); ok {
		quantized = qz.Quantized(ctx)
	}
	var reqs []retrieval.SearchRequest
	for j, q := range qs {
		reqs = append(reqs, retrieval.SearchRequest{Vector: vecs[j], Text: q.Question, Limit: retrieval.CandidateLimit(q), Filters: q.Filters, Exact: true})
	}
	if quantized {
		off := false
		for j, q := range qs {
			reqs = append(reqs, retrieval.SearchRequest{Vector: vecs[j], Text: q.Question, Limit: retrieval.CandidateLimit(q), Filters: q.Filters, Rescore: &off})
		}
	}
	var got [][]retrieval.ScoredChunk
	if bs, ok := store.(retrieval.BatchSearcher); ok {
		got, b.err = bs.SearchBatch(ctx, reqs)
	} else {
		got = make([][]retrieval.ScoredChunk, len(reqs))
		for k := range reqs {
			if got[k], b.err = store.Search(ctx, reqs[k]); b.err != nil {
				break
			}
		}
	}
	if b.err != nil {
		return b
	}
	b.exact = make([]retrieval.Result, len(qs))
	for j, q := range qs {
		vq := q
		vq.Rerank = retrieval.RerankOptions{}
		res := retrieval.Result{Hits: []retrieval.Hit{}, Dropped: []retrieval.DroppedHit{}}
		retrieval.PostProcess(got[j], vq, r.p.URLs, &res)
		b.exact[j] = res
	}
	if quantized {
		b.off = got[len(qs):]
	}
	return b
}

// compare compares case c's approximate result with the batch's exact
// search j.
func (b *annBatch) compare(c Case, q retrieval.Query, approx retrieval.Result, j int) annCase {
	if !b.approximate {
		// Exact by nature: the exact search is the search.
		st := Evaluate(c, q, approx).Status
		return annCase{counted: true, recall: 1, otherMiss: st == StatusMiss}
	}
	vq := q
	vq.Rerank = retrieval.RerankOptions{}
	ac := annCaseOf(c, vq, approx.VectorResult(), b.exact[j])
	if b.off != nil {
		off := retrieval.Result{Hits: []retrieval.Hit{}, Dropped: []retrieval.DroppedHit{}}
		retrieval.PostProcess(b.off[j], vq, retrieval.URLBuilder{}, &off)
		ac.quantized = true
		ac.recallOff = recallOf(candidateKeys(off, q.TopK), candidateKeys(b.exact[j], q.TopK))
	}
	return ac
}

// recallOf is |a ∩ e| / |e| (1 when e is empty).
func recallOf(a, e []string) float64 {
	if len(e) == 0 {
		return 1
	}
	in := map[string]bool{}
	for _, k := range a {
		in[k] = true
	}
	n := 0
	for _, k := range e {
		if in[k] {
			n++
		}
	}
	return float64(n) / float64(len(e))
}

// annCaseOf compares case c's approximate result with its exact one.
func annCaseOf(c Case, q retrieval.Query, approx, exact retrieval.Result) annCase {
	ac := annCase{counted: true, recall: recallOf(candidateKeys(approx, q.TopK), candidateKeys(exact, q.TopK))}
	as, es := Evaluate(c, q, approx).Status, Evaluate(c, q, exact).Status
	ac.indexMiss = as == StatusMiss && es == StatusPass
	ac.otherMiss = as == StatusMiss && es != StatusPass
	return ac
}

// candidateKeys are the ids of the top k chunks a result's search
// returned, in vector order (kept and left out alike).
func candidateKeys(res retrieval.Result, k int) []string {
	v := res.VectorResult()
	type sc struct {
		id    string
		score float64
	}
	var all []sc
	for _, h := range v.Hits {
		all = append(all, sc{h.Chunk.ID, h.Score})
	}
	for _, d := range v.Dropped {
		all = append(all, sc{d.Chunk.ID, d.Score})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].id < all[j].id
	})
	if len(all) > k {
		all = all[:k]
	}
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = s.id
	}
	return out
}

// annReport sums the cases' comparisons (nil when none ran).
func (r *runner) annReport(set Set) *ANNReport {
	if !r.opts.ANNCheck {
		return nil
	}
	rep := &ANNReport{IndexMisses: []string{}, OtherMisses: []string{}}
	if r.p != nil {
		if a, ok := r.p.Store.(retrieval.Approximator); ok {
			rep.Approximate = a.Approximate()
		}
	}
	var sum, sumOff float64
	quantized := 0
	for i, ac := range r.ann {
		if !ac.counted {
			continue
		}
		rep.Cases++
		sum += ac.recall
		if ac.quantized {
			quantized++
			sumOff += ac.recallOff
		}
		if ac.indexMiss {
			rep.IndexMisses = append(rep.IndexMisses, set.Cases[i].ID)
		}
		if ac.otherMiss {
			rep.OtherMisses = append(rep.OtherMisses, set.Cases[i].ID)
		}
	}
	if rep.Cases > 0 {
		rep.RecallAtK = sum / float64(rep.Cases)
	}
	if quantized > 0 {
		rep.Quantization = &QuantizationReport{RescoreOn: rep.RecallAtK, RescoreOff: sumOff / float64(quantized),
			Applied: "the run's searches left rescoring to the server's default (on)"}
	}
	switch n := len(rep.IndexMisses); {
	case !rep.Approximate:
		rep.Verdict = "this backend searches exactly: misses are model or chunking misses"
	case n > 0:
		rep.Verdict = fmt.Sprintf("%d %s index %s (they pass with exact search): raise hnsw_ef or m", n, plural(n, "miss is an", "misses are"), plural(n, "miss", "misses"))
		if o := len(rep.OtherMisses); o > 0 {
			rep.Verdict += fmt.Sprintf("; the other %d %s model or chunking %s (exact search misses %s too)", o, plural(o, "is a", "are"), plural(o, "miss", "misses"), plural(o, "it", "them"))
		}
	case len(rep.OtherMisses) > 0:
		rep.Verdict = "misses are model or chunking misses (exact search misses them too)"
	default:
		rep.Verdict = "no misses"
	}
	return rep
}
