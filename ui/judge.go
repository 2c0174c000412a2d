package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/ui/common"
	"ragscope/ui/judgerun"
)

// JudgeSetup offers the judge in the explorer (judgerun.Setup).
type JudgeSetup = judgerun.Setup

// initJudge sets the judge key's help: what it does, or that it cannot.
func (m *Model) initJudge() {
	m.keys.JudgeOff = m.opts.Judge.Relevance == nil
	if m.keys.JudgeOff {
		m.keys.Judge.SetHelp("J", "judge: no chat model")
		return
	}
	m.keys.Judge.SetHelp("J", "judge hits (and answer)")
}

// startJudge judges the turn on show (key J): its hits, and its finished
// answer when it has one. Cached verdicts cost no call.
func (m *Model) startJudge() tea.Cmd {
	t := m.turns.Current()
	switch {
	case m.opts.Judge.Relevance == nil:
		m.setStatus(statusErr, judgerun.Hint(m.opts.ChatHint))
		return nil
	case t == nil:
		m.setStatus(statusErr, "Ask a question first, then "+m.keys.Judge.Help().Key+" has the judge grade its hits.")
		return nil
	case len(t.Result.Hits) == 0:
		m.setStatus(statusErr, "Nothing to judge: this turn kept no hit.")
		return nil
	}
	m.judging.Judged(t)
	return m.judge(t, false)
}

// judge starts a judge run of t, cancelling the one in flight; carry
// says it judges a re-run (the status line keeps the result's summary).
func (m *Model) judge(t *common.Turn, carry bool) tea.Cmd {
	m.cancelJudge(false)
	run, what := m.judging.Start(m.base, m.opts.Judge, t, m.keys.Judge.Help().Key)
	if carry {
		m.setStatus(m.statusKind, m.status+" · judging the hits again (cached verdicts cost no call)…")
	} else {
		m.setStatus(statusInfo, what)
	}
	return tea.Batch(run, m.spinner.Tick, m.showJudge(t))
}

// cancelJudge stops the judge run in flight; with say, the status line
// says so.
func (m *Model) cancelJudge(say bool) {
	n, ok := m.judging.Cancel()
	if !ok {
		return
	}
	if t := m.turns.ByN(n); t != nil && judgerun.Abandon(t) && m.turns.Current() == t {
		m.showJudge(t)
	}
	if say {
		m.setStatus(statusInfo, "Judge cancelled: "+m.keys.Judge.Help().Key+" judges again (verdicts already made are cached).")
	}
}

// updateJudged records a judge run's verdicts on its turn and shows them
// when the turn is on show.
func (m *Model) updateJudged(msg judgerun.Msg) tea.Cmd {
	if !m.judging.End(msg) {
		return nil
	}
	t := m.turns.ByN(msg.N)
	if t == nil || t.Judge == nil {
		return nil
	}
	m.setStatus(judgerun.Record(t, msg, m.opts.Judge.Model))
	return m.showJudge(t)
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
	if !m.judging.Carries(t) || m.opts.Judge.Relevance == nil {
		return nil
	}
	return m.judge(t, true)
}

// Judging reports whether a judge run is in flight (for tests).
func (m Model) Judging() bool { return m.judging.Busy() }
