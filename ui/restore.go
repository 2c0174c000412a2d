package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
)

// restoreInputs puts q back in the inputs: the question in the Ask box,
// the mode, the selection fields and the settings, so the next run (a
// settings change, enter, ctrl+r) asks q again. It is shared by bringing
// back a turn and opening an eval case as a query.
func (m *Model) restoreInputs(q retrieval.Query) {
	q.TopK = retrieval.TopKOrDefault(q.TopK)
	m.params = m.withParamsFrom(q)
	m.settings.Params = m.withParamsFrom(q)
	m.query.SetValue(q.Question)
	if q.Mode == retrieval.ModeSelectedText {
		m.mode = retrieval.ModeSelectedText
		m.sel.SetValues(q.SelectedText, q.SourceDocPath, q.SourceSection)
	} else {
		m.mode = retrieval.ModeNormal
	}
}

// bringBack shows turn i again with everything it was asked with: the
// question, mode, selection, settings and the result that was selected.
// The turn's query becomes the one a settings change re-runs, and a
// re-run scheduled for the turn left behind is dropped.
func (m *Model) bringBack(i int) tea.Cmd {
	if i < 0 || i >= len(m.turns.Turns) {
		return nil
	}
	m.turns.Remember(m.results.SelectedKey())
	q := m.turns.Turns[i].Query
	m.restoreInputs(q)
	last := m.withParams(q)
	last.Mode = m.mode
	m.last = &last
	m.rerunSeq++
	return tea.Batch(m.showTurn(i), m.layout())
}
