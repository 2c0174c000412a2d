package local

import (
	"fmt"

	"ragscope/retrieval"
)

// Arm fusions, as Qdrant fuses a hybrid query's prefetches: each arm (the
// embedder's cosine, BM25) ranks its best prefetch chunks alone, then
// RRF (a chunk at rank r of an arm adds 1/(r − 1 + k)) or DBSF (each
// arm's scores normalised by mean ± 3 sample standard deviations, then
// summed) fuses the two lists. Every hit carries its place in each arm.
const (
	FusionRRF  = "rrf"
	FusionDBSF = "dbsf"
	// DefaultRRFK is Qdrant's default k.
	DefaultRRFK = 2
	// PrefetchFactor sets the default prefetch: this many times the
	// search's limit.
	PrefetchFactor = 5
)

// armFusion is a Qdrant-style fusion of the hybrid mode's two arms.
type armFusion struct {
	method   string // FusionRRF or FusionDBSF
	k        int
	prefetch int
}

// ArmFusion names the fusion of the view's hybrid mode when it fuses
// its arms as Qdrant does: "rrf" with its k, or "dbsf"; "" when the view
// blends its scores or is not hybrid.
func (ix *Index) ArmFusion() (method string, k int) {
	if ix.arms == nil || ix.Mode() != ModeHybrid {
		return "", 0
	}
	return ix.arms.method, ix.arms.k
}

func (a armFusion) describe() string {
	if a.method == FusionDBSF {
		return "hybrid: cosine + BM25, DBSF"
	}
	return fmt.Sprintf("hybrid: cosine + BM25, RRF k=%d", a.k)
}

// WithFusion returns a view of the index whose hybrid mode fuses its arms
// as Qdrant does: method "rrf" (k: 0 is DefaultRRFK) or "dbsf", each arm
// to prefetch chunks (0: PrefetchFactor × the limit); "" or "auto" keeps
// the blend. Other methods ("dense", "sparse") name one arm: use the
// embedder or bm25 search mode instead.
func (ix *Index) WithFusion(method string, k, prefetch int) (*Index, error) {
	switch method {
	case "", "auto":
		return ix, nil
	case FusionRRF, FusionDBSF:
	case "dense", "sparse":
		return nil, fmt.Errorf("fusion %q searches one arm: for a local index use --local-search embedder or bm25", method)
	default:
		return nil, fmt.Errorf("fusion %q: use rrf or dbsf", method)
	}
	if k <= 0 {
		k = DefaultRRFK
	}
	v := *ix
	v.arms = &armFusion{method: method, k: k, prefetch: prefetch}
	return &v, nil
}

// fuseArms ranks lex and vec apart to the prefetch limit and fuses them.
func (ix *Index) fuseArms(a armFusion, lex, vec []float64, pass func(int) bool, req retrieval.SearchRequest) []retrieval.ScoredChunk {
	pf := a.prefetch
	if pf <= 0 {
		pf = PrefetchFactor * req.Limit
	}
	pf = max(pf, req.Limit)
	arms := [2][]scored{
		ix.top(vec, pass, pf),
		ix.top(lex, func(i int) bool { return lex[i] > 0 && pass(i) }, pf),
	}
	sum := map[int]float64{}
	rank := map[int][2]int{}
	part := map[int][2]float64{}
	for side, list := range arms {
		var norm []float64
		if a.method == FusionDBSF {
			norm = dbsfNorm(list)
		}
		for r, s := range list {
			pt := retrieval.RRFPart(r+1, a.k)
			if a.method == FusionDBSF {
				pt = norm[r]
			}
			sum[s.i] += pt
			rr, pp := rank[s.i], part[s.i]
			rr[side], pp[side] = r+1, pt
			rank[s.i], part[s.i] = rr, pp
		}
	}
	fused := make([]scored, 0, len(sum))
	for i, s := range sum {
		if req.Threshold > 0 && s < req.Threshold {
			continue
		}
		fused = append(fused, scored{i: i, score: s})
	}
	fused = ix.best(fused, req.Limit)
	out := make([]retrieval.ScoredChunk, len(fused))
	for n, s := range fused {
		r, pt := rank[s.i], part[s.i]
		armOf := func(label string, side int, sc float64) retrieval.Arm {
			if r[side] == 0 {
				return retrieval.Arm{Label: label, Vector: label, Part: new(0.0)}
			}
			return retrieval.Arm{Label: label, Vector: label, Rank: r[side], Score: sc, Part: new(pt[side])}
		}
		out[n] = retrieval.ScoredChunk{
			Chunk: cloneChunk(&ix.chunks[s.i]),
			Score: s.score,
			Arms:  []retrieval.Arm{armOf("dense", 0, vec[s.i]), armOf("bm25", 1, lex[s.i])},
		}
	}
	return out
}

// dbsfNorm is retrieval.DBSFNorm of a list's scores.
func dbsfNorm(list []scored) []float64 {
	scores := make([]float64, len(list))
	for i, s := range list {
		scores[i] = s.score
	}
	return retrieval.DBSFNorm(scores)
}
