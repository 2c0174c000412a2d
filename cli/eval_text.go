package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
)

// writeEvalText prints the report for people: the case table, the overall
// figures, the categories, the calibration, the unlabelled cases, the
// baseline and rerank deltas, then the thresholds and the verdict. Case
// ids, questions, categories and paths come from files and collections:
// all go through cleanLine.
func writeEvalText(w io.Writer, set eval.Set, rep eval.Report, baselinePath string) {
	src := rep.Source
	if src == "" {
		src = "?"
	}
	fmt.Fprintf(w, "Golden set: %s (%s) · %d cases · top_k %d · threshold %.2f · concurrency %d\n\n",
		cleanLine(rep.Set), cleanLine(src), len(rep.Cases), rep.Params.TopK, rep.Params.Threshold, rep.Params.Concurrency)
	// A batched case's time is its share of shared calls, not its own:
	// only the cases run alone (the latency sample) show one, as in the
	// explorer; the others say "batched".
	alone := sampledIDs(rep.LatencySample)
	writeEvalCases(w, rep, alone)
	writeEvalOverall(w, rep)
	writeEvalCategories(w, rep, alone)
	writeCalibration(w, rep.Calibration, rep.Params.Threshold)
	writeUnlabelledText(w, rep.Unlabelled)
	if rep.Baseline != nil {
		writeBaseline(w, *rep.Baseline, baselinePath)
	}
	writeRerankEval(w, rep.Rerank, present.FirstStage(rep.Backend.Ranking))
	writeEvalVerdict(w, rep)
}

// writeEvalCases prints the case table: one row a case, its rank figures
// (ranking cases only), keyword coverage, its own latency when it ran
// alone, and its result.
func writeEvalCases(w io.Writer, rep eval.Report, alone map[string]bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCATEGORY\tHIT@1\tRANK\tRR\tNDCG\tKW\tMS ALONE\tRESULT")
	for _, c := range rep.Cases {
		hit1, rank, rr, ndcg := "-", "-", "-", "-"
		if c.Kind == eval.KindRanking {
			hit1 = yesNo(c.HitAt1)
			if c.FirstRelevantRank > 0 {
				rank = strconv.Itoa(c.FirstRelevantRank)
			} else {
				rank = "miss"
			}
			rr, ndcg = fmt.Sprintf("%.2f", c.ReciprocalRank), fmt.Sprintf("%.2f", c.NDCG)
		}
		kw := "-"
		if c.KeywordCoverage != nil {
			kw = fmt.Sprintf("%.2f", *c.KeywordCoverage)
		}
		lat := "-"
		switch {
		case c.Status == eval.StatusError:
		case alone[c.ID]:
			lat = fmt.Sprintf("%.1f", c.Latency.TotalMS)
		case c.Mode == retrieval.ModeNormal:
			lat = "batched"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", clip(c.ID, 32), clip(orDash(c.Category), 20),
			hit1, rank, rr, ndcg, kw, lat, cleanLine(caseResultText(c, rep.Params.Threshold)))
	}
	tw.Flush()
}

// caseResultText is a case's RESULT cell: its status (an unlabelled case's
// best score instead), its kind when it is not a ranking or keyword case,
// its reasons, its answer check and its note.
func caseResultText(c eval.CaseResult, threshold float64) string {
	result := strings.ToUpper(c.Status.String())
	switch {
	case c.Kind == eval.KindUnlabelled && c.Status == eval.StatusPass:
		// Nothing to pass: its best score is what there is to see.
		result = "UNLABELLED  nothing retrieved"
		if h, ok := c.BestHit(); ok {
			result = fmt.Sprintf("UNLABELLED  best %.3f", h.Score)
			if h.BelowThreshold {
				result += fmt.Sprintf(" (below the threshold %.2f)", threshold)
			}
		}
	case c.Kind != eval.KindRanking && c.Kind != eval.KindKeywords:
		result += " (" + strings.ReplaceAll(c.Kind.String(), "_", "-") + ")"
	}
	if len(c.Reasons) > 0 {
		result += "  " + strings.Join(c.Reasons, "; ")
	}
	if c.AnswerCheck != "" {
		result += "  (answer check: " + c.AnswerCheck + ")"
	}
	if l := c.Labels; l != nil && l.Note != "" {
		result += "  note: " + l.Note
	}
	return result
}

