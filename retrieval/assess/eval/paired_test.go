package eval

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"ragscope/retrieval"
)

// TestSignTest: the normal form, worked by hand, gives these two
// verdicts: 11 wins, 3 losses: z = 8/√14 = 2.138, p = 0.0325 ("p =
// 0.03"); 5 wins, 4 losses: z = 1/3, p = 0.739 ("p = 0.74").
func TestSignTest(t *testing.T) {
	for _, tc := range []struct {
		wins, losses int
		want         float64
		text         string
	}{
		{0, 0, 1, "= 1.00"},
		{11, 3, 0.032509, "= 0.03"},
		{3, 11, 0.032509, "= 0.03"},
		{5, 4, 0.738883, "= 0.74"},
		{7, 5, 0.563703, "= 0.56"}, // z = 2/√12 = 0.577
		{4, 4, 1, "= 1.00"},
		{40, 10, 0.0000221, "< 0.001"}, // z = 30/√50 = 4.243
	} {
		got := SignTest(tc.wins, tc.losses)
		near(t, "SignTest", got, tc.want, 5e-7)
		if pText(got) != tc.text {
			t.Errorf("SignTest(%d, %d) prints %q, want %q", tc.wins, tc.losses, pText(got), tc.text)
		}
	}
}

// TestSignTestExact: two-sided exact binomial p-values worked by hand:
// 2 · Σ_{i≤min} C(n,i) / 2^n, at most 1.
func TestSignTestExact(t *testing.T) {
	for _, tc := range []struct {
		wins, losses int
		want         float64
	}{
		{0, 0, 1},                       // nothing to test
		{1, 0, 1},                       // 2 · 1/2
		{10, 0, 2.0 / 1024},             // 2 · 1/2^10
		{6, 2, 74.0 / 256},              // 2 · (1+8+28)/2^8
		{2, 6, 74.0 / 256},              // symmetric
		{11, 3, 940.0 / 16384},          // 2 · (1+14+91+364)/2^14
		{5, 4, 1},                       // 2 · 256/512, capped
		{7, 8, 1},                       // 2 · 16384/32768: exactly 1, not 0.9999…
		{20, 5, 2 * 68406.0 / 33554432}, // 2 · (1+25+300+2300+12650+53130)/2^25
	} {
		near(t, "SignTestExact", SignTestExact(tc.wins, tc.losses), tc.want, 1e-12)
		if tc.want == 1 && SignTestExact(tc.wins, tc.losses) != 1 {
			t.Errorf("SignTestExact(%d, %d) = %v, want exactly 1", tc.wins, tc.losses, SignTestExact(tc.wins, tc.losses))
		}
	}
}

// TestBootstrapCIHandComputed: the interval of intervals whose resampled
// means take few values, so the percentiles are known by hand.
func TestBootstrapCIHandComputed(t *testing.T) {
	// Every difference 0.25: every resample's mean is 0.25.
	lo, hi := BootstrapCI([]float64{0.25, 0.25, 0.25}, DefaultResamples, DefaultSeed)
	near(t, "lo", lo, 0.25, 1e-12)
	near(t, "hi", hi, 0.25, 1e-12)
	// {0, 1}: means 0, 0.5, 1 with probability 1/4, 1/2, 1/4; both
	// tails hold far more than 2.5%, so the interval is [0, 1].
	lo, hi = BootstrapCI([]float64{0, 1}, DefaultResamples, DefaultSeed)
	near(t, "lo {0,1}", lo, 0, 0)
	near(t, "hi {0,1}", hi, 1, 0)
	// {0, 0, 0, 1}: the mean is k/4, k ~ Binomial(4, 1/4): P(k=0) = 0.32
	// puts the 2.5th percentile at 0; P(k=4) = 0.004 < 2.5% < P(k≥3) =
	// 0.051 puts the 97.5th at 3/4.
	lo, hi = BootstrapCI([]float64{0, 0, 0, 1}, DefaultResamples, DefaultSeed)
	near(t, "lo {0,0,0,1}", lo, 0, 0)
	near(t, "hi {0,0,0,1}", hi, 0.75, 0)
	// Seeded: the same input gives the same interval.
	d := []float64{0.1, -0.3, 0.5, 0.2, 0, 0.7, -0.1, 0.3}
	l1, h1 := BootstrapCI(d, DefaultResamples, DefaultSeed)
	l2, h2 := BootstrapCI(d, DefaultResamples, DefaultSeed)
	if l1 != l2 || h1 != h2 || !(l1 < Mean(d) && Mean(d) < h1) {
		t.Errorf("seeded interval [%g, %g] then [%g, %g] around %g", l1, h1, l2, h2, Mean(d))
	}
	if lo, hi := BootstrapCI(nil, DefaultResamples, DefaultSeed); lo != 0 || hi != 0 {
		t.Errorf("no differences: [%g, %g]", lo, hi)
	}
}

