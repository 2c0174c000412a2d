package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/ui/common"
)

// fitStatusRows lays the screen out again when the status line's height
// changed. It has its own copy of the model so that Update's copy stays on
// the stack.
func (m Model) fitStatusRows(cmd tea.Cmd) (tea.Model, tea.Cmd) {
	if h := strings.Count(m.statusView(), "\n") + 1; h != m.statusH {
		cmd = tea.Batch(cmd, m.layout())
	} else {
		m.statusAt = m.statusState()
	}
	return m, cmd
}

// statusState is what the status line's height depends on besides the
// window's size.
type statusState struct {
	text string
	kind statusKind
	busy bool
	// search: the search box stands in the status line while typed in.
	search bool
}

func (m *Model) statusState() statusState {
	return statusState{m.status, m.statusKind, m.busy(), m.search.Typing()}
}

// fitStatus wraps the plain status text s to the window's width, less
// indent cells of a prefix before it, on at most a quarter of the window's
// height (two lines at least); a status longer than that, which no
// classified message is, ends in "…".
func (m *Model) fitStatus(s string, indent int) string {
	w := max(m.width-indent, 1)
	lines := strings.Split(common.WrapText(s, w), "\n")
	if most := max(m.height/4, 2); len(lines) > most {
		lines = lines[:most]
		lines[most-1] = ansi.Truncate(lines[most-1], w-2, "") + " …"
	}
	return strings.Join(lines, "\n")
}
