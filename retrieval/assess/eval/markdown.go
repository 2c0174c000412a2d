package eval

import (
	"bytes"
	"fmt"
	"io"
	"ragscope/retrieval/assess/explain"
	"slices"
	"strings"
)

// MarkdownCaseRows is how many cases that did not pass a Markdown report
// lists.
const MarkdownCaseRows = 50

// WriteMarkdown writes r as a Markdown summary fit for a CI job summary
// (GitHub's $GITHUB_STEP_SUMMARY, a merge request note): the verdict, the
// overall figures in one table, the categories, the cases that did not
// pass (at most MarkdownCaseRows) and, for unlabelled cases, the content
// gaps. Text from the set and the collection is one line, without
// control characters, with Markdown and HTML characters escaped.
func WriteMarkdown(w io.Writer, r Report) error {
	var b bytes.Buffer
	// Unlabelled cases neither pass nor fail: they are counted apart.
	ranUnlabelled := UnlabelledRan(r.Cases)
	verdict := "✅ PASS"
	switch {
	case !r.Passed:
		verdict = "❌ FAIL"
	case len(r.Cases) > 0 && ranUnlabelled == len(r.Cases):
		verdict = "➖ NO LABELS"
	}
	fmt.Fprintf(&b, "## ragscope eval: %s — %s\n\n", mdCell(orDefault(r.Set, "golden set")), verdict)
	fmt.Fprintf(&b, "%s\n\n", mdCell(r.Verdict))
	be := r.Backend.Backend
	if r.Backend.Collection != "" {
		be += " · " + r.Backend.Collection
	}
	if r.Backend.Model != "" {
		be += " · " + r.Backend.Model
	}
	fmt.Fprintf(&b, "Backend: %s · top_k %d · threshold %.2f\n\n", mdCell(orDefault(be, "?")), r.Params.TopK, r.Params.Threshold)

	s := r.Summary
	p95 := s.Latency.P95MS
	if r.LatencySample != nil {
		p95 = r.LatencySample.P95MS
	}
	b.WriteString("| cases | pass | miss | fail | error | unlabelled | hit@1 | hit@k | MRR | nDCG@k | recall@k | p95 ms |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s | %.1f |\n\n",
		s.Cases, s.Passed-ranUnlabelled, s.Missed, s.Failed, s.Errors, s.Unlabelled,
		mdMetric(s, s.HitAt1), mdMetric(s, s.HitAtK), mdMetric(s, s.MRR), mdMetric(s, s.NDCG), mdMetric(s, s.Recall), p95)

	mdCategories(&b, r)
	mdNotPassed(&b, r)
	mdUnlabelled(&b, r.Unlabelled)
	writeExplainMarkdown(&b, r.Explain)

	if !r.Passed && len(r.Reasons) > 0 {
		b.WriteString("### Why the run failed\n\n")
		for _, reason := range r.Reasons {
			fmt.Fprintf(&b, "- %s\n", mdCell(reason))
		}
		b.WriteString("\n")
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write Markdown report: %w", err)
	}
	return nil
}

// mdCategories writes the figures by category, when there are several.
func mdCategories(b *bytes.Buffer, r Report) {
	if len(r.Categories) > 1 {
		b.WriteString("### By category\n\n")
		b.WriteString("| category | cases | pass | hit@1 | hit@k | MRR | nDCG@k |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
		for _, c := range r.Categories {
			fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %s | %s |\n", mdCell(orDefault(c.Category, "-")), c.Cases, c.Passed-unlabelledRanIn(r.Cases, c.Category),
				mdMetric(c.Summary, c.HitAt1), mdMetric(c.Summary, c.HitAtK), mdMetric(c.Summary, c.MRR), mdMetric(c.Summary, c.NDCG))
		}
		b.WriteString("\n")
	}

}

