package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"ragscope/app"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/assess/explain"
)

// explainSet explains eval's missed ranking cases: each expected source
// that a case's run located (eval diagnoses its misses), and the set's
// vocabulary gaps.
func explainSet(ctx context.Context, be *app.Backend, rep eval.Report) (*explain.SetReport, error) {
	var cases []explain.SetCase
	for _, c := range rep.Cases {
		if c.Status == eval.StatusMiss && c.Kind == eval.KindRanking && len(c.Expected) > 0 {
			cases = append(cases, explain.SetCase{ID: c.ID, Query: c.Query, Expected: c.Expected})
		}
	}
	x := be.Explainer(retrieval.Query{})
	out, err := x.ExplainSet(ctx, cases)
	if err != nil {
		return nil, fmt.Errorf("eval --explain: %w", err)
	}
	return out, nil
}

// writeExplainSet prints eval --explain's part: "course → curriculum:
// q12, q31", then each miss's suggestion.
func writeExplainSet(w io.Writer, x *explain.SetReport) {
	if x == nil {
		return
	}
	fmt.Fprintln(w)
	if len(x.Gaps) == 0 {
		fmt.Fprintf(w, "Vocabulary gaps: none (no question word is absent from the expected chunk in %d or more missed cases)\n", explain.MinGapCases)
	} else {
		fmt.Fprintln(w, "Vocabulary gaps (question word → the expected pages' nearest words: missed cases):")
		for _, g := range x.Gaps {
			near := strings.Join(g.Nearest, ", ")
			if near == "" {
				near = "(no near word)"
			}
			fmt.Fprintf(w, "  %s → %s: %s\n", cleanLine(g.Term), cleanLine(near), cleanLine(strings.Join(g.Cases, ", ")))
		}
	}
	var lines []string
	for _, m := range x.Misses {
		if m.Suggestion != "" {
			lines = append(lines, fmt.Sprintf("  %s (%s): %s", cleanLine(m.ID), cleanLine(m.Ref), cleanLine(m.Suggestion)))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintln(w, "Suggestions for the misses:")
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	for _, n := range x.Notes {
		fmt.Fprintf(w, "  note: %s\n", cleanLine(n))
	}
}
