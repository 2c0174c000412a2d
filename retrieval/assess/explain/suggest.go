package explain

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"ragscope/retrieval"
)

// MaxTopK is the largest -k a query takes.
const MaxTopK = 100

// suggest is the expected chunk's suggestions, each from a measured fact:
// the cut it met, the words it lacks, its length against the model's
// input limit, and the words the winner has.
func (x *Explainer) suggest(ctx context.Context, q retrieval.Query, res *retrieval.Result, exp *retrieval.Expected, e *Explanation) []string {
	out := []string{}
	if s := x.cutSuggestion(ctx, q, res, exp); s != "" {
		out = append(out, s)
	}
	var lacks, words []string
	for _, m := range e.Missing {
		words = append(words, m.Term)
		w := quote(m.Term)
		if len(m.Nearest) > 0 {
			w += fmt.Sprintf(" (it says %s %.2f)", quote(m.Nearest[0].Word), m.Nearest[0].Similarity)
		}
		lacks = append(lacks, w)
	}
	if len(lacks) > 0 && exp.Cut != retrieval.CutNone {
		out = append(out, "the page lacks "+strings.Join(lacks, ", ")+": say it in the page or test it with --what-if-add "+exp.Ref+"=\""+strings.Join(words, " ")+"\"")
	}
	for _, t := range e.Terms {
		if t.Form != "" && exp.Cut != retrieval.CutNone {
			out = append(out, fmt.Sprintf("the page says %s where the question says %s: the lexical search counts exact words only", quote(t.Form), quote(t.Term)))
		}
	}
	if e.TokenLimit > 0 && e.Tokens > e.TokenLimit {
		out = append(out, fmt.Sprintf("the expected chunk is %s tokens, over the model's %s: the match may sit in the text the model never saw", thousands(e.Tokens), thousands(e.TokenLimit)))
	}
	if v := e.Versus; v != nil && len(v.WinnerOnly) > 0 && exp.Cut != retrieval.CutNone {
		out = append(out, fmt.Sprintf("the #1 hit wins on %s, which this chunk lacks", quoteAll(v.WinnerOnly)))
	}
	return out
}

// cutSuggestion is the way past the cut the expected chunk met.
func (x *Explainer) cutSuggestion(ctx context.Context, q retrieval.Query, res *retrieval.Result, exp *retrieval.Expected) string {
	switch exp.Cut {
	case retrieval.CutTopK:
		if s := rerankPool(q, res, exp); s != "" {
			return s
		}
		switch {
		case exp.Beyond:
			return "it ranks beyond #1,000: no -k reaches it; the page's words must change"
		case exp.Rank > MaxTopK:
			return fmt.Sprintf("it ranks #%d, beyond the largest -k (%d): the page's words must change", exp.Rank, MaxTopK)
		case exp.Rank > 0:
			return fmt.Sprintf("-k %d would include it (it ranks #%d)", exp.Rank, exp.Rank)
		}
	case retrieval.CutThreshold:
		if exp.Score != nil {
			t := math.Floor(*exp.Score*100) / 100
			return fmt.Sprintf("--threshold %.2f would keep it (its score %.3f is below %.2f)", t, *exp.Score, q.Threshold)
		}
	case retrieval.CutFilter:
		if c, ok := x.Store.(retrieval.Counter); ok {
			if n, err := c.Count(ctx, q.Filters); err == nil && n == 0 {
				return "the filter leaves 0 points: " + q.Filters.String() + " matches nothing in the collection"
			}
		}
		return "the filter " + q.Filters.String() + " leaves it out: drop it or add the chunk's values"
	case retrieval.CutDuplicate:
		return "it was folded into a near-duplicate: --no-dedup keeps it"
	case retrieval.CutRerank:
		return reranked(q, res, exp)
	case retrieval.CutApproximate:
		return fmt.Sprintf("--exact finds it (exact rank #%d): the approximate index missed it", exp.ExactRank)
	}
	return ""
}

// rerankPool is the way past a top_k cut after a rerank, "" when the
// query was not reranked: the reranker orders only the candidates the
// vector search sent it (top_k × rerank_candidates), so a chunk beyond
// them is placed by no -k; a larger pool sends it, and the reranker then
// places it. After a failed rerank the vector order stood.
func rerankPool(q retrieval.Query, res *retrieval.Result, exp *retrieval.Expected) string {
	if !q.Rerank.On || exp.Rank <= 0 || exp.Beyond {
		return ""
	}
	pool := retrieval.CandidateLimit(q)
	if res.Rerank != nil {
		if res.Rerank.Err != nil {
			return fmt.Sprintf("the rerank failed, so the vector order stood: in it, -k %d would include it (it ranks #%d)", exp.Rank, exp.Rank)
		}
		pool = res.Rerank.Searched
	}
	if exp.Rank <= pool {
		return ""
	}
	if exp.Rank > retrieval.MaxRerankCandidates {
		return fmt.Sprintf("it ranks #%d in the vector search, beyond the most candidates a rerank takes (%d): no -k or --rerank-candidates sends it to the reranker; the page's words must change", exp.Rank, retrieval.MaxRerankCandidates)
	}
	c := (exp.Rank + q.TopK - 1) / q.TopK
	return fmt.Sprintf("-k alone does not bring it: it ranks #%d in the vector search, beyond the %s sent to the reranker; --rerank-candidates %d (rerank_candidates: top_k %d × %d = %d candidates) sends it, and the reranker then places it", exp.Rank, candidates(pool), c, q.TopK, c, q.TopK*c)
}

// reranked is the way past the reranker's cut, read from the record: a
// relevance below the rerank threshold gives the threshold that keeps
// it; else the reranker placed it below its top_k (it returns no more,
// so its place is not recorded), and without the reranker it ranks where
// the vector search put it.
func reranked(q retrieval.Query, res *retrieval.Result, exp *retrieval.Expected) string {
	for _, d := range res.Dropped {
		if d.Chunk.ID == exp.PointID && d.Reason == retrieval.ReasonBelowRerankThreshold && d.RerankScore != nil {
			t := math.Floor(*d.RerankScore*100) / 100
			return fmt.Sprintf("--rerank-threshold %.2f would keep it (its relevance %.3f is below %.2f)", t, *d.RerankScore, q.Rerank.Threshold)
		}
	}
	pool := retrieval.CandidateLimit(q)
	if res.Rerank != nil {
		pool = res.Rerank.Searched
	}
	return fmt.Sprintf("the reranker placed it below its top %d of the %s (it returns no more, so its place among them is not recorded): without --rerank it ranks #%d", q.TopK, candidates(pool), exp.Rank)
}

// candidates is "1 candidate", "20 candidates".
func candidates(n int) string {
	if n == 1 {
		return "1 candidate"
	}
	return strconv.Itoa(n) + " candidates"
}

func quote(s string) string { return "\"" + s + "\"" }

func quoteAll(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = quote(w)
	}
	return strings.Join(q, ", ")
}

// thousands writes n with comma thousands separators (1,480).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
