package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/internal/readlimit"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
)

type evalFlags struct {
	minHitAtK        float64
	minMRR           float64
	maxP95MS         float64
	topK             int
	threshold        float64
	concurrency      int
	latencySample    int
	json             bool
	out              string
	junit            string
	markdown         string
	explain          bool
	baseline         string
	categories       []string
	failOnRegression bool
	answer           bool
	judge            judgeFlags
	annCheck         bool
}

func (a *App) newEvalCmd() *cobra.Command {
	var ef evalFlags
	cmd := &cobra.Command{
		Use:   "eval [FILE]",
		Short: "Run a golden question set: hit@k, MRR, nDCG, recall, latency; exit 4 on failure",
		Long: `Run the golden questions in FILE (JSON or YAML) against the configured
backend and report per case and overall: hit@1, hit@k, MRR, nDCG@k,
recall@k, keyword coverage, metadata completeness and latency (p50/p95), a
per-category breakdown, a score histogram with a suggested threshold, and,
with --baseline, the deltas against an earlier --out report.

With no FILE, the demo textbook's golden set (embedded) runs on the demo.

Questions are embedded in batches of 96 (16 calls in flight), each batch
searched in one call (Qdrant QueryBatch), --concurrency batches in flight.
A batched run cannot time one question: --latency-sample cases (default
10, plus every case with max_latency_ms) also run singly beside it, each
its own embed call and search, and the latency p50/p95 and max_p95_ms use
that sample. Throughput is the
batched run's cases per second.

The gate is strict by default: with no thresholds, any missed case fails
the run (exit 4) and the summary names it. Thresholds (--min-hit-at-k,
--min-mrr, --max-p95-ms, or the file's thresholds, which also take
min_keyword_coverage: flags win) are how misses are accepted, and the verdict says which rule
decided. A case's own check failing (max_latency_ms, no_answer,
selected-text grounding, or an error) fails the run too. The file format
and metric formulas are in the README.

With --rerank MODEL, each case is searched once and both the vector order
and the reranked order are scored: the deltas (hit@1, hit@k, MRR, nDCG,
latency) and the cases rerank fixed or broke follow the report, which
(and whose thresholds) is the reranked run's.

An outage is not a regression: when every case that needs the backend
fails with a backend error (refused key, unreachable, missing collection),
the run exits 3 (2 for a configuration error) with the backend's message.

Exit codes: 0 passed, 2 missing config, 3 backend unreachable or refused,
4 failed (a regression), 64 bad usage, a malformed or empty FILE.`,
		Example: `  ragscope eval
  ragscope eval golden.yaml --min-hit-at-k 0.8 --min-mrr 0.6 --out report.json
  ragscope eval golden.yaml --baseline report.json --category module-1-ros2
  ragscope eval golden.json --json | jq '.summary'
  ragscope eval golden.yaml --junit junit.xml --markdown "$GITHUB_STEP_SUMMARY"
  ragscope eval --rerank bm25`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return Usagef("eval takes at most one FILE, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			if vs := vsSetups(cmd); len(vs) > 0 {
				return a.runEvalVs(cmd, file, ef, vs)
			}
			return a.runEval(cmd, file, ef)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&ef.minHitAtK, "min-hit-at-k", 0, "fail when mean hit@k is below this, 0..1 (overrides the file)")
	f.Float64Var(&ef.minMRR, "min-mrr", 0, "fail when MRR is below this, 0..1 (overrides the file)")
	f.Float64Var(&ef.maxP95MS, "max-p95-ms", 0, "fail when the p95 latency in ms is above this (overrides the file)")
	f.IntVarP(&ef.topK, "top-k", "k", 0, "top_k of every case without its own, 1..100 (default: the file's, else 5)")
	f.Float64Var(&ef.threshold, "threshold", 0, "minimum score a hit needs, 0..1 (default: the file's, else 0)")
	f.IntVar(&ef.concurrency, "concurrency", eval.DefaultConcurrency, "search batches in flight, 1..64")
	f.IntVar(&ef.latencySample, "latency-sample", eval.DefaultLatencySample, "cases re-run one at a time to measure query latency p50/p95 (0 skips; cases with max_latency_ms always run)")
	f.BoolVar(&ef.json, "json", false, "print the report as JSON (schema ragscope.eval/v1)")
	f.StringVar(&ef.out, "out", "", "also write the JSON report to this file (a future --baseline; - for standard output)")
	f.StringVar(&ef.junit, "junit", "", "also write a JUnit XML report to this file (one testcase per case, for CI; - for standard output)")
	f.StringVar(&ef.markdown, "markdown", "", "also write a Markdown summary to this file (e.g. \"$GITHUB_STEP_SUMMARY\"; - for standard output)")
	f.StringVar(&ef.baseline, "baseline", "", "compare with this earlier JSON report: deltas and regressions")
	f.StringSliceVar(&ef.categories, "category", nil, "only run cases of this category (repeatable or comma-separated)")
	f.BoolVar(&ef.failOnRegression, "fail-on-regression", false, "with --baseline: fail when a case that hit before misses now")
	f.BoolVar(&ef.annCheck, "ann-check", false, "also search every batch exactly (one more batched call each): ANN recall@k and the cases that only exact search passes (index misses)")
	f.BoolVar(&ef.explain, "explain", false, "after the misses, the set's vocabulary gaps (question words absent from the expected chunk in 2+ missed cases, with the page's nearest words) and each miss's suggestion")
	f.BoolVar(&ef.answer, "answer", false, "also answer every case with the chat model (--chat-provider) and check refuse, answer_keywords and citations")
	ef.judge.register(cmd, true)
	registerVs(cmd, true)
	return cmd
}

