package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"ragscope/app"
	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
)

// judgeFlags are the flags of a command that can judge its hits.
type judgeFlags struct {
	judge       bool
	concurrency int
	maxCalls    int
	yes         bool
}

// DefaultJudgeMaxCalls is the number of judge calls eval --judge makes
// without asking, when standard input is a terminal.
const DefaultJudgeMaxCalls = 200

// register adds the judge flags to cmd; withBudget adds --judge-max-calls
// and --yes (eval).
func (jf *judgeFlags) register(cmd *cobra.Command, withBudget bool) {
	f := cmd.Flags()
	f.BoolVar(&jf.judge, "judge", false, "grade each hit's relevance 0-3 with the chat model (cached in the user cache folder)")
	f.IntVar(&jf.concurrency, "judge-concurrency", judge.DefaultConcurrency, "judge calls in flight at once")
	if withBudget {
		f.IntVar(&jf.maxCalls, "judge-max-calls", DefaultJudgeMaxCalls, "ask before making more judge calls than this (when standard input is a terminal)")
		f.BoolVar(&jf.yes, "yes", false, "make the judge calls without asking")
	}
}

// openJudge builds the judge the flags ask for; nil without --judge. No
// chat model is a config error (exit 2), before any retrieval.
func (a *App) openJudge(jf *judgeFlags) (*judge.Judge, error) {
	if jf == nil || !jf.judge {
		return nil, nil
	}
	if jf.concurrency < 1 || jf.concurrency > 64 {
		return nil, Usagef("--judge-concurrency must be 1..64, got %d", jf.concurrency)
	}
	dir, _ := app.JudgeCacheDir(a.LookupEnv) // no cache folder: nothing kept between runs
	return a.assembler().Judge(a.setup(), dir, jf.concurrency)
}

// judgeRun is one query's judging.
type judgeRun struct {
	j     *judge.Judge
	js    []judge.Judgement
	stats judge.Stats
	// down stopped the judging: the chat model failed call after call
	// (the hits judged before it are kept).
	down *app.ChatDownError
	// faith is the answer's faithfulness (ask --judge); nil without one.
	faith *judge.Faithfulness
}

// judgeResult grades res's hits with j; nil when j is nil.
func (a *App) judgeResult(cmd *cobra.Command, j *judge.Judge, res retrieval.Result) (*judgeRun, error) {
	if j == nil {
		return nil, nil
	}
	js, st, err := app.JudgeHits(cmd.Context(), j, res.Question, res.Hits)
	var down *app.ChatDownError
	if err != nil && !errors.As(err, &down) {
		return nil, err
	}
	// A failed call's detail quotes the chat model's error, which may
	// hold its key: every output shows it without the secrets.
	for i := range js {
		js[i].Detail = a.redactText(js[i].Detail)
	}
	// The model down: the hits are still shown, each judged or not, and
	// gate fails the run with the cause.
	return &judgeRun{j: j, js: js, stats: st, down: down}, nil
}

// judgeAnswer checks ans against res's sources (ask --judge): its claims
// and which the sources support. Nothing to check (no judge, no answer, a
// refusal) is no call.
func (a *App) judgeAnswer(cmd *cobra.Command, r *judgeRun, res retrieval.Result, ans retrieval.Answer, ansErr error) error {
	if r == nil || r.down != nil || ansErr != nil || ans.Refused || strings.TrimSpace(ans.Text) == "" {
		return nil
	}
	item := judge.FaithItem{Question: res.Question, Answer: ans.Text, Sources: judge.SourcesOf(retrieval.NewPrompt(res))}
	fs, st, err := r.j.Faithfulness(cmd.Context(), []judge.FaithItem{item}, nil)
	r.stats.Add(st)
	if err != nil {
		return err
	}
	fs[0].Detail = a.redactText(fs[0].Detail)
	r.faith = &fs[0]
	return nil
}

// gate is the run's error when --judge was asked and no hit could be
// judged (judge.Gate: exit 3 with the cause); nil without a judge.
func (r *judgeRun) gate() error {
	if r == nil {
		return nil
	}
	if r.down != nil {
		if n, _ := judge.Unjudged(r.js); n < len(r.js) {
			return fmt.Errorf("--judge: the judge could not judge %d of %d hits: %w", n, len(r.js), r.down)
		}
		return fmt.Errorf("--judge: %w", &judge.NoneJudgedError{Hits: len(r.js), Why: r.down.Error()})
	}
	if err := judge.Gate(r.js); err != nil {
		return fmt.Errorf("--judge: %w", err)
	}
	return nil
}

func (r *judgeRun) judgements() []judge.Judgement {
	if r == nil {
		return nil
	}
	return r.js
}

// gradeCell is the grade column of hit i: "[3 answers] ", "[not judged] ",
// or "" without judging.
func gradeCell(js []judge.Judgement, i int) string {
	if i >= len(js) {
		return ""
	}
	if g := js[i].Grade; g != nil {
		return fmt.Sprintf("[%d %s] ", *g, present.GradeWord(*g))
	}
	return "[not judged] "
}

