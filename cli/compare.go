package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ragscope/app"
	"ragscope/config"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
)

// CompareSchema names the version of the `eval --vs` JSON document.
const CompareSchema = "ragscope.compare/v1"

// vsFlag names the setups compared with --setup's (eval and query).
const vsFlag = "vs"

// defaultSetupName names the file's top level when no --setup is given.
const defaultSetupName = "default"

// registerVs adds --vs to cmd (eval or query); eval also gets
// --markdown for the comparison when it has none of its own.
func registerVs(cmd *cobra.Command, isEval bool) *cobra.Command {
	cmd.Flags().StringSlice(vsFlag, nil, "compare --setup's setup (default: the file's top level) with these named setups of ragscope.toml (comma-separated or repeated)")
	if !isEval {
		cmd.Long += queryVsHelp
		cmd.Example += "\n  ragscope query --setup small --vs large \"how do nodes talk?\""
		return cmd
	}
	if cmd.Flags().Lookup("markdown") == nil {
		cmd.Flags().String("markdown", "", "with --vs: also write the comparison as Markdown to this file")
	}
	cmd.Long += evalVsHelp
	cmd.Example += "\n  ragscope eval golden.yaml --setup small --vs large,bm25"
	return cmd
}

// evalVsHelp ends eval's --help: the comparison of setups.
const evalVsHelp = `

Comparing setups: with --setup A --vs B[,C] the set runs through every
setup in one process, concurrently, each its own pipeline (the command
line's flags apply to all). Per setup: hit@k, MRR, nDCG, recall, latency
p50/p95, embed calls and tokens; per case, B's win, loss or tie on the
reciprocal rank; per metric, the mean paired difference B - A with a
bootstrap 95% interval and an exact two-sided sign-test p-value; then a
verdict with its figures: "B over A: MRR +0.08 [+0.03, +0.13], 14 wins,
2 losses, 2 ties, p = 0.004" when the interval excludes 0 and p < 0.05,
else "no clear difference: …", saying so when the interval and the sign
test disagree. A case a setup failed is an error, never a
win for the other ("no verdict: …"). Relevance is judged by doc path, URL,
module, chapter and keywords, never chunk id. --json prints the
ragscope.compare/v1 document, --markdown FILE writes it as Markdown.
With --vs: exit 0 compared, 2 a bad or unknown setup, 3 a setup failed
every case, 4 a setup failed some cases or a --vs setup is clearly worse
than A, 64 bad usage (--baseline, --out, --answer, --judge and the
thresholds go with a single setup's eval).`

// queryVsHelp ends query's --help: the comparison of setups.
const queryVsHelp = `

Comparing setups: with --setup A --vs B the question runs through both
setups (concurrently, each its own pipeline) and the two rankings print side
by side; each source (doc path and section anchor, else URL: never chunk
id, so two chunkings compare) shows how it moved: ↑3, ↓2, =, only in A,
only in B. --json prints the ragscope.query-compare/v1 document.`

// vsSetups are the setups --vs names (nil when it was not given; a blank
// name is kept for openArms to refuse).
func vsSetups(cmd *cobra.Command) []string {
	f := cmd.Flags().Lookup(vsFlag)
	if f == nil || !f.Changed {
		return nil
	}
	names, _ := cmd.Flags().GetStringSlice(vsFlag)
	if len(names) == 0 {
		return []string{""}
	}
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// onlyFlags refuses, as a usage error, every flag of cmd's own that was
// set and is not in allowed: a comparison takes fewer flags than a run of
// one setup.
func onlyFlags(cmd *cobra.Command, allowed ...string) error {
	var bad []string
	cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Changed && !slices.Contains(allowed, f.Name) {
			bad = append(bad, "--"+f.Name)
		}
	})
	if len(bad) > 0 {
		return Usagef("--vs compares setups and does not take %s (run each setup alone for that)", strings.Join(bad, ", "))
	}
	return nil
}

// arm is one setup of a comparison, opened.
type arm struct {
	// letter is the arm's place (A, B, C…), name its setup's name.
	letter, name string
	cfg          config.Config
	be           *app.Backend
}