// evalOptions are the run options eval's flags give (a usage error for a
// value out of range), for one setup or every setup of a comparison.
func (a *App) evalOptions(cmd *cobra.Command, ef evalFlags) (eval.Options, error) {
	fl := cmd.Flags()
	opts := eval.Options{Concurrency: ef.concurrency, CallTimeout: a.Cfg.Timeout, Rerank: a.setup().RerankOptions(), ANNCheck: ef.annCheck}
	if ef.latencySample < 0 {
		return opts, Usagef("--latency-sample must be 0 or more, got %d", ef.latencySample)
	}
	opts.LatencySample = ef.latencySample
	if ef.latencySample == 0 {
		opts.LatencySample = -1 // 0 on the command line skips the sample
	}
	if ef.concurrency < 1 || ef.concurrency > 64 {
		return opts, Usagef("--concurrency must be 1..64, got %d", ef.concurrency)
	}
	unit := func(name string, v float64, dst **float64) error {
		if !changedFlag(fl, name) {
			return nil
		}
		if v < 0 || v > 1 {
			return Usagef("--%s must be 0..1, got %s", name, strconv.FormatFloat(v, 'g', -1, 64))
		}
		*dst = &v
		return nil
	}
	if err := errors.Join(
		unit("min-hit-at-k", ef.minHitAtK, &opts.Thresholds.MinHitAtK),
		unit("min-mrr", ef.minMRR, &opts.Thresholds.MinMRR),
		unit("threshold", ef.threshold, &opts.Threshold),
	); err != nil {
		return opts, usageError{err}
	}
	if changedFlag(fl, "max-p95-ms") {
		if ef.maxP95MS <= 0 {
			return opts, Usagef("--max-p95-ms must be a positive number of milliseconds")
		}
		v := ef.maxP95MS
		opts.Thresholds.MaxP95MS = &v
	}
	if changedFlag(fl, "top-k") {
		if ef.topK < retrieval.MinTopK || ef.topK > retrieval.MaxTopK {
			return opts, Usagef("--top-k must be %d..%d, got %d", retrieval.MinTopK, retrieval.MaxTopK, ef.topK)
		}
		opts.TopK = ef.topK
	}
	if ef.baseline == "" && ef.failOnRegression {
		return opts, Usagef("--fail-on-regression goes with --baseline")
	}
	return opts, nil
}

