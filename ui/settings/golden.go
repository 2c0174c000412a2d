package settings

import (
	"cmp"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ragscope/termsafe"
)

// DefaultGoldenFile is the golden file S saves to when Options.GoldenFile
// is empty: golden.yaml in the working folder.
const DefaultGoldenFile = "golden.yaml"

// GoldenMsg sets the golden file S saves to.
type GoldenMsg struct{ Path string }

// openGolden opens the golden file row's path editor.
func (p *Model) openGolden() tea.Cmd {
	in := p.Styles.NewInput(DefaultGoldenFile, 4096)
	in.SetValue(p.Golden)
	in.CursorEnd()
	p.GoldenEdit = &in
	return in.Focus()
}

// updateGolden edits the path: enter keeps it (empty: the default), esc
// drops the edit.
func (p *Model) updateGolden(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, p.Keys.Run):
			path := cmp.Or(strings.TrimSpace(p.GoldenEdit.Value()), DefaultGoldenFile)
			p.Golden, p.GoldenEdit = path, nil
			return func() tea.Msg { return GoldenMsg{Path: path} }
		case key.Matches(km, p.Keys.Leave):
			p.GoldenEdit = nil
			return nil
		}
	}
	var cmd tea.Cmd
	*p.GoldenEdit, cmd = p.GoldenEdit.Update(msg)
	return cmd
}

// goldenValue is the golden file row: the path, or its editor.
func (p *Model) goldenValue() string {
	if p.GoldenEdit != nil {
		return p.GoldenEdit.View()
	}
	return termsafe.Line(p.Golden) + p.Styles.Meta.Render(" (S saves here; enter edits)")
}
