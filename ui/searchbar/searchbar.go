// Package searchbar is the explorer's search bar ('/'): type to find
// text in the results (title, place, URL, chunk text) or in the detail
// pane, whichever had the keyboard. Every edit jumps to the first match
// from where the cursor is; enter keeps the search and gives the keys
// back (n/N next and previous match); esc clears it. The bar owns the
// typing and says what a key asks for; the root moves to the match.
package searchbar

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"ragscope/termsafe"
	"ragscope/ui/common"
)

// Model is the bar.
type Model struct {
	input textinput.Model
	// typing says the bar has the keyboard.
	typing bool
	// query is the search (lower case), "" when none.
	query string
	// detail says the detail pane is searched, not the results.
	detail bool
}

// New is a closed bar.
func New(st *common.Styles) *Model {
	in := st.NewInput("type to find in the results", 200)
	in.Prompt = "/"
	return &Model{input: in}
}

// SetStyles restyles the bar's input.
func (s *Model) SetStyles(st *common.Styles) { s.input.SetStyles(st.TextInput()) }

// Active reports whether a search is on (typed or kept).
func (s *Model) Active() bool { return s.typing || s.query != "" }

// Typing reports whether the bar has the keyboard.
func (s *Model) Typing() bool { return s.typing }

// Query is the search in lower case, "" when none.
func (s *Model) Query() string { return s.query }

// InDetail reports whether the detail pane is searched (else the
// results).
func (s *Model) InDetail() bool { return s.detail }

// Start clears any search and opens the bar, width cells wide, on the
// detail pane (detail) or the results.
func (s *Model) Start(detail bool, width int) tea.Cmd {
	s.Clear()
	s.detail, s.typing = detail, true
	s.input.Placeholder = "type to find in the results"
	if detail {
		s.input.Placeholder = "type to find in the detail"
	}
	s.input.SetWidth(max(width-2, 1))
	return s.input.Focus()
}

// Clear ends the search.
func (s *Model) Clear() {
	s.typing, s.query = false, ""
	s.input.Blur()
	s.input.SetValue("")
}

// Ask is what a key asks of the root.
type Ask int

// The asks.
const (
	// Pass: the key is not the bar's.
	Pass Ask = iota
	// Typed: the bar took the key; nothing to find.
	Typed
	// Cleared: the search ended (esc, or enter on an empty bar); the
	// highlights go.
	Cleared
	// Refine: the query changed; highlight it and find the first match
	// from the cursor.
	Refine
	// Keep: enter kept the search; the match typing led to stays.
	Keep
	// Next and Prev move to the next and previous match.
	Next
	Prev
)

// Update handles a key while the bar is typed in, and n, N and esc while
// a kept search is on; focused says the searched pane has the keyboard.
// esc says Cleared; enter on an empty bar too, though silently
// (quiet).
func (s *Model) Update(msg tea.KeyPressMsg, k *common.KeyMap, focused bool) (ask Ask, quiet bool, cmd tea.Cmd) {
	if s.typing {
		switch {
		case key.Matches(msg, k.Leave):
			s.Clear()
			return Cleared, false, nil
		case key.Matches(msg, k.Run):
			s.typing = false
			s.input.Blur()
			if s.query == "" {
				s.Clear()
				return Cleared, true, nil
			}
			return Keep, false, nil
		}
		ask, cmd := s.Edit(msg)
		return ask, false, cmd
	}
	if s.query == "" || !focused {
		return Pass, false, nil
	}
	switch {
	case key.Matches(msg, k.SearchNext):
		return Next, false, nil
	case key.Matches(msg, k.SearchPrev):
		return Prev, false, nil
	case key.Matches(msg, k.Leave):
		s.Clear()
		return Cleared, false, nil
	}
	return Pass, false, nil
}

// Edit gives msg (a key or a paste) to the bar: Refine when the text
// changed, else Typed.
func (s *Model) Edit(msg tea.Msg) (Ask, tea.Cmd) {
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	q := strings.ToLower(termsafe.Line(s.input.Value()))
	if q == s.query {
		return Typed, cmd
	}
	s.query = q
	return Refine, cmd
}

// Status says which match is shown: match i of n of what ("result",
// "line"); ok false when nothing matches.
func (s *Model) Status(i, n int, what string) (text string, ok bool) {
	if n == 0 {
		return "No " + what + " matches “" + s.query + "”. esc clears the search.", false
	}
	return "“" + s.query + "”: " + what + " " + strconv.Itoa(i+1) + " of " + strconv.Itoa(n) + " matching · n/N next/previous · esc clears", true
}

// ShortHelp is the help line while typing a search.
func (s *Model) ShortHelp(k *common.KeyMap) []key.Binding {
	return []key.Binding{common.RunHelp(k.Run, "enter", "keep search (n/N next/previous)"), common.RunHelp(k.Leave, "esc", "clear search"), k.Quit}
}

// View is the bar, width cells wide, in the status line's place while
// typing.
func (s *Model) View(width int) string { return common.Truncate(s.input.View(), width) }

// Tick gives the input the messages it animates by (the cursor's blink).
func (s *Model) Tick(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	return cmd
}