// mdNotPassed writes the cases that did not pass, at most
// MarkdownCaseRows of them.
func mdNotPassed(b *bytes.Buffer, r Report) {
	var notPassed []CaseResult
	for _, c := range r.Cases {
		if c.Status != StatusPass || JudgeFailed(c) {
			notPassed = append(notPassed, c)
		}
	}
	if len(notPassed) > 0 {
		fmt.Fprintf(b, "### Cases that did not pass (%d)\n\n", len(notPassed))
		b.WriteString("| case | category | status | reason |\n|---|---|---|---|\n")
		for _, c := range notPassed[:min(len(notPassed), MarkdownCaseRows)] {
			status := string(c.Status)
			if c.Status == StatusMiss {
				if rule := allowedBy(c, r); rule != "" {
					status += " (allowed by " + rule + ")"
				}
			}
			reasons := c.Reasons
			if p := judgeProblem(c); p != "" {
				if c.Status == StatusPass {
					status = "judge error"
				}
				reasons = append(slices.Clip(reasons), p)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdCell(c.ID), mdCell(orDefault(c.Category, "-")), mdCell(status),
				mdCell(clipText(strings.Join(reasons, "; "), 300)))
		}
		if n := len(notPassed) - MarkdownCaseRows; n > 0 {
			fmt.Fprintf(b, "\n…and %d more (the JSON report, --out, has every case).\n", n)
		}
		b.WriteString("\n")
	}

}

// mdUnlabelled writes the unlabelled questions' best scores and the
// lowest of them (content gaps).
func mdUnlabelled(b *bytes.Buffer, u *UnlabelledReport) {
	if u != nil {
		fmt.Fprintf(b, "### Unlabelled questions (%d)\n\n", u.Cases)
		fmt.Fprintf(b, "%s.\n\n", mdCell(u.GapLine()))
		if u.Cases > u.NoHits {
			d := u.BestScore
			fmt.Fprintf(b, "Best score: min %.3f · p10 %.3f · p25 %.3f · p50 %.3f · p75 %.3f · p90 %.3f · max %.3f\n\n",
				d.Min, d.P10, d.P25, d.P50, d.P75, d.P90, d.Max)
		}
		if len(u.Lowest) > 0 {
			b.WriteString("| case | best score | gap | question | best hit |\n|---|---:|---|---|---|\n")
			for _, g := range u.Lowest {
				score, gap := "none", ""
				if g.BestScore != nil {
					score = fmt.Sprintf("%.3f", *g.BestScore)
				}
				if g.Gap {
					gap = "gap"
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdCell(g.ID), score, gap, mdCell(clipText(g.Question, 200)), mdCell(g.Best))
			}
			b.WriteString("\n")
		}
	}

}

// unlabelledRanIn is UnlabelledRan over the cases of category cat.
func unlabelledRanIn(cases []CaseResult, cat string) int {
	n := 0
	for i := range cases {
		if cases[i].Category == cat && cases[i].Kind == KindUnlabelled && cases[i].Status == StatusPass {
			n++
		}
	}
	return n
}

// mdMetric is a ranking metric, "-" when the summary has no ranking case.
func mdMetric(s Summary, v float64) string {
	if s.RankingCases == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// mdEscaper escapes what Markdown or HTML would read in a table cell.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "#", `\#`, "~", `\~`,
)

// mdCell makes untrusted text one safe line of Markdown.
func mdCell(s string) string { return mdEscaper.Replace(reportLine(s)) }

// writeExplainMarkdown is eval --explain's short table: the vocabulary
// gaps, then each miss's suggestion (at most MarkdownCaseRows rows).
func writeExplainMarkdown(b *bytes.Buffer, x *explain.SetReport) {
	if x == nil {
		return
	}
	if len(x.Gaps) > 0 {
		b.WriteString("### Vocabulary gaps\n\n| question word | the pages say | missed cases |\n|---|---|---|\n")
		for _, g := range x.Gaps {
			fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(g.Term), mdCell(orDefault(strings.Join(g.Nearest, ", "), "-")), mdCell(strings.Join(g.Cases, ", ")))
		}
		b.WriteString("\n")
	}
	var rows []explain.CaseExplanation
	for _, m := range x.Misses {
		if m.Suggestion != "" {
			rows = append(rows, m)
		}
	}
	if len(rows) > 0 {
		b.WriteString("### Suggestions for the misses\n\n| case | expected | suggestion |\n|---|---|---|\n")
		for _, m := range rows[:min(len(rows), MarkdownCaseRows)] {
			fmt.Fprintf(b, "| %s | %s | %s |\n", mdCell(m.ID), mdCell(m.Ref), mdCell(clipText(m.Suggestion, 300)))
		}
		b.WriteString("\n")
	}
}
