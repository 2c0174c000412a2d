package query

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// Model is the question input with the question history of this and
// past sessions (up/down).
type Model struct {
	keys  *common.KeyMap
	Input textinput.Model

	// past holds earlier questions, oldest first; pos is the recalled
	// entry (len(past) when editing a new question) and draft what was
	// typed before recalling.
	past  []string
	pos   int
	draft string
	Max   int
}

// New is the question box keeping at most max past questions.
func New(keys *common.KeyMap, st *common.Styles, max int) Model {
	// The box holds what a question is embedded with: longer text would
	// be cut when it runs.
	in := st.NewInput("Ask the textbook a question, e.g. How do ROS 2 nodes communicate?", retrieval.MaxQuestionLen)
	return Model{keys: keys, Input: in, Max: max}
}

// Value is the question as typed.
func (p *Model) Value() string { return p.Input.Value() }

// SetValue replaces the question (an eval case opened as a query); the
// history position goes back to a new question.
func (p *Model) SetValue(q string) {
	p.Input.SetValue(q)
	p.Input.CursorEnd()
	p.pos, p.draft = len(p.past), ""
}

// SetWidth sets the input's width.
func (p *Model) SetWidth(w int) { p.Input.SetWidth(max(w-1, 1)) }

// Focus gives the input the cursor.
func (p *Model) Focus() tea.Cmd { return p.Input.Focus() }

// Blur takes the cursor away.
func (p *Model) Blur() { p.Input.Blur() }

// AddPast puts questions of past sessions before this session's.
func (p *Model) AddPast(entries []string) {
	recalling := p.pos < len(p.past)
	p.past = append(append([]string(nil), entries...), p.past...)
	if len(p.past) > p.Max {
		p.past = p.past[len(p.past)-p.Max:]
	}
	if !recalling {
		p.pos = len(p.past)
	}
}

// Remember records an asked question; it reports whether it is new (not
// the same as the last one), so the caller stores it once.
func (p *Model) Remember(q string) bool {
	q = strings.TrimSpace(q)
	defer func() { p.pos, p.draft = len(p.past), "" }()
	if q == "" || (len(p.past) > 0 && p.past[len(p.past)-1] == q) {
		return false
	}
	p.past = append(p.past, q)
	if len(p.past) > p.Max {
		p.past = p.past[len(p.past)-p.Max:]
	}
	return true
}

// Update recalls history on up/down and edits text otherwise.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, p.keys.HistoryPrev):
			if p.pos > 0 {
				if p.pos == len(p.past) {
					p.draft = p.Input.Value()
				}
				p.pos--
				p.Input.SetValue(p.past[p.pos])
				p.Input.CursorEnd()
			}
			return nil
		case key.Matches(km, p.keys.HistoryNext):
			if p.pos < len(p.past) {
				p.pos++
				if p.pos == len(p.past) {
					p.Input.SetValue(p.draft)
				} else {
					p.Input.SetValue(p.past[p.pos])
				}
				p.Input.CursorEnd()
			}
			return nil
		}
	}
	var cmd tea.Cmd
	p.Input, cmd = p.Input.Update(msg)
	return cmd
}

// View draws the input line.
func (p *Model) View() string { return p.Input.View() }

// SetSize implements pane: the box is one line, w wide.
func (p *Model) SetSize(w, _ int) tea.Cmd { p.SetWidth(w); return nil }

// ShortHelp implements pane.
func (p *Model) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Run, k.HistoryPrev, k.NextPane, common.LeaveHelp(k, "results"), k.ToggleMode, k.Quit}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *Model) FullHelp() [][]key.Binding { return nil }