// writeJudgeLine prints hit i's reason, or why it was not judged.
func writeJudgeLine(w io.Writer, js []judge.Judgement, i int) {
	if i >= len(js) {
		return
	}
	j := js[i]
	if j.IsJudged() {
		fmt.Fprintf(w, "    judge: %s\n", cleanLine(j.Reason))
		return
	}
	fmt.Fprintf(w, "    judge: not judged (%s): %s\n", j.Status, cleanLine(j.Detail))
}

// writeText prints the run's figures and cost.
func (r *judgeRun) writeText(w io.Writer) {
	if r == nil {
		return
	}
	m := judge.Case(r.js, 0)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Judge %s · prompt %s · %s\n", cleanLine(r.j.Model()), r.j.PromptVersion(), r.stats)
	n, why := judge.Unjudged(r.js)
	if m.Precision == nil {
		reason := ""
		if why != "" {
			reason = " (" + cleanLine(why) + ")"
		}
		fmt.Fprintf(w, "No hit could be judged%s: no judged precision or nDCG.\n", reason)
	} else {
		nothing := ""
		if m.NothingAnswers {
			nothing = " · nothing answers (no hit graded 2 or 3)"
		}
		fmt.Fprintf(w, "judged precision@%d %.2f · judged nDCG@%d %s (%d of %d hits judged)%s\n", m.K, *m.Precision, m.K, optFloat2(m.NDCG), m.Judged, m.K, nothing)
		if n > 0 {
			fmt.Fprintf(w, "%d of %d hits not judged: %s\n", n, len(r.js), cleanLine(why))
		}
	}
	writeAnswerFaithfulness(w, r.faith)
}

// writeAnswerFaithfulness prints an answer's claims, each marked
// supported, not supported or no verdict.
func writeAnswerFaithfulness(w io.Writer, f *judge.Faithfulness) {
	if f == nil {
		return
	}
	if f.Status != judge.Judged {
		fmt.Fprintf(w, "Faithfulness: not judged (%s): %s\n", f.Status, cleanLine(f.Detail))
		return
	}
	if f.Share == nil {
		fmt.Fprintf(w, "Faithfulness: no claim judged (%d claims)\n", len(f.Claims))
	} else {
		fmt.Fprintf(w, "Faithfulness: %d of %d claims supported by the sources (%.0f%%)\n", f.Supported, f.Judged, 100**f.Share)
	}
	for _, c := range f.Claims {
		mark := "no verdict   "
		if c.Supported != nil && *c.Supported {
			mark = "supported    "
		} else if c.Supported != nil {
			mark = "NOT SUPPORTED"
		}
		reason := ""
		if c.Reason != "" {
			reason = " (" + cleanLine(c.Reason) + ")"
		}
		fmt.Fprintf(w, "  %s %s%s\n", mark, cleanLine(c.Text), reason)
	}
}

// JudgeJSON is a hit's judgement: grade null and a status other than
// "judged" when the hit could not be judged.
type JudgeJSON struct {
	Grade  *int   `json:"grade"`
	Reason string `json:"reason"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	Cached bool   `json:"cached"`
}

// JudgeRunJSON describes a judge run: the model, the prompt version, the
// cost and the label-free figures.
type JudgeRunJSON struct {
	Model         string   `json:"model"`
	PromptVersion string   `json:"prompt_version"`
	Calls         int      `json:"calls"`
	Cached        int      `json:"cached"`
	NotJudged     int      `json:"not_judged"`
	InputTokens   int      `json:"input_tokens"`
	OutputTokens  int      `json:"output_tokens"`
	K             int      `json:"k"`
	Precision     *float64 `json:"judged_precision"`
	NDCG          *float64 `json:"judged_ndcg"`
	// NothingAnswers is true when hits were judged and none graded ≥ 2.
	NothingAnswers bool `json:"nothing_answers"`
	// Faithfulness is the answer's claims and their support (ask --judge).
	Faithfulness *judge.Faithfulness `json:"faithfulness,omitempty"`
}

func judgeJSON(j judge.Judgement) *JudgeJSON {
	return &JudgeJSON{Grade: j.Grade, Reason: j.Reason, Status: string(j.Status), Detail: j.Detail, Cached: j.Cached}
}

func (r *judgeRun) runJSON() *JudgeRunJSON {
	m := judge.Case(r.js, 0)
	return &JudgeRunJSON{
		Model: r.j.Model(), PromptVersion: r.j.PromptVersion(),
		Calls: r.stats.Calls, Cached: r.stats.Cached, NotJudged: r.stats.NotJudged,
		InputTokens: r.stats.Usage.InputTokens, OutputTokens: r.stats.Usage.OutputTokens,
		K: m.K, Precision: m.Precision, NDCG: m.NDCG, NothingAnswers: m.NothingAnswers,
		Faithfulness: r.faith,
	}
}

// addJSON puts the judgements on doc's results and the run on doc.
func (r *judgeRun) addJSON(doc *QueryJSON) {
	if r == nil {
		return
	}
	for i := range doc.Results {
		if i < len(r.js) {
			doc.Results[i].Judge = judgeJSON(r.js[i])
		}
	}
	doc.Judging = r.runJSON()
}
