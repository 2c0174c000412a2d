package ui

import (
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"ragscope/termsafe"
	"ragscope/ui/answer"
	"ragscope/ui/chunksview"
	"ragscope/ui/clipboard"
	"ragscope/ui/common"
	"ragscope/ui/evalview"
	"ragscope/ui/goldencase"
	"ragscope/ui/judgerun"
	"ragscope/ui/linkcheck"
	"ragscope/ui/pageview"
	"ragscope/ui/results"
	"ragscope/ui/settings"
	"ragscope/ui/split"
	"ragscope/ui/turns"
	"ragscope/ui/whatif"
)

// Update routes msg (see route), then lays the screen out again when the
// status line's height changed: a long error wraps onto more lines, and
// the panes give them room, so it can be read in full.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.route(msg)
	nm, ok := next.(Model)
	// Returning next as it is spares boxing the large Model a second time
	// on every key press.
	if !ok || nm.width == 0 || nm.tooSmall() || nm.statusState() == nm.statusAt {
		return next, cmd
	}
	return nm.fitStatusRows(cmd)
}

// route handles msg: sizes and keys first, then replies to their owners.
func (m Model) route(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, m.layout()
	case tea.KeyPressMsg:
		cmd := m.updateKey(msg)
		return m, cmd
	case tea.MouseWheelMsg:
		return m, m.updateWheel(msg)
	case tea.MouseClickMsg:
		return m, m.updateClick(msg)
	case tea.PasteMsg:
		cmd := m.updatePaste(msg)
		return m, cmd
	case tea.BackgroundColorMsg:
		return m, m.restyle(msg.IsDark(), m.st.Profile)
	case tea.ColorProfileMsg:
		return m, m.restyle(m.st.Dark, msg.Profile)
	}
	if next, cmd := m.routeReply(msg); next != nil {
		return next, cmd
	}
	if next, cmd := m.routeFeature(msg); next != nil {
		return next, cmd
	}
	// Cursor blinks and other component messages.
	var c1, c2, c3, c4 tea.Cmd
	c1 = m.query.Update(msg)
	c2 = m.sel.Update(msg)
	c3 = m.eval.Update(msg)
	c4 = m.search.Tick(msg)
	return m, tea.Batch(c1, c2, c3, c4)
}

// routeReply hands a command's reply (a result, stats, the opened
// backend, history, link states, the clipboard, a re-run) to its owner;
// nil when msg is none of them.
func (m Model) routeReply(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case resultMsg:
		return m.updateResult(msg)
	case statsMsg:
		return m.updateStats(msg), nil
	case pageview.Msg:
		m.updatePage(msg)
		return m, nil
	case chunksview.Msg:
		m.updateAudit(msg)
		return m, nil
	case chunksview.TickMsg:
		return m, m.updateAuditTick(msg)
	case split.Msg:
		return m, m.updateSplit(msg)
	case backendOpenedMsg:
		return m.updateOpened(msg)
	case historyLoadedMsg:
		if msg.Err != nil {
			m.setStatus(statusErr, "History: "+msg.Err.Error())
		}
		m.query.AddPast(msg.Entries)
		return m, nil
	case historySavedMsg:
		if msg.Err != nil {
			m.setStatus(statusErr, "History not saved: "+msg.Err.Error())
		}
		return m, nil
	case linkcheck.Msg:
		url, cmd := m.links.Update(msg)
		if url != "" {
			m.detail.LinkChanged(url)
			m.splitDetail.LinkChanged(url)
			m.answer.LinkChanged(url)
		}
		return m, cmd
	case clipboard.Msg:
		m.setStatus(clipboardStatus(msg))
		if msg.OSC52 != "" {
			return m, tea.SetClipboard(msg.OSC52)
		}
		return m, nil
	case openedMsg:
		if msg.Err != nil {
			m.setStatus(statusErr, "Could not open the link: "+msg.Err.Error())
		} else {
			m.setStatus(statusOK, "Opened "+termsafe.Line(msg.URL))
		}
		return m, nil
	case rerunMsg:
		if msg.Seq != m.rerunSeq || m.last == nil {
			return m, nil
		}
		return m, m.runQuery(m.withParams(*m.last))
	}
	return nil, nil
}

// routeFeature hands a feature's message (settings, rendering, expected
// sources, explanation and what-if, golden file, turns, eval, answer,
// judge, spinners) to its owner; nil when msg is none of them.
func (m Model) routeFeature(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case settings.ChangedMsg:
		return m.updateSettings(msg)
	case settings.CompareMsg:
		m.setCompare(msg.Setup)
		return m, nil
	case common.RenderedMsg:
		var cmd tea.Cmd
		cmd = m.detail.Update(msg)
		return m, tea.Batch(cmd, m.splitDetail.Update(msg))
	case results.SourcesMsg:
		m.updateSources(msg)
		return m, nil
	case results.DiagMsg:
		return m, m.updateDiag(msg)
	case whatif.ExplainedMsg:
		return m, m.updateExplained(msg)
	case whatif.ReadyMsg:
		return m, m.updateEditReady(msg)
	case whatif.EditedMsg:
		return m, m.updateEdited(msg)
	case whatif.RankedMsg:
		return m, m.updateWhatIf(msg)
	case goldencase.SavedMsg:
		m.updateSaved(msg)
		return m, nil
	case settings.GoldenMsg:
		m.goldenPath, m.confirmSave = msg.Path, 0
		m.setStatus(statusOK, "S now saves the turn on show to "+termsafe.Line(msg.Path)+".")
		return m, nil
	case turns.ShowMsg:
		return m, m.bringBack(msg.Index)
	case evalview.ProgressMsg, evalview.CaseMsg, evalview.DoneMsg:
		return m.updateEval(msg)
	case answer.DeltaMsg, answer.DoneMsg:
		return m, m.answer.Update(msg)
	case judgerun.Msg:
		return m, m.updateJudged(msg)
	case spinner.TickMsg:
		if msg.ID == m.answer.Spin.ID() {
			return m, m.answer.Update(msg)
		}
		if msg.ID == m.split.Spin.ID() {
			return m, m.split.Tick(msg)
		}
		if !m.busy() {
			return m, nil
		}
		var cmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		return m, cmd
	}
	return nil, nil
}
