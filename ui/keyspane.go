package ui

import (
	tea "charm.land/bubbletea/v2"
)

// toggleKeys toggles the full help and lays it out.
func (m *Model) toggleKeys() tea.Cmd {
	m.fullHelp = !m.fullHelp
	return m.layout()
}

// sizeKeys sizes the full help to the body and fills it with the keys
// live for the focused pane (run by layout).
func (m *Model) sizeKeys(w, h int) {
	if !m.fullHelp {
		return
	}
	m.keyHelp.SetSize(w, h)
	f := m.slot(m.focus).pane(m)
	m.keyHelp.SetKeys(helpKeys{k: m.keys, short: f.ShortHelp(), own: f.FullHelp()}.FullHelp())
}
