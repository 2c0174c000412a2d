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
	// After a fusion the word table is the bm25 arm's, under its head.
	indent := ""
	if e.Fusion != nil {
		add("%s", FusionLine(e.Fusion, e.Score))
		add("%s", armHead(e.Fusion, "bm25", "the question's words"))
		indent = "  "
	}
	if len(e.Terms) == 0 {
		out = append(out, indent+"the question has no content word the lexical search indexes")
	}
	for _, t := range e.Terms {
		out = append(out, indent+termsafe.Line(termLine(t, e)))
	}
	if e.TitleMatch != nil && *e.TitleMatch > 0 {
		add("title match %.2f → %+.3f", *e.TitleMatch, *e.TitleContribution)
	}
	if e.Cosine != nil && e.Fusion == nil {
		add("cosine %.3f → %+.3f", *e.Cosine, *e.CosineContribution)
	}
	if e.Formula != "" && e.Fusion == nil && (e.Contributions() || e.Cosine != nil) {
		add("score %.3f = %s", e.Score, e.Formula)
	}
	if len(e.Attribution) > 0 {
		var parts []string
		for i, a := range e.Attribution {
			if i == 4 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s carries %+.3f", a.Word, a.Delta))
		}
		add("%s %.3f (leave-one-out): %s", attributedName(e), attributedScore(e), strings.Join(parts, ", "))
	} else if e.AttributionNote != "" && (!e.Contributions() || e.Fusion != nil) {
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

// FusionLine is a fused score taken apart by arm, e.g. "dense #3 0.610 →
// 0.250 · bm25 #1 12.400 → 0.500 · fused 0.750 (RRF k=2)": each arm's rank
// and score and its part of the fused score (RRF: 1/(k + rank − 1), the
// rank zero-based as Qdrant counts it; DBSF: the normalised score); "–"
// for an arm that did not return the chunk, "?" for a part the search
// could not tell. A fusion the store names (a local index's, e.g. "RRF
// (k 60) of cosine and BM25 + title match") is named so, with its title
// match's part: "… · title → 0.167 · fused 0.5 (RRF (k 60) of …)".
func FusionLine(f *explain.Fusion, fused float64) string {
	parts := make([]string, 0, len(f.Arms)+1)
	for _, a := range f.Arms {
		s := termsafe.Line(a.Label) + " –"
		if a.Rank != nil {
			s = fmt.Sprintf("%s #%d %s", termsafe.Line(a.Label), *a.Rank, Score(*a.Score, 3))
		}
		if a.Contribution != nil {
			s += fmt.Sprintf(" → %.3f", *a.Contribution)
		} else {
			s += " → ?"
		}
		parts = append(parts, s)
	}
	if f.Title != nil && *f.Title != 0 {
		parts = append(parts, fmt.Sprintf("title → %.3f", *f.Title))
	}
	how := "fused"
	switch {
	case f.Name != "":
		how = strings.TrimPrefix(termsafe.Line(f.Name), "hybrid ")
	case f.Method == "rrf":
		how = fmt.Sprintf("RRF k=%d", f.K)
	case f.Method == "dbsf":
		how = "DBSF"
	}
	return strings.Join(parts, " · ") + fmt.Sprintf(" · fused %.3f (%s)", fused, how)
}

// armHead heads the lines of one arm of a fusion: "bm25 arm 12.400, the
// question's words:".
func armHead(f *explain.Fusion, label, what string) string {
	for _, a := range f.Arms {
		if a.Label == label && a.Score != nil {
			return fmt.Sprintf("%s arm %s, %s:", label, Score(*a.Score, 3), what)
		}
	}
	return fmt.Sprintf("%s arm (did not return the chunk), %s:", label, what)
}

// attributedName names the score the attribution takes apart: "of", or
// "dense arm" after a fusion.
func attributedName(e *explain.Explanation) string {
	if e.Fusion != nil {
		return "dense arm"
	}
	return "of"
}

// attributedScore is the score the attribution takes apart: a fusion's
// dense arm's, else the score.
func attributedScore(e *explain.Explanation) float64 {
	if e.Fusion != nil {
		if a := e.Fusion.DenseArm(); a != nil && a.Score != nil {
			return *a.Score
		}
	}
	return e.Score
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
