package local

import (
	"fmt"
	"math"

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
	for side, list := range arms {
		var norm []float64
		if a.method == FusionDBSF {
			norm = dbsfNorm(list)
		}
		for r, s := range list {
			if a.method == FusionDBSF {
				sum[s.i] += norm[r]
			} else {
				sum[s.i] += 1 / float64(r+a.k)
			}
			rr := rank[s.i]
			rr[side] = r + 1
			rank[s.i] = rr
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
		r := rank[s.i]
		armOf := func(label string, rk int, sc float64) retrieval.Arm {
			if rk == 0 {
				return retrieval.Arm{Label: label, Vector: label}
			}
			return retrieval.Arm{Label: label, Vector: label, Rank: rk, Score: sc}
		}
		out[n] = retrieval.ScoredChunk{
			Chunk: cloneChunk(&ix.chunks[s.i]),
			Score: s.score,
			Arms:  []retrieval.Arm{armOf("dense", r[0], vec[s.i]), armOf("bm25", r[1], lex[s.i])},
		}
	}
	return out
}

// dbsfNorm maps a list's scores by (s − (μ − 3σ)) / 6σ, σ the sample
// standard deviation; a single score, or equal ones, map to 0.5.
func dbsfNorm(list []scored) []float64 {
	out := make([]float64, len(list))
	if len(list) < 2 {
		for i := range out {
			out[i] = 0.5
		}
		return out
	}
	var mean float64
	for _, s := range list {
		mean += s.score
	}
	mean /= float64(len(list))
	var ss float64
	for _, s := range list {
		ss += (s.score - mean) * (s.score - mean)
	}
	sd := math.Sqrt(ss / float64(len(list)-1))
	for i, s := range list {
		if sd == 0 {
			out[i] = 0.5
			continue
		}
		out[i] = (s.score - mean + 3*sd) / (6 * sd)
	}
	return out
}
