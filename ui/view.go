package ui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
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

// headerView is the backend line and the settings line.
func (m *Model) headerView() string {
	st := m.st
	b := m.backend
	kind := b.Kind
	if kind == "" {
		kind = "backend"
	}
	parts := []headerPart{{text: kind, keep: keepKind}}
	if b.Setup != "" {
		parts = append(parts, headerPart{text: "setup " + termsafe.Line(b.Setup), keep: keepSetup})
	}
	if b.Collection != "" {
		parts = append(parts, headerPart{text: "collection " + termsafe.Line(b.Collection), keep: keepCollection})
	}
	search := termsafe.Line(b.Search)
	if b.Model != "" && search == "" {
		parts = append(parts, headerPart{text: termsafe.Line(b.Model), keep: keepModel})
	}
	switch {
	case m.searchHeader() != "":
		parts = append(parts, headerPart{text: m.searchHeader(), keep: keepSearch})
	case search != "":
		// A hybrid search names the embedding model on its dense arm, in
		// place of the model field; cut rather than dropped, it still
		// says how the collection is searched.
		parts = append(parts, headerPart{text: search, keep: keepSearch, cut: true})
	}
	var points string
	if b.Points >= 0 {
		points = present.Int(int(b.Points)) + " " + present.Plural(int(b.Points), "point", "points")
	}
	line1 := st.AppName.Render("ragscope") + " " + st.Header.Render(fitHeader(parts, points, m.width-len("ragscope ")))
	mode := st.Settings.Render("mode ") + st.Header.Render("normal")
	if m.mode == retrieval.ModeSelectedText {
		mode = st.Mode.Render("SELECTED TEXT · no vector search")
	}
	p := m.params
	line2 := mode + st.Settings.Render(" · top_k "+strconv.Itoa(p.TopK)+" · threshold "+present.Score(p.Threshold, 2)+
		" · dedup "+present.OnOff(!p.NoDedup)+" · filters "+present.Filters(p.Filters)+m.rerankHeader())
	if m.showDropped {
		line2 += st.Settings.Render(" · left-out shown")
	}
	return common.Truncate(line1, m.width) + "\n" + common.Truncate(line2, m.width)
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
	return common.FitLines(h.View(helpKeys{k: m.keys, short: short, own: f.FullHelp()}), m.width, -1)
}

// helpKeys is the help of the focused pane and the explorer's key map;
// help hides disabled bindings, so it never offers a letter while a text
// box has focus.
type helpKeys struct {
	k     *common.KeyMap
	short []key.Binding
	own   [][]key.Binding
}

// ShortHelp is the one-line help: the focused pane's.
func (h helpKeys) ShortHelp() []key.Binding { return h.short }

// FullHelp is the focused pane's own bindings, then every binding of the
// key map, grouped.
func (h helpKeys) FullHelp() [][]key.Binding {
	k := h.k
	return append(append([][]key.Binding(nil), h.own...),
		[]key.Binding{k.NextPane, k.PrevPane, k.Leave, k.FocusQuery, k.Context, k.Turns, k.Settings, k.Eval, k.Answer, k.Page, k.Chunks},
		[]key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Search, k.SearchNext},
		[]key.Binding{k.Run, k.RunAny, k.HistoryPrev, k.HistoryNext, k.ToggleMode, k.Dropped, k.Rerank, k.Expect, k.ANNCheck, k.Split, k.Explain, k.Edit},
		[]key.Binding{k.CopyURL, k.CopyContext, k.OpenURL, k.Dec, k.Inc, k.Toggle, k.Clear},
		[]key.Binding{k.Help, k.QuitQ, k.Quit},
	)
}

// headerMinPart is the fewest cells the first part after the backend kind
// is cut to when it does not fit whole.
const headerMinPart = 12

// headerPart is a field of the header line; keep ranks it: when the line
// is too long, fields of lower keep give way first, whole.
type headerPart struct {
	text string
	keep int
	// cut lets the field be cut to the room left (at least
	// headerMinPart cells) rather than dropped.
	cut bool
}

// The header's fields by what they are read for: the backend kind always,
// then the setup (which of two is on show), the collection, the search
// mode and the embedding model.
const (
	keepModel = iota + 1
	keepSearch
	keepCollection
	keepSetup
	keepKind
)

// fitHeader joins parts, in their order, and then last (the point count,
// "" for none) with " · " in at most w cells. last and the first part (the
// backend kind) stay; the other parts are taken whole, by keep (highest
// first), while they fit, so a field is shown whole or not at all. Only
// the field of highest keep is cut (to what is left, at least
// headerMinPart cells) rather than dropped when it alone does not fit.
func fitHeader(parts []headerPart, last string, w int) string {
	const sep = 3 // " · "
	used := 0
	if len(parts) > 0 {
		used = ansi.StringWidth(parts[0].text)
	}
	if last != "" {
		used += sep + ansi.StringWidth(last)
	}
	order := make([]int, 0, len(parts))
	for i := 1; i < len(parts); i++ {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return parts[b].keep - parts[a].keep })
	text := make([]string, len(parts))
	if len(parts) > 0 {
		text[0] = parts[0].text
	}
	for n, i := range order {
		pw := ansi.StringWidth(parts[i].text)
		switch room := w - used - sep; {
		case pw <= room:
			text[i] = parts[i].text
		case (n == 0 || parts[i].cut) && room >= headerMinPart:
			text[i] = common.Truncate(parts[i].text, room)
		default:
			continue
		}
		used += sep + ansi.StringWidth(text[i])
	}
	var out []string
	for _, t := range text {
		if t != "" {
			out = append(out, t)
		}
	}
	if last != "" {
		out = append(out, last)
	}
	return common.Truncate(strings.Join(out, " · "), w)
}
