package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
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
	fixed := lipgloss.Height(m.headerView()) + 1 + lipgloss.Height(m.helpView())
	avail := m.height - fixed
	iw, _ := innerSize(m.st.Pane, w, 3)
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
	m.results.SetSize(leftW, bodyH)
	m.ctxPane.SetSize(rightW, bodyH)
	m.turns.SetSize(rightW, bodyH)
	m.settings.SetSize(rightW, bodyH)
	m.eval.SetSize(w, bodyH)
	return m.detail.SetSize(rightW, bodyH)
}

// View draws the screen in the alternate screen, with bracketed paste on
// and mouse reporting off (so the terminal's own selection works). It only
// draws: rendering and layout happen in Update.
func (m Model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
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
	return joinRows(m.width,
		m.headerView(),
		m.inputView(),
		m.bodyView(),
		m.statusView(),
		m.helpView(),
	)
}

func (m *Model) askLabel() string {
	if m.mode == retrieval.ModeSelectedText {
		return "Question › "
	}
	return "Ask › "
}

// headerView is the backend line and the settings line.
func (m *Model) headerView() string {
	st := m.st
	b := m.backend
	parts := []string{}
	kind := b.Kind
	if kind == "" {
		kind = "backend"
	}
	parts = append(parts, kind)
	if b.Collection != "" {
		parts = append(parts, "collection "+termsafe.Line(b.Collection))
	}
	if b.Model != "" {
		parts = append(parts, termsafe.Line(b.Model))
	}
	if b.Points >= 0 {
		parts = append(parts, present.Int(int(b.Points))+" "+present.Plural(int(b.Points), "point", "points"))
	}
	line1 := st.AppName.Render("ragscope") + " " + st.Header.Render(strings.Join(parts, " · "))
	mode := st.Settings.Render("mode ") + st.Header.Render("normal")
	if m.mode == retrieval.ModeSelectedText {
		mode = st.Mode.Render("SELECTED TEXT · no vector search")
	}
	p := m.params
	line2 := mode + st.Settings.Render(" · top_k "+strconv.Itoa(p.TopK)+" · threshold "+present.Score(p.Threshold, 2)+
		" · dedup "+present.OnOff(!p.NoDedup)+" · filters "+present.Filters(p.Filters))
	if m.showDropped {
		line2 += st.Settings.Render(" · left-out shown")
	}
	return truncate(line1, m.width) + "\n" + truncate(line2, m.width)
}