// writeEvalOverall prints the overall figures: the rank metrics (each
// hybrid arm's beside the fused ones), coverage, labels, latency,
// throughput, the ANN check, notes, the counts and the checks that ran.
func writeEvalOverall(w io.Writer, rep eval.Report) {
	s := rep.Summary
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Overall (%d ranking cases of %d)\n", s.RankingCases, s.Cases)
	rm := func(v float64) string {
		if s.RankingCases == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", v)
	}
	fmt.Fprintf(w, "  hit@1 %s · hit@k %s · MRR %s · nDCG@k %s · recall@k %s\n", rm(s.HitAt1), rm(s.HitAtK), rm(s.MRR), rm(s.NDCG), rm(s.Recall))
	if len(s.Arms) > 0 {
		parts := make([]string, 0, len(s.Arms)+1)
		for _, a := range s.Arms {
			parts = append(parts, fmt.Sprintf("%s hit@k %.3f · MRR %.3f", a.Label, a.HitAtK, a.MRR))
		}
		parts = append(parts, fmt.Sprintf("fused hit@k %.3f · MRR %.3f", s.HitAtK, s.MRR))
		fmt.Fprintf(w, "  each arm alone: %s\n", cleanLine(strings.Join(parts, "; ")))
	}
	fmt.Fprintf(w, "  keyword coverage %s · metadata completeness %s\n", optFloat(s.KeywordCoverage), optFloat(s.MetadataCompleteness))
	if s.LabelledCases > 0 {
		fmt.Fprintf(w, "  not-relevant marks: %d %s · precision over labelled hits %s · %d with a hit marked not relevant above the relevant one\n",
			s.LabelledCases, present.Plural(s.LabelledCases, "case", "cases"), optFloat(s.LabelledPrecision), s.NotRelevantAbove)
	}
	if ls := rep.LatencySample; ls != nil {
		fmt.Fprintf(w, "  query latency p50 %.1f ms · p95 %.1f ms · max %.1f ms (%d %s run singly; batched times are shared, not per question)\n",
			ls.P50MS, ls.P95MS, ls.MaxMS, ls.Cases, present.Plural(ls.Cases, "case", "cases"))
	} else {
		fmt.Fprintf(w, "  query latency not sampled (--latency-sample 0); batched run p95 %.1f ms (shared calls, not per question)\n", s.Latency.P95MS)
	}
	fmt.Fprintf(w, "  throughput %.1f cases/s\n", rep.ThroughputPerSec)
	writeANNText(w, rep.ANN)
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "  note: %s\n", cleanLine(n))
	}
	// Unlabelled cases neither pass nor fail: they are counted apart.
	unlabelled, passed := "", s.Passed
	if s.Unlabelled > 0 {
		unlabelled = fmt.Sprintf(" · %d unlabelled", s.Unlabelled)
		passed -= eval.UnlabelledRan(rep.Cases)
	}
	fmt.Fprintf(w, "  %d pass%s · %d miss · %d fail · %d error · wall %.0f ms · %d embed %s\n",
		passed, unlabelled, s.Missed, s.Failed, s.Errors, rep.WallMS, rep.Params.EmbedCalls, present.Plural(rep.Params.EmbedCalls, "call", "calls"))
	writeEvalChecks(w, s)
}

// writeEvalChecks prints the line of the checks that ran: retrieval
// context always, the answers' when --answer generated them, and how many
// answer checks could not run without an answer.
func writeEvalChecks(w io.Writer, s eval.Summary) {
	fmt.Fprintf(w, "  checks: retrieval context, all %d %s", s.Cases, present.Plural(s.Cases, "case", "cases"))
	if s.Answers > 0 {
		cov := "-"
		if s.CitationCoverage != nil {
			cov = fmt.Sprintf("%.2f", *s.CitationCoverage)
		}
		fmt.Fprintf(w, " · answers: %d generated, %d failed their checks, citation coverage %s (answered ranking cases citing a relevant hit)", s.Answers, s.AnswerChecksFailed, cov)
	}
	if s.AnswerChecksNotRun > 0 {
		fmt.Fprintf(w, " · answer check: not run (%d %s an answer; --answer generates one)", s.AnswerChecksNotRun, present.Plural(s.AnswerChecksNotRun, "case expects", "cases expect"))
	}
	fmt.Fprintln(w)
}

