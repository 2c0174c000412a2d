package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"ragscope/retrieval/assess/eval"
)

// setupEvalJudge opens the judge for eval --judge and sets how the calls
// are confirmed: on a terminal, more than --judge-max-calls calls are
// asked about first, unless --yes.
func (a *App) setupEvalJudge(opts *eval.Options, jf judgeFlags) error {
	j, err := a.openJudge(&jf)
	if err != nil || j == nil {
		return err
	}
	if jf.maxCalls < 0 {
		return Usagef("--judge-max-calls must be 0 or more, got %d", jf.maxCalls)
	}
	opts.Judge = j
	tty := isTerminal(a.Stdin)
	opts.ConfirmJudge = func(calls int) bool {
		return confirmJudge(a.Stdin, a.Stderr, tty, jf.yes, jf.maxCalls, calls, j.Model())
	}
	return nil
}

// confirmJudge decides whether calls judge calls may be made: yes without
// asking with --yes, within the budget, or when standard input is not a
// terminal (nobody to ask: scripts); else it asks on errw and reads one
// line from in ("y" or "yes" goes on).
func confirmJudge(in io.Reader, errw io.Writer, tty, yes bool, budget, calls int, model string) bool {
	if yes || calls <= budget || !tty {
		return true
	}
	fmt.Fprintf(errw, "eval --judge: %d hits are not in the judge cache: %d calls to %s (more than --judge-max-calls %d). Make them? [y/N] ", calls, calls, cleanLine(model), budget)
	line, _ := bufio.NewReader(io.LimitReader(in, 1<<10)).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	fmt.Fprintln(errw, "No judge calls made (--yes skips this question).")
	return false
}

// wireJudgeBar shows the judging on the progress bar, and clears it
// before the confirmation question.
func wireJudgeBar(opts *eval.Options, b *bar) {
	if opts.Judge == nil {
		return
	}
	opts.JudgeProgress = func(done, total int) { b.update("judging", done, total) }
	if confirm := opts.ConfirmJudge; confirm != nil {
		opts.ConfirmJudge = func(n int) bool { b.clear(); return confirm(n) }
	}
}

// judgeStopped is the command's error when the judge stopped the run (a
// refused key, an unknown model): its exit code, not a failed eval.
func judgeStopped(ctx context.Context, rep eval.Report, err error) error {
	if err == nil || ctx.Err() != nil || rep.Judging == nil || rep.Judging.Error == "" {
		return nil
	}
	var outage *eval.OutageError
	if errors.As(err, &outage) {
		return nil
	}
	return &ExitError{Code: ExitCode(err), Err: fmt.Errorf("eval --judge: the judge stopped after %d calls: %w", rep.Judging.Stats.Calls, err)}
}

