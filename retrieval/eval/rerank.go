package eval

import (
	"sort"

	"ragscope/retrieval"
)

// RerankReport compares a reranked run with the vector order of the same
// candidates (issue 15): one retrieval per case feeds both, so the
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
	// Errors are "id: message" for the cases whose rerank failed (those
	// cases kept their vector order in the reranked run).
	Errors []string `json:"errors"`
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
	rr.Vector = Summarize(rr.VectorCases)
	vrep := rep
	vrep.Cases, vrep.Summary = rr.VectorCases, rr.Vector
	rr.Diff = Compare(vrep, rep)
	return rr
}