func TestPairedCounts(t *testing.T) {
	m := Paired("MRR", []float64{0, 0.5, 1, 1}, []float64{1, 0.5, 0.5, 1})
	if m.Wins != 1 || m.Losses != 1 || m.Ties != 2 || m.Pairs != 4 || m.P != 1 {
		t.Errorf("counts %+v", m)
	}
	near(t, "A", m.A, 0.625, 1e-12)
	near(t, "B", m.B, 0.75, 1e-12)
	near(t, "Diff", m.Diff, 0.125, 1e-12)
	if m.Clear() {
		t.Error("1 win, 1 loss is not a clear difference")
	}
}

// TestVerdictForm: the verdict always prints its figures, in the
// documented form, from the better setup's side.
func TestVerdictForm(t *testing.T) {
	b := PairedMetric{Metric: "MRR", Pairs: 16, Diff: 0.08, Lo: 0.03, Hi: 0.13, Wins: 11, Losses: 3, Ties: 2, P: 0.03}
	pr := PairedRuns{Metrics: []PairedMetric{b}, Total: 16}
	if got, want := pr.Verdict("A", "B"), "B over A: MRR +0.08 [+0.03, +0.13], 11 wins, 3 losses, 2 ties, p = 0.03"; got != want {
		t.Errorf("B better:\n got %s\nwant %s", got, want)
	}
	pr.Metrics[0] = b.Flip()
	if got, want := pr.Verdict("A", "B"), "A over B: MRR +0.08 [+0.03, +0.13], 11 wins, 3 losses, 2 ties, p = 0.03"; got != want {
		t.Errorf("A better:\n got %s\nwant %s", got, want)
	}
	pr.Metrics[0] = PairedMetric{Metric: "MRR", Pairs: 16, Diff: 0.01, Lo: -0.04, Hi: 0.06, Wins: 5, Losses: 4, Ties: 7, P: 0.74}
	if got, want := pr.Verdict("A", "B"), "no clear difference: MRR +0.01 [-0.04, +0.06], 5 wins, 4 losses, 7 ties, p = 0.74"; got != want {
		t.Errorf("unclear:\n got %s\nwant %s", got, want)
	}
	// An interval that excludes 0 with p >= 0.05 is not clear either.
	pr.Metrics[0] = PairedMetric{Metric: "MRR", Pairs: 5, Diff: 0.2, Lo: 0.05, Hi: 0.4, Wins: 1, Losses: 0, Ties: 4, P: 1}
	if got := pr.Verdict("A", "B"); got != "no clear difference: the interval says B is better but the sign test does not (p = 1.00); MRR +0.20 [+0.05, +0.40], 1 win, 0 losses, 4 ties, p = 1.00" {
		t.Errorf("p = 1: %s", got)
	}
}

// rankingCase is a ranking case with the first relevant hit at rank
// (0: missed).
func rankingCase(id string, rank int) CaseResult {
	c := CaseResult{ID: id, Kind: KindRanking, Status: StatusMiss, FirstRelevantRank: rank}
	if rank > 0 {
		c.Status, c.HitAtK, c.ReciprocalRank, c.NDCG, c.Recall = StatusPass, true, 1/float64(rank), 1/float64(rank), 1
	}
	return c
}