// writeEvalCategories prints the per-category table when the set has more
// than one category.
func writeEvalCategories(w io.Writer, rep eval.Report, alone map[string]bool) {
	if len(rep.Categories) <= 1 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "By category")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Each category's p95 is over its cases run alone, like the
	// overall p95; without a sample, the batched run's, and the
	// header says so.
	p95Head := "P95 MS ALONE"
	if rep.LatencySample == nil {
		p95Head = "P95 MS BATCHED"
	}
	fmt.Fprintln(tw, "  CATEGORY\tCASES\tPASS\tHIT@1\tHIT@K\tMRR\tNDCG\t"+p95Head)
	for _, c := range rep.Categories {
		m := func(v float64) string {
			if c.RankingCases == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f", v)
		}
		p95 := "-"
		if rep.LatencySample == nil {
			if c.Latency.Cases > 0 {
				p95 = fmt.Sprintf("%.1f", c.Latency.P95MS)
			}
		} else if lat := categoryAlone(rep.Cases, c.Category, alone); len(lat) > 0 {
			p95 = fmt.Sprintf("%.1f", eval.Percentile(lat, 95))
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", clip(orDash(c.Category), 24), c.Cases, c.Passed,
			m(c.HitAt1), m(c.HitAtK), m(c.MRR), m(c.NDCG), p95)
	}
	tw.Flush()
}

// writeEvalVerdict prints the thresholds and the verdict: PASS (NO LABELS
// when every case was unlabelled), or FAIL with its reasons.
func writeEvalVerdict(w io.Writer, rep eval.Report) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Thresholds: %s\n", thresholdText(rep))
	if rep.Passed {
		word := "PASS"
		if n := eval.UnlabelledRan(rep.Cases); n > 0 && n == len(rep.Cases) {
			word = "NO LABELS" // nothing passed: nothing could fail
		}
		fmt.Fprintf(w, "%s: %s\n", word, cleanLine(rep.Verdict))
		return
	}
	fmt.Fprintf(w, "FAIL (%d %s)\n", len(rep.Reasons), present.Plural(len(rep.Reasons), "reason", "reasons"))
	for _, r := range rep.Reasons {
		fmt.Fprintf(w, "  - %s\n", cleanLine(r))
	}
}

func writeCalibration(w io.Writer, cal eval.Calibration, threshold float64) {
	if cal.Relevant+cal.NonRelevant == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Score calibration (%d relevant, %d non-relevant top-k hits)\n", cal.Relevant, cal.NonRelevant)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(b eval.Bin) string) {
		fmt.Fprintf(tw, "  %s\t", label)
		for _, b := range cal.Bins {
			fmt.Fprintf(tw, "%s\t", cell(b))
		}
		fmt.Fprintln(tw)
	}
	row("score ≥", func(b eval.Bin) string { return fmt.Sprintf("%.1f", b.Lo) })
	row("relevant", func(b eval.Bin) string { return strconv.Itoa(b.Relevant) })
	row("non-relevant", func(b eval.Bin) string { return strconv.Itoa(b.NonRelevant) })
	tw.Flush()
	if cal.Suggested == nil {
		fmt.Fprintf(w, "  no suggested threshold: %s\n", cal.Note)
		return
	}
	fmt.Fprintf(w, "  suggested threshold %.3f (Youden's J %.2f: keeps %.0f%% of relevant and %.0f%% of non-relevant hits; run used %.2f)\n",
		*cal.Suggested, cal.J, cal.TPR*100, cal.FPR*100, threshold)
}

func writeBaseline(w io.Writer, d eval.Diff, path string) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Against baseline %s (%s)\n", cleanLine(path), cleanLine(d.OldStarted))
	writeDiff(w, d, diffLabels{regression: "REGRESSION", fixed: "fixed"})
	if len(d.Regressions) > 0 {
		fmt.Fprintf(w, "  regressions (hit before, miss now): %s\n", cleanLine(strings.Join(d.Regressions, ", ")))
	}
	if len(d.Added) > 0 {
		fmt.Fprintf(w, "  new cases: %s\n", cleanLine(strings.Join(d.Added, ", ")))
	}
	if len(d.Removed) > 0 {
		fmt.Fprintf(w, "  cases no longer in the set: %s\n", cleanLine(strings.Join(d.Removed, ", ")))
	}
}

// diffLabels name a Diff's sides in its case table.
type diffLabels struct {
	regression, fixed string
	// latency adds each case's latency delta (ΔMS).
	latency bool
}

