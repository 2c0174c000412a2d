package ui

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
	"ragscope/ui/settings"
)

// buildQuery captures the inputs and settings into a query.
func (m *Model) buildQuery() retrieval.Query {
	q := m.withParams(retrieval.Query{Question: m.query.Value(), Mode: m.mode})
	if m.mode == retrieval.ModeSelectedText {
		q.SelectedText, q.SourceDocPath, q.SourceSection = m.sel.Values()
	}
	return q
}

// withParams applies the current settings to q.
func (m *Model) withParams(q retrieval.Query) retrieval.Query {
	q.TopK, q.Threshold, q.NoDedup = m.params.TopK, m.params.Threshold, m.params.NoDedup
	q.Filters = common.CloneFilters(m.params.Filters)
	q.Rerank = m.rerankFor(q.Mode)
	q.SearchMode = m.searchModeFor(q.Mode)
	q.Exact = m.params.Exact && q.Mode != retrieval.ModeSelectedText
	return q
}

// run starts a retrieval for what the user typed.
func (m *Model) run() tea.Cmd {
	q := m.buildQuery()
	if _, _, _, err := retrieval.Normalize(q); err != nil {
		m.setStatus(statusErr, common.ErrorText(err))
		return nil
	}
	var save tea.Cmd
	if m.query.Remember(q.Question) {
		save = appendHistoryCmd(m.opts.HistoryFile, strings.TrimSpace(q.Question))
	}
	return tea.Batch(save, m.runQuery(q))
}

// runQuery cancels the retrieval in flight and starts q with the next
// sequence number under its own context.
func (m *Model) runQuery(q retrieval.Query) tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	m.answer.Cancel()
	m.seq++
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	m.cancel = cancel
	m.running = true
	last := q
	m.last = &last
	m.setStatus(statusInfo, "Searching…")
	if q.Mode == retrieval.ModeSelectedText {
		m.setStatus(statusInfo, "Grounding on the selection…")
	}
	return tea.Batch(m.retrieveOrHoldCmd(ctx, q), m.spinner.Tick)
}

// updateResult shows a retrieval's reply, dropping stale ones.
func (m Model) updateResult(msg resultMsg) (tea.Model, tea.Cmd) {
	if msg.Seq != m.seq {
		return m, nil
	}
	m.running = false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	if msg.Err != nil {
		if errors.Is(msg.Err, context.Canceled) {
			m.setStatus(statusInfo, "Cancelled.")
			return m, nil
		}
		m.setStatus(statusErr, common.ErrorText(msg.Err))
		return m, m.backToAsk()
	}
	n := len(m.turns.Turns)
	if n > 0 {
		n = m.turns.Turns[n-1].N
	}
	m.turns.Remember(m.results.SelectedKey())
	nt := common.Turn{N: n + 1, Query: msg.Query, Result: msg.Result}
	// The expected sources stay with their question: its re-runs (other
	// settings, rerank) say again where they went.
	var diag tea.Cmd
	if len(m.expect) > 0 && msg.Query.Question == m.expectQuestion && msg.Query.Mode != retrieval.ModeSelectedText && m.opts.Expect.Diagnose != nil {
		nt.Expect = slices.Clone(m.expect)
	} else {
		m.expect, m.expectQuestion = nil, ""
	}
	nt.Marks, nt.CaseFile = m.opened.Carried(msg.Seq, m.turns.Current(), msg.Query, &msg.Result)
	i := m.turns.Add(nt)
	if len(nt.Expect) > 0 {
		diag = m.diagnose(&m.turns.Turns[i], false)
	}
	cmd := tea.Batch(m.showTurn(i), diag)
	res := msg.Result
	text := strconv.Itoa(len(res.Hits)) + " " + present.Plural(len(res.Hits), "result", "results")
	if d := len(res.Dropped); d > 0 {
		text += " · " + strconv.Itoa(d) + " left out"
	}
	if res.Truncated {
		text += " · question cut to " + present.Int(retrieval.MaxQuestionLen) + " of " + present.Int(res.OriginalLength) + " chars"
	}
	text += " · " + present.Timings(res.Timings, res.Mode)
	if msg.Seq == m.opened.Seq && m.opened.Label != "" {
		text = m.opened.Label + " · " + text
	}
	kind := statusOK
	if e := rerankFailure(res); e != "" {
		kind, text = statusErr, e+" · "+text
	}
	m.setStatus(kind, text)
	return m, tea.Batch(cmd, m.links.Check(res), m.autoAnswer(), m.carryJudge(&m.turns.Turns[i]))
}

