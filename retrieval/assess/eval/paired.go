package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// Paired comparison of two runs of one set (eval --setup A --vs B): for
// each metric the mean per-case difference B − A, its bootstrap 95%
// interval and the sign test of the wins and losses.

const (
	// DefaultResamples is the number of bootstrap resamples (the
	// percentile interval's ends move by well under 0.01 between seeds
	// at this count).
	DefaultResamples = 4000
	// DefaultSeed seeds the bootstrap: the same runs give the same
	// interval on every machine.
	DefaultSeed = 30
	// ClearP is the sign-test p-value below which, with an interval that
	// excludes 0, a difference is called clear.
	ClearP = 0.05
	// tieEpsilon is how close two per-case values are to count as a tie.
	tieEpsilon = 1e-9
)

// PairedMetric is one metric of a paired comparison: B − A over the cases
// both arms ran.
type PairedMetric struct {
	Metric string `json:"metric"`
	// Pairs is the number of cases compared.
	Pairs int `json:"pairs"`
	// A and B are the arms' means over the pairs; Diff is the mean of
	// B − A, and Lo and Hi its bootstrap 95% interval.
	A    float64 `json:"a"`
	B    float64 `json:"b"`
	Diff float64 `json:"diff"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	// Wins, Losses and Ties are B's: cases where B scored higher, lower
	// or the same.
	Wins   int `json:"wins"`
	Losses int `json:"losses"`
	Ties   int `json:"ties"`
	// P is the exact two-sided sign-test p-value of Wins against Losses
	// (ties left out, SignTestExact): the one the verdict decides by.
	// PNormal is its normal approximation (SignTest), too eager with few
	// decided cases, kept for comparison.
	P       float64 `json:"p"`
	PNormal float64 `json:"p_normal"`
}

// Clear reports whether the difference is clear: the interval excludes 0
// and the exact sign test's p < ClearP.
func (m PairedMetric) Clear() bool {
	return m.Pairs > 0 && m.intervalClear() && m.P < ClearP
}

// intervalClear reports whether the interval excludes 0.
func (m PairedMetric) intervalClear() bool { return m.Lo > 0 || m.Hi < 0 }

// Flip is the metric from A's side: A − B, A's wins.
func (m PairedMetric) Flip() PairedMetric {
	m.A, m.B = m.B, m.A
	m.Diff, m.Lo, m.Hi = -m.Diff, -m.Hi, -m.Lo
	m.Wins, m.Losses = m.Losses, m.Wins
	return m
}

// Figures is the metric's one-line summary: "MRR +0.08 [+0.03, +0.13],
// 11 wins, 3 losses, 2 ties, p = 0.03".
func (m PairedMetric) Figures() string {
	return fmt.Sprintf("%s %s [%s, %s], %d %s, %d %s, %d %s, p %s", m.Metric, signed(m.Diff), signed(m.Lo), signed(m.Hi),
		m.Wins, plural(m.Wins, "win", "wins"), m.Losses, plural(m.Losses, "loss", "losses"), m.Ties, plural(m.Ties, "tie", "ties"), pText(m.P))
}

// signed is a difference with its sign, two decimals ("+0.00" for zero).
func signed(v float64) string {
	if math.Abs(v) < 0.005 {
		v = 0
	}
	return fmt.Sprintf("%+.2f", v)
}

// pText is "= 0.03", or three decimals below 0.01 ("= 0.004", "< 0.001").
func pText(p float64) string {
	switch {
	case p < 0.001:
		return "< 0.001"
	case p < 0.01:
		return fmt.Sprintf("= %.3f", p)
	}
	return fmt.Sprintf("= %.2f", p)
}

// Paired compares per-case values b against a (same length, same case
// order) with DefaultResamples resamples seeded by DefaultSeed.
func Paired(metric string, a, b []float64) PairedMetric {
	return pairedMany([]string{metric}, [][]float64{a}, [][]float64{b})[0]
}

// pairedMany is Paired for several metrics at once: metrics over the same
// number of cases share one stream of bootstrap draws (the draws Paired
// makes for each, since the generator is seeded by the seed and the count).
func pairedMany(metrics []string, as, bs [][]float64) []PairedMetric {
	out := make([]PairedMetric, len(metrics))
	diffs := make([][]float64, len(metrics))
	byLen := map[int][]int{}
	var lens []int
	for k, metric := range metrics {
		a, b := as[k], bs[k]
		m := PairedMetric{Metric: metric, Pairs: len(a)}
		if len(a) != len(b) || len(a) == 0 {
			m.Pairs, m.P, m.PNormal = 0, 1, 1
			out[k] = m
			continue
		}
		d := make([]float64, len(a))
		for i := range a {
			v := b[i] - a[i]
			switch {
			case v > tieEpsilon:
				m.Wins++
			case v < -tieEpsilon:
				m.Losses++
			default:
				v = 0
				m.Ties++
			}
			d[i] = v
		}
		m.A, m.B, m.Diff = Mean(a), Mean(b), Mean(d)
		m.P, m.PNormal = SignTestExact(m.Wins, m.Losses), SignTest(m.Wins, m.Losses)
		out[k], diffs[k] = m, d
		if _, ok := byLen[len(d)]; !ok {
			lens = append(lens, len(d))
		}
		byLen[len(d)] = append(byLen[len(d)], k)
	}
	for _, n := range lens {
		ks := byLen[n]
		series := make([][]float64, len(ks))
		for j, k := range ks {
			series[j] = diffs[k]
		}
		lo, hi := BootstrapCIs(series, DefaultResamples, DefaultSeed)
		for j, k := range ks {
			out[k].Lo, out[k].Hi = lo[j], hi[j]
		}
	}
	return out
}

// BootstrapCI is the percentile bootstrap 95% interval of the mean of
// diffs: resamples means of len(diffs) draws with replacement from a
// generator seeded by seed, cut at the 2.5th and 97.5th percentiles. It
// is deterministic for a given input and seed.
func BootstrapCI(diffs []float64, resamples int, seed uint64) (lo, hi float64) {
	if len(diffs) == 0 || resamples < 1 {
		return 0, 0
	}
	los, his := BootstrapCIs([][]float64{diffs}, resamples, seed)
	return los[0], his[0]
}

// BootstrapCIs is BootstrapCI of several series of one length (it panics
// on series of different lengths), resampled with the same draws: each
// series' interval is the one BootstrapCI gives it alone, and the series
// share out the cores.
func BootstrapCIs(series [][]float64, resamples int, seed uint64) (lo, hi []float64) {
	lo, hi = make([]float64, len(series)), make([]float64, len(series))
	if len(series) == 0 || resamples < 1 {
		return lo, hi
	}
	n := len(series[0])
	var vary []int // the series whose values differ (the others' every mean is their value)
	for k, d := range series {
		if len(d) != n {
			panic("eval: BootstrapCIs needs series of one length")
		}
		switch {
		case n == 0:
		case slices.Min(d) == slices.Max(d):
			lo[k], hi[k] = d[0], d[0]
		default:
			vary = append(vary, k)
		}
	}
	if len(vary) == 0 {
		return lo, hi
	}
	// The series are shared out among the cores; each core replays the
	// same stream of draws, so the intervals do not depend on the split.
	loAt := int(math.Floor(0.025 * float64(resamples)))
	hiAt := max(int(math.Ceil(0.975*float64(resamples)))-1, loAt)
	workers := min(runtime.GOMAXPROCS(0), len(vary))
	var wg sync.WaitGroup
	for w := range workers {
		var mine []int // indexes into series
		for j := w; j < len(vary); j += workers {
			mine = append(mine, vary[j])
		}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(n)))
			means := make([][]float64, len(mine))
			for j := range means {
				means[j] = make([]float64, resamples)
			}
			sums := make([]float64, len(mine))
			for r := range resamples {
				clear(sums)
				for range n {
					i := rng.IntN(n)
					for j, k := range mine {
						sums[j] += series[k][i]
					}
				}
				for j := range mine {
					means[j][r] = sums[j] / float64(n)
				}
			}
			for j, k := range mine {
				lo[k] = nth(means[j], loAt)
				hi[k] = lo[k]
				if hiAt > loAt {
					hi[k] = nth(means[j][loAt+1:], hiAt-loAt-1)
				}
			}
		})
	}
	wg.Wait()
	return lo, hi
}

// nth reorders xs so that xs[k] holds its k-th smallest value (from 0),
// the smaller before it and the larger after, and returns that value: a
// percentile without sorting the whole slice (Hoare's selection).
func nth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		p := xs[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for xs[i] < p {
				i++
			}
			for xs[j] > p {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i, j = i+1, j-1
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}

// SignTest is the two-sided sign-test p-value of wins against losses in
// its normal form: z = (wins − losses) / √(wins + losses), p = P(|Z| ≥
// |z|) (1 when there are none). With few decided cases it is too eager
// (11 wins, 3 losses: 0.03 where the exact test gives 0.057), so the
// verdict decides by SignTestExact; this form stays beside it
// (PairedMetric.PNormal).
func SignTest(wins, losses int) float64 {
	n := wins + losses
	if n == 0 {
		return 1
	}
	z := math.Abs(float64(wins-losses)) / math.Sqrt(float64(n))
	return min(1, math.Erfc(z/math.Sqrt2))
}

// SignTestExact is the two-sided exact sign-test p-value of wins against
// losses: twice the binomial(n, 1/2) probability of a split at least as
// uneven, at most 1 (1 when there are none).
func SignTestExact(wins, losses int) float64 {
	n := wins + losses
	if n == 0 {
		return 1
	}
	k := min(wins, losses)
	if n-2*k <= 1 {
		return 1 // the split is as even as n allows: the tail is half or more
	}
	// Sum C(n, i) / 2^n for i = 0..k in logs, stable for large n.
	p := 0.0
	for i := 0; i <= k; i++ {
		p += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return min(1, 2*p)
}

// logChoose is ln C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Case outcomes of a paired comparison, from B's side.
const (
	OutcomeWin   = "win"
	OutcomeLoss  = "loss"
	OutcomeTie   = "tie"
	OutcomeError = "error"
)

// VerdictMetric is the metric the verdict and the per-case outcomes go by.
const VerdictMetric = "MRR"

// PairedCase is one ranking case of a paired comparison.
type PairedCase struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// RankA and RankB are the first relevant ranks (0: missed), RRA and
	// RRB the reciprocal ranks.
	RankA int     `json:"rank_a"`
	RankB int     `json:"rank_b"`
	RRA   float64 `json:"rr_a"`
	RRB   float64 `json:"rr_b"`
	// Outcome is B's on the reciprocal rank: win, loss, tie, or error
	// when either arm failed the case (never a win for the other).
	Outcome string `json:"outcome"`
	// ErrorA and ErrorB are the arms' errors on the case.
	ErrorA string `json:"error_a,omitempty"`
	ErrorB string `json:"error_b,omitempty"`
}

// PairedRuns compares run B with run A of the same set case by case.
type PairedRuns struct {
	// Metrics are hit@k, MRR, nDCG, recall and keyword coverage over the
	// cases both arms ran without error.
	Metrics []PairedMetric `json:"metrics"`
	// Cases are the ranking cases, in set order.
	Cases []PairedCase `json:"cases"`
	// ErrorsA and ErrorsB count the cases each arm failed (left out).
	ErrorsA int `json:"errors_a"`
	ErrorsB int `json:"errors_b"`
	// Total is the number of ranking and keyword cases compared.
	Total int `json:"total"`
	// FirstErrorA and FirstErrorB are each arm's first error.
	FirstErrorA string `json:"first_error_a,omitempty"`
	FirstErrorB string `json:"first_error_b,omitempty"`
}

// ComparePaired pairs the cases of a and b (the same set, run by two
// setups) by position and compares them. Relevance was graded by doc
// path, URL, module and chapter (Grade), never by chunk id, so two
// chunkings of one book compare fairly. A case either arm failed is an
// error, left out of every metric.
func ComparePaired(a, b Report) PairedRuns {
	var pr PairedRuns
	type series struct{ a, b []float64 }
	metrics := []string{"hit@k", VerdictMetric, "nDCG", "recall", "keyword coverage"}
	vals := make([]series, len(metrics))
	add := func(i int, x, y float64) {
		vals[i].a = append(vals[i].a, x)
		vals[i].b = append(vals[i].b, y)
	}
	for i := range min(len(a.Cases), len(b.Cases)) {
		ca, cb := a.Cases[i], b.Cases[i]
		if ca.Kind != KindRanking && ca.Kind != KindKeywords {
			continue
		}
		pr.Total++
		errA, errB := ca.Status == StatusError, cb.Status == StatusError
		if errA {
			pr.ErrorsA++
			if pr.FirstErrorA == "" {
				pr.FirstErrorA = ca.Error
			}
		}
		if errB {
			pr.ErrorsB++
			if pr.FirstErrorB == "" {
				pr.FirstErrorB = cb.Error
			}
		}
		pc := PairedCase{ID: ca.ID, Question: ca.Question, RankA: ca.FirstRelevantRank, RankB: cb.FirstRelevantRank,
			RRA: ca.ReciprocalRank, RRB: cb.ReciprocalRank}
		if errA || errB {
			pc.Outcome = OutcomeError
			if errA {
				pc.ErrorA = ca.Error
			}
			if errB {
				pc.ErrorB = cb.Error
			}
			if ca.Kind == KindRanking {
				pr.Cases = append(pr.Cases, pc)
			}
			continue
		}
		if ca.Kind == KindRanking {
			switch d := cb.ReciprocalRank - ca.ReciprocalRank; {
			case d > tieEpsilon:
				pc.Outcome = OutcomeWin
			case d < -tieEpsilon:
				pc.Outcome = OutcomeLoss
			default:
				pc.Outcome = OutcomeTie
			}
			pr.Cases = append(pr.Cases, pc)
			add(0, b2f(ca.HitAtK), b2f(cb.HitAtK))
			add(1, ca.ReciprocalRank, cb.ReciprocalRank)
			add(2, ca.NDCG, cb.NDCG)
			add(3, ca.Recall, cb.Recall)
		}
		if ca.KeywordCoverage != nil && cb.KeywordCoverage != nil {
			add(4, *ca.KeywordCoverage, *cb.KeywordCoverage)
		}
	}
	if len(vals[len(vals)-1].a) == 0 {
		metrics, vals = metrics[:len(metrics)-1], vals[:len(vals)-1] // no case lists keywords
	}
	as, bs := make([][]float64, len(vals)), make([][]float64, len(vals))
	for i, v := range vals {
		as[i], bs[i] = v.a, v.b
	}
	pr.Metrics = pairedMany(metrics, as, bs)
	return pr
}

// Metric returns the named metric (false when the comparison has none).
func (pr PairedRuns) Metric(name string) (PairedMetric, bool) {
	for _, m := range pr.Metrics {
		if m.Metric == name {
			return m, true
		}
	}
	return PairedMetric{}, false
}

// Clear reports whether the verdict names a better setup: the MRR
// difference is clear and neither arm failed a case.
func (pr PairedRuns) Clear() bool {
	m, _ := pr.Metric(VerdictMetric)
	return m.Clear() && pr.ErrorsA == 0 && pr.ErrorsB == 0
}

// Verdict is the comparison's one plain line, always with its figures:
// "B over A: MRR +0.08 [+0.03, +0.13], 14 wins, 2 losses, 2 ties, p = 0.004"
// (the figures from the better setup's side), "no clear difference: MRR
// +0.01 [-0.04, +0.06], 5 wins, 4 losses, 7 ties, p = 1.00" (B's side),
// or, when an arm failed cases, "no verdict: …" saying which and how many:
// a failed case is an error, never a win for the other setup. When the
// interval and the sign test disagree, the verdict says which says what:
// "no clear difference: the interval says A is better but the sign test
// does not (p = 0.39); MRR -0.13 [-0.25, -0.02], …".
func (pr PairedRuns) Verdict(nameA, nameB string) string {
	m, _ := pr.Metric(VerdictMetric)
	if m.Metric == "" {
		m = PairedMetric{Metric: VerdictMetric, P: 1}
	}
	var failed []string
	if pr.ErrorsA > 0 {
		failed = append(failed, fmt.Sprintf("%s failed %d of %d cases (%s)", nameA, pr.ErrorsA, pr.Total, pr.FirstErrorA))
	}
	if pr.ErrorsB > 0 {
		failed = append(failed, fmt.Sprintf("%s failed %d of %d cases (%s)", nameB, pr.ErrorsB, pr.Total, pr.FirstErrorB))
	}
	if len(failed) > 0 {
		s := "no verdict: " + joinAnd(failed) + "; errors are not wins"
		if m.Pairs > 0 {
			s += fmt.Sprintf("; on the %d cases both ran: %s", m.Pairs, m.Figures())
		}
		return s
	}
	switch {
	case m.Clear() && m.Diff > 0:
		return fmt.Sprintf("%s over %s: %s", nameB, nameA, m.Figures())
	case m.Clear():
		return fmt.Sprintf("%s over %s: %s", nameA, nameB, m.Flip().Figures())
	}
	if why := m.disagreement(nameA, nameB); why != "" {
		return "no clear difference: " + why + "; " + m.Figures()
	}
	return "no clear difference: " + m.Figures()
}

// disagreement says, for a difference that is not clear, which of the
// interval and the sign test calls a setup better ("" when neither does).
func (m PairedMetric) disagreement(nameA, nameB string) string {
	better := nameB
	if m.Diff < 0 {
		better = nameA
	}
	switch {
	case m.Pairs == 0:
		return ""
	case m.intervalClear():
		return fmt.Sprintf("the interval says %s is better but the sign test does not (p %s)", better, pText(m.P))
	case m.P < ClearP:
		if m.Wins < m.Losses {
			better = nameA
		} else {
			better = nameB
		}
		return fmt.Sprintf("the sign test says %s is better (p %s) but the interval includes 0", better, pText(m.P))
	}
	return ""
}

// joinAnd joins two clauses with "and".
func joinAnd(parts []string) string {
	if len(parts) == 2 {
		return parts[0] + " and " + parts[1]
	}
	return parts[0]
}
