package ui

import (
	"errors"

	tea "charm.land/bubbletea/v2"

	"ragscope/termsafe"
	"ragscope/ui/chunksview"
	"ragscope/ui/common"
)

// The Chunks view is the chunk audit of the whole collection, the same
// in the explorer as on the command line: the summary first,
// then the sizes, the histogram and the lists, in the text
// `ragscope chunks` prints (present's chunk audit writer).

// errNoAudit says the backend cannot list its chunks.
var errNoAudit = errors.New("this backend cannot list its chunks, so they cannot be audited")

// openChunks shows the chunk audit, starting it the first time (and
// after a cancel or an error); the report is kept for the session.
func (m *Model) openChunks() tea.Cmd {
	if m.opts.Audit == nil {
		m.setStatus(statusErr, errNoAudit.Error()+".")
		return nil
	}
	run := m.chunks.Start(m.base, m.opts.Audit)
	if run != nil {
		m.setStatus(statusInfo, "Auditing the collection's chunks… esc cancels.")
	}
	return tea.Batch(m.setFocus(focusChunks), run)
}

// closeChunks leaves the Chunks view for the results, cancelling an
// audit in flight.
func (m *Model) closeChunks() tea.Cmd {
	if m.chunks.Loading {
		m.chunks.Stop()
		m.setStatus(statusInfo, "Chunk audit cancelled.")
	}
	m.right = focusDetail
	return m.setFocus(focusResults)
}

// updateAudit shows the audit's report or error.
func (m *Model) updateAudit(msg chunksview.Msg) {
	if !m.chunks.SetReport(msg) {
		return
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "Chunk audit: "+common.ErrorText(msg.Err))
		return
	}
	if s := msg.Report.Summary; len(s) > 0 {
		m.setStatus(statusInfo, "Chunk audit: "+termsafe.Line(s[0])+".")
	}
}

// updateAuditTick redraws the audit's progress while it runs.
func (m *Model) updateAuditTick(msg chunksview.TickMsg) tea.Cmd {
	if msg.Seq != m.chunks.Seq || !m.chunks.Loading {
		return nil
	}
	return m.chunks.Tick()
}