// showTurn puts turn i in the result, detail and context panes.
func (m *Model) showTurn(i int) tea.Cmd {
	if i < 0 || i >= len(m.turns.Turns) {
		return nil
	}
	m.turns.SetCurrent(i)
	t := &m.turns.Turns[i]
	m.ctxPane.SetResult(t.Result)
	if i != len(m.turns.Turns)-1 {
		m.setStatus(statusInfo, "Showing turn #"+strconv.Itoa(t.N)+": "+termsafe.Line(t.Query.Question))
	}
	var expected []retrieval.Expected
	if t.Diag != nil {
		expected = t.Diag.Expected
	}
	m.results.Marks = t.Marks
	m.results.Judge = t.Judge
	m.results.SetResult(t.Result, expected)
	m.results.SelectKey(t.Selected)
	m.answer.Show(t)
	return tea.Batch(m.syncDetail(), m.splitFollow())
}

// followCursor shows the result under the cursor in the detail pane when
// a key moved it.
func (m *Model) followCursor() tea.Cmd {
	if !m.results.Moved {
		return nil
	}
	m.results.Moved = false
	return m.syncDetail()
}

// syncDetail shows the selected result in the detail pane. It runs in the
// Update that moved the selection: a command would let replies of keys
// pressed together land out of order and leave the detail behind.
func (m *Model) syncDetail() tea.Cmd {
	it, _ := m.results.Selected()
	return m.detail.SetItem(it)
}

// updateStats records the collection's stats.
func (m Model) updateStats(msg statsMsg) Model {
	if msg.Err != nil {
		m.setStatus(statusErr, common.ErrorText(msg.Err))
		return m
	}
	st := msg.Stats
	m.stats = &st
	if st.Points > 0 || m.backend.Points < 0 {
		m.backend.Points = st.Points
	}
	if st.Search != "" {
		m.backend.Search = st.Search
	}
	m.settings.SetFacets(st.Facets)
	if st.Status == retrieval.StatusNotFound {
		m.setStatus(statusErr, "Collection "+termsafe.Line(st.Collection)+" not found. Set QDRANT_COLLECTION to an existing collection.")
	}
	return m
}

// updateSettings applies new settings and schedules a re-run.
func (m Model) updateSettings(msg settings.ChangedMsg) (tea.Model, tea.Cmd) {
	changed := m.params.TopK != msg.Params.TopK || m.params.Threshold != msg.Params.Threshold ||
		m.params.NoDedup != msg.Params.NoDedup || present.Filters(m.params.Filters) != present.Filters(msg.Params.Filters) ||
		rerankChanged(m.params.Rerank, msg.Params.Rerank, m.rerankModel, cmp.Or(msg.RerankModel, m.rerankModel)) ||
		m.keepSearchMode(msg.Params.SearchMode) != m.params.SearchMode || m.params.Exact != msg.Params.Exact
	m.params = m.withParamsFrom(msg.Params)
	m.applyRerankModel(msg.RerankModel)
	m.settings.Params = m.params
	m.settings.Params.Filters = common.CloneFilters(m.params.Filters)
	var cmds []tea.Cmd
	if msg.ToggleDropped {
		m.showDropped = !m.showDropped
		m.results.SetShowDropped(m.showDropped)
		cmds = append(cmds, m.syncDetail())
		m.noteNothingLeftOut()
	}
	m.settings.ShowDropped = m.showDropped
	if changed && m.last != nil {
		m.rerunSeq++
		cmds = append(cmds, rerunCmd(rerunDelay, m.rerunSeq))
	}
	return m, tea.Batch(cmds...)
}

// noteNothingLeftOut says in the status line that the left-out toggle
// has nothing to show in the result on show (else x would give no
// feedback).
func (m *Model) noteNothingLeftOut() {
	state := "hidden"
	if m.showDropped {
		state = "shown"
	}
	switch {
	case !m.results.Has:
		m.setStatus(statusInfo, "Hits left out will be "+state+": no result yet.")
	case len(m.results.Res.Dropped) == 0:
		m.setStatus(statusInfo, "Nothing was left out of this result (no hit below the threshold or duplicate); hits left out will be "+state+".")
	}
}

func (m *Model) withParamsFrom(p retrieval.Query) retrieval.Query {
	return retrieval.Query{TopK: p.TopK, Threshold: p.Threshold, NoDedup: p.NoDedup, Filters: common.CloneFilters(p.Filters), Rerank: m.keepRerank(p),
		SearchMode: m.keepSearchMode(p.SearchMode), Exact: p.Exact}
}

// keepRerank is the rerank settings p leaves: a selected-text query
// reranks nothing and names none, so the ones set now stay; a query that
// leaves the candidates open gets the default's number.
func (m *Model) keepRerank(p retrieval.Query) retrieval.RerankOptions {
	r := p.Rerank
	if p.Mode == retrieval.ModeSelectedText {
		r = m.params.Rerank
	}
	if r.Candidates == 0 {
		r.Candidates = retrieval.DefaultRerankCandidates
	}
	return r
}
