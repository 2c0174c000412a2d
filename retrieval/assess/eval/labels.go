package eval

import (
	"fmt"
	"strconv"
	"strings"

	"ragscope/retrieval"
)

// CaseLabels are the figures of a case whose author marked hits not
// relevant (expect.not_relevant), computed over its kept top-k hits.
type CaseLabels struct {
	// Labelled is the number of top-k hits with a label: relevant by an
	// expectation, or marked not relevant.
	Labelled int `json:"labelled"`
	// NotRelevant is the number of top-k hits marked not relevant.
	NotRelevant int `json:"not_relevant"`
	// Precision is relevant / labelled (nil when no top-k hit is
	// labelled): the share of the hits the author judged that are
	// relevant. Unlabelled hits do not count.
	Precision *float64 `json:"precision"`
	// AboveRelevant are the ranks of the hits marked not relevant that
	// rank above the first relevant hit (empty when none does, or when no
	// relevant hit is in the top k).
	AboveRelevant []int `json:"not_relevant_above_relevant,omitempty"`
	// Note says so in a line ("" when AboveRelevant is empty).
	Note string `json:"note,omitempty"`
}

// MarkOf says how the labels of e judge h: 1 when h matches an expected
// doc path or URL, -1 when it matches a not_relevant one (and no
// expectation), 0 otherwise. It is what the explorer shows as a hit's
// mark when it opens a case.
func MarkOf(h retrieval.Hit, e Expect) int {
	switch {
	case matchAnyDocPath(hitDocPath(h), e.DocPaths) || matchAnyURL(hitURL(h), e.URLs):
		return 1
	case Grade(h, e) == 0 && isNotRelevant(h, e.NotRelevant):
		return -1
	}
	return 0
}

func isNotRelevant(h retrieval.Hit, n NotRelevant) bool {
	return matchAnyDocPath(hitDocPath(h), n.DocPaths) || matchAnyURL(hitURL(h), n.URLs)
}

// caseLabels computes the labels figures of the kept hits with their
// grades; nil when the case marks nothing not relevant. It sets the
// NotRelevant flag of the hit results it judges.
func caseLabels(kept []retrieval.Hit, grades []int, e Expect, hits []HitResult) *CaseLabels {
	if e.NotRelevant.IsEmpty() {
		return nil
	}
	l := &CaseLabels{}
	relevant, first := 0, 0
	var marked []int
	for i, h := range kept {
		switch {
		case grades[i] > 0:
			relevant++
			if first == 0 {
				first = h.Rank
			}
		case isNotRelevant(h, e.NotRelevant):
			l.NotRelevant++
			hits[i].NotRelevant = true
			marked = append(marked, h.Rank)
		}
	}
	l.Labelled = relevant + l.NotRelevant
	if l.Labelled > 0 {
		p := float64(relevant) / float64(l.Labelled)
		l.Precision = &p
	}
	if first > 0 {
		for _, r := range marked {
			if r < first {
				l.AboveRelevant = append(l.AboveRelevant, r)
			}
		}
	}
	if n := len(l.AboveRelevant); n > 0 {
		ranks := make([]string, n)
		for i, r := range l.AboveRelevant {
			ranks[i] = "#" + strconv.Itoa(r)
		}
		what := "a hit marked not relevant"
		if n > 1 {
			what = fmt.Sprintf("%d hits marked not relevant", n)
		}
		l.Note = fmt.Sprintf("%s (%s) ranked above the first relevant hit #%d", what, strings.Join(ranks, ", "), first)
	}
	return l
}

// labelsSummary adds the labels figures of results to s: the mean
// precision over the cases with labelled hits and the number of cases
// where a hit marked not relevant ranked above the relevant one.
func labelsSummary(s *Summary, results []CaseResult) {
	var prec []float64
	for _, c := range results {
		if c.Labels == nil {
			continue
		}
		s.LabelledCases++
		if c.Labels.Precision != nil {
			prec = append(prec, *c.Labels.Precision)
		}
		if len(c.Labels.AboveRelevant) > 0 {
			s.NotRelevantAbove++
		}
	}
	if len(prec) > 0 {
		m := Mean(prec)
		s.LabelledPrecision = &m
	}
}
