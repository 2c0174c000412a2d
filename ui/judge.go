package ui

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

// JudgeSetup offers the judge in the explorer (key J): the chat model
// grades the hits of the turn on show 0-3 with a reason, and checks its
// finished answer's claims against their sources. It is the judge of
// `query --judge` and `ask --judge`, with the same cache. Zero leaves the
// key saying why it cannot judge (Options.ChatHint).
type JudgeSetup struct {
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

// judgeRun is the judge run in flight: its sequence number, its turn and
// how to cancel it.
type judgeRun struct {
	seq    int
	n      int
	cancel context.CancelFunc
	// question is the question judged last: its re-runs with other
	// settings are judged too (the cache answers the hits already graded).
	question string
}

// judgedMsg is the end of judge run Seq on turn N.
type judgedMsg struct {
	N, Seq int
	Grades []judge.Judgement
	Stats  judge.Stats
	Err    error
	// answer is the answer checked (nil: none); Faith its check.
	answer   *common.AnswerState
	Faith    *judge.Faithfulness
	FaithErr error
}

// judgeCmd grades hits and, when ans is set, checks the answer. The
// closure captures only its arguments.
func judgeCmd(ctx context.Context, cancel context.CancelFunc, js JudgeSetup, n, seq int, res retrieval.Result, st *common.AnswerState, ans retrieval.Answer) tea.Cmd {
	return func() tea.Msg {
		defer cancel()
		msg := judgedMsg{N: n, Seq: seq, answer: st}
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

// judgeHint is the status line when there is no judge: what enables one.
func (m *Model) judgeHint() string {
	hint := strings.TrimSpace(m.opts.ChatHint)
	if hint == "" {
		hint = "Configure a chat model as for ragscope ask."
	}
	return "The judge needs a chat model. " + hint
}

// initJudge sets the judge key's help: what it does, or that it cannot.
func (m *Model) initJudge() {
	m.keys.JudgeOff = m.opts.Judge.Relevance == nil
	if m.keys.JudgeOff {
		m.keys.Judge.SetHelp("J", "judge: no chat model")
		return
	}
	m.keys.Judge.SetHelp("J", "judge hits (and answer)")
}

// judgeBusy reports whether a judge run is in flight.
func (m *Model) judgeBusy() bool { return m.judging.cancel != nil }

// startJudge judges the turn on show (key J): its hits, and its finished
// answer when it has one. Cached verdicts cost no call.
func (m *Model) startJudge() tea.Cmd {
	t := m.turns.Current()
	js := m.opts.Judge
	switch {
	case js.Relevance == nil:
		m.setStatus(statusErr, m.judgeHint())
		return nil
	case t == nil:
		m.setStatus(statusErr, "Ask a question first, then "+m.keys.Judge.Help().Key+" has the judge grade its hits.")
		return nil
	case len(t.Result.Hits) == 0:
		m.setStatus(statusErr, "Nothing to judge: this turn kept no hit.")
		return nil
	}
	m.judging.question = t.Query.Question
	return m.judge(t, false)
}

// judge starts a judge run of t, cancelling the one in flight; carry
// says it judges a re-run (the status line keeps the result's summary).
func (m *Model) judge(t *common.Turn, carry bool) tea.Cmd {
	m.cancelJudge(false)
	js := m.opts.Judge
	ctx, cancel := context.WithCancel(m.base)
	m.judging.seq++
	m.judging.n, m.judging.cancel = t.N, cancel
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
		what += " The answer is still streaming: " + m.keys.Judge.Help().Key + " again checks it once done."
	}
	if carry {
		m.setStatus(m.statusKind, m.status+" · judging the hits again (cached verdicts cost no call)…")
	} else {
		m.setStatus(statusInfo, what)
	}
	return tea.Batch(judgeCmd(ctx, cancel, js, t.N, m.judging.seq, t.Result, st, ans), m.spinner.Tick, m.showJudge(t))
}

// checkable is st when it is a finished answer the judge can check.
func checkable(st *common.AnswerState) *common.AnswerState {
	if st == nil || st.Phase != common.AnswerDone || st.Final.Refused || strings.TrimSpace(st.Final.Text) == "" {
		return nil
	}
	return st
}

// cancelJudge stops the judge run in flight; with say, the status line
// says so.
func (m *Model) cancelJudge(say bool) {
	if m.judging.cancel == nil {
		return
	}
	m.judging.cancel()
	m.judging.cancel = nil
	m.judging.seq++
	if t := m.turns.ByN(m.judging.n); t != nil && t.Judge != nil {
		t.Judge.Running = false
		if t.Judge.Grades == nil {
			t.Judge = nil
		}
		if st := t.Answer; st != nil && st.Faith != nil && st.Faith.Running {
			st.Faith = nil
		}
		if m.turns.Current() == t {
			m.showJudge(t)
		}
	}
	if say {
		m.setStatus(statusInfo, "Judge cancelled: "+m.keys.Judge.Help().Key+" judges again (verdicts already made are cached).")
	}
}

// updateJudged records a judge run's verdicts on its turn and shows them
// when the turn is on show.
func (m *Model) updateJudged(msg judgedMsg) tea.Cmd {
	if msg.Seq != m.judging.seq {
		return nil
	}
	m.judging.cancel = nil
	t := m.turns.ByN(msg.N)
	if t == nil {
		return nil
	}
	js := t.Judge
	if js == nil {
		return nil
	}
	js.Running = false
	if st := msg.answer; st != nil && st.Faith != nil {
		st.Faith = &common.FaithState{Verdict: msg.Faith, Err: msg.FaithErr}
	}
	if msg.Err != nil && (errors.Is(msg.Err, context.Canceled) || len(msg.Grades) != len(t.Result.Hits)) {
		js.Err = msg.Err
		if js.Grades == nil {
			t.Judge = nil
		}
		m.setStatus(statusErr, "The judge stopped: "+common.ErrorText(msg.Err))
		return m.showJudge(t)
	}
	js.Grades, js.Stats, js.Err = msg.Grades, msg.Stats, msg.Err
	js.ByID = make(map[string]*judge.Judgement, len(msg.Grades))
	for i := range js.Grades {
		js.ByID[t.Result.Hits[i].Chunk.ID] = &js.Grades[i]
	}
	kind, text := judgeSummary(t, m.opts.Judge.Model)
	m.setStatus(kind, text)
	return m.showJudge(t)
}

// judgeSummary is the status line after a judge run of t.
func judgeSummary(t *common.Turn, model string) (statusKind, string) {
	js := t.Judge
	mt := judge.Case(js.Grades, 0)
	text := "Judged " + present.Count(len(js.Grades), "hit", "hits") + " with " + termsafe.Line(model) + ": "
	kind := statusOK
	switch {
	case mt.Precision == nil:
		kind, text = statusErr, text+"none could be graded"
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
		kind, text = statusErr, text+" · stopped: "+common.ErrorText(js.Err)
	}
	return kind, text
}

// showJudge hands t's verdicts to the panes when t is on show.
func (m *Model) showJudge(t *common.Turn) tea.Cmd {
	if m.turns.Current() != t {
		return nil
	}
	m.results.SetJudge(t.Judge)
	m.answer.Refresh()
	return m.syncDetail()
}

// carryJudge judges a re-run of the question judged last (other
// settings): only the hits the cache does not know cost a call.
func (m *Model) carryJudge(t *common.Turn) tea.Cmd {
	if m.opts.Judge.Relevance == nil || m.judging.question == "" || t.Query.Question != m.judging.question || len(t.Result.Hits) == 0 {
		if t.Query.Question != m.judging.question {
			m.judging.question = ""
		}
		return nil
	}
	return m.judge(t, true)
}

// Judging reports whether a judge run is in flight (for tests).
func (m Model) Judging() bool { return m.judgeBusy() }
