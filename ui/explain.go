package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/whatif"
)

// ExplainSetup offers "why this score" (key X) and the what-if editor
// (key E) on the selected row (whatif.Setup). Zero hides both.
type ExplainSetup = whatif.Setup

// selectedTarget is the selected row's chunk; without one the status
// says why.
func (m *Model) selectedTarget(what string) (whatif.Target, *common.Turn, bool) {
	t := m.turns.Current()
	it, ok := m.results.Selected()
	tg, why := whatif.Select(what, t, it, ok)
	if why != "" {
		m.setStatus(statusErr, why)
		return tg, nil, false
	}
	return tg, t, true
}

// explainSelected takes the selected row's score apart (key X).
func (m *Model) explainSelected() tea.Cmd {
	tg, t, ok := m.selectedTarget("why this score")
	if !ok {
		return nil
	}
	m.setStatus(statusInfo, "Taking the score apart…")
	return m.whatif.Explain(t, tg)
}

// updateExplained shows an explanation on its rows when its turn is on
// show.
func (m *Model) updateExplained(msg whatif.ExplainedMsg) tea.Cmd {
	t := m.turns.Current()
	if t == nil || !m.whatif.Counts(msg, t.N) {
		return nil
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "Cannot explain the score: "+common.ErrorText(msg.Err))
		return nil
	}
	m.results.SetExplained(msg.ID, msg.E)
	m.setStatus(statusOK, "Why this score: in the detail pane (E edits the chunk's text to try a fix).")
	return m.syncDetail()
}

// editSelected opens the selected row's chunk text in the editor (key E).
func (m *Model) editSelected() tea.Cmd {
	tg, t, ok := m.selectedTarget("the what-if editor")
	if !ok {
		return nil
	}
	m.setStatus(statusInfo, "Opening the chunk's text…")
	return m.whatif.Edit(t.N, tg)
}

// queryOf is the query of turn n (nil when it is gone).
func (m *Model) queryOf(n int) *retrieval.Query {
	if t := m.turns.ByN(n); t != nil {
		return &t.Query
	}
	return nil
}

// whatIfStep shows what a what-if message or key led to; failed says
// what failed, before the error.
func (m *Model) whatIfStep(step whatif.Step, cmd tea.Cmd, failed string, err error) tea.Cmd {
	switch step {
	case whatif.Failed:
		m.setStatus(statusErr, failed+common.ErrorText(err))
	case whatif.Opened:
		m.setStatus(statusInfo, "Edit the chunk's text: ctrl+s ranks your edit among the results (nothing is written) · esc leaves it.")
		return tea.Batch(cmd, m.layout())
	case whatif.Ranking:
		m.setStatus(statusInfo, "Ranking your edit (nothing is written)…")
	case whatif.Left:
		m.setStatus(statusInfo, "Edit left; nothing was ranked or written.")
	case whatif.Quit:
		m.stop()
		return tea.Quit
	}
	return cmd
}

// updateEditReady hands the text to $EDITOR (the program waits for it)
// or to the text area.
func (m *Model) updateEditReady(msg whatif.ReadyMsg) tea.Cmd {
	step, cmd, err := m.whatif.Ready(msg)
	return m.whatIfStep(step, cmd, "Cannot edit the chunk: ", err)
}

// updateEdited reads the saved text and ranks it.
func (m *Model) updateEdited(msg whatif.EditedMsg) tea.Cmd {
	step, cmd, err := m.whatif.Edited(msg, m.queryOf)
	return m.whatIfStep(step, cmd, "The editor failed: ", err)
}

// updateEditArea gives a key to the open text area.
func (m *Model) updateEditArea(msg tea.KeyPressMsg) tea.Cmd {
	step, cmd := m.whatif.Update(msg, m.queryOf)
	cmd = m.whatIfStep(step, cmd, "", nil)
	if !m.whatif.Editing() && step != whatif.Quit {
		cmd = tea.Batch(m.layout(), cmd)
	}
	return cmd
}

// updateWhatIf shows the edit's would-be row at its rank.
func (m *Model) updateWhatIf(msg whatif.RankedMsg) tea.Cmd {
	t := m.turns.Current()
	if t == nil || !m.whatif.Shows(msg, t.N) {
		return nil
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "No what-if: "+common.ErrorText(msg.Err))
		return nil
	}
	m.results.SetWhatIf(msg.W, msg.Target.Chunk)
	m.setStatus(statusOK, present.WhatIfLine(msg.W))
	return m.syncDetail()
}
