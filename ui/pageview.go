package ui

import (
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/termsafe"
	"ragscope/ui/common"
	"ragscope/ui/pageview"
)

// The page view lists the chunks of the page a hit came from, in reading
// order, with their sizes, the embedding model's cut and the hit
// marked.

// errNoPageLister says the backend cannot list a page's chunks.
var errNoPageLister = errors.New("this backend cannot list a page's chunks")

// openPage shows the page of the selected result in the page view.
func (m *Model) openPage() tea.Cmd {
	it, ok := m.results.Selected()
	switch {
	case m.opts.PageChunks == nil:
		m.setStatus(statusErr, errNoPageLister.Error()+".")
		return nil
	case !ok:
		m.setStatus(statusErr, "No page to show: select a result first.")
		return nil
	case strings.TrimSpace(it.Hit.Chunk.DocPath) == "":
		m.setStatus(statusErr, "This hit has no doc path: its page cannot be listed.")
		return nil
	}
	seq := m.page.Open(it.Hit.Chunk, m.opts.EmbedLimit)
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	m.page.Cancel = cancel
	return tea.Batch(m.setFocus(focusPage), pageview.Cmd(ctx, cancel, m.opts.PageChunks, seq, it.Hit.Chunk.DocPath))
}

// closePage leaves the page view for the results, showing the detail
// beside them again.
func (m *Model) closePage() tea.Cmd {
	m.page.Stop()
	m.right = focusDetail
	return m.setFocus(focusResults)
}

// updatePage shows a page's chunks.
func (m *Model) updatePage(msg pageview.Msg) {
	if !m.page.SetPage(msg) {
		return
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "Page "+termsafe.Line(msg.DocPath)+": "+common.ErrorText(msg.Err))
		return
	}
	m.setStatus(statusInfo, "Page "+termsafe.Line(msg.DocPath)+": "+m.page.Summary())
}
