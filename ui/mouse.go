package ui

import (
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// wheelLines is how far one wheel notch scrolls a text pane.
const wheelLines = 3

// paneAt returns the registered pane drawn at cell (x, y) of the body, or
// nil; top is the body's first row.
func (m *Model) paneAt(x, y int) *slot {
	top := lipgloss.Height(m.headerView()) + lipgloss.Height(m.inputView())
	if m.fullHelp || y < top || y >= top+m.results.Height {
		return nil
	}
	f := m.slot(m.focus)
	switch {
	case f.place == placeWhole:
		return f
	case m.width >= wideWidth && x >= m.results.Width:
		return m.slot(m.right)
	case m.width >= wideWidth, f.place != placeSide:
		return m.slot(focusResults)
	}
	return f
}

// updateWheel scrolls what is under the pointer, whatever has the
// keyboard: a list moves its cursor a row, a text pane scrolls a few
// lines; the full help scrolls when open.
func (m *Model) updateWheel(msg tea.MouseWheelMsg) tea.Cmd {
	if m.tooSmall() {
		return nil
	}
	var step tea.KeyPressMsg
	switch msg.Button {
	case tea.MouseWheelDown:
		step = tea.KeyPressMsg{Code: tea.KeyDown}
	case tea.MouseWheelUp:
		step = tea.KeyPressMsg{Code: tea.KeyUp}
	default:
		return nil
	}
	if m.fullHelp {
		for range wheelLines {
			m.keyHelp.Scroll(m.keys, step)
		}
		return nil
	}
	s := m.paneAt(msg.X, msg.Y)
	if s == nil || s.text || common.IsModal(s.pane(m)) {
		return nil
	}
	n := wheelLines
	if s.id == focusResults {
		n = 1
	}
	var cmds []tea.Cmd
	for range n {
		cmds = append(cmds, s.pane(m).Update(step))
	}
	if s.after != nil {
		cmds = append(cmds, s.after(m))
	}
	return tea.Batch(cmds...)
}

// updateClick focuses the pane clicked; a click on a result selects it
// (and shows it in the detail), a click on the Ask box focuses it.
func (m *Model) updateClick(msg tea.MouseClickMsg) tea.Cmd {
	if m.tooSmall() || msg.Button != tea.MouseLeft || m.search.Typing() || common.IsModal(m.slot(m.focus).pane(m)) {
		return nil
	}
	header := lipgloss.Height(m.headerView())
	if msg.Y >= header && msg.Y < header+lipgloss.Height(m.inputView()) {
		if m.mode == retrieval.ModeSelectedText || m.focus == focusQuery {
			return nil
		}
		return m.setFocus(focusQuery)
	}
	s := m.paneAt(msg.X, msg.Y)
	if s == nil {
		return nil
	}
	if m.split.Open {
		return m.splitClick(msg.X, msg.Y-header-lipgloss.Height(m.inputView()))
	}
	var cmd tea.Cmd
	if m.focus != s.id {
		cmd = m.setFocus(s.id)
	}
	if s.id == focusResults {
		top := header + lipgloss.Height(m.inputView())
		// The border and the title line come before the rows.
		if row := m.results.RowAt(msg.Y - top - 2); row >= 0 {
			m.results.Cursor = row
			m.results.ScrollToCursor()
			cmd = tea.Batch(cmd, m.syncDetail())
		}
	}
	return cmd
}