func (a *App) runEval(cmd *cobra.Command, file string, ef evalFlags) error {
	opts, err := a.evalOptions(cmd, ef)
	if err != nil {
		return err
	}
	// A report that cannot be written fails now, not after the run.
	if err := checkReportFiles(ef); err != nil {
		return err
	}
	set, err := a.loadEvalSet(file, ef.categories)
	if err != nil {
		return err
	}
	var base *eval.Report
	if ef.baseline != "" {
		f, _, err := readlimit.Open(ef.baseline)
		if err != nil {
			return usageError{fmt.Errorf("--baseline: %w", err)}
		}
		b, err := eval.ReadReport(readlimit.Reader(f, readlimit.Report))
		f.Close()
		if err != nil {
			return usageError{fmt.Errorf("--baseline %s: %w", ef.baseline, err)}
		}
		base = &b
	}

	if ef.answer {
		gen, err := a.assembler().Generator(a.setup())
		if errors.Is(err, retrieval.ErrNoGenerator) {
			return fmt.Errorf("%w: --answer needs a chat model: %s", retrieval.ErrConfig, a.providers().ChatHint())
		}
		if err != nil {
			return err
		}
		opts.Generator = gen
	}
	if err := a.setupEvalJudge(&opts, ef.judge); err != nil {
		return err
	}
	ctx := cmd.Context()
	selectionOnly := true
	for _, c := range set.Cases {
		if eval.KindOf(c) != eval.KindSelectedText {
			selectionOnly = false
		}
	}
	be, err := a.OpenBackend(ctx, selectionOnly)
	if err != nil {
		return err
	}
	out, stdout := cmd.OutOrStdout(), cmd.OutOrStdout()
	if reportOnStdout(ef) {
		out = cmd.ErrOrStderr() // the report owns standard output
	}
	if !ef.json {
		fmt.Fprintln(out, header(be))
	}
	bar := newBar(a.Stderr, false)
	opts.Progress = func(done, total int) { bar.update("evaluating", done, total) }
	wireJudgeBar(&opts, bar)
	rep, err := eval.Run(ctx, be.Pipeline, set, opts)
	bar.clear()
	var outage *eval.OutageError
	if errors.As(err, &outage) {
		// An outage or a refused key is not a regression: exit 3 (2 for a
		// configuration error) with the backend's message, never 4.
		if werr := writeReportFiles(ctx, ef, stdout, rep, a.secrets()); werr != nil {
			return werr
		}
		code := ExitCode(outage.Err)
		if code != ExitConfig {
			code = ExitBackend
		}
		return &ExitError{Code: code, Err: fmt.Errorf("eval: %w", err)}
	}
	if jerr := judgeStopped(ctx, rep, err); jerr != nil {
		return jerr
	}
	if err != nil {
		return fmt.Errorf("eval interrupted after %d of %d cases: %w", countDone(rep), len(set.Cases), err)
	}
	if ef.explain {
		if rep.Explain, err = explainSet(ctx, be, rep); err != nil {
			return err
		}
	}
	if base != nil {
		d := eval.Compare(*base, rep)
		rep.Baseline = &d
		if ef.failOnRegression && len(d.Regressions) > 0 {
			rep.Passed = false
			rep.Reasons = append(rep.Reasons, "regressions against the baseline: "+strings.Join(d.Regressions, ", "))
		}
	}
	if ef.json {
		if err := writeJSON(out, rep); err != nil {
			return err
		}
	} else {
		writeEvalText(out, set, rep, ef.baseline)
		writeExplainSet(out, rep.Explain)
		writeJudgeEval(out, rep.Judging)
	}
	if err := writeReportFiles(ctx, ef, stdout, rep, a.secrets()); err != nil {
		return err
	}
	if rep.Rerank.Outage() {
		// The reranker failed every case: nothing was compared (exit 3, or
		// 2 when it refused the settings), whatever the vector run gave.
		code := ExitCode(rep.Rerank.Err)
		if code != ExitConfig {
			code = ExitBackend
		}
		return &ExitError{Code: code, Err: fmt.Errorf("eval --rerank: the reranker failed on every case: %w", rep.Rerank.Err)}
	}
	if why := rep.Judging.Shortfall(rep.Cases); why != "" {
		// The judge's model failed: a gate that could not judge fails
		// closed, as an unavailable backend (exit 3), not a regression.
		return &ExitError{Code: ExitBackend, Err: fmt.Errorf("eval --judge: %s", why)}
	}
	if !rep.Passed {
		return &ExitError{Code: ExitCheck}
	}
	return nil
}