// inputView is the question box (and the selection inputs).
func (m *Model) inputView() string {
	style := m.st.Pane
	if m.focus.isText() {
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
	return box(style, m.width, h, content)
}

// bodyView is the result list and the right pane, side by side when wide.
func (m *Model) bodyView() string {
	if m.focus.isEval() {
		return m.eval.View()
	}
	right := m.rightView()
	if m.width >= wideWidth {
		return joinCols(m.results.View(), right)
	}
	switch m.focus {
	case focusDetail, focusContext, focusTurns, focusSettings:
		return right
	}
	return m.results.View()
}

func (m *Model) rightView() string {
	switch m.right {
	case focusContext:
		return m.ctxPane.View()
	case focusTurns:
		return m.turns.View()
	case focusSettings:
		return m.settings.View()
	}
	return m.detail.View()
}

// statusView is one line: spinner and progress, the last outcome or an error.
func (m *Model) statusView() string {
	var s string
	switch {
	case m.running || m.evalRunning:
		s = m.spinner.View() + " " + m.st.Status.Render(m.status)
	case m.statusKind == statusErr:
		s = m.st.StatusErr.Render("✗ " + m.status)
	case m.statusKind == statusOK:
		s = m.st.StatusOK.Render("✓ ") + m.st.Status.Render(m.status)
	default:
		s = m.st.Status.Render(m.status)
	}
	return truncate(s, m.width)
}

// helpView is the short help line, or the full help after '?'.
func (m *Model) helpView() string {
	h := m.help
	h.ShowAll = m.fullHelp
	h.SetWidth(m.width)
	// help's own truncation still overflows when the ellipsis does not
	// fit, so clip to the window here.
	return fitLines(h.View(helpKeys{k: m.keys, focus: m.focus, evalRunning: m.evalRunning}), m.width, -1)
}

// helpKeys picks the bindings that matter where the focus is; help hides
// disabled ones, so it never offers a letter while a text box has focus.
type helpKeys struct {
	k           *KeyMap
	focus       focusID
	evalRunning bool
}

// ShortHelp is the one-line help.
func (h helpKeys) ShortHelp() []key.Binding {
	k := h.k
	switch h.focus {
	case focusQuery:
		return []key.Binding{k.Run, k.HistoryPrev, k.NextPane, leaveHelp(k, "results"), k.ToggleMode, k.Quit}
	case focusSelText:
		return []key.Binding{k.RunAny, k.NextPane, leaveHelp(k, "results"), k.ToggleMode, k.Quit}
	case focusSelDoc, focusSelSection:
		return []key.Binding{k.Run, k.NextPane, leaveHelp(k, "results"), k.ToggleMode, k.Quit}
	case focusResults:
		return []key.Binding{k.Down, openHelp(k, "detail"), k.CopyURL, k.Context, k.Settings, k.Eval, k.Dropped, k.QuitQ, k.Help, k.OpenURL, k.FocusQuery}
	case focusDetail:
		return []key.Binding{k.Down, k.PageDown, k.CopyURL, k.OpenURL, leaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane}
	case focusContext:
		return []key.Binding{k.Down, k.PageDown, k.CopyContext, leaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane}
	case focusTurns:
		return []key.Binding{k.Down, openHelp(k, "show turn"), leaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane}
	case focusSettings:
		return []key.Binding{k.Down, k.Inc, k.Toggle, k.Clear, leaveHelp(k, "results"), k.QuitQ, k.Help}
	case focusEvalPath:
		return []key.Binding{runHelp(k.Run, "enter", "run eval"), tabHelp(k, "cases"), h.evalLeave(), k.Quit}
	case focusEvalCases:
		return []key.Binding{k.Down, openHelp(k, "open as query"), runHelp(k.RunAny, "ctrl+r", "re-run"), tabHelp(k, "set path"), h.evalLeave(), k.QuitQ, k.Help}
	}
	return []key.Binding{k.Help, k.Quit}
}

// FullHelp is every binding, grouped.
func (h helpKeys) FullHelp() [][]key.Binding {
	k := h.k
	return [][]key.Binding{
		{k.NextPane, k.PrevPane, k.Leave, k.FocusQuery, k.Context, k.Turns, k.Settings, k.Eval},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open},
		{k.Run, k.RunAny, k.HistoryPrev, k.HistoryNext, k.ToggleMode, k.Dropped},
		{k.CopyURL, k.CopyContext, k.OpenURL, k.Dec, k.Inc, k.Toggle, k.Clear},
		{k.Help, k.QuitQ, k.Quit},
	}
}

func leaveHelp(k *KeyMap, to string) key.Binding {
	b := k.Leave
	b.SetHelp("esc", to)
	return b
}

// evalLeave is esc in the eval view: cancel a run, else back.
func (h helpKeys) evalLeave() key.Binding {
	if h.evalRunning {
		return leaveHelp(h.k, "cancel eval")
	}
	return leaveHelp(h.k, "results")
}

func runHelp(b key.Binding, keys, what string) key.Binding {
	b.SetHelp(keys, what)
	return b
}

func tabHelp(k *KeyMap, to string) key.Binding {
	b := k.NextPane
	b.SetHelp("tab", to)
	return b
}

func openHelp(k *KeyMap, what string) key.Binding {
	b := k.Open
	b.SetHelp("enter", what)
	return b
}