// openArms opens the run's setup (A) and each --vs setup, concurrently,
// each its own pipeline built from its own configuration (the command
// line's flags apply to every one); what they load alike is loaded once
// (app.Assembler.OpenAll).
func (a *App) openArms(cmd *cobra.Command, vs []string) ([]*arm, error) {
	first := a.Cfg.Setup
	if first == "" {
		first = defaultSetupName
	}
	arms := []*arm{{letter: "A", name: first, cfg: a.Cfg}}
	seen := map[string]bool{first: true}
	for _, n := range vs {
		if n == "" {
			return nil, Usagef("--vs needs the name of a setup of ragscope.toml ('ragscope setups' lists them)")
		}
		if seen[n] {
			return nil, Usagef("--vs %s: setup %s is already in the comparison", n, n)
		}
		seen[n] = true
		if !slices.Contains(a.Cfg.SetupNames, n) {
			return nil, a.Cfg.UnknownSetup("--"+vsFlag, n)
		}
		cfg, err := a.loadConfig(cmd, n)
		if err != nil {
			return nil, err
		}
		a.armCfgs = append(a.armCfgs, cfg)
		arms = append(arms, &arm{letter: string(rune('A' + len(arms))), name: n, cfg: cfg})
	}
	if len(arms) > 26 {
		return nil, Usagef("--vs compares at most 25 setups with --setup's")
	}
	setups := make([]app.Setup, len(arms))
	for i, ar := range arms {
		setups[i] = app.FromConfig(ar.cfg)
	}
	backends, errs := a.assembler().OpenAll(cmd.Context(), setups, app.Search)
	for i, be := range backends {
		if be != nil {
			arms[i].be = be
			a.backends = append(a.backends, be)
		}
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("setup %s: %w", arms[i].name, err)
		}
	}
	return arms, nil
}

// armRun is one arm's run of the set.
type armRun struct {
	rep    eval.Report
	outage *eval.OutageError
}

// runEvalVs runs the set through every setup concurrently and compares
// each --vs setup with the first case by case.
func (a *App) runEvalVs(cmd *cobra.Command, file string, ef evalFlags, vs []string) error {
	if err := onlyFlags(cmd, vsFlag, "markdown", "json", "category", "top-k", "threshold", "concurrency", "latency-sample"); err != nil {
		return err
	}
	opts, err := a.evalOptions(cmd, ef)
	if err != nil {
		return err
	}
	mdPath, _ := cmd.Flags().GetString("markdown")
	if mdPath != "" {
		// A report that cannot be written fails now, not after the run.
		if err := checkOutPath("--markdown", mdPath, "compare.md"); err != nil {
			return err
		}
		if ef.json && toStdout(mdPath) {
			return stdoutTwice("--json", "--markdown "+mdPath)
		}
	}
	set, err := a.loadEvalSet(file, ef.categories)
	if err != nil {
		return err
	}
	arms, err := a.openArms(cmd, vs)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	runs, err := a.runArms(ctx, set, arms, opts)
	if err != nil {
		return err
	}
	doc := compareDoc(set, arms, runs)
	out := cmd.OutOrStdout()
	if mdPath != "" && toStdout(mdPath) {
		out = cmd.ErrOrStderr() // the report owns standard output
	}
	// The reports quote a failing setup's errors: written without the
	// configuration's secrets.
	if err := writeHidden(out, a.secrets(), func(w io.Writer) error {
		if ef.json {
			return writeJSON(w, doc)
		}
		writeCompareText(w, doc)
		return nil
	}); err != nil {
		return err
	}
	if mdPath != "" {
		if err := writeOutFile(ctx, mdPath, cmd.OutOrStdout(), func(w io.Writer) error {
			return writeHidden(w, a.secrets(), func(w io.Writer) error { writeCompareMarkdown(w, doc); return nil })
		}); err != nil {
			return fmt.Errorf("--markdown: %w", err)
		}
	}
	return compareExit(arms, runs, doc)
}

// runArms runs set on every setup at once, each with opts over its own
// rerank, timeout and question embedder, one progress bar over them all.
// A setup whose every case failed on its backend is an outage its run
// records (the comparison says so); any other error interrupts the
// comparison.
func (a *App) runArms(ctx context.Context, set eval.Set, arms []*arm, opts eval.Options) ([]armRun, error) {
	bar := newBar(a.Stderr, false)
	var mu sync.Mutex
	done := make([]int, len(arms))
	runs := make([]armRun, len(arms))
	errs := make([]error, len(arms))
	var wg sync.WaitGroup
	for i, ar := range arms {
		o := opts
		o.Rerank = app.FromConfig(ar.cfg).RerankOptions()
		o.CallTimeout = ar.cfg.Timeout
		o.BatchEmbedder = ar.be.QuestionMemo
		o.Progress = func(d, _ int) {
			mu.Lock()
			done[i] = d
			sum := 0
			for _, n := range done {
				sum += n
			}
			mu.Unlock()
			bar.update(fmt.Sprintf("evaluating %d setups", len(arms)), sum, len(set.Cases)*len(arms))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := eval.Run(ctx, ar.be.Pipeline, set, o)
			if errors.As(err, &runs[i].outage) {
				err = nil // every case an error: the comparison says so
			}
			runs[i].rep, errs[i] = rep, err
		}()
	}
	wg.Wait()
	bar.clear()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("eval --vs: setup %s interrupted: %w", arms[i].name, err)
		}
	}
	return runs, nil
}

