package eval

import (
	"sort"

	"ragscope/retrieval"
)

// RerankReport compares a reranked run with the vector order of the same
// candidates: one retrieval per case feeds both, so the
// difference is the reranker's alone. In its Diff, "old" is the vector
// order and "new" the reranked one: Fixed are the cases rerank fixed,
// Regressions the cases it broke.
type RerankReport struct {
	// Model is the reranker's name.
	Model string `json:"model"`
	// Candidates multiplies top_k into the chunks searched and reranked.
	Candidates int `json:"candidates"`
	// Threshold is the relevance threshold.
	Threshold float64 `json:"threshold"`
	// Vector is the summary of the vector order, VectorCases its cases.
	Vector      Summary      `json:"vector"`
	VectorCases []CaseResult `json:"vector_cases"`
	// Diff compares the vector order (old) with the reranked run (new).
	Diff Diff `json:"diff"`
	// Reranked is the number of cases that were sent to the reranker.
	Reranked int `json:"reranked"`
	// Errors are "id: message" for the cases whose rerank failed (those
	// cases kept their vector order in the reranked run).
	Errors []string `json:"errors"`
	// Err is the first case's rerank error (in set order), nil when none
	// failed; errors.Is sees its class (retrieval.ErrAuth, …).
	Err error `json:"-"`
}

// Outage reports whether the reranker failed every case sent to it: the
// comparison measured nothing.
func (r *RerankReport) Outage() bool {
	return r != nil && r.Reranked > 0 && len(r.Errors) == r.Reranked
}

// rerankReport builds the comparison once every case finished.
func (r *runner) rerankReport(p *retrieval.Pipeline, rep Report, o retrieval.RerankOptions) *RerankReport {
	rr := &RerankReport{Candidates: o.Candidates, Threshold: o.Threshold, Errors: append([]string{}, r.rerankErrs...)}
	if rr.Candidates == 0 {
		rr.Candidates = retrieval.DefaultRerankCandidates
	}
	if p != nil && p.Reranker != nil {
		rr.Model = p.Reranker.Name()
	}
	sort.Strings(rr.Errors)
	// Cases that were not reranked (selected text, errors) are the same
	// in both orders.
	rr.VectorCases = make([]CaseResult, len(rep.Cases))
	for i, c := range rep.Cases {
		if r.vector[i].ID != "" {
			rr.VectorCases[i] = r.vector[i]
		} else {
			rr.VectorCases[i] = c
		}
	}
	for i := range r.vector {
		if r.vector[i].ID != "" {
			rr.Reranked++
		}
		if rr.Err == nil && r.rerankErr[i] != nil {
			rr.Err = r.rerankErr[i]
		}
	}
	rr.Vector = Summarize(rr.VectorCases)
	vrep := rep
	vrep.Cases, vrep.Summary = rr.VectorCases, rr.Vector
	rr.Diff = Compare(vrep, rep)
	return rr
}
