package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
)

// The eval view shows unlabelled cases as what they are: no PASS, their
// best score (a content gap in the miss colour), the summary counting
// them apart from the passes, and the run's content-gap finding.
func TestEvalViewUnlabelledCases(t *testing.T) {
	q := func(s string) retrieval.Query {
		return retrieval.Query{Question: s, Mode: retrieval.ModeNormal, TopK: 5, Threshold: 0.3}
	}
	cases := []eval.CaseResult{
		{Index: 0, ID: "q-001", Question: "How do nodes talk?", Kind: eval.KindUnlabelled, Mode: retrieval.ModeNormal, Query: q("How do nodes talk?"),
			Status: eval.StatusPass, Hits: []eval.HitResult{{Rank: 1, Score: 0.62, DocPath: "docs/a.md"}}},
		{Index: 1, ID: "q-002", Question: "How do I bake bread?", Kind: eval.KindUnlabelled, Mode: retrieval.ModeNormal, Query: q("How do I bake bread?"),
			Status: eval.StatusPass, Hits: []eval.HitResult{{Rank: 1, Score: 0.12, DocPath: "docs/b.md"}}},
	}
	rep := eval.Report{Schema: eval.Schema, Set: "imported", Cases: cases, Summary: eval.Summarize(cases), Passed: true,
		Params: eval.RunParams{TopK: 5, Threshold: 0.3}}
	rep.Unlabelled = eval.Unlabelled(cases, 0.3, nil)
	m, _ := evalModel(t, &fakeEval{rep: rep})
	m = feed(t, m, keyRunes("e"), keyType(tea.KeyEnter))
	sc := screen(m)
	for _, want := range []string{"0 pass · 2 unlabelled · 0 miss", "NO LABELS", "1 of 2 questions find nothing above 0.30", "best 0.62", "best 0.12"} {
		if !strings.Contains(sc, want) {
			t.Errorf("eval view lacks %q:\n%s", want, sc)
		}
	}
	if strings.Contains(sc, "PASS ") {
		t.Errorf("an unlabelled case shows PASS:\n%s", sc)
	}
	// The status line does not call a set without labels passed.
	if st := m.Status(); strings.Contains(st, "passed") || !strings.Contains(st, "Eval ran 2 unlabelled cases: no labels, so nothing to pass or fail.") {
		t.Errorf("status %q", st)
	}
	m = feed(t, m, keyType(tea.KeyDown))
	if sc := screen(m); !strings.Contains(sc, "content gap: its best hit is below the threshold") {
		t.Errorf("the gap case's detail does not say so:\n%s", sc)
	}
}

// A report's notes (what the run could not show) reach the eval view.
func TestEvalViewShowsReportNotes(t *testing.T) {
	rep := fakeReport()
	rep.Notes = []string{"filter point counts not shown: the store refused Count (strict mode)"}
	m, _ := evalModel(t, &fakeEval{rep: rep})
	m = feed(t, m, keyRunes("e"), keyType(tea.KeyEnter))
	if sc := screen(m); !strings.Contains(sc, "note: filter point counts not shown") {
		t.Fatalf("the note is not shown:\n%s", sc)
	}
}