// writeDiff prints a Diff's overall deltas and the cases that changed.
func writeDiff(w io.Writer, d eval.Diff, l diffLabels) {
	var parts []string
	for _, m := range d.Overall {
		mark := ""
		if m.Worse() {
			mark = " !"
		}
		f := "%s %.3f → %.3f (%+.3f)%s"
		switch {
		case m.Metric == "passed":
			f = "%s %.0f → %.0f (%+.0f)%s"
		case !m.HigherIsBetter:
			f = "%s %.1f → %.1f (%+.1f)%s"
		}
		parts = append(parts, fmt.Sprintf(f, m.Metric, m.Old, m.New, m.Delta, mark))
	}
	for i := 0; i < len(parts); i += 3 {
		fmt.Fprintf(w, "  %s\n", strings.Join(parts[i:min(i+3, len(parts))], " · "))
	}
	changed := 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range d.Cases {
		if c.OldStatus == c.NewStatus && c.OldRank == c.NewRank {
			continue
		}
		if changed == 0 {
			head := "  CASE\tSTATUS\tRANK\tΔRR\tΔNDCG\t"
			if l.latency {
				head += "ΔMS\t"
			}
			fmt.Fprintln(tw, head)
		}
		changed++
		mark := ""
		switch {
		case c.Regression:
			mark = l.regression
		case c.Fixed:
			mark = l.fixed
		}
		ms := ""
		if l.latency {
			ms = fmt.Sprintf("%+.1f\t", c.DeltaTotalMS)
		}
		fmt.Fprintf(tw, "  %s\t%s → %s\t%s → %s\t%+.2f\t%+.2f\t%s%s\n", clip(c.ID, 32), c.OldStatus, c.NewStatus,
			rankText(c.OldRank), rankText(c.NewRank), c.DeltaRR, c.DeltaNDCG, ms, mark)
	}
	tw.Flush()
	if changed == 0 {
		fmt.Fprintln(w, "  no case changed status or rank")
	}
}

func thresholdText(rep eval.Report) string {
	th, s := rep.Thresholds, rep.Summary
	var parts []string
	check := func(ok bool) string {
		if ok {
			return "ok"
		}
		return "FAILED"
	}
	if th.MinHitAtK != nil {
		parts = append(parts, fmt.Sprintf("hit@k %.3f (min %.2f) %s", s.HitAtK, *th.MinHitAtK, check(s.RankingCases == 0 || s.HitAtK >= *th.MinHitAtK-1e-9)))
	}
	if th.MinMRR != nil {
		parts = append(parts, fmt.Sprintf("MRR %.3f (min %.2f) %s", s.MRR, *th.MinMRR, check(s.RankingCases == 0 || s.MRR >= *th.MinMRR-1e-9)))
	}
	if th.MinKeywordCoverage != nil && s.KeywordCoverage != nil {
		parts = append(parts, fmt.Sprintf("keyword coverage %.3f (min %.2f) %s", *s.KeywordCoverage, *th.MinKeywordCoverage, check(*s.KeywordCoverage >= *th.MinKeywordCoverage-1e-9)))
	}
	if th.MaxP95MS != nil {
		p95 := s.Latency.P95MS // the batched run's, when no case ran singly
		if ls := rep.LatencySample; ls != nil {
			p95 = ls.P95MS
		}
		parts = append(parts, fmt.Sprintf("p95 %.1f ms (max %g ms) %s", p95, *th.MaxP95MS, check(p95 <= *th.MaxP95MS)))
	}
	if len(parts) == 0 {
		return "none set (strict: every case must pass)"
	}
	return strings.Join(parts, " · ")
}

func rankText(r int) string {
	if r == 0 {
		return "miss"
	}
	return strconv.Itoa(r)
}

// sampledIDs is the set of cases that ran alone for the latency sample;
// with no sample (--latency-sample 0) none did.
func sampledIDs(ls *eval.LatencySample) map[string]bool {
	out := map[string]bool{}
	if ls != nil {
		for _, id := range ls.IDs {
			out[id] = true
		}
	}
	return out
}

// categoryAlone is the total latency of category's cases that ran alone.
func categoryAlone(cases []eval.CaseResult, category string, alone map[string]bool) []float64 {
	var out []float64
	for _, c := range cases {
		if c.Category == category && alone[c.ID] && c.Status != eval.StatusError {
			out = append(out, c.Latency.TotalMS)
		}
	}
	return out
}
