package whatif

import (
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/ui/common"
)

// Area is the what-if text area (no $EDITOR): the chunk's text to edit;
// ctrl+s ranks the edit, esc leaves it.
type Area struct {
	ta     textarea.Model
	n, seq int
	target Target
	w, h   int
}

// newArea is the area on the chunk msg carries.
func newArea(msg ReadyMsg) *Area {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.SetValue(msg.Target.Chunk.Text)
	return &Area{ta: ta, n: msg.N, seq: msg.Seq, target: msg.Target}
}

// Editing reports whether the text area is open.
func (m *Model) Editing() bool { return m.area != nil }

// SetSize fits the open area in the body.
func (m *Model) SetSize(w, h int) {
	if a := m.area; a != nil {
		a.w, a.h = w, h
		a.ta.SetWidth(max(w-2, 10))
		a.ta.SetHeight(max(h-3, 3))
	}
}

// View is the open area with its title.
func (m *Model) View(st *common.Styles) string {
	a := m.area
	if a == nil {
		return ""
	}
	title := st.FocusedTitle.Render(common.Truncate("✎ what if "+present.Title(&a.target.Chunk)+" said…", a.w))
	hint := st.Meta.Render(common.Truncate("ctrl+s ranks the edit · esc leaves it · nothing is written", a.w))
	return title + "\n" + hint + "\n" + a.ta.View()
}

// Update gives a key to the open area: ctrl+s closes it and ranks the
// edit against the query of its turn, esc closes it, ctrl+c quits, any
// other key edits.
func (m *Model) Update(msg tea.KeyPressMsg, queryOf QueryOf) (Step, tea.Cmd) {
	a := m.area
	switch msg.String() {
	case "ctrl+c":
		return Quit, nil
	case "esc":
		m.area = nil
		return Left, nil
	case "ctrl+s":
		text := a.ta.Value()
		m.area = nil
		step, cmd, _ := m.rank(queryOf, a.n, a.seq, a.target, func() (string, error) { return text, nil }, "")
		return step, cmd
	}
	var cmd tea.Cmd
	a.ta, cmd = a.ta.Update(msg)
	return None, cmd
}