// loadEvalSet reads FILE, or the embedded demo set when file is "" and the
// backend is the demo (app.LoadGoldenSet), and keeps the cases of
// categories (all when none).
func (a *App) loadEvalSet(file string, categories []string) (eval.Set, error) {
	set, err := app.LoadGoldenSet(file, a.Cfg.Resolved())
	switch {
	case errors.Is(err, app.ErrNoDemoSet):
		return eval.Set{}, Usagef("give a golden set FILE: the built-in set is for the demo textbook, and the backend is %s", a.Cfg.Resolved())
	case errors.Is(err, fs.ErrNotExist):
		return eval.Set{}, Usagef("golden set %s does not exist", file)
	case err != nil && file != "":
		return eval.Set{}, usageError{err}
	case err != nil:
		return set, err
	}
	if set, err = set.FilterCategories(categories); err != nil {
		return eval.Set{}, usageError{err}
	}
	return set, nil
}

// checkOutFile checks that the --out report can be written (checkOutPath).
func checkOutFile(path string) error { return checkOutPath("--out", path, "report.json") }

func countDone(rep eval.Report) int {
	n := 0
	for _, c := range rep.Cases {
		if c.ID != "" && c.Error == "" {
			n++
		}
	}
	return n
}

// writeEvalText prints the report for people. Case ids, questions,
// categories and paths come from files and collections: all go through
// cleanLine.
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
		result := strings.ToUpper(c.Status.String())
		switch {
		case c.Kind == eval.KindUnlabelled && c.Status == eval.StatusPass:
			// Nothing to pass: its best score is what there is to see.
			result = "UNLABELLED  nothing retrieved"
			if h, ok := c.BestHit(); ok {
				result = fmt.Sprintf("UNLABELLED  best %.3f", h.Score)
				if h.BelowThreshold {
					result += fmt.Sprintf(" (below the threshold %.2f)", rep.Params.Threshold)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", clip(c.ID, 32), clip(orDash(c.Category), 20),
			hit1, rank, rr, ndcg, kw, lat, cleanLine(result))
	}
	tw.Flush()

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

	if len(rep.Categories) > 1 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "By category")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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

	writeCalibration(w, rep.Calibration, rep.Params.Threshold)
	writeUnlabelledText(w, rep.Unlabelled)
	if rep.Baseline != nil {
		writeBaseline(w, *rep.Baseline, baselinePath)
	}
	writeRerankEval(w, rep.Rerank, present.FirstStage(rep.Backend.Ranking))

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

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func optFloat(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *p)
}

// optFloat2 is optFloat with two decimals.
func optFloat2(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *p)
}

// clipMiddle cleans s and fits it in n cells by cutting its middle
// (present.Middle): for sources and ids, whose end tells two apart.
func clipMiddle(s string, n int) string { return present.Middle(cleanLine(s), n) }

// clip cleans s and cuts it to n characters.
func clip(s string, n int) string {
	s = cleanLine(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
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
