package eval

import (
	"math"
	"strconv"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (±%g)", name, got, want, tol)
	}
}

// The DCG example of the "Discounted cumulative gain" literature
// (Järvelin & Kekäläinen's graded scale 0..3, as worked in Wikipedia's
// article and in Manning et al.'s formula with linear gain): six documents
// judged 3, 2, 3, 0, 1, 2.
func TestDCGPublishedExample(t *testing.T) {
	grades := []int{3, 2, 3, 0, 1, 2}
	// 3/1 + 2/log2(3) + 3/2 + 0 + 1/log2(6) + 2/log2(7)
	near(t, "DCG6", DCG(grades, 6), 6.861, 0.001)
	// Ideal ordering when two more relevant documents (3 and 2) exist:
	// 3,3,3,2,2,2 -> IDCG6 = 8.740 and nDCG6 = 0.785.
	ideal := []int{3, 2, 3, 0, 1, 2, 3, 2}
	near(t, "IDCG6", DCG(IdealFromRetrieved(ideal), 6), 8.740, 0.001)
	near(t, "nDCG6 with known ideal", NDCG(grades, ideal, 6), 0.785, 0.001)
	// ragscope's variant: the ideal is the retrieved grades reordered,
	// 3,3,2,2,1,0 -> 3 + 1.8928 + 1 + 0.8614 + 0.3869 = 7.1411;
	// nDCG = 6.8611 / 7.1411 = 0.9608.
	near(t, "IDCG6 retrieved", DCG(IdealFromRetrieved(grades), 6), 7.1411, 0.0005)
	near(t, "nDCG6 retrieved", NDCG(grades, grades, 6), 0.9608, 0.0005)
}

// Järvelin & Kekäläinen (2002), the gain vector G' = <3,2,3,0,0,1,2,2,3,0>
// of their running example; with the log2(i+1) discount the cumulated
// values are computed by hand below (their paper uses log_b(i) for i >= b).
func TestDCGJarvelinKekalainenVector(t *testing.T) {
	g := []int{3, 2, 3, 0, 0, 1, 2, 2, 3, 0}
	// rank: gain/log2(rank+1)
	// 1: 3/1 = 3; 2: 2/1.58496 = 1.26186; 3: 3/2 = 1.5; 6: 1/2.80735 = 0.35621;
	// 7: 2/3 = 0.66667; 8: 2/3.16993 = 0.63093; 9: 3/3.32193 = 0.90309
	cases := []struct {
		k    int
		want float64
	}{{1, 3}, {2, 4.26186}, {3, 5.76186}, {5, 5.76186}, {6, 6.11807}, {10, 8.31876}}
	for _, c := range cases {
		near(t, "DCG@"+strconv.Itoa(c.k), DCG(g, c.k), c.want, 0.0001)
	}
	// k beyond the list is the whole list.
	near(t, "DCG@20", DCG(g, 20), 8.31876, 0.0001)
}

// Reciprocal rank: the example of the MRR literature (Voorhees' TREC QA
// measure as worked in Wikipedia): first correct answers at ranks 3, 2, 1
// give MRR (1/3 + 1/2 + 1)/3 = 11/18.
func TestMRRPublishedExample(t *testing.T) {
	queries := [][]int{{0, 0, 1}, {0, 1, 0}, {1, 0, 0}}
	var rr []float64
	for _, g := range queries {
		rr = append(rr, ReciprocalRank(g, 3))
	}
	near(t, "MRR", Mean(rr), 11.0/18, 1e-12)
}

func TestRankMetricsEdgeCases(t *testing.T) {
	none := []int{0, 0, 0}
	if HitAt(none, 3) || FirstRelevantRank(none, 3) != 0 || ReciprocalRank(none, 3) != 0 || NDCG(none, none, 3) != 0 {
		t.Error("no relevant hit: want every metric 0")
	}
	if HitAt(nil, 5) || NDCG(nil, nil, 5) != 0 || DCG(nil, 5) != 0 {
		t.Error("no hits: want 0")
	}
	late := []int{0, 0, 0, 2}
	if HitAt(late, 3) || !HitAt(late, 4) {
		t.Error("hit@k must only look at the first k")
	}
	if ReciprocalRank(late, 3) != 0 || ReciprocalRank(late, 4) != 0.25 {
		t.Error("RR must only look at the first k")
	}
	// One relevant hit at rank 3: nDCG = (1/log2 4) / 1 = 0.5.
	near(t, "nDCG single at 3", NDCG([]int{0, 0, 1}, []int{0, 0, 1}, 3), 0.5, 1e-12)
	// Ties in grade: swapping equal grades changes nothing.
	near(t, "nDCG equal grades", NDCG([]int{2, 2, 0}, []int{2, 2, 0}, 3), 1, 1e-12)
}

func TestRecall(t *testing.T) {
	near(t, "2 of 3", Recall(2, 3), 2.0/3, 1e-12)
	if Recall(1, 0) != 0 {
		t.Error("unknown denominator must give 0")
	}
}

func TestKeywordCoverage(t *testing.T) {
	cov, missing := KeywordCoverage([]string{"DDS", "qos", "Roscore", "dds"}, "ROS 2 uses dds discovery; QoS profiles")
	near(t, "coverage", cov, 2.0/3, 1e-12)
	if len(missing) != 1 || missing[0] != "Roscore" {
		t.Errorf("missing = %v", missing)
	}
	if cov, m := KeywordCoverage(nil, "x"); cov != 1 || m != nil {
		t.Error("no keywords: want full coverage")
	}
}

// The nearest-rank method's worked example (Wikipedia, "Percentile"):
// for 15, 20, 35, 40, 50 the 5th, 30th, 40th, 50th and 100th percentiles
// are 15, 20, 20, 35 and 50.
func TestPercentileNearestRank(t *testing.T) {
	v := []float64{50, 15, 40, 20, 35}
	for _, c := range []struct{ p, want float64 }{{5, 15}, {30, 20}, {40, 20}, {50, 35}, {100, 50}} {
		if got := Percentile(v, c.p); got != c.want {
			t.Errorf("P%.0f = %v, want %v", c.p, got, c.want)
		}
	}
	// 20 values 1..20: p95 is rank ceil(19) = 19.
	var twenty []float64
	for i := 1; i <= 20; i++ {
		twenty = append(twenty, float64(i))
	}
	if got := Percentile(twenty, 95); got != 19 {
		t.Errorf("p95 of 1..20 = %v, want 19", got)
	}
	if Percentile(nil, 95) != 0 {
		t.Error("no values: want 0")
	}
}
