package ui

import (
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/ui/turns"
)

// Two selected-text turns that differ only in their source are compared
// by that source, not as "same settings" (issue 25, point 12).
func TestTurnCompareNamesSourceDifference(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 140, 50)
	q := retrieval.Query{Question: "explain this", Mode: retrieval.ModeSelectedText, TopK: 5, SelectedText: "Topics carry messages.", SourceDocPath: "docs/a.md", SourceSection: "Topics"}
	m.restoreInputs(q)
	m = feed(t, m, ctrl('r'))
	q.SourceDocPath = "docs/b.md"
	m.restoreInputs(q)
	m = feed(t, m, ctrl('r'))
	if len(m.Turns()) != 2 {
		t.Fatalf("turns %q", m.Turns())
	}
	m = feed(t, m, keyRunes("t"))
	v := screen(m)
	if !strings.Contains(v, "source doc docs/a.md→docs/b.md") || strings.Contains(v, "same settings") {
		t.Fatalf("the comparison does not name the source doc:\n%s", v)
	}
}

func TestSourceDiff(t *testing.T) {
	a := retrieval.Query{Mode: retrieval.ModeSelectedText, SelectedText: "abc", SourceDocPath: "docs/a.md", SourceSection: "S"}
	b := a
	b.SourceSection, b.SelectedText = "", "abcd"
	if got := turns.ParamsDiff(a, b); got != "source section S→none · selected text differs (3→4 chars)" {
		t.Fatalf("paramsDiff = %q", got)
	}
	if got := turns.ParamsDiff(a, a); got != "same settings" {
		t.Fatalf("paramsDiff = %q", got)
	}
}
