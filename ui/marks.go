package ui

import (
	"cmp"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
	"ragscope/ui/goldencase"
)

// markSelected marks the hit under the cursor with k (markNone clears it).
func (m *Model) markSelected(k common.Mark) tea.Cmd {
	t := m.turns.Current()
	it, ok := m.results.Selected()
	switch {
	case t == nil || !ok:
		m.setStatus(statusErr, "Ask a question first, then mark its hits: m relevant, M not relevant, u clears.")
		return nil
	case it.Pseudo:
		m.setStatus(statusErr, "This row is an expected source the results do not hold: mark a hit of the results.")
		return nil
	case t.Query.Mode == retrieval.ModeSelectedText:
		m.setStatus(statusErr, "Selected text retrieves nothing to mark: S saves the turn as a selected-text case.")
		return nil
	}
	marks := goldencase.Marks(t)
	id := it.Hit.Chunk.ID
	if k == common.MarkNone {
		delete(marks, id)
		m.setStatus(statusInfo, "Mark cleared. S saves the turn to "+termsafe.Line(m.goldenPath)+".")
	} else {
		marks[id] = k
		m.setStatus(statusOK, "Marked "+k.String()+": "+termsafe.Line(goldencase.Ref(it.Hit))+". S saves the turn to "+termsafe.Line(m.goldenPath)+".")
	}
	m.results.SetMarks(marks)
	return m.syncDetail()
}

// saveCase saves the turn on show as a case of the golden file (S). When
// the file already asks the question, the first S asks and a second S on
// the same turn replaces it.
func (m *Model) saveCase() tea.Cmd {
	t := m.turns.Current()
	if t == nil {
		m.setStatus(statusErr, "Ask a question first: S saves the turn on show to "+termsafe.Line(m.goldenPath)+".")
		return nil
	}
	replace := m.confirmSave == t.N
	m.confirmSave = 0
	c, note := goldencase.FromTurn(t)
	// A case opened from the eval view saves back into its own file, so
	// marking an unlabelled case's hits labels that case.
	path := cmp.Or(t.CaseFile, m.goldenPath)
	m.setStatus(statusInfo, "Saving to "+termsafe.Line(path)+"…")
	return goldencase.SaveCmd(path, t.N, c, replace, note)
}

// updateSaved reports a save in the status line. A case with the same
// question waits for a second S; a saved file is the eval view's path
// when it has none.
func (m *Model) updateSaved(msg goldencase.SavedMsg) {
	kind, text, confirm := msg.Status()
	m.setStatus(kind, text)
	switch {
	case confirm:
		m.confirmSave = msg.N
	case msg.Err == nil && m.eval.Path() == "" && !m.eval.Running:
		m.eval.Input.SetValue(msg.Path)
	}
}
