// Package judgerun is the explorer's judge (key J): the setup the
// assembly hands in, the run in flight (one at a time, cancelled by a
// newer one or esc), the command that grades a turn's hits and checks its
// finished answer, how its verdicts are recorded on the turn, and the
// status line that sums them up. It is a service of the root model.
package judgerun

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// Setup offers the judge in the explorer (key J): the chat model grades
// the hits of the turn on show 0-3 with a reason, and checks its finished
// answer's claims against their sources. It is the judge of `query
// --judge` and `ask --judge`, with the same cache. Zero leaves the key
// saying why it cannot judge (the explorer's chat hint).
type Setup struct {
	// Model names the judge ("provider/model").
	Model string
	// Relevance grades each of hits against question, in order; a hit it
	// could not grade has a nil Grade and its status (judge.Judge.Relevance).
	Relevance func(ctx context.Context, question string, hits []retrieval.Hit) ([]judge.Judgement, judge.Stats, error)
	// Faithfulness checks ans, generated from res's grounded context,
	// against res's sources (judge.Judge.Faithfulness); nil leaves answers
	// unchecked.
	Faithfulness func(ctx context.Context, res retrieval.Result, ans retrieval.Answer) (judge.Faithfulness, judge.Stats, error)
}

// Hint is the status line when there is no judge: what enables one
// (chatHint says how to configure a chat model).
func Hint(chatHint string) string {
	hint := strings.TrimSpace(chatHint)
	if hint == "" {
		hint = "Configure a chat model as for ragscope ask."
	}
	return "The judge needs a chat model. " + hint
}

// Msg is the end of judge run Seq on turn N.
type Msg struct {
	N, Seq int
	Grades []judge.Judgement
	Stats  judge.Stats
	Err    error
	// Answer is the answer checked (nil: none); Faith its check.
	Answer   *common.AnswerState
	Faith    *judge.Faithfulness
	FaithErr error
}

// cmd grades hits and, when st is set, checks its answer ans. The
// closure captures only its arguments.
func cmd(ctx context.Context, cancel context.CancelFunc, js Setup, n, seq int, res retrieval.Result, st *common.AnswerState, ans retrieval.Answer) tea.Cmd {
	return func() tea.Msg {
		defer cancel()
		msg := Msg{N: n, Seq: seq, Answer: st}
		msg.Grades, msg.Stats, msg.Err = js.Relevance(ctx, res.Question, res.Hits)
		if st != nil && msg.Err == nil {
			f, fs, err := js.Faithfulness(ctx, res, ans)
			msg.Stats.Add(fs)
			msg.FaithErr = err
			if err == nil {
				msg.Faith = &f
			}
		}
		return msg
	}
}

// Run is the judge run in flight: its sequence number, its turn and how
// to cancel it, and the question judged last, whose re-runs with other
// settings are judged too (the cache answers the hits already graded).
type Run struct {
	seq      int
	n        int
	cancel   context.CancelFunc
	question string
}

// Busy reports whether a run is in flight.
func (r *Run) Busy() bool { return r.cancel != nil }

// Judged remembers t's question as the one judged last (key J).
func (r *Run) Judged(t *common.Turn) { r.question = t.Query.Question }

// Carries reports whether t re-runs the question judged last with hits
// to judge; a turn asking another question forgets it.
func (r *Run) Carries(t *common.Turn) bool {
	if t.Query.Question != r.question {
		r.question = ""
		return false
	}
	return r.question != "" && len(t.Result.Hits) > 0
}

// Start judges t under base with js (the run in flight is cancelled
// first by the caller): its hits, and its finished answer when js checks
// answers. key is the judge key's name, for the status line it returns.
func (r *Run) Start(base context.Context, js Setup, t *common.Turn, key string) (tea.Cmd, string) {
	ctx, cancel := context.WithCancel(base)
	r.seq++
	r.n, r.cancel = t.N, cancel
	if t.Judge == nil {
		t.Judge = &common.JudgeState{}
	}
	t.Judge.Running, t.Judge.Err = true, nil
	var ans retrieval.Answer
	st := checkable(t.Answer)
	if js.Faithfulness == nil {
		st = nil
	}
	what := "Judging " + present.Count(len(t.Result.Hits), "hit", "hits")
	if st != nil {
		ans = st.Final
		st.Faith = &common.FaithState{Running: true}
		what += " and the answer's claims"
	}
	what += " with " + termsafe.Line(js.Model) + "… esc cancels."
	if t.Answer != nil && t.Answer.Phase == common.AnswerStreaming {
		what += " The answer is still streaming: " + key + " again checks it once done."
	}
	return cmd(ctx, cancel, js, t.N, r.seq, t.Result, st, ans), what
}

