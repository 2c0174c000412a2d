package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// queryPane is the question input with the question history of this and
// past sessions (up/down).
type queryPane struct {
	keys  *common.KeyMap
	input textinput.Model

	// past holds earlier questions, oldest first; pos is the recalled
	// entry (len(past) when editing a new question) and draft what was
	// typed before recalling.
	past  []string
	pos   int
	draft string
	max   int
}

func newQueryPane(keys *common.KeyMap, st *common.Styles, max int) queryPane {
	// The box holds what a question is embedded with: longer text would
	// be cut when it runs (issue 25, point 12: it said 4,000 and then
	// "cut to 1000").
	in := st.NewInput("Ask the textbook a question, e.g. How do ROS 2 nodes communicate?", retrieval.MaxQuestionLen)
	return queryPane{keys: keys, input: in, max: max}
}

// Value is the question as typed.
func (p *queryPane) Value() string { return p.input.Value() }

// SetValue replaces the question (an eval case opened as a query); the
// history position goes back to a new question.
func (p *queryPane) SetValue(q string) {
	p.input.SetValue(q)
	p.input.CursorEnd()
	p.pos, p.draft = len(p.past), ""
}

// SetWidth sets the input's width.
func (p *queryPane) SetWidth(w int) { p.input.SetWidth(max(w-1, 1)) }

// Focus gives the input the cursor.
func (p *queryPane) Focus() tea.Cmd { return p.input.Focus() }

// Blur takes the cursor away.
func (p *queryPane) Blur() { p.input.Blur() }

// AddPast puts questions of past sessions before this session's.
func (p *queryPane) AddPast(entries []string) {
	recalling := p.pos < len(p.past)
	p.past = append(append([]string(nil), entries...), p.past...)
	if len(p.past) > p.max {
		p.past = p.past[len(p.past)-p.max:]
	}
	if !recalling {
		p.pos = len(p.past)
	}
}

// Remember records an asked question; it reports whether it is new (not
// the same as the last one), so the caller stores it once.
func (p *queryPane) Remember(q string) bool {
	q = strings.TrimSpace(q)
	defer func() { p.pos, p.draft = len(p.past), "" }()
	if q == "" || (len(p.past) > 0 && p.past[len(p.past)-1] == q) {
		return false
	}
	p.past = append(p.past, q)
	if len(p.past) > p.max {
		p.past = p.past[len(p.past)-p.max:]
	}
	return true
}

// Update recalls history on up/down and edits text otherwise.
func (p *queryPane) Update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, p.keys.HistoryPrev):
			if p.pos > 0 {
				if p.pos == len(p.past) {
					p.draft = p.input.Value()
				}
				p.pos--
				p.input.SetValue(p.past[p.pos])
				p.input.CursorEnd()
			}
			return nil
		case key.Matches(km, p.keys.HistoryNext):
			if p.pos < len(p.past) {
				p.pos++
				if p.pos == len(p.past) {
					p.input.SetValue(p.draft)
				} else {
					p.input.SetValue(p.past[p.pos])
				}
				p.input.CursorEnd()
			}
			return nil
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd
}

// View draws the input line.
func (p *queryPane) View() string { return p.input.View() }

// SetSize implements pane: the box is one line, w wide.
func (p *queryPane) SetSize(w, _ int) tea.Cmd { p.SetWidth(w); return nil }

// ShortHelp implements pane.
func (p *queryPane) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Run, k.HistoryPrev, k.NextPane, common.LeaveHelp(k, "results"), k.ToggleMode, k.Quit}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *queryPane) FullHelp() [][]key.Binding { return nil }
