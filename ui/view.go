package ui

import (
	"strconv"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/header"
	"ragscope/ui/keyhelp"
)

// layout sizes every pane from the window and the measured heights of the
// header, input box, status and help. It runs on resize and whenever help,
// mode or focus change what is drawn.
func (m *Model) layout() tea.Cmd {
	if m.width == 0 || m.tooSmall() {
		return nil
	}
	w := m.width
	m.help.SetWidth(w)
	m.help.ShowAll = m.fullHelp
	m.statusH, m.statusAt = lipgloss.Height(m.statusView()), m.statusState()
	fixed := lipgloss.Height(m.headerView()) + m.statusH + lipgloss.Height(m.helpView())
	avail := m.height - fixed
	iw, _ := common.InnerSize(m.st.Pane, w, 3)
	m.query.SetWidth(iw - lipgloss.Width(m.askLabel()))
	inputH := 3
	if m.mode == retrieval.ModeSelectedText {
		taH := min(max((avail-5)/3, 2), 12)
		m.sel.SetSize(iw, taH)
		inputH = lipgloss.Height(m.inputView())
	}
	bodyH := max(avail-inputH, 3)
	leftW, rightW := w, w
	if w >= wideWidth {
		leftW = w * 9 / 20
		rightW = w - leftW
	}
	var cmds []tea.Cmd
	for i := range m.slots {
		s := &m.slots[i]
		switch s.place {
		case placeList:
			cmds = append(cmds, s.pane(m).SetSize(leftW, bodyH))
		case placeSide:
			cmds = append(cmds, s.pane(m).SetSize(rightW, bodyH))
		case placeWhole:
			cmds = append(cmds, s.pane(m).SetSize(w, bodyH))
		}
	}
	m.sizeKeys(w, bodyH)
	m.whatif.SetSize(w, bodyH)
	return tea.Batch(cmds...)
}

// View draws the screen in the alternate screen, with bracketed paste on
// and mouse clicks and wheel reported (mouse.go; shift+drag still selects
// text in most terminals). It only draws: rendering and layout happen in
// Update.
func (m Model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	return v
}

// screen is the whole screen as text.
func (m Model) screen() string {
	if m.width == 0 {
		return ""
	}
	if m.tooSmall() {
		msg := "Window too small: " + strconv.Itoa(m.width) + "x" + strconv.Itoa(m.height) + ".\n" +
			"ragscope needs at least " + strconv.Itoa(minWidth) + "x" + strconv.Itoa(minHeight) + ".\nEnlarge the window, or press ctrl+c to quit."
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center,
			m.st.Small.Render(lipgloss.NewStyle().MaxWidth(m.width).Render(msg)))
	}
	// The boxes are drawn at the window's width; only the text lines
	// need padding.
	return common.PadLines(m.headerView(), m.width) + "\n" + m.inputView() + "\n" + m.bodyView() + "\n" +
		common.PadLines(m.statusView(), m.width) + "\n" + common.PadLines(m.helpView(), m.width)
}

func (m *Model) askLabel() string {
	if m.mode == retrieval.ModeSelectedText {
		return "Question › "
	}
	return "Ask › "
}

// headerView is the backend line and the settings line (header).
func (m *Model) headerView() string {
	rerank := ""
	if m.rerankAvailable() {
		rerank = m.rerankLabel()
	}
	return header.View(m.st, header.Info{Backend: m.backend, SearchMode: m.searchHeader(), Mode: m.mode,
		Params: m.params, Rerank: rerank, ShowDropped: m.showDropped}, m.width)
}

// inputView is the question box (and the selection inputs).
func (m *Model) inputView() string {
	style := m.st.Pane
	if m.slot(m.focus).text {
		style = m.st.FocusedPane
	}
	label := m.st.PaneTitle
	if m.focus == focusQuery {
		label = m.st.FocusedTitle
	}
	content := label.Render(m.askLabel()) + m.query.View()
	h := 3
	if m.mode == retrieval.ModeSelectedText {
		content += "\n" + m.sel.View()
		h = lipgloss.Height(content) + style.GetVerticalFrameSize()
	}
	return common.Box(style, m.width, h, content)
}

// bodyView is the list and the side pane, side by side when wide, the
// focused one of them when narrow; or a pane that takes the whole body.
func (m *Model) bodyView() string {
	f := m.slot(m.focus)
	if m.fullHelp {
		return m.keyHelp.View()
	}
	if m.whatif.Editing() {
		return m.whatif.View(m.st)
	}
	if f.place == placeWhole {
		return f.pane(m).View()
	}
	if m.split.Open && f.id == focusQuery {
		return m.split.View()
	}
	var list common.Pane
	for i := range m.slots {
		if m.slots[i].place == placeList {
			list = m.slots[i].pane(m)
			break
		}
	}
	switch {
	case m.width >= wideWidth:
		return common.JoinCols(list.View(), m.slot(m.right).pane(m).View())
	case f.place == placeSide:
		return f.pane(m).View()
	}
	return list.View()
}

// statusView is spinner and progress, the last outcome or an error,
// wrapped so that it can be read in full (fitStatus).
func (m *Model) statusView() string {
	if m.search.Typing() {
		return m.search.View(m.width)
	}
	switch {
	case m.busy():
		sp := m.spinner.View() + " "
		return sp + m.st.Status.Render(m.fitStatus(m.status, lipgloss.Width(sp)))
	case m.statusKind == statusErr:
		return m.st.StatusErr.Render(m.fitStatus("✗ "+m.status, 0))
	case m.statusKind == statusOK:
		return m.st.StatusOK.Render("✓ ") + m.st.Status.Render(m.fitStatus(m.status, 2))
	}
	return m.st.Status.Render(m.fitStatus(m.status, 0))
}

// helpView is the short help line, or the full help after '?'.
func (m *Model) helpView() string {
	h := m.help
	h.ShowAll = false // the full help is drawn in the body (keyspane.go)
	h.SetWidth(m.width)
	// help's own truncation still overflows when the ellipsis does not
	// fit, so clip to the window here.
	f := m.slot(m.focus).pane(m)
	short := f.ShortHelp()
	switch {
	case m.search.Typing():
		short = m.search.ShortHelp(m.keys)
	case m.fullHelp:
		short = m.keyHelp.ShortHelp(m.keys)
	}
	return common.FitLines(h.View(keyhelp.Keys{KeyMap: m.keys, Short: short, Own: f.FullHelp()}), m.width, -1)
}
