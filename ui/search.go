package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"ragscope/termsafe"
	"ragscope/ui/common"
)

// searchBar is '/': type to find text in the results (title, place, URL,
// chunk text) or in the detail pane, whichever had the keyboard. Every
// edit jumps to the first match from where the cursor is; enter keeps the
// search and gives the keys back (n/N next and previous match); esc
// clears it.
type searchBar struct {
	input textinput.Model
	// typing says the bar has the keyboard.
	typing bool
	// query is the search (lower case), "" when none.
	query string
	// target is the pane searched: focusResults or focusDetail.
	target focusID
}

func newSearchBar(st *common.Styles) searchBar {
	in := st.NewInput("type to find in the results", 200)
	in.Prompt = "/"
	return searchBar{input: in}
}

// active reports whether a search is on (typed or kept).
func (s *searchBar) active() bool { return s.typing || s.query != "" }

// startSearch opens the bar on the detail pane when it has the keyboard,
// on the results otherwise.
func (m *Model) startSearch() tea.Cmd {
	m.clearSearch()
	m.fullHelp = false
	target := focusResults
	if m.focus == focusDetail {
		target = focusDetail
	}
	var cmd tea.Cmd
	if m.focus != target {
		cmd = m.setFocus(target)
	}
	s := m.search
	s.target, s.typing = target, true
	s.input.Placeholder = "type to find in the results"
	if target == focusDetail {
		s.input.Placeholder = "type to find in the detail"
	}
	s.input.SetValue("")
	s.input.SetWidth(max(m.width-2, 1))
	m.syncBindings()
	return tea.Batch(cmd, s.input.Focus(), m.layout())
}

// clearSearch ends the search and takes the highlights away.
func (m *Model) clearSearch() {
	s := m.search
	s.typing, s.query = false, ""
	s.input.Blur()
	s.input.SetValue("")
	m.results.Search = ""
	m.detail.Search = ""
	m.syncBindings()
}

// updateSearchKey handles a key while the bar is typed in, and n, N and
// esc while a kept search is on; ok says the key was used.
func (m *Model) updateSearchKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	s, k := m.search, m.keys
	if s.typing {
		switch {
		case key.Matches(msg, k.Leave):
			m.clearSearch()
			m.setStatus(statusInfo, "Search cleared.")
			return nil, true
		case key.Matches(msg, k.Run):
			s.typing = false
			s.input.Blur()
			m.syncBindings()
			if s.query == "" {
				m.clearSearch()
				return nil, true
			}
			// The match typing led to stays: enter keeps the search,
			// n moves on.
			return m.findMatch(1, true), true
		}
		return m.editSearch(msg), true
	}
	if s.query == "" || m.focus != s.target {
		return nil, false
	}
	switch {
	case key.Matches(msg, k.SearchNext):
		return m.findMatch(1, false), true
	case key.Matches(msg, k.SearchPrev):
		return m.findMatch(-1, false), true
	case key.Matches(msg, k.Leave):
		m.clearSearch()
		m.setStatus(statusInfo, "Search cleared.")
		return nil, true
	}
	return nil, false
}

// editSearch gives msg (a key or a paste) to the bar and, when the text
// changed, jumps to the first match from the cursor.
func (m *Model) editSearch(msg tea.Msg) tea.Cmd {
	s := m.search
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	q := strings.ToLower(termsafe.Line(s.input.Value()))
	if q == s.query {
		return cmd
	}
	s.query = q
	m.results.Search, m.detail.Search = "", ""
	if s.target == focusDetail {
		m.detail.Search = q
	} else {
		m.results.Search = q
	}
	return tea.Batch(cmd, m.findMatch(1, true))
}

// findMatch moves to the next (dir 1) or previous (-1) match of the
// search; from includes the current row or line (as typing refines the
// search, the match under the cursor stays).
func (m *Model) findMatch(dir int, from bool) tea.Cmd {
	s := m.search
	if s.query == "" {
		return nil
	}
	if s.target == focusDetail {
		i, n := m.detail.FindMatch(dir, from)
		m.searchStatus(i, n, "line")
		return nil
	}
	i, n := m.results.FindMatch(dir, from)
	m.searchStatus(i, n, "result")
	return m.syncDetail()
}

// searchStatus says which match is shown.
func (m *Model) searchStatus(i, n int, what string) {
	q := m.search.query
	if n == 0 {
		m.setStatus(statusErr, "No "+what+" matches “"+q+"”. esc clears the search.")
		return
	}
	m.setStatus(statusInfo, "“"+q+"”: "+what+" "+strconv.Itoa(i+1)+" of "+strconv.Itoa(n)+" matching · n/N next/previous · esc clears")
}

// ShortHelp is the help line while typing a search.
func (s *searchBar) ShortHelp(k *common.KeyMap) []key.Binding {
	return []key.Binding{common.RunHelp(k.Run, "enter", "keep search (n/N next/previous)"), common.RunHelp(k.Leave, "esc", "clear search"), k.Quit}
}

// searchView is the bar in the status line's place while typing.
func (m *Model) searchView() string { return common.Truncate(m.search.input.View(), m.width) }
