package retrieval

import "fmt"

// ANNCheck compares a query's search with an exact one: how many of the
// exact search's top_k the approximate search returned (recall@k), and
// which it missed. Against a store that is exact by nature the two agree.
type ANNCheck struct {
	// K is the query's top_k.
	K int `json:"k"`
	// Recall is |approximate top_k ∩ exact top_k| / |exact top_k| (1 when
	// the exact search found nothing).
	Recall float64 `json:"recall_at_k"`
	// Missed are the exact top_k hits the approximate search did not
	// return, with their exact rank.
	Missed []ANNMiss `json:"missed"`
	// Approximate is false when the store is exact by nature.
	Approximate bool `json:"approximate"`
	// Quantization compares rescoring on and off on a quantized
	// collection (nil otherwise).
	Quantization *QuantizationCheck `json:"quantization,omitempty"`
}

// QuantizationCheck is the approximate search's recall@k against exact
// search on a quantized collection, with rescoring (by the original
// vectors) on and off, and which applied to the query's own search.
type QuantizationCheck struct {
	RescoreOn  float64 `json:"recall_rescore_on"`
	RescoreOff float64 `json:"recall_rescore_off"`
	Applied    string  `json:"applied"`
}

// QuantizationSummary says the quantization check in one line ("" when
// the collection is not quantized).
func (c *ANNCheck) QuantizationSummary() string {
	qz := c.Quantization
	if qz == nil {
		return ""
	}
	return fmt.Sprintf("quantized collection: recall@%d %.2f with rescoring, %.2f without; %s", c.K, qz.RescoreOn, qz.RescoreOff, qz.Applied)
}

// ANNMiss is an exact hit the approximate search missed.
type ANNMiss struct {
	ExactRank int     `json:"exact_rank"`
	Score     float64 `json:"score"`
	PointID   string  `json:"point_id"`
	DocPath   string  `json:"doc_path,omitempty"`
	Section   string  `json:"section,omitempty"`
}

// Summary says the check in one line: "ANN recall@5 0.80: missed 1 of
// the exact top 5 (exact #3 docs/a.md)".
func (c *ANNCheck) Summary() string {
	if !c.Approximate {
		return fmt.Sprintf("ANN recall@%d %.2f: this backend searches exactly", c.K, c.Recall)
	}
	if len(c.Missed) == 0 {
		return fmt.Sprintf("ANN recall@%d %.2f: the approximate search returned every exact hit", c.K, c.Recall)
	}
	return fmt.Sprintf("ANN recall@%d %.2f: the approximate search missed %d of the exact top %d: index misses (raise hnsw_ef or m)", c.K, c.Recall, len(c.Missed), c.K)
}

// compareANN compares the approximate candidates with the exact ones,
// both in the store's order, over q's top_k.
func compareANN(q Query, approx, exact []ScoredChunk, approximate bool) *ANNCheck {
	a, e := sortScored(approx), sortScored(exact)
	if len(a) > q.TopK {
		a = a[:q.TopK]
	}
	if len(e) > q.TopK {
		e = e[:q.TopK]
	}
	got := make(map[string]bool, len(a))
	for i := range a {
		got[chunkKey(&a[i].Chunk)] = true
	}
	c := &ANNCheck{K: q.TopK, Recall: 1, Missed: []ANNMiss{}, Approximate: approximate}
	for i := range e {
		if !got[chunkKey(&e[i].Chunk)] {
			ch := &e[i].Chunk
			c.Missed = append(c.Missed, ANNMiss{ExactRank: i + 1, Score: e[i].Score, PointID: ch.ID, DocPath: ch.DocPath, Section: ch.Section})
		}
	}
	if len(e) > 0 {
		c.Recall = float64(len(e)-len(c.Missed)) / float64(len(e))
	}
	return c
}