// TestComparePairedHandComputed: 16 cases, B ahead on 11, behind on 3,
// level on 2: the MRR figures and the sign test worked by hand.
func TestComparePairedHandComputed(t *testing.T) {
	var a, b Report
	add := func(n, ra, rb int) {
		for range n {
			id := string(rune('a' + len(a.Cases)))
			a.Cases = append(a.Cases, rankingCase(id, ra))
			b.Cases = append(b.Cases, rankingCase(id, rb))
		}
	}
	add(11, 2, 1) // B wins: RR 0.5 -> 1
	add(3, 1, 2)  // B loses: 1 -> 0.5
	add(2, 1, 1)  // ties
	// A selected-text case is not compared.
	a.Cases = append(a.Cases, CaseResult{ID: "sel", Kind: KindSelectedText, Status: StatusPass})
	b.Cases = append(b.Cases, CaseResult{ID: "sel", Kind: KindSelectedText, Status: StatusPass})
	pr := ComparePaired(a, b)
	m, ok := pr.Metric("MRR")
	if !ok || m.Wins != 11 || m.Losses != 3 || m.Ties != 2 || m.Pairs != 16 || pr.Total != 16 || len(pr.Cases) != 16 {
		t.Fatalf("MRR %+v, total %d", m, pr.Total)
	}
	// Means: A (11·0.5 + 5·1)/16 = 0.65625; B (14·1 + 3·0.5... ) =
	// (11 + 1.5 + 2)/16 = 0.90625; difference 0.25.
	near(t, "A", m.A, 10.5/16, 1e-12)
	near(t, "B", m.B, 14.5/16, 1e-12)
	near(t, "Diff", m.Diff, 0.25, 1e-12)
	near(t, "p", m.P, 940.0/16384, 1e-12)
	near(t, "p normal", m.PNormal, 0.032509, 5e-7)
	if !(m.Lo > 0 && m.Hi < 0.5 && m.Lo < m.Diff && m.Diff < m.Hi) {
		t.Errorf("interval [%g, %g]", m.Lo, m.Hi)
	}
	// The interval excludes 0, but the exact sign test gives 0.057 (the
	// normal form's 0.03 is too eager): no clear difference, and the
	// verdict says the two disagree.
	want := "no clear difference: the interval says B is better but the sign test does not (p = 0.06); MRR +0.25 ["
	if got := pr.Verdict("A", "B"); pr.Clear() || !strings.HasPrefix(got, want) ||
		!strings.HasSuffix(got, "11 wins, 3 losses, 2 ties, p = 0.06") {
		t.Errorf("verdict\n got %s\nwant %s…", got, want)
	}
	if pr.Cases[0].Outcome != OutcomeWin || pr.Cases[11].Outcome != OutcomeLoss || pr.Cases[15].Outcome != OutcomeTie {
		t.Errorf("outcomes %+v", pr.Cases)
	}
	if hk, _ := pr.Metric("hit@k"); hk.Wins+hk.Losses != 0 || hk.Ties != 16 {
		t.Errorf("hit@k %+v", hk)
	}
	if _, ok := pr.Metric("keyword coverage"); ok {
		t.Error("keyword coverage compared with no keywords in the set")
	}
}

// TestComparePairedFailingArm: an arm whose provider fails makes its
// cases errors, left out of the metrics, and the verdict says so: never a
// win for the other arm.
func TestComparePairedFailingArm(t *testing.T) {
	var a, b Report
	for i := range 4 {
		id := string(rune('a' + i))
		a.Cases = append(a.Cases, rankingCase(id, 1))
		b.Cases = append(b.Cases, errorResult(i, Case{ID: id, Question: "q", Expect: Expect{DocPaths: []string{"x.md"}}}, retrieval.Query{}, errors.New("cohere: 401 invalid api token")))
	}
	pr := ComparePaired(a, b)
	m, _ := pr.Metric("MRR")
	if pr.ErrorsB != 4 || pr.ErrorsA != 0 || m.Pairs != 0 || m.Wins+m.Losses+m.Ties != 0 || pr.Clear() {
		t.Fatalf("failing arm: %+v", pr)
	}
	for _, c := range pr.Cases {
		if c.Outcome != OutcomeError || c.ErrorB == "" {
			t.Errorf("case %s: %+v", c.ID, c)
		}
	}
	want := "no verdict: B failed 4 of 4 cases (cohere: 401 invalid api token); errors are not wins"
	if got := pr.Verdict("A", "B"); got != want {
		t.Errorf("verdict\n got %s\nwant %s", got, want)
	}
	// One case failed: the rest are compared, and still no verdict.
	b.Cases = []CaseResult{rankingCase("a", 2), rankingCase("b", 2), rankingCase("c", 2), b.Cases[3]}
	pr = ComparePaired(a, b)
	if got := pr.Verdict("A", "B"); !strings.HasPrefix(got, "no verdict: B failed 1 of 4 cases") ||
		!strings.Contains(got, "on the 3 cases both ran: MRR -0.50 [-0.50, -0.50], 0 wins, 3 losses, 0 ties, p = 0.25") {
		t.Errorf("partial failure: %s", got)
	}
}

