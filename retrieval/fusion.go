package retrieval

import "math"

// RRFPart is what a chunk at rank (from 1) of one arm adds to a
// reciprocal rank fusion with constant k, as Qdrant counts it: 1/(k +
// rank − 1), the rank zero-based.
func RRFPart(rank, k int) float64 { return 1 / float64(rank-1+k) }

// DBSFNorm maps an arm's scores, best first, as distribution-based
// score fusion does before it sums the arms: (s − (μ − 3σ)) / 6σ, σ the
// sample standard deviation; a single score, or equal ones, map to 0.5.
func DBSFNorm(scores []float64) []float64 {
	out := make([]float64, len(scores))
	if len(scores) < 2 {
		for i := range out {
			out[i] = 0.5
		}
		return out
	}
	var mean float64
	for _, s := range scores {
		mean += s
	}
	mean /= float64(len(scores))
	var ss float64
	for _, s := range scores {
		ss += (s - mean) * (s - mean)
	}
	sd := math.Sqrt(ss / float64(len(scores)-1))
	for i, s := range scores {
		if sd == 0 {
			out[i] = 0.5
			continue
		}
		out[i] = (s - mean + 3*sd) / (6 * sd)
	}
	return out
}
