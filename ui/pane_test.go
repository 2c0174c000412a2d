package ui

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ragscope/ui/common"
)

// notesPane is the smallest pane: it counts its keys and draws a line.
type notesPane struct {
	st      *common.Styles
	w, h    int
	focused bool
	keys    int
	write   key.Binding
}

func (p *notesPane) SetSize(w, h int) tea.Cmd { p.w, p.h = w, h; return nil }
func (p *notesPane) Focus() tea.Cmd           { p.focused = true; return nil }
func (p *notesPane) Blur()                    { p.focused = false }
func (p *notesPane) Update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok && key.Matches(km, p.write) {
		p.keys++
	}
	return nil
}
func (p *notesPane) View() string {
	style, _ := p.st.Frame(p.focused)
	return common.Box(style, p.w, p.h, "NOTES "+strings.Repeat("w", p.keys))
}
func (p *notesPane) ShortHelp() []key.Binding  { return []key.Binding{p.write} }
func (p *notesPane) FullHelp() [][]key.Binding { return [][]key.Binding{{p.write}} }

// A new pane needs its own code and one registration: it joins the tab
// order, its key opens it (and is text in the Ask box), it is sized, drawn
// in the side column, gets the keys while focused and gives the help.
func TestRegisterAPane(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := New(opts)
	notes := &notesPane{st: m.st, write: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "write a note"))}
	open := key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "notes"))

	m.register(slot{id: "notes", pane: func(*Model) common.Pane { return notes }, place: placeSide, rings: ringNormal, open: &open})

	m = feed(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = feed(t, m, runCmd(t, m.Init())...)
	m = feed(t, m, keyRunes("n"))
	if m.Focus() != "query" || m.query.Value() != "n" {
		t.Fatalf("n in the Ask box: focus %s, text %q", m.Focus(), m.query.Value())
	}
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("n"))
	if m.Focus() != "notes" || !notes.focused || notes.w == 0 || notes.h == 0 {
		t.Fatalf("n did not open the pane: focus %s, focused %v, size %dx%d", m.Focus(), notes.focused, notes.w, notes.h)
	}
	m = feed(t, m, keyRunes("w"), keyRunes("w"))
	if v := screen(m); notes.keys != 2 || !strings.Contains(v, "NOTES ww") || !strings.Contains(v, "w write a note") {
		t.Fatalf("keys %d; screen:\n%s", notes.keys, v)
	}
	m = feed(t, m, keyRunes("?"))
	if h := screen(m); !strings.Contains(h, "write a note") {
		t.Fatalf("full help without the pane's key:\n%s", h)
	}
	m = feed(t, m, keyType(tea.KeyEsc), keyType(tea.KeyEsc))
	if m.Focus() != "results" || notes.focused {
		t.Fatalf("esc: focus %s, notes focused %v", m.Focus(), notes.focused)
	}
	var seen []string
	for range 6 {
		m = feed(t, m, keyType(tea.KeyTab))
		seen = append(seen, m.Focus())
	}
	if got := strings.Join(seen, ","); got != "detail,context,turns,notes,query,results" {
		t.Fatalf("tab order %s", got)
	}
}