// TestBootstrapCIsSharesDraws: series resampled together get the very
// interval each gets alone (the draws depend only on the seed and the
// count), a constant series among them included.
func TestBootstrapCIsSharesDraws(t *testing.T) {
	series := [][]float64{
		{0.1, -0.3, 0.5, 0.2, 0, 0.7, -0.1, 0.3},
		{0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25},
		{0, 0, 1, 0, -1, 0, 0.5, 0},
	}
	lo, hi := BootstrapCIs(series, DefaultResamples, DefaultSeed)
	for k, d := range series {
		l, h := BootstrapCI(d, DefaultResamples, DefaultSeed)
		if lo[k] != l || hi[k] != h {
			t.Errorf("series %d: together [%g, %g], alone [%g, %g]", k, lo[k], hi[k], l, h)
		}
	}
	if lo[1] != 0.25 || hi[1] != 0.25 || !(lo[0] < hi[0]) || !(lo[2] < hi[2]) {
		t.Errorf("intervals lo %v hi %v", lo, hi)
	}
}

// nth finds the k-th smallest value as sorting would, duplicates and
// extremes included.
func TestNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(rng.IntN(7)) / 4 // few values: many duplicates
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		k := rng.IntN(n)
		if got := nth(slices.Clone(xs), k); got != sorted[k] {
			t.Fatalf("trial %d: nth(%v, %d) = %g, want %g", trial, xs, k, got, sorted[k])
		}
	}
}

// TestPairedVerdictExactP: the verdict decides by the exact sign test.
// 14 wins and 2 losses (exact p = 2·137/65536 = 0.0042) with an interval
// above 0 is clear; 4 wins and 8 losses with an interval below 0 (exact
// p = 2·794/4096 = 0.39) is not, and the verdict says which of the two
// tests calls A better; a flipped view names the setups the other way.
func TestPairedVerdictExactP(t *testing.T) {
	pair := func(wins, losses, ties int, win, loss float64) PairedRuns {
		var a, b Report
		add := func(n int, ra, rb float64) {
			for range n {
				id := string(rune('a' + len(a.Cases)))
				ca, cb := rankingCase(id, 1), rankingCase(id, 1)
				ca.ReciprocalRank, cb.ReciprocalRank = ra, rb
				a.Cases, b.Cases = append(a.Cases, ca), append(b.Cases, cb)
			}
		}
		add(wins, 0.5, 0.5+win)
		add(losses, 0.5+loss, 0.5)
		add(ties, 1, 1)
		return ComparePaired(a, b)
	}
	pr := pair(14, 2, 4, 0.5, 0.05)
	m, _ := pr.Metric(VerdictMetric)
	near(t, "p", m.P, 2*137.0/65536, 1e-12)
	if got := pr.Verdict("prod", "small"); !pr.Clear() || !strings.HasPrefix(got, "small over prod: MRR +") || !strings.HasSuffix(got, "14 wins, 2 losses, 4 ties, p = 0.004") {
		t.Errorf("clear verdict: %s", got)
	}
	// B loses by a lot on 8 cases and wins by a little on 4.
	pr = pair(4, 8, 0, 0.05, 0.25)
	m, _ = pr.Metric(VerdictMetric)
	near(t, "p", m.P, 2*794.0/4096, 1e-12)
	if !(m.Hi < 0) {
		t.Fatalf("interval [%g, %g] should exclude 0", m.Lo, m.Hi)
	}
	want := "no clear difference: the interval says prod is better but the sign test does not (p = 0.39); MRR -0."
	if got := pr.Verdict("prod", "small"); pr.Clear() || !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "4 wins, 8 losses, 0 ties, p = 0.39") {
		t.Errorf("disagreeing verdict\n got %s\nwant %s…", got, want)
	}
	// The sign test sees 12 wins, 1 loss (p = 0.003) but the one loss is
	// large enough that the interval includes 0.
	pr = pair(12, 1, 0, 0.01, 0.5)
	m, _ = pr.Metric(VerdictMetric)
	if m.intervalClear() {
		t.Fatalf("interval [%g, %g] should include 0", m.Lo, m.Hi)
	}
	want = "no clear difference: the sign test says small is better (p = 0.003) but the interval includes 0; MRR "
	if got := pr.Verdict("prod", "small"); pr.Clear() || !strings.HasPrefix(got, want) {
		t.Errorf("disagreeing verdict\n got %s\nwant %s…", got, want)
	}
}
