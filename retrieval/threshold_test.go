package retrieval

import "testing"

// TestZeroThresholdKeepsNegativeScores: the default threshold 0 is no
// threshold; top_k 4 over four chunks, two with a negative similarity (as
// the offline embedder gives), returns four hits, while 0.01 cuts them.
func TestZeroThresholdKeepsNegativeScores(t *testing.T) {
	scored := []ScoredChunk{
		{Score: 0.3, Chunk: Chunk{ID: "a", Text: "alpha one", DocPath: "docs/a.md"}},
		{Score: 0.001, Chunk: Chunk{ID: "b", Text: "beta two", DocPath: "docs/b.md"}},
		{Score: -0.002, Chunk: Chunk{ID: "c", Text: "gamma three", DocPath: "docs/c.md"}},
		{Score: -0.2, Chunk: Chunk{ID: "d", Text: "delta four", DocPath: "docs/d.md"}},
	}
	for _, tt := range []struct {
		threshold   float64
		hits, below int
	}{{0, 4, 0}, {0.01, 1, 3}, {0.001, 2, 2}} {
		var res Result
		PostProcess(scored, Query{Question: "q", TopK: 4, Threshold: tt.threshold}, URLBuilder{}, &res)
		below := 0
		for _, d := range res.Dropped {
			if d.Reason == ReasonBelowThreshold {
				below++
			}
		}
		if len(res.Hits) != tt.hits || below != tt.below {
			t.Errorf("threshold %v: %d hits, %d below, want %d and %d", tt.threshold, len(res.Hits), below, tt.hits, tt.below)
		}
		for i, h := range res.Hits {
			if h.Rank != i+1 || (tt.threshold > 0 && h.Score < tt.threshold) {
				t.Errorf("threshold %v: hit %d rank %d score %v", tt.threshold, i, h.Rank, h.Score)
			}
		}
	}
}