// writeJudgeEval prints the judge's section of the eval report.
func writeJudgeEval(w io.Writer, jr *eval.JudgeReport) {
	if jr == nil {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Judge %s · prompt %s\n", cleanLine(jr.Model), jr.PromptVersion)
	if jr.NotRun != "" {
		fmt.Fprintf(w, "  not run: %s (%d calls were needed)\n", jr.NotRun, jr.Planned)
		return
	}
	fmt.Fprintf(w, "  %s\n", jr.Stats)
	if jr.NotJudged > 0 {
		fmt.Fprintf(w, "  not judged: %d of %d hits: %s\n", jr.NotJudged, jr.Hits, cleanLine(jr.NotJudgedWhy))
	}
	if jr.Precision == nil {
		fmt.Fprintln(w, "  no hit could be judged: no judged precision or nDCG")
	} else {
		ndcgOver := ""
		if jr.NDCGCases < jr.Measured {
			ndcgOver = fmt.Sprintf("; nDCG over the %d where a hit answers", jr.NDCGCases)
		}
		fmt.Fprintf(w, "  judged precision@k %.3f · judged nDCG@k %s (mean of %d cases with a judged hit, of %d%s)\n", *jr.Precision, optFloat(jr.NDCG), jr.Measured, jr.Cases, ndcgOver)
		fmt.Fprintf(w, "  nothing answers (no hit graded 2 or 3): %d", len(jr.NothingAnswers))
		if len(jr.NothingAnswers) > 0 {
			ids := make([]string, 0, min(len(jr.NothingAnswers), 10))
			for _, id := range jr.NothingAnswers[:min(len(jr.NothingAnswers), 10)] {
				ids = append(ids, cleanLine(id))
			}
			more := ""
			if n := len(jr.NothingAnswers) - len(ids); n > 0 {
				more = fmt.Sprintf(" and %d more", n)
			}
			fmt.Fprintf(w, " (%s%s)", strings.Join(ids, ", "), more)
		}
		fmt.Fprintln(w)
		if len(jr.Categories) > 1 {
			fmt.Fprintln(w, "  per category:")
			for _, c := range jr.Categories {
				if c.Precision == nil {
					fmt.Fprintf(w, "    %-20s no judged hit (%d cases)\n", clip(orDash(cleanLine(c.Category)), 20), c.Cases)
					continue
				}
				fmt.Fprintf(w, "    %-20s precision %.3f · nDCG %s · nothing answers %d of %d\n", clip(orDash(cleanLine(c.Category)), 20), *c.Precision, optFloat(c.NDCG), c.NothingAnswers, c.Measured)
			}
		}
	}
	writeFaithfulness(w, jr.Faithfulness)
	if jr.Error != "" {
		fmt.Fprintf(w, "  stopped: %s\n", cleanLine(jr.Error))
	}
	writeAgreement(w, jr.Agreement)
}

// writeFaithfulness prints the share of supported claims and lists the
// unsupported ones (the first 10).
func writeFaithfulness(w io.Writer, fr *eval.FaithReport) {
	if fr == nil {
		return
	}
	notJudged := ""
	if fr.NotJudged > 0 {
		notJudged = fmt.Sprintf(", %d not judged", fr.NotJudged)
	}
	if fr.Share == nil {
		fmt.Fprintf(w, "  faithfulness: no claim judged (%d answers checked%s)\n", fr.Answers, notJudged)
		return
	}
	fmt.Fprintf(w, "  faithfulness: %.0f%% of %d claims supported by their sources (%d answers checked%s)\n", 100**fr.Share, fr.Claims, fr.Answers, notJudged)
	const show = 10
	for _, u := range fr.Unsupported[:min(len(fr.Unsupported), show)] {
		fmt.Fprintf(w, "    unsupported · %s: %s (%s)\n", cleanLine(u.Case), cleanLine(u.Claim), cleanLine(u.Reason))
	}
	if n := len(fr.Unsupported) - show; n > 0 {
		fmt.Fprintf(w, "    … and %d more unsupported claims (--json lists them all)\n", n)
	}
}

// writeAgreement prints the judge's agreement with the labels: kappa, or
// "undefined" and why, and the confusion matrix.
func writeAgreement(w io.Writer, a *eval.AgreementReport) {
	if a == nil {
		return
	}
	c := a.Confusion
	if a.Kappa == nil {
		fmt.Fprintf(w, "  agreement with your labels: undefined (%s)\n", a.Undefined)
	} else {
		fmt.Fprintf(w, "  agreement with your labels: κ %.2f (%s) · %.0f%% of %d hits agree, over %d labelled cases\n", *a.Kappa, kappaWord(*a.Kappa), 100*a.Observed, c.N(), a.Cases)
	}
	if c.N() == 0 {
		return
	}
	fmt.Fprintln(w, "                        labelled relevant   labelled not")
	fmt.Fprintf(w, "    judged relevant     %17d   %12d\n", c.BothRelevant, c.JudgeOnly)
	fmt.Fprintf(w, "    judged not          %17d   %12d\n", c.LabelOnly, c.Neither)
}

// kappaWord is Landis and Koch's reading of a kappa.
func kappaWord(k float64) string {
	switch {
	case k < 0:
		return "worse than chance"
	case k <= 0.20:
		return "slight"
	case k <= 0.40:
		return "fair"
	case k <= 0.60:
		return "moderate"
	case k <= 0.80:
		return "substantial"
	}
	return "almost perfect"
}