// compareExit is the comparison's exit: 3 (2 for a configuration error)
// when a setup failed every case, 4 when a setup failed some cases or a
// --vs setup is clearly worse than the first, else 0.
func compareExit(arms []*arm, runs []armRun, doc CompareJSON) error {
	for i, r := range runs {
		if r.outage != nil {
			code := ExitCode(r.outage.Err)
			if code != ExitConfig {
				code = ExitBackend
			}
			return &ExitError{Code: code, Err: fmt.Errorf("eval --vs: setup %s: %w", arms[i].name, r.outage)}
		}
	}
	for _, c := range doc.Comparisons {
		if c.ErrorsA > 0 || c.ErrorsB > 0 || (c.Clear && c.Better == c.A) {
			return &ExitError{Code: ExitCheck}
		}
	}
	return nil
}

// CompareJSON is the JSON document of `ragscope eval --setup A --vs B`.
type CompareJSON struct {
	Schema string `json:"schema"`
	Set    string `json:"set"`
	Source string `json:"source,omitempty"`
	Cases  int    `json:"cases"`
	// Setups are the setups run, the first the one the others are
	// compared with.
	Setups []SetupRunJSON `json:"setups"`
	// Comparisons compare each other setup with the first.
	Comparisons []ComparisonJSON `json:"comparisons"`
}

// SetupRunJSON is one setup's run of the set.
type SetupRunJSON struct {
	Letter  string      `json:"letter"`
	Name    string      `json:"name"`
	Backend BackendJSON `json:"backend"`
	// RankingCases is the number of ranking cases the means are over.
	RankingCases    int      `json:"ranking_cases"`
	HitAtK          float64  `json:"hit_at_k"`
	MRR             float64  `json:"mrr"`
	NDCG            float64  `json:"ndcg"`
	Recall          float64  `json:"recall"`
	KeywordCoverage *float64 `json:"keyword_coverage"`
	// LatencyP50MS and LatencyP95MS are over the cases run singly
	// (LatencySampled), else over the batched run's shared calls.
	LatencyP50MS   float64 `json:"latency_p50_ms"`
	LatencyP95MS   float64 `json:"latency_p95_ms"`
	LatencySampled bool    `json:"latency_sampled"`
	// EmbedCalls is the number of embed calls made; TokensEstimate the
	// questions' tokens sent to a provider's embedder (an estimate, ~4
	// characters a token; omitted for the offline embedder, which costs
	// nothing).
	EmbedCalls     int     `json:"embed_calls"`
	TokensEstimate *int    `json:"tokens_estimate,omitempty"`
	Errors         int     `json:"errors"`
	WallMS         float64 `json:"wall_ms"`
	// Outage is the error of a setup that failed every case.
	Outage string `json:"outage,omitempty"`
}

// ComparisonJSON compares setup B with setup A case by case.
type ComparisonJSON struct {
	A string `json:"a"`
	B string `json:"b"`
	// Verdict is the plain line ("B over A: MRR +0.08 [+0.03, +0.13], …").
	Verdict string `json:"verdict"`
	// Clear is true when one setup is clearly better on MRR (the 95%
	// interval excludes 0, p < 0.05, no errors); Better names it.
	Clear  bool   `json:"clear"`
	Better string `json:"better,omitempty"`
	eval.PairedRuns
}

// compareDoc builds the comparison document of the arms' runs.
func compareDoc(set eval.Set, arms []*arm, runs []armRun) CompareJSON {
	doc := CompareJSON{Schema: CompareSchema, Set: runs[0].rep.Set, Source: runs[0].rep.Source, Cases: len(set.Cases)}
	for i, ar := range arms {
		doc.Setups = append(doc.Setups, setupRun(ar, runs[i]))
	}
	for i := 1; i < len(arms); i++ {
		pr := eval.ComparePaired(runs[0].rep, runs[i].rep)
		c := ComparisonJSON{A: arms[0].name, B: arms[i].name, PairedRuns: pr, Clear: pr.Clear()}
		c.Verdict = pr.Verdict(c.A, c.B)
		if m, ok := pr.Metric(eval.VerdictMetric); ok && c.Clear {
			c.Better = c.A
			if m.Diff > 0 {
				c.Better = c.B
			}
		}
		doc.Comparisons = append(doc.Comparisons, c)
	}
	return doc
}

