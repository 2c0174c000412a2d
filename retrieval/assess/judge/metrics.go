package judge

import (
	"fmt"
	"math"
	"slices"
)

// CaseMetrics are one question's label-free figures over its top k hits.
type CaseMetrics struct {
	// K is the cut-off; Judged the number of the top K hits with a grade.
	K, Judged int
	// Precision is judged precision@k: the share of the judged top-K hits
	// graded Relevant or more; nil when none was judged.
	Precision *float64
	// NDCG is judged nDCG@k with the grades as gains (DCG = Σ grade /
	// log2(rank+1) over the top K, ideal = the same grades sorted best
	// first); nil when none was judged, and nil when no hit was graded
	// Relevant or more: the ideal ranking then holds nothing that answers,
	// so there is no ideal to measure against. A hit not judged counts as
	// gain 0 in the DCG and is left out of the ideal.
	NDCG *float64
	// NothingAnswers is true when hits were judged and none was graded
	// Relevant or more.
	NothingAnswers bool
}

// Case computes the figures of one question's judgements, in rank order,
// at cut-off k (k <= 0 or beyond the hits: all of them).
func Case(js []Judgement, k int) CaseMetrics {
	if k <= 0 || k > len(js) {
		k = len(js)
	}
	m := CaseMetrics{K: k}
	var grades []int
	rel, dcg := 0, 0.0
	for i, j := range js[:k] {
		if !j.IsJudged() {
			continue
		}
		g := *j.Grade
		m.Judged++
		grades = append(grades, g)
		if g >= Relevant {
			rel++
		}
		dcg += float64(g) / math.Log2(float64(i+2))
	}
	if m.Judged == 0 {
		return m
	}
	p := float64(rel) / float64(m.Judged)
	m.Precision = &p
	slices.SortFunc(grades, func(a, b int) int { return b - a })
	ideal := 0.0
	for i, g := range grades {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	m.NothingAnswers = rel == 0
	if !m.NothingAnswers && ideal > 0 {
		n := dcg / ideal
		m.NDCG = &n
	}
	return m
}

// Summary averages case figures.
type Summary struct {
	// Cases is the number of cases; Measured those with a judged hit;
	// NDCGCases those of them with an nDCG (a hit graded Relevant or
	// more).
	Cases, Measured, NDCGCases int
	// Precision is the mean over Measured cases, NDCG over NDCGCases;
	// nil when none.
	Precision, NDCG *float64
	// NothingAnswers is the number of measured cases with no hit graded
	// Relevant or more.
	NothingAnswers int
}

// Summarise averages ms.
func Summarise(ms []CaseMetrics) Summary {
	s := Summary{Cases: len(ms)}
	var p, n float64
	for _, m := range ms {
		if m.Precision == nil {
			continue
		}
		s.Measured++
		p += *m.Precision
		if m.NDCG != nil {
			s.NDCGCases++
			n += *m.NDCG
		}
		if m.NothingAnswers {
			s.NothingAnswers++
		}
	}
	if s.Measured > 0 {
		p /= float64(s.Measured)
		s.Precision = &p
	}
	if s.NDCGCases > 0 {
		n /= float64(s.NDCGCases)
		s.NDCG = &n
	}
	return s
}

// Confusion counts hits by judged relevant (grade ≥ Relevant) against
// labelled relevant.
type Confusion struct {
	// BothRelevant: judged and labelled relevant. JudgeOnly: judged
	// relevant, labelled not. LabelOnly: labelled relevant, judged not.
	// Neither: both not relevant.
	BothRelevant int `json:"both_relevant"`
	JudgeOnly    int `json:"judge_only"`
	LabelOnly    int `json:"label_only"`
	Neither      int `json:"neither"`
}

// Add counts one hit.
func (c *Confusion) Add(judged, labelled bool) {
	switch {
	case judged && labelled:
		c.BothRelevant++
	case judged:
		c.JudgeOnly++
	case labelled:
		c.LabelOnly++
	default:
		c.Neither++
	}
}

// N is the number of hits counted.
func (c Confusion) N() int { return c.BothRelevant + c.JudgeOnly + c.LabelOnly + c.Neither }

// Agreement is the judge's agreement with the labels.
type Agreement struct {
	Confusion Confusion
	// Kappa is Cohen's kappa; nil when it is undefined, and Why says why.
	Kappa *float64
	Why   string
	// Observed is the share of hits where judge and labels agree.
	Observed float64
}

// Agree computes Cohen's kappa of c: (po - pe) / (1 - pe), po the
// observed agreement, pe the agreement expected by chance from each
// side's share of "relevant". It is undefined with fewer than two hits,
// or when pe is 1 (both sides put every hit in the same one class).
func Agree(c Confusion) Agreement {
	a := Agreement{Confusion: c}
	n := float64(c.N())
	if c.N() < 2 {
		a.Why = fmt.Sprintf("%d labelled hit(s) judged; kappa needs at least 2", c.N())
		return a
	}
	a.Observed = float64(c.BothRelevant+c.Neither) / n
	judgeYes, labelYes := float64(c.BothRelevant+c.JudgeOnly)/n, float64(c.BothRelevant+c.LabelOnly)/n
	pe := judgeYes*labelYes + (1-judgeYes)*(1-labelYes)
	if pe >= 1 {
		class := "not relevant"
		if judgeYes == 1 {
			class = "relevant"
		}
		a.Why = fmt.Sprintf("one class only: the judge and the labels call all %d hits %s, so chance agreement is 1", c.N(), class)
		return a
	}
	k := (a.Observed - pe) / (1 - pe)
	a.Kappa = &k
	return a
}
