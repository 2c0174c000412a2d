package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
)

// runAndLook runs what was typed and, when the question was accepted,
// moves the keyboard to the results, so j/k and the arrows browse them
// at once; esc (or i) goes back to the Ask box to change the question.
func (m *Model) runAndLook() tea.Cmd {
	cmd := m.run()
	if !m.running || m.focus == focusResults {
		return cmd
	}
	return tea.Batch(cmd, m.setFocus(focusResults))
}

// backToAsk returns the keyboard from the results to the box the
// question was typed in when a retrieval failed, so it can be changed
// and run again with enter.
func (m *Model) backToAsk() tea.Cmd {
	if m.focus != focusResults {
		return nil
	}
	if m.mode == retrieval.ModeSelectedText {
		return m.setFocus(focusSelText)
	}
	return m.setFocus(focusQuery)
}