// setupRun summarises one arm's run.
func setupRun(ar *arm, r armRun) SetupRunJSON {
	s := r.rep.Summary
	out := SetupRunJSON{
		Letter: ar.letter, Name: ar.name, Backend: backendJSON(ar.be),
		RankingCases: s.RankingCases, HitAtK: s.HitAtK, MRR: s.MRR, NDCG: s.NDCG, Recall: s.Recall,
		KeywordCoverage: s.KeywordCoverage,
		LatencyP50MS:    s.Latency.P50MS, LatencyP95MS: s.Latency.P95MS,
		EmbedCalls: r.rep.Params.EmbedCalls, Errors: s.Errors, WallMS: r.rep.WallMS,
	}
	if ls := r.rep.LatencySample; ls != nil {
		out.LatencyP50MS, out.LatencyP95MS, out.LatencySampled = ls.P50MS, ls.P95MS, true
	}
	if ar.be.Provider != "" {
		n := tokensSent(r.rep)
		out.TokensEstimate = &n
	}
	if r.outage != nil {
		out.Outage = r.outage.Error()
	}
	return out
}

// tokensSent estimates the tokens of the questions a run embedded: each
// normal-mode case once in its batch, and again when it ran singly for
// the latency sample.
func tokensSent(rep eval.Report) int {
	alone := sampledIDs(rep.LatencySample)
	n := 0
	for _, c := range rep.Cases {
		if c.Mode == retrieval.ModeSelectedText || c.Status == eval.StatusError {
			continue
		}
		t := present.Tokens(c.Question)
		n += t
		if alone[c.ID] {
			n += t
		}
	}
	return n
}

