package judge

import (
	"math"
	"strings"
	"testing"
)

func g(v int) Judgement { return Judgement{Grade: &v, Status: Judged} }

var notJudged = Judgement{Status: Invalid}

func near(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-6 {
		t.Fatalf("%s = %v, want %.6f", what, got, want)
	}
}

// Hand-computed: grades 3, 0, 2, (not judged), 1.
// DCG@5 = 3/1 + 0/log2 3 + 2/2 + 0 + 1/log2 6 = 4.386853
// ideal (3, 2, 1, 0) = 3 + 2/log2 3 + 1/2 = 4.761860; nDCG = 0.921248.
// Precision@5: 2 of the 4 judged are ≥ 2 = 0.5.
func TestCaseMetricsHandComputed(t *testing.T) {
	js := []Judgement{g(3), g(0), g(2), notJudged, g(1)}
	m := Case(js, 5)
	if m.Judged != 4 || m.NothingAnswers {
		t.Fatalf("%+v", m)
	}
	near(t, "precision@5", m.Precision, 0.5)
	near(t, "nDCG@5", m.NDCG, 0.9212478445981336)
	m = Case(js, 2) // 3, 0: DCG 3 = ideal
	near(t, "precision@2", m.Precision, 0.5)
	near(t, "nDCG@2", m.NDCG, 1)
	// Nothing answers (no grade 2 or 3): the ideal ranking holds nothing
	// that answers, so nDCG is undefined (nil), not the 1.0 that grades
	// 1, 1 in ideal order would give.
	for _, js := range [][]Judgement{{g(1), g(0), g(1)}, {g(1), g(1)}, {g(0), g(0)}} {
		m = Case(js, 0)
		if !m.NothingAnswers || m.NDCG != nil {
			t.Fatalf("nothing answers: %+v (nDCG %v)", m, m.NDCG)
		}
		near(t, "precision", m.Precision, 0)
	}
	m = Case([]Judgement{notJudged, notJudged}, 2)
	if m.Precision != nil || m.NDCG != nil || m.NothingAnswers || m.Judged != 0 {
		t.Fatalf("unjudged case measured: %+v", m)
	}
}

func TestSummarise(t *testing.T) {
	s := Summarise([]CaseMetrics{
		Case([]Judgement{g(3), g(0)}, 2), // P 0.5, nDCG 1
		Case([]Judgement{g(0), g(1)}, 2), // P 0, no nDCG: nothing answers
		Case([]Judgement{g(2), g(3)}, 2), // P 1, nDCG (2 + 3/log2 3) / (3 + 2/log2 3)
		Case([]Judgement{notJudged}, 1),  // not measured
	})
	if s.Cases != 4 || s.Measured != 3 || s.NDCGCases != 2 || s.NothingAnswers != 1 {
		t.Fatalf("%+v", s)
	}
	near(t, "mean precision", s.Precision, 0.5)
	near(t, "mean nDCG", s.NDCG, (1+(2+3/math.Log2(3))/(3+2/math.Log2(3)))/2)
	if s := Summarise([]CaseMetrics{Case([]Judgement{g(1), g(1)}, 2)}); s.Measured != 1 || s.Precision == nil || s.NDCG != nil {
		t.Fatalf("nothing answers anywhere: %+v", s)
	}
	if e := Summarise(nil); e.Precision != nil || e.NDCG != nil {
		t.Fatalf("empty summary %+v", e)
	}
}

// Hand-computed: 20 both, 5 judge only, 10 label only, 15 neither.
// n 50, po = 35/50 = 0.7; judge yes 25/50, label yes 30/50:
// pe = 0.5·0.6 + 0.5·0.4 = 0.5; κ = (0.7 − 0.5)/(1 − 0.5) = 0.4.
func TestKappaHandComputed(t *testing.T) {
	a := Agree(Confusion{BothRelevant: 20, JudgeOnly: 5, LabelOnly: 10, Neither: 15})
	near(t, "kappa", a.Kappa, 0.4)
	if a.Observed != 0.7 {
		t.Fatalf("observed %v", a.Observed)
	}
	// Perfect agreement with both classes: κ 1. Perfect disagreement: −1.
	near(t, "kappa perfect", Agree(Confusion{BothRelevant: 3, Neither: 2}).Kappa, 1)
	near(t, "kappa opposite", Agree(Confusion{JudgeOnly: 2, LabelOnly: 2}).Kappa, -1)
	var c Confusion
	c.Add(true, true)
	c.Add(true, false)
	c.Add(false, true)
	c.Add(false, false)
	if c != (Confusion{1, 1, 1, 1}) {
		t.Fatalf("%+v", c)
	}
}

func TestKappaUndefined(t *testing.T) {
	for _, tc := range []struct {
		c    Confusion
		want string
	}{
		{Confusion{}, "kappa needs at least 2"},
		{Confusion{BothRelevant: 1}, "kappa needs at least 2"},
		{Confusion{BothRelevant: 4}, "one class only: the judge and the labels call all 4 hits relevant"},
		{Confusion{Neither: 3}, "all 3 hits not relevant"},
	} {
		a := Agree(tc.c)
		if a.Kappa != nil || !strings.Contains(a.Why, tc.want) {
			t.Fatalf("%+v: kappa %v, why %q", tc.c, a.Kappa, a.Why)
		}
	}
	// One class on one side only is defined (pe < 1): judge says all
	// relevant, labels split → κ 0.
	near(t, "one-sided", Agree(Confusion{BothRelevant: 2, JudgeOnly: 2}).Kappa, 0)
}
