package present

import (
	"fmt"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/termsafe"
)

// ExplainJSON is the "explain" object of an explained row in --json
// output (results[i].explain, expected[i].explain): the explanation's
// snake_case fields (terms, missing, attribution, suggestions, …) at its
// top level. A scorer with more than one side (a hybrid's dense and
// sparse arms) adds its per-side parts as fields beside terms, so every
// consumer of this object reads one shape.
type ExplainJSON struct {
	*explain.Explanation
}

// ExplainDoc is e's JSON object (nil for nil).
func ExplainDoc(e *explain.Explanation) *ExplainJSON {
	if e == nil {
		return nil
	}
	return &ExplainJSON{Explanation: e}
}

// WhatIfLine is a what-if's sentence: "with your edit, docs/a.md#0 would
// rank #1 (0.410), up from #8; nothing is written".
func WhatIfLine(w explain.WhatIf) string {
	what := "with your edit"
	if w.New {
		what = "as a new page"
	}
	rank := fmt.Sprintf("#%d", w.Rank)
	if w.Beyond {
		rank = "beyond #1,000"
	}
	s := fmt.Sprintf("%s, %s would rank %s (%.3f)", what, termsafe.Line(w.Ref), rank, w.Score)
	if w.FromRank != nil {
		switch from := *w.FromRank; {
		case w.Rank < from:
			s += fmt.Sprintf(", up from #%d", from)
		case w.Rank > from:
			s += fmt.Sprintf(", down from #%d", from)
		default:
			s += ", where it is now"
		}
		if w.FromScore != nil {
			s += fmt.Sprintf(" (%.3f)", *w.FromScore)
		}
	}
	return s + "; nothing is written"
}

// ExplainLines is e as lines of text, each sanitised: the question's
// words against the chunk (count in the text, in the title, or absent
// with the chunk's nearest words), each word's BM25 contribution, the
// title match and cosine, the words that carry a dense score, the winner
// beside an expected chunk, and the suggestions.
func ExplainLines(e *explain.Explanation) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, termsafe.Line(fmt.Sprintf(format, a...))) }
	if len(e.Terms) == 0 {
		add("the question has no content word the lexical search indexes")
	}
	for _, t := range e.Terms {
		add("%s", termLine(t, e))
	}
	if e.TitleMatch != nil && *e.TitleMatch > 0 {
		add("title match %.2f → %+.3f", *e.TitleMatch, *e.TitleContribution)
	}
	if e.Cosine != nil {
		add("cosine %.3f → %+.3f", *e.Cosine, *e.CosineContribution)
	}
	if e.Fusion != "" && (e.Contributions() || e.Cosine != nil) {
		add("score %.3f = %s", e.Score, e.Fusion)
	}
	if len(e.Attribution) > 0 {
		var parts []string
		for i, a := range e.Attribution {
			if i == 4 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s carries %+.3f", a.Word, a.Delta))
		}
		add("of %.3f (leave-one-out): %s", e.Score, strings.Join(parts, ", "))
	} else if e.AttributionNote != "" && !e.Contributions() {
		add("no attribution: %s", e.AttributionNote)
	}
	if v := e.Versus; v != nil && v.Winner != nil {
		add("beside #1 %s (%.3f): #1 has %s that this lacks; this has %s that #1 lacks",
			explainedTitle(v.Winner), v.Winner.Score, wordsOrNone(v.WinnerOnly), wordsOrNone(v.ExpectedOnly))
	}
	for _, s := range e.Suggestions {
		add("→ %s", s)
	}
	return out
}

// termLine is one question word against the chunk.
func termLine(t explain.Term, e *explain.Explanation) string {
	var where string
	switch {
	case t.InText && t.InTitle:
		where = fmt.Sprintf("in text ×%d and title", t.Count)
	case t.InText:
		where = fmt.Sprintf("in text ×%d", t.Count)
	case t.InTitle:
		where = "in title"
	case t.Form != "":
		where = fmt.Sprintf("absent; the chunk has %q (another form, not matched)", t.Form)
	default:
		where = "absent"
		for _, m := range e.Missing {
			if m.Term == t.Term && len(m.Nearest) > 0 {
				var ns []string
				for _, n := range m.Nearest {
					ns = append(ns, fmt.Sprintf("%s (%.2f)", n.Word, n.Similarity))
				}
				where += "; nearest in the chunk: " + strings.Join(ns, ", ")
			}
		}
	}
	s := t.Term + ": " + where
	if t.Contribution != nil && *t.Contribution > 0 {
		s += fmt.Sprintf(" · %+.3f (idf %.2f × tf %.2f, length %.2f)", *t.Contribution, *t.IDF, *t.TF, *t.LengthNorm)
	}
	return s
}

func wordsOrNone(ws []string) string {
	if len(ws) == 0 {
		return "none"
	}
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = "\"" + w + "\""
	}
	return strings.Join(q, ", ")
}

// explainedTitle is "title - section" of an explained chunk.
func explainedTitle(e *explain.Explanation) string {
	return Title(&retrieval.Chunk{Title: e.Title, Section: e.Section, DocPath: e.DocPath})
}
