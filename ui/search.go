package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/ui/searchbar"
)

// startSearch opens the search bar ('/', searchbar) on the detail pane
// when it has the keyboard, on the results otherwise.
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
	cmd = tea.Batch(cmd, m.search.Start(target == focusDetail, m.width))
	m.syncBindings()
	return tea.Batch(cmd, m.layout())
}

// clearSearch ends the search and takes the highlights away.
func (m *Model) clearSearch() {
	m.search.Clear()
	m.results.Search = ""
	m.detail.Search = ""
	m.syncBindings()
}

// searchTarget is the pane searched.
func (m *Model) searchTarget() focusID {
	if m.search.InDetail() {
		return focusDetail
	}
	return focusResults
}

// updateSearchKey handles a key while the bar is typed in, and n, N and
// esc while a kept search is on; ok says the key was used.
func (m *Model) updateSearchKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	ask, quiet, cmd := m.search.Update(msg, m.keys, m.focus == m.searchTarget())
	if ask == searchbar.Pass {
		return nil, false
	}
	return tea.Batch(cmd, m.searchAsk(ask, quiet)), true
}

// editSearch gives msg (a paste) to the bar and, when the text changed,
// jumps to the first match from the cursor.
func (m *Model) editSearch(msg tea.Msg) tea.Cmd {
	ask, cmd := m.search.Edit(msg)
	return tea.Batch(cmd, m.searchAsk(ask, false))
}

// searchAsk does what a key asked of the search: highlight the query,
// move to a match, or clear the highlights (saying so unless quiet).
func (m *Model) searchAsk(ask searchbar.Ask, quiet bool) tea.Cmd {
	switch ask {
	case searchbar.Cleared:
		m.clearSearch()
		if !quiet {
			m.setStatus(statusInfo, "Search cleared.")
		}
	case searchbar.Refine:
		q := m.search.Query()
		m.results.Search, m.detail.Search = "", ""
		if m.search.InDetail() {
			m.detail.Search = q
		} else {
			m.results.Search = q
		}
		return m.findMatch(1, true)
	case searchbar.Keep:
		// The match typing led to stays: enter keeps the search, n
		// moves on.
		m.syncBindings()
		return m.findMatch(1, true)
	case searchbar.Next:
		return m.findMatch(1, false)
	case searchbar.Prev:
		return m.findMatch(-1, false)
	}
	return nil
}

// findMatch moves to the next (dir 1) or previous (-1) match of the
// search; from includes the current row or line (as typing refines the
// search, the match under the cursor stays).
func (m *Model) findMatch(dir int, from bool) tea.Cmd {
	if m.search.Query() == "" {
		return nil
	}
	if m.search.InDetail() {
		i, n := m.detail.FindMatch(dir, from)
		m.searchStatus(m.search.Status(i, n, "line"))
		return nil
	}
	i, n := m.results.FindMatch(dir, from)
	m.searchStatus(m.search.Status(i, n, "result"))
	return m.syncDetail()
}

// searchStatus shows which match is on show (ok), or that none matches.
func (m *Model) searchStatus(text string, ok bool) {
	if ok {
		m.setStatus(statusInfo, text)
	} else {
		m.setStatus(statusErr, text)
	}
}