// checkable is st when it is a finished answer the judge can check.
func checkable(st *common.AnswerState) *common.AnswerState {
	if st == nil || st.Phase != common.AnswerDone || st.Final.Refused || strings.TrimSpace(st.Final.Text) == "" {
		return nil
	}
	return st
}

// Cancel stops the run in flight and returns the number of its turn
// (false: none was running); its reply will be dropped.
func (r *Run) Cancel() (n int, ok bool) {
	if r.cancel == nil {
		return 0, false
	}
	r.cancel()
	r.cancel = nil
	r.seq++
	return r.n, true
}

// Abandon clears a cancelled run's marks on t: its verdicts stay if it
// had some, the answer's check in flight goes. It reports whether t had
// the judge's state.
func Abandon(t *common.Turn) bool {
	if t.Judge == nil {
		return false
	}
	t.Judge.Running = false
	if t.Judge.Grades == nil {
		t.Judge = nil
	}
	if st := t.Answer; st != nil && st.Faith != nil && st.Faith.Running {
		st.Faith = nil
	}
	return true
}

// End reports whether msg is the reply of the run in flight, which then
// is over.
func (r *Run) End(msg Msg) bool {
	if msg.Seq != r.seq {
		return false
	}
	r.cancel = nil
	return true
}

// Record puts msg's verdicts on its turn t (whose judge state is set) and
// returns the status line: the summary, or why the judge stopped; model
// names the judge.
func Record(t *common.Turn, msg Msg, model string) (common.StatusKind, string) {
	js := t.Judge
	js.Running = false
	if st := msg.Answer; st != nil && st.Faith != nil {
		st.Faith = &common.FaithState{Verdict: msg.Faith, Err: msg.FaithErr}
	}
	if msg.Err != nil && (errors.Is(msg.Err, context.Canceled) || len(msg.Grades) != len(t.Result.Hits)) {
		js.Err = msg.Err
		if js.Grades == nil {
			t.Judge = nil
		}
		return common.StatusErr, "The judge stopped: " + common.ErrorText(msg.Err)
	}
	js.Grades, js.Stats, js.Err = msg.Grades, msg.Stats, msg.Err
	js.ByID = make(map[string]*judge.Judgement, len(msg.Grades))
	for i := range js.Grades {
		js.ByID[t.Result.Hits[i].Chunk.ID] = &js.Grades[i]
	}
	return Summary(t, model)
}

// Summary is the status line after a judge run of t with model.
func Summary(t *common.Turn, model string) (common.StatusKind, string) {
	js := t.Judge
	mt := judge.Case(js.Grades, 0)
	text := "Judged " + present.Count(len(js.Grades), "hit", "hits") + " with " + termsafe.Line(model) + ": "
	kind := common.StatusOK
	switch {
	case mt.Precision == nil:
		kind, text = common.StatusErr, text+"none could be graded"
	default:
		ndcg := "-"
		if mt.NDCG != nil {
			ndcg = present.Score(*mt.NDCG, 2)
		}
		text += fmt.Sprintf("judged precision@%d %.2f · nDCG@%d %s", mt.K, *mt.Precision, mt.K, ndcg)
		if mt.NothingAnswers {
			text += " · nothing answers (no hit graded 2 or 3)"
		}
	}
	if st := t.Answer; st != nil && st.Faith != nil {
		text += " · " + common.FaithLine(st.Faith)
	}
	text += " · " + js.Stats.String()
	if js.Err != nil {
		kind, text = common.StatusErr, text+" · stopped: "+common.ErrorText(js.Err)
	}
	return kind, text
}
