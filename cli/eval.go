package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/internal/readlimit"
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
and metric formulas are in docs/golden-sets.md.

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
	ef.register(cmd)
	registerVs(cmd, true)
	return cmd
}

// register defines eval's own flags on cmd, bound to ef (the judge's
// included; --vs is registerVs's).
func (ef *evalFlags) register(cmd *cobra.Command) {
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
	base, err := readBaseline(ef.baseline)
	if err != nil {
		return err
	}
	if ef.answer {
		if err := a.setupEvalAnswer(&opts); err != nil {
			return err
		}
	}
	if err := a.setupEvalJudge(&opts, ef.judge); err != nil {
		return err
	}
	ctx := cmd.Context()
	be, err := a.OpenBackend(ctx, selectionOnly(set))
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
	if err := evalStopped(ctx, ef, stdout, rep, len(set.Cases), a.secrets(), err); err != nil {
		return err
	}
	if ef.explain {
		if rep.Explain, err = explainSet(ctx, be, rep); err != nil {
			return err
		}
	}
	if base != nil {
		applyBaseline(&rep, *base, ef.failOnRegression)
	}
	// The report quotes the backends' and the judge's errors: written
	// without the configuration's secrets, as the report files are.
	if err := writeHidden(out, a.secrets(), func(w io.Writer) error {
		if ef.json {
			return writeJSON(w, rep)
		}
		writeEvalText(w, set, rep, ef.baseline)
		writeExplainSet(w, rep.Explain)
		writeJudgeEval(w, rep.Judging)
		return nil
	}); err != nil {
		return err
	}
	if err := writeReportFiles(ctx, ef, stdout, rep, a.secrets()); err != nil {
		return err
	}
	return evalExit(rep)
}

// evalStopped is the exit of a run that ended early (nil when it ran to
// its end): an outage or a refused key is not a regression, so exit 3 (2
// for a configuration error) with the backend's message and the report
// files written, never 4; a judge that stopped says why; any other error
// is an interrupt after cases of total.
func evalStopped(ctx context.Context, ef evalFlags, stdout io.Writer, rep eval.Report, total int, secrets []string, err error) error {
	var outage *eval.OutageError
	if errors.As(err, &outage) {
		if werr := writeReportFiles(ctx, ef, stdout, rep, secrets); werr != nil {
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
		return fmt.Errorf("eval interrupted after %d of %d cases: %w", countDone(rep), total, err)
	}
	return nil
}

// applyBaseline adds to rep its deltas against base and, with
// failOnRegression, fails it when a case that hit before misses now.
func applyBaseline(rep *eval.Report, base eval.Report, failOnRegression bool) {
	d := eval.Compare(base, *rep)
	rep.Baseline = &d
	if failOnRegression && len(d.Regressions) > 0 {
		rep.Passed = false
		rep.Reasons = append(rep.Reasons, "regressions against the baseline: "+strings.Join(d.Regressions, ", "))
	}
}

// evalExit is the exit of a run that finished and wrote its reports: the
// reranker or the judge failing every case is an outage (exit 3, or 2 for
// a refused setting), a failed gate exit 4.
func evalExit(rep eval.Report) error {
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

// readBaseline reads the --baseline report at path (nil when path is
// ""): a file that cannot be read or is not a report is a usage error.
func readBaseline(path string) (*eval.Report, error) {
	if path == "" {
		return nil, nil
	}
	f, _, err := readlimit.Open(path)
	if err != nil {
		return nil, usageError{fmt.Errorf("--baseline: %w", err)}
	}
	b, err := eval.ReadReport(readlimit.Reader(f, readlimit.Report))
	f.Close()
	if err != nil {
		return nil, usageError{fmt.Errorf("--baseline %s: %w", path, err)}
	}
	return &b, nil
}

// setupEvalAnswer gives opts the chat model --answer answers every case
// with; none configured is a configuration error that says how to set one.
func (a *App) setupEvalAnswer(opts *eval.Options) error {
	gen, err := a.assembler().Generator(a.setup())
	if errors.Is(err, retrieval.ErrNoGenerator) {
		return fmt.Errorf("%w: --answer needs a chat model: %s", retrieval.ErrConfig, a.providers().ChatHint())
	}
	if err != nil {
		return err
	}
	opts.Generator = gen
	return nil
}

// selectionOnly reports whether every case of set is a selected-text
// case, which needs no search backend.
func selectionOnly(set eval.Set) bool {
	for _, c := range set.Cases {
		if eval.KindOf(c) != eval.KindSelectedText {
			return false
		}
	}
	return true
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
