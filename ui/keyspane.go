package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/ui/keyhelp"
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
	m.keyHelp.SetKeys(keyhelp.Keys{KeyMap: m.keys, Short: f.ShortHelp(), Own: f.FullHelp()}.FullHelp())
}
