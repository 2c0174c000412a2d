package cli

import (
	"fmt"
	"io"
	"strings"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
)

// RerankJSON is the "rerank" object of the query JSON document.
type RerankJSON struct {
	Model      string  `json:"model"`
	Searched   int     `json:"searched"`
	Candidates int     `json:"candidates"`
	Returned   int     `json:"returned"`
	Threshold  float64 `json:"threshold"`
	// Error is the reranker's failure; the results are then in vector order.
	Error   string    `json:"error,omitempty"`
	FellOut []HitJSON `json:"fell_out"`
}

func rerankJSON(info *retrieval.RerankInfo) *RerankJSON {
	if info == nil {
		return nil
	}
	out := &RerankJSON{Model: info.Model, Searched: info.Searched, Candidates: info.Candidates, Returned: info.Returned,
		Threshold: info.Threshold, Error: info.Error, FellOut: make([]HitJSON, 0, len(info.FellOut))}
	for _, h := range info.FellOut {
		out.FellOut = append(out.FellOut, hitJSON(h))
	}
	return out
}

// vectorScore is the hit's similarity when it was reranked (nil otherwise).
func vectorScore(h retrieval.Hit) *float64 {
	if h.VectorRank == 0 {
		return nil
	}
	s := h.VectorScore
	return &s
}

// moveWord is a movement in JSON: "same", "new", "up 3", "down 1".
func moveWord(m retrieval.Movement) string {
	if m.By > 0 {
		return fmt.Sprintf("%s %d", m.Kind, m.By)
	}
	return m.Kind.String()
}

// writeRerankText prints the human lines of a reranked result: the fell
// out hits and a failed rerank (the results are then in the store's
// order: vector, hybrid or BM25).
func writeRerankText(w io.Writer, res retrieval.Result) {
	info := res.Rerank
	if info == nil {
		return
	}
	stage := present.FirstStage(res.Params.Ranking)
	if len(info.FellOut) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Fell out of the %s top %d (%d):\n", stage, res.Params.TopK, len(info.FellOut))
		for _, h := range info.FellOut {
			fmt.Fprintf(w, "  - %s #%d [%.3f] %s\n", stage, h.Rank, h.Score, present.Title(&h.Chunk))
		}
	}
	if info.Err != nil {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Rerank failed, results in %s order: %s\n", stage, cleanLine(info.Error))
	}
}

// rerankParamsText is the rerank part of the parameters line.
func rerankParamsText(res retrieval.Result) string {
	info := res.Rerank
	if info == nil {
		return ""
	}
	if info.Err != nil {
		return fmt.Sprintf(" · rerank %s: %d candidates, failed", cleanLine(info.Model), info.Candidates)
	}
	s := fmt.Sprintf(" · rerank %s: %d candidates → %d", cleanLine(info.Model), info.Candidates, info.Returned)
	if info.Threshold > 0 {
		s += fmt.Sprintf(", relevance ≥ %.2f", info.Threshold)
	}
	return s
}

// hitRanksText is the score part of a hit's line: "[0.412]" without
// reranking, "[0.412 · bm25 0.580 · cosine 0.370]" from a hybrid search,
// "[0.912 · vector #3 0.612 ↑2]" with reranking (stage names the ranking
// reranked: vector, hybrid or BM25).
func hitRanksText(h retrieval.Hit, m *retrieval.Movement, stage string) string {
	if (m == nil || h.VectorRank == 0) && h.ScoreParts != nil {
		return fmt.Sprintf("[%.3f · bm25 %.3f · cosine %.3f]", h.Score, h.ScoreParts.BM25, h.ScoreParts.Cosine)
	}
	if m == nil || h.VectorRank == 0 {
		return fmt.Sprintf("[%.3f]", h.Score)
	}
	if h.RerankScore == nil {
		return fmt.Sprintf("[%s #%d %.3f]", stage, h.VectorRank, h.VectorScore)
	}
	return fmt.Sprintf("[%.3f · %s #%d %.3f %s]", *h.RerankScore, stage, h.VectorRank, h.VectorScore, m)
}

// writeRerankEval prints eval --rerank's comparison: the reranked run
// against the store's order (stage: vector, hybrid or BM25) of the same
// candidates (one retrieval each).
func writeRerankEval(w io.Writer, rr *eval.RerankReport, stage string) {
	if rr == nil {
		return
	}
	d := rr.Diff
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Rerank %s against the %s order (the same %d× candidates per case; one retrieval feeds both)\n", cleanLine(rr.Model), stage, rr.Candidates)
	writeDiff(w, d, diffLabels{regression: "BROKE", fixed: "FIXED", latency: true})
	fmt.Fprintf(w, "  rerank fixed %d %s%s · broke %d%s\n", len(d.Fixed), present.Plural(len(d.Fixed), "case", "cases"), idsText(d.Fixed), len(d.Regressions), idsText(d.Regressions))
	if n := len(rr.Errors); n > 0 {
		fmt.Fprintf(w, "  rerank failed on %d %s (kept in %s order): %s\n", n, present.Plural(n, "case", "cases"), stage, cleanLine(rr.Errors[0]))
	}
}

func idsText(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (" + cleanLine(strings.Join(ids, ", ")) + ")"
}
