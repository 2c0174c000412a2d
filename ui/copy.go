package ui

import (
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/termsafe"
	"ragscope/ui/browser"
)

// copyURL copies the selected hit's citation URL.
func (m *Model) copyURL() tea.Cmd {
	u, ok := m.citationURL("copy", func(err error) string {
		return "Not copied: " + err.Error() + "; it could run commands when pasted."
	})
	if !ok {
		return nil
	}
	return m.copy("the citation URL", u)
}

// citationURL returns the selected hit's citation URL once termsafe.URL
// passes it. Otherwise it says why in the status line, "No citation URL
// to <verb>: …" or refused's words for termsafe's error, and reports
// false.
func (m *Model) citationURL(verb string, refused func(error) string) (string, bool) {
	it, ok := m.actionItem()
	switch {
	case !ok:
		m.setStatus(statusErr, "No citation URL to "+verb+": select a result first.")
		return "", false
	case it.Hit.Citation.URL == "":
		m.setStatus(statusErr, "No citation URL to "+verb+": this result has none (its chunk has neither a URL nor a doc path).")
		return "", false
	}
	u, err := termsafe.URL(it.Hit.Citation.URL)
	if err != nil {
		m.setStatus(statusErr, refused(err))
		return "", false
	}
	return u, true
}

// copyContext copies the grounded instruction and context.
func (m *Model) copyContext() tea.Cmd {
	if !m.ctxPane.Has {
		m.setStatus(statusErr, "No grounded context yet: run a query first.")
		return nil
	}
	g := m.ctxPane.Grounded
	text := termsafe.Outbound(g.Instruction + "\n\n" + g.Context)
	return m.copy("the grounded context ("+present.Int(len([]rune(text)))+" chars)", text)
}

// openURL opens the selected hit's citation in the browser.
func (m *Model) openURL() tea.Cmd {
	u, ok := m.citationURL("open", func(err error) string { return "Not opened: " + err.Error() + "." })
	if !ok {
		return nil
	}
	open := m.opts.OpenURL
	if open == nil {
		open = browser.Open
	}
	return openURLCmd(open, u)
}
