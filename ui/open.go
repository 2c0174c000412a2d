package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
)

// Opening the backend after the first frame (Options.Open): the explorer
// draws at once with a loading line, while the backend (an index to
// decode, word vectors to map, a server to reach) opens in a command.
// A question asked meanwhile waits for it and then runs.

// openingStatus is the status line while the backend opens.
const openingStatus = "Opening the backend…"

// backendOpenedMsg carries what Options.Open returned.
type backendOpenedMsg struct {
	Opts Options
	Err  error
}

// backendOpen is the explorer's side of a deferred open.
type backendOpen struct {
	// pending is true from the start until Open has answered.
	pending bool
	// held is a retrieval asked for while the backend opened.
	held *heldQuery
	// err is Open's error; the program quits and Run returns it.
	err error
}

// heldQuery is a retrieval waiting for the backend, with the context and
// sequence number it was started with.
type heldQuery struct {
	ctx context.Context
	seq int
	q   retrieval.Query
}

// beginOpen puts the model in its opening state when Options.Open is set.
func (m *Model) beginOpen() {
	if m.opts.Open == nil {
		return
	}
	m.open.pending = true
	if m.backend == (BackendInfo{}) {
		m.backend = BackendInfo{Kind: "opening the backend…", Points: -1}
	}
	if m.opts.Note == "" {
		m.status = openingStatus
	}
}

// openOrSettleCmd opens the backend when it is still to be opened (the
// settling follows the open), else schedules Options.Settle.
func (m *Model) openOrSettleCmd() tea.Cmd {
	if !m.open.pending {
		return settleCmd(m.opts.Settle)
	}
	open, ctx := m.opts.Open, m.base
	return func() tea.Msg {
		o, err := open(ctx)
		return backendOpenedMsg{Opts: o, Err: err}
	}
}

// retrieveOrHoldCmd runs q, or keeps it for when the backend is open.
func (m *Model) retrieveOrHoldCmd(ctx context.Context, q retrieval.Query) tea.Cmd {
	if m.open.pending {
		m.open.held = &heldQuery{ctx: ctx, seq: m.seq, q: q}
		return nil
	}
	return retrieveCmd(ctx, m.retrieverFor(q), m.seq, q)
}

// updateOpened takes the opened backend's retriever, stats, links, eval
// and description, then runs a question that waited for them. A failed
// open quits: Run returns the error once the terminal is restored.
func (m Model) updateOpened(msg backendOpenedMsg) (tea.Model, tea.Cmd) {
	m.open.pending = false
	if msg.Err == nil && msg.Opts.Retriever == nil {
		msg.Err = errNoRetriever
	}
	if msg.Err != nil {
		m.open.err = msg.Err
		m.stop()
		return m, tea.Quit
	}
	o := msg.Opts
	m.opts.Retriever, m.opts.Stats, m.opts.LinkStatus = o.Retriever, o.Stats, o.LinkStatus
	m.opts.Eval, m.opts.EvalDefault = o.Eval, o.EvalDefault
	if o.Settle != nil {
		m.opts.Settle = o.Settle
	}
	m.backend = o.Backend
	m.links.Checker = o.LinkStatus
	m.evals.SetFunc(o.Eval)
	setAvailable(m.keys, o)
	m.eval.SetDefault(o.EvalDefault)
	if m.status == openingStatus {
		m.setStatus(statusInfo, readyStatus)
	}
	if o.Note != "" {
		m.setStatus(statusInfo, o.Note)
	}
	// Rerank models and the chat model come with the backend too.
	m.opts.Rerank = o.Rerank
	m.initRerank()
	m.opts.LocalSearch = o.LocalSearch
	m.initLocalSearch()
	m.opts.Generator, m.opts.ChatHint = o.Generator, o.ChatHint
	m.opts.PageChunks, m.opts.EmbedLimit = o.PageChunks, o.EmbedLimit
	m.opts.Audit = o.Audit
	m.opts.Expect = o.Expect
	m.opts.Explain = o.Explain
	m.whatif.SetSetup(o.Explain)
	m.answer.Gen, m.answer.Hint = o.Generator, o.ChatHint
	m.opts.Compare = o.Compare
	m.initSplit()
	m.opts.Judge = o.Judge
	m.initJudge()
	m.syncBindings()
	cmds := []tea.Cmd{statsCmd(m.base, m.opts.Timeout, m.opts.Stats), settleCmd(m.opts.Settle)}
	if h := m.open.held; h != nil {
		m.open.held = nil
		if h.seq == m.seq && m.running {
			cmds = append(cmds, retrieveCmd(h.ctx, m.retrieverFor(h.q), h.seq, h.q))
		}
	}
	return m, tea.Batch(cmds...)
}
