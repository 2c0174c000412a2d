package eval

import (
	"math"
	"sort"
	"strings"
)

// The metric functions below are pure and take graded relevance in rank
// order: grades[i] is the grade of the hit at rank i+1, 0 for a
// non-relevant hit. Only the first k grades count. Formulas and the
// literature examples they are tested against are in README.md.

// HitAt reports whether a relevant hit is among the first k (hit@k).
func HitAt(grades []int, k int) bool {
	return FirstRelevantRank(grades, k) > 0
}

// FirstRelevantRank returns the rank (from 1) of the first relevant hit
// among the first k, or 0 when there is none.
func FirstRelevantRank(grades []int, k int) int {
	for i, g := range cut(grades, k) {
		if g > 0 {
			return i + 1
		}
	}
	return 0
}

// ReciprocalRank is 1/r for the first relevant hit at rank r <= k, else 0.
// Its mean over cases is the MRR.
func ReciprocalRank(grades []int, k int) float64 {
	r := FirstRelevantRank(grades, k)
	if r == 0 {
		return 0
	}
	return 1 / float64(r)
}

// DCG is the discounted cumulative gain at k with linear gain and the
// log2(rank+1) discount: sum over i=1..k of grade_i / log2(i+1).
func DCG(grades []int, k int) float64 {
	var s float64
	for i, g := range cut(grades, k) {
		s += float64(g) / math.Log2(float64(i+2))
	}
	return s
}

// NDCG is DCG(grades, k) / DCG(ideal sorted best first, k), or 0 when the
// ideal DCG is 0 (nothing relevant). ideal lists the grades of the ideal
// ranking in any order; the runner passes the retrieved grades themselves
// (see IdealFromRetrieved and README.md).
func NDCG(grades, ideal []int, k int) float64 {
	idcg := DCG(IdealFromRetrieved(ideal), k)
	if idcg == 0 {
		return 0
	}
	return DCG(grades, k) / idcg
}

// IdealFromRetrieved returns grades sorted best first: the ideal ordering
// of what was retrieved.
func IdealFromRetrieved(grades []int) []int {
	out := append([]int(nil), grades...)
	sort.Sort(sort.Reverse(sort.IntSlice(out)))
	return out
}

// Recall is found/known, or 0 when known is 0.
func Recall(found, known int) float64 {
	if known <= 0 {
		return 0
	}
	return float64(found) / float64(known)
}

// KeywordCoverage is the fraction of keywords found, case-insensitively,
// in text, and the keywords missing (in the order given). Repeated
// keywords count once. With no keywords it returns 1 and nil.
func KeywordCoverage(keywords []string, text string) (float64, []string) {
	kws := dedupFold(keywords)
	if len(kws) == 0 {
		return 1, nil
	}
	lower := strings.ToLower(text)
	var missing []string
	for _, kw := range kws {
		if !strings.Contains(lower, strings.ToLower(kw)) {
			missing = append(missing, kw)
		}
	}
	return float64(len(kws)-len(missing)) / float64(len(kws)), missing
}

func dedupFold(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		k := strings.ToLower(strings.TrimSpace(s))
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// Percentile is the nearest-rank percentile (0 < p <= 100) of values: the
// smallest value such that at least p% of the values are <= it, i.e. the
// value at 1-based rank ceil(p/100 * n) of the sorted values. It returns 0
// for no values.
func Percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	r := int(math.Ceil(p / 100 * float64(len(s))))
	if r < 1 {
		r = 1
	}
	if r > len(s) {
		r = len(s)
	}
	return s[r-1]
}

// Mean is the arithmetic mean, 0 for no values.
func Mean(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	var s float64
	for _, v := range values {
		s += v
	}
	return s / float64(len(values))
}

func cut(grades []int, k int) []int {
	if k >= 0 && k < len(grades) {
		return grades[:k]
	}
	return grades
}
