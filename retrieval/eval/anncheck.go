package eval

import (
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
	// index): then the two agree by construction.
	Approximate bool `json:"approximate"`
	// Verdict says it in words.
	Verdict string `json:"verdict"`
}

// annCase is one case's comparison.
type annCase struct {
	counted   bool
	recall    float64
	indexMiss bool
	otherMiss bool
}

// compareANN compares case c's approximate result with its exact one.
func compareANN(c Case, q retrieval.Query, approx, exact retrieval.Result) annCase {
	a, e := candidateKeys(approx, q.TopK), candidateKeys(exact, q.TopK)
	ac := annCase{counted: true, recall: 1}
	if len(e) > 0 {
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
		ac.recall = float64(n) / float64(len(e))
	}
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
	var sum float64
	for i, ac := range r.ann {
		if !ac.counted {
			continue
		}
		rep.Cases++
		sum += ac.recall
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
	switch n := len(rep.IndexMisses); {
	case !rep.Approximate:
		rep.Verdict = "this backend searches exactly: misses are model or chunking misses"
	case n > 0:
		rep.Verdict = fmt.Sprintf("%d %s index %s (they pass with exact search): raise hnsw_ef or m", n, plural(n, "miss is an", "misses are"), plural(n, "miss", "misses"))
	case len(rep.OtherMisses) > 0:
		rep.Verdict = "misses are model or chunking misses (exact search misses them too)"
	default:
		rep.Verdict = "no misses"
	}
	return rep
}