// writeCompareText prints the comparison for people: the setups, their
// figures, then each comparison's metrics, cases and verdict.
func writeCompareText(w io.Writer, doc CompareJSON) {
	src := doc.Source
	if src == "" {
		src = "?"
	}
	fmt.Fprintf(w, "Comparing %d setups on %s (%s) · %d cases\n", len(doc.Setups), cleanLine(doc.Set), cleanLine(src), doc.Cases)
	for _, s := range doc.Setups {
		fmt.Fprintf(w, "  %s  %s: %s\n", s.Letter, cleanLine(s.Name), cleanLine(setupLine(s.Backend)))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SETUP\tHIT@K\tMRR\tNDCG\tRECALL\tKW\tP50 MS\tP95 MS\tEMBED CALLS\t~TOKENS\tERRORS\tWALL MS")
	for _, s := range doc.Setups {
		tok := "- (offline)"
		if s.TokensEstimate != nil {
			tok = fmt.Sprint(*s.TokensEstimate)
		}
		fmt.Fprintf(tw, "%s %s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%.1f\t%.1f\t%d\t%s\t%d\t%.0f\n", s.Letter, clip(s.Name, 24),
			s.HitAtK, s.MRR, s.NDCG, s.Recall, optFloat(s.KeywordCoverage), s.LatencyP50MS, s.LatencyP95MS, s.EmbedCalls, tok, s.Errors, s.WallMS)
	}
	tw.Flush()
	if len(doc.Setups) > 0 && !doc.Setups[0].LatencySampled {
		fmt.Fprintln(w, "  (latency from the batched run's shared calls: --latency-sample 0)")
	}
	for _, c := range doc.Comparisons {
		fmt.Fprintln(w)
		m, _ := c.Metric(eval.VerdictMetric)
		fmt.Fprintf(w, "%s vs %s: paired over %d %s both ran (B − A, bootstrap 95%% interval, sign test)\n",
			cleanLine(c.B), cleanLine(c.A), m.Pairs, present.Plural(m.Pairs, "case", "cases"))
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  METRIC\tA\tB\tB − A\t95% INTERVAL\tWINS\tLOSSES\tTIES\tP")
		for _, pm := range c.Metrics {
			fmt.Fprintf(tw, "  %s\t%.3f\t%.3f\t%+.3f\t[%+.3f, %+.3f]\t%d\t%d\t%d\t%.3f\n", pm.Metric, pm.A, pm.B, pm.Diff, pm.Lo, pm.Hi, pm.Wins, pm.Losses, pm.Ties, pm.P)
		}
		tw.Flush()
		writePairedCases(w, c.PairedRuns)
		fmt.Fprintf(w, "Verdict: %s\n", cleanLine(c.Verdict))
	}
}

// writePairedCases prints the ranking cases B won, lost or that errored,
// with their ranks, and counts the ties.
func writePairedCases(w io.Writer, pr eval.PairedRuns) {
	if len(pr.Cases) == 0 {
		return
	}
	ties := 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  CASE\tRANK A\tRANK B\tRR A\tRR B\tB")
	for _, c := range pr.Cases {
		if c.Outcome == eval.OutcomeTie {
			ties++
			continue
		}
		result := c.Outcome
		if c.Outcome == eval.OutcomeError {
			result = "error (" + errorSide(c) + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.2f\t%.2f\t%s\n", clipMiddle(c.ID, 32), caseRank(c.RankA, c.ErrorA), caseRank(c.RankB, c.ErrorB), c.RRA, c.RRB, result)
	}
	if ties < len(pr.Cases) {
		tw.Flush()
	}
	if ties > 0 {
		fmt.Fprintf(w, "  %d %s at the same reciprocal rank not listed (--json lists every case)\n", ties, present.Plural(ties, "case", "cases"))
	}
}

// errorSide says which arm failed a case.
func errorSide(c eval.PairedCase) string {
	switch {
	case c.ErrorA != "" && c.ErrorB != "":
		return "both"
	case c.ErrorA != "":
		return "in A"
	}
	return "in B"
}

// caseRank is a case's rank cell: "error" when the arm failed it.
func caseRank(rank int, errText string) string {
	if errText != "" {
		return "error"
	}
	return rankText(rank)
}

// setupLine describes a setup's backend in one line.
func setupLine(b BackendJSON) string {
	parts := []string{b.Name}
	if b.Model != "" {
		m := b.Model
		if b.Provider != "" {
			m = b.Provider + " " + m
		}
		parts = append(parts, m)
	}
	if b.Search != "" {
		parts = append(parts, b.Search)
	}
	return strings.Join(parts, " · ")
}

// writeCompareMarkdown writes the comparison as Markdown: the setups'
// figures, then each comparison's metrics and verdict.
func writeCompareMarkdown(w io.Writer, doc CompareJSON) {
	fmt.Fprintf(w, "# Setups compared on %s\n\n", mdCell(doc.Set))
	fmt.Fprintf(w, "%d cases.\n\n", doc.Cases)
	fmt.Fprintln(w, "| Setup | Backend | hit@k | MRR | nDCG | recall | p50 ms | p95 ms | embed calls | errors |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range doc.Setups {
		fmt.Fprintf(w, "| %s %s | %s | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %d | %d |\n", s.Letter, mdCell(s.Name), mdCell(setupLine(s.Backend)),
			s.HitAtK, s.MRR, s.NDCG, s.Recall, s.LatencyP50MS, s.LatencyP95MS, s.EmbedCalls, s.Errors)
	}
	for _, c := range doc.Comparisons {
		fmt.Fprintf(w, "\n## %s vs %s\n\n", mdCell(c.B), mdCell(c.A))
		fmt.Fprintf(w, "**%s**\n\n", mdCell(c.Verdict))
		fmt.Fprintln(w, "| Metric | A | B | B − A | 95% interval | wins | losses | ties | p |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---|---:|---:|---:|---:|")
		for _, m := range c.Metrics {
			fmt.Fprintf(w, "| %s | %.3f | %.3f | %+.3f | [%+.3f, %+.3f] | %d | %d | %d | %.3f |\n", m.Metric, m.A, m.B, m.Diff, m.Lo, m.Hi, m.Wins, m.Losses, m.Ties, m.P)
		}
		var changed []eval.PairedCase
		for _, pc := range c.Cases {
			if pc.Outcome != eval.OutcomeTie {
				changed = append(changed, pc)
			}
		}
		if len(changed) == 0 {
			continue
		}
		fmt.Fprintln(w, "\n| Case | rank A | rank B | B |")
		fmt.Fprintln(w, "|---|---:|---:|---|")
		for _, pc := range changed {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdCell(pc.ID), caseRank(pc.RankA, pc.ErrorA), caseRank(pc.RankB, pc.ErrorB), pc.Outcome)
		}
	}
}

// mdCell is text safe in a Markdown table cell: one clean line, pipes
// escaped.
func mdCell(s string) string {
	return strings.ReplaceAll(cleanLine(s), "|", `\|`)
}

// ctxWithTimeout bounds ctx by a setup's call timeout.
func ctxWithTimeout(ctx context.Context, cfg config.Config) (context.Context, context.CancelFunc) {
	if cfg.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, cfg.Timeout)
}
