package ui

import (
	"cmp"
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
	"ragscope/ui/detail"
)

// The split view (key V, issue 30 point 5) sets the result of the
// question on show (setup A) beside another named setup's (B) for the
// same question: two ranked lists whose rows say how their source moved
// from A to B (present.SourceMoves: doc path and anchor, else URL; never
// chunk id).

// CompareSetup offers the split view; a zero value leaves the key saying
// how to get a setup to compare with.
type CompareSetup struct {
	// Name names the explorer's own setup (A) in the split's header.
	Name string
	// Setups are the named setups of ragscope.toml that B can be (A's
	// own excluded), for the hint and the settings.
	Setups []string
	// Vs is setup B ("" none: the split says how to choose one).
	Vs string
	// Retrieve runs question through the named setup, with that setup's
	// own settings (top_k, threshold, rerank, search), under ctx.
	Retrieve func(ctx context.Context, setup, question string) (retrieval.Result, error)
}

// Focus names of the split view's two sides.
const (
	focusSplitA focusID = "split A"
	focusSplitB focusID = "split B"
)

// ringSplit is the tab order while the split is open: the question box
// and the two sides.
const ringSplit ring = 1 << 3

// splitLines is the height of one row of a side.
const splitLines = 2

// splitMsg carries setup B's reply for the split view.
type splitMsg struct {
	Seq      int
	Setup    string
	Question string
	Result   retrieval.Result
	Err      error
}

// splitRow is one hit of a side, with its source's movement from A to B.
type splitRow struct {
	hit    retrieval.Hit
	rank   string
	score  string
	title  string
	source string
	// mark is "↑3", "↓1", "=", "only in A" or "only in B" ("" until B's
	// ranking is in).
	mark string
}

// splitHalf is one side of the split view.
type splitHalf struct {
	rows           []splitRow
	has            bool
	cursor, offset int
	// dropped counts the hits the side left out.
	dropped int
}

// splitView is the split results pane.
type splitView struct {
	keys   *common.KeyMap
	st     *common.Styles
	width  int
	height int
	focus  bool

	// open says the split is on screen (it follows new questions);
	// side is the side with the keyboard (0 A, 1 B).
	open bool
	side int
	// names are the two setups' names; vs is B's ("" none).
	names [2]string
	half  [2]splitHalf
	// markW is the cells of the widest mark on show (the mark column).
	markW int
	// question is the one on show; selected says it is a selected-text
	// turn, which the split does not compare.
	question string
	asked    bool
	selected bool

	// request is B's retrieval; bQuestion and bSetup are what B's
	// result or error is for.
	common.Request
	err       error
	bQuestion string
	bSetup    string
	spin      spinner.Model

	// detail shows a row's chunk in the whole body (enter); shown says
	// which side and rank it is.
	detail  *detail.Model
	showing bool
	shown   string
}

func newSplitView(keys *common.KeyMap, st *common.Styles, links map[string]common.LinkStatus) splitView {
	return splitView{keys: keys, st: st, spin: spinner.New(spinner.WithSpinner(spinner.Dot)), detail: ptr(detail.New(keys, st, links))}
}

// letters name the sides in the marks and headers.
var splitLetters = [2]string{"A", "B"}

// SetSize sets the outer size of the body the split takes.
func (v *splitView) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	for i := range v.half {
		v.scrollToCursor(i)
	}
	return v.detail.SetSize(w, max(h-1, 3))
}

// setA shows the turn on show as side A.
func (v *splitView) setA(t *common.Turn) {
	v.half[0] = splitHalf{}
	v.question, v.asked, v.selected = "", t != nil, false
	if t == nil {
		return
	}
	v.question = t.Query.Question
	v.selected = t.Query.Mode == retrieval.ModeSelectedText
	if v.selected {
		return
	}
	v.half[0] = newSplitHalf(t.Result)
	v.remark()
}

// setB shows res as side B.
func (v *splitView) setB(res retrieval.Result) {
	v.half[1] = newSplitHalf(res)
	v.err = nil
	v.remark()
}

func newSplitHalf(res retrieval.Result) splitHalf {
	h := splitHalf{has: true, dropped: len(res.Dropped)}
	h.rows = make([]splitRow, len(res.Hits))
	for i, hit := range res.Hits {
		h.rows[i] = splitRow{hit: hit, rank: common.LeftPad(strconv.Itoa(hit.Rank), 2), score: present.Score(hit.Score, 3),
			title: present.Title(&hit.Chunk), source: termsafe.Line(present.SourceKey(hit))}
	}
	return h
}

// remark gives every row its source's movement from A to B, once both
// rankings are in.
func (v *splitView) remark() {
	v.markW = 0
	if !v.half[0].has || !v.half[1].has || v.Loading || v.err != nil {
		for i := range v.half {
			for j := range v.half[i].rows {
				v.half[i].rows[j].mark = ""
			}
		}
		return
	}
	rankings := make([][]retrieval.Hit, 2)
	for i := range v.half {
		for _, r := range v.half[i].rows {
			rankings[i] = append(rankings[i], r.hit)
		}
	}
	moves := map[string]string{}
	for _, s := range present.SourceMoves(rankings, splitLetters[:]) {
		moves[s.Source] = s.Moves[0]
	}
	for i := range v.half {
		for j := range v.half[i].rows {
			r := &v.half[i].rows[j]
			r.mark = moves[present.SourceKey(r.hit)]
			v.markW = max(v.markW, len([]rune(r.mark)))
		}
	}
}

// start asks B for the question on show unless its answer (or its
// request) is already there; it returns the command that asks.
func (v *splitView) start(base context.Context, timeout time.Duration, retrieve func(context.Context, string, string) (retrieval.Result, error)) tea.Cmd {
	if !v.asked || v.selected || retrieve == nil || v.names[1] == "" {
		return nil
	}
	if v.bQuestion == v.question && v.bSetup == v.names[1] && (v.Loading || v.half[1].has && v.err == nil) {
		return nil
	}
	seq := v.Next()
	ctx, cancel := common.WithTimeout(base, timeout)
	v.Cancel = cancel
	v.err, v.half[1] = nil, splitHalf{}
	v.bQuestion, v.bSetup = v.question, v.names[1]
	v.remark()
	setup, q := v.names[1], v.question
	return tea.Batch(func() tea.Msg {
		defer cancel()
		res, err := retrieve(ctx, setup, q)
		return splitMsg{Seq: seq, Setup: setup, Question: q, Result: res, Err: err}
	}, v.spin.Tick)
}

// stop cancels B's request in flight.
func (v *splitView) stop() {
	v.Abort()
	v.Loading = false
}

// reply shows B's reply to request seq; stale replies are dropped.
func (v *splitView) reply(msg splitMsg) {
	if !v.Settle(msg.Seq) {
		return
	}
	if msg.Err != nil {
		v.err = msg.Err
		v.remark()
		return
	}
	v.setB(msg.Result)
}

// tick turns the spinner while B searches.
func (v *splitView) tick(msg spinner.TickMsg) tea.Cmd {
	if !v.Loading {
		return nil
	}
	var cmd tea.Cmd
	v.spin, cmd = v.spin.Update(msg)
	return cmd
}

// selectedRow is the row under the focused side's cursor.
func (v *splitView) selectedRow() (splitRow, bool) {
	h := &v.half[v.side]
	if h.cursor < 0 || h.cursor >= len(h.rows) {
		return splitRow{}, false
	}
	return h.rows[h.cursor], true
}

// pageRows is how many rows of a side fit.
func (v *splitView) pageRows(side int) int {
	_, ih := common.InnerSize(v.st.Pane, v.halfWidth(side), v.height)
	return common.ListRows(ih-1, splitLines, len(v.half[side].rows))
}

// halfWidth is the outer width of a side.
func (v *splitView) halfWidth(side int) int {
	if side == 0 {
		return v.width / 2
	}
	return v.width - v.width/2
}

func (v *splitView) scrollToCursor(side int) {
	h := &v.half[side]
	h.offset = common.OffsetShowing(h.cursor, h.offset, v.pageRows(side))
}

// Update moves the focused side's cursor, or scrolls the detail.
func (v *splitView) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if v.showing {
		return v.detail.Update(km)
	}
	h := &v.half[v.side]
	if len(h.rows) == 0 {
		return nil
	}
	h.cursor = common.MoveCursor(v.keys, km, h.cursor, len(h.rows), v.pageRows(v.side))
	v.scrollToCursor(v.side)
	return nil
}

// openDetail shows the focused side's row in the whole body.
func (v *splitView) openDetail() tea.Cmd {
	r, ok := v.selectedRow()
	if !ok {
		return nil
	}
	v.showing = true
	v.shown = splitLetters[v.side] + " " + v.names[v.side] + " #" + strconv.Itoa(r.hit.Rank)
	if r.mark != "" {
		v.shown += " · " + r.mark
	}
	return v.detail.SetItem(common.Item{Hit: r.hit})
}

// View draws the two sides side by side, or the detail of a row.
func (v *splitView) View() string {
	if v.showing {
		head := v.st.Highlight.Render(common.Truncate("Detail of "+termsafe.Line(v.shown)+" · esc back to the split", v.width))
		return head + "\n" + v.detail.View()
	}
	return common.JoinCols(v.halfView(0), v.halfView(1))
}

// halfView draws one side.
func (v *splitView) halfView(side int) string {
	style, tstyle := v.st.Frame(v.focus && v.side == side)
	w := v.halfWidth(side)
	iw, _ := common.InnerSize(style, w, v.height)
	h := &v.half[side]
	var b strings.Builder
	b.WriteString(tstyle.Render(common.Truncate(v.title(side), iw)))
	msg := ""
	switch {
	case !v.asked:
		msg = "Ask a question: both setups' rankings show here, each row with how its source moved from A to B."
	case v.selected:
		msg = "Selected-text turns are not compared: the split compares searches (ctrl+t back to normal mode, then ask)."
	case side == 1 && v.Loading:
		b.WriteString("\n" + v.spin.View() + " " + v.st.Meta.Render(common.Truncate("searching with setup "+termsafe.Line(v.names[1])+"…", iw-2)))
	case side == 1 && v.err != nil:
		b.WriteString("\n" + v.st.StatusErr.Render(common.WrapText("✗ setup "+termsafe.Line(v.names[1])+": "+common.ErrorText(v.err), iw)))
		b.WriteString("\n\n" + v.st.Meta.Render(common.WrapText("Setup A is unaffected. V twice asks B again.", iw)))
	case !h.has:
	case len(h.rows) == 0:
		msg = "No results with this setup."
	default:
		end := min(h.offset+v.pageRows(side), len(h.rows))
		for i := h.offset; i < end; i++ {
			b.WriteByte('\n')
			b.WriteString(v.renderRow(&h.rows[i], i == h.cursor && v.focus && v.side == side, iw))
		}
		if hint := common.MoreHint(h.offset, len(h.rows)-end); hint != "" {
			b.WriteString("\n" + v.st.Rows.Meta.Paint(common.Truncate(hint, iw)))
		}
	}
	if msg != "" {
		b.WriteString("\n\n" + v.st.Meta.Render(common.WrapText(msg, iw)))
	}
	return common.Box(style, w, v.height, b.String())
}

// title is a side's heading: its letter, setup and hit count.
func (v *splitView) title(side int) string {
	s := splitLetters[side] + " · " + termsafe.Line(v.names[side])
	h := &v.half[side]
	if h.has {
		n := len(h.rows)
		s += " · " + strconv.Itoa(n) + " " + present.Plural(n, "hit", "hits")
		if h.dropped > 0 {
			s += " · " + strconv.Itoa(h.dropped) + " left out"
		}
	}
	return s
}

// renderRow draws a row in two lines: rank, score, mark and title; then
// the source the marks match by.
func (v *splitView) renderRow(r *splitRow, selected bool, w int) string {
	ink := &v.st.Rows
	marker := "  "
	title := ink.Title
	if selected {
		marker, title = ink.Cursor.Paint("▌ "), ink.Highlight
	}
	line1 := marker + ink.Rank.Paint(r.rank) + " " + ink.Score.Paint(r.score) + " "
	if v.markW > 0 {
		line1 += v.markInk(r.mark).Paint(r.mark+strings.Repeat(" ", max(v.markW-len([]rune(r.mark)), 0))) + " "
	}
	line1 += title.Paint(r.title)
	// The source is cut in the middle, in what the marker (2 cells) and
	// the indent (3) leave: two sections of one page differ only at the
	// end (the anchor), which a cut at the end would hide.
	line2 := marker + ink.Meta.Paint("   "+present.Middle(r.source, w-5))
	return common.Truncate(line1, w) + "\n" + common.Truncate(line2, w)
}

// markInk colours a movement: up good, down bad, only in one setup
// highlighted, the same rank plain.
func (v *splitView) markInk(mark string) common.Ink {
	r := &v.st.Rows
	switch {
	case strings.HasPrefix(mark, "↑"):
		return r.LinkOK
	case strings.HasPrefix(mark, "↓"):
		return r.LinkBad
	case strings.HasPrefix(mark, "only"):
		return r.Highlight
	}
	return r.Meta
}

// splitField is one side of the split view as a pane.
type splitField struct {
	v    *splitView
	side int
}

// SetSize implements pane.
func (f splitField) SetSize(w, h int) tea.Cmd { return f.v.SetSize(w, h) }

// Focus implements pane.
func (f splitField) Focus() tea.Cmd { f.v.focus, f.v.side = true, f.side; return nil }

// Blur implements pane.
func (f splitField) Blur() { f.v.focus = false }

// Update implements pane.
func (f splitField) Update(msg tea.Msg) tea.Cmd { return f.v.Update(msg) }

// View implements pane.
func (f splitField) View() string { return f.v.View() }

// ShortHelp implements pane.
func (f splitField) ShortHelp() []key.Binding {
	k := f.v.keys
	if f.v.showing {
		return []key.Binding{k.Down, k.PageDown, common.LeaveHelp(k, "back to the split"), k.CopyURL, k.OpenURL, k.QuitQ, k.Help}
	}
	return []key.Binding{k.Down, common.OpenHelp(k, "detail"), common.RunHelp(k.Inc, "←/→", "side A/B"), common.LeaveHelp(k, "close split"), k.FocusQuery, k.CopyURL, k.OpenURL, k.QuitQ, k.Help}
}

// FullHelp implements pane.
func (f splitField) FullHelp() [][]key.Binding {
	k := f.v.keys
	return [][]key.Binding{{common.RunHelp(k.Dec, "←/h", "side A"), common.RunHelp(k.Inc, "→/l", "side B"), common.OpenHelp(k, "detail"), k.Split}}
}

// registerSplit registers the split view's two sides; the question box
// is in the split's tab order too (a new question keeps the split).
func (m *Model) registerSplit() {
	k := m.keys
	side := func() []action {
		return []action{
			{&k.Open, func(m *Model) tea.Cmd { return m.split.openDetail() }},
			{&k.Dec, func(m *Model) tea.Cmd { return m.splitSide(focusSplitA) }},
			{&k.Inc, func(m *Model) tea.Cmd { return m.splitSide(focusSplitB) }},
		}
	}
	m.register(slot{id: focusSplitA, pane: func(m *Model) common.Pane { return splitField{m.split, 0} }, place: placeWhole, rings: ringSplit, actions: side()})
	m.register(slot{id: focusSplitB, pane: func(m *Model) common.Pane { return splitField{m.split, 1} }, place: placeWhole, rings: ringSplit, actions: side()})
	m.slot(focusQuery).rings |= ringSplit
}

// initSplit takes the setups to compare from the options and says in the
// split key's help what it compares, or how to get a setup to compare
// with.
func (m *Model) initSplit() {
	c := m.opts.Compare
	m.split.names = [2]string{cmp.Or(c.Name, "default"), c.Vs}
	m.settings.CompareSetups, m.settings.CompareWith = c.Setups, c.Vs
	m.splitHelp()
}

// splitHelp says in the split key's help what it compares, or how to get
// a setup to compare with.
func (m *Model) splitHelp() {
	switch {
	case m.opts.Compare.Retrieve != nil && m.split.names[1] != "":
		m.keys.Split.SetHelp("V", "split: A vs setup "+termsafe.Line(m.split.names[1]))
	case len(m.opts.Compare.Setups) > 0:
		m.keys.Split.SetHelp("V", "split vs a setup (--vs NAME, or s: compare with)")
	default:
		m.keys.Split.SetHelp("V", "split vs a setup (start with --vs NAME)")
	}
}

// splitHint says how to get a setup to compare with.
func splitHint(c CompareSetup) string {
	if len(c.Setups) == 0 {
		return "No setup to compare with: the split needs a second named setup. Add a [setups.NAME] table to ragscope.toml and start with ragscope --vs NAME."
	}
	return "No setup to compare with: choose one in the settings (s, compare with) or start with ragscope --vs NAME (setups: " + termsafe.Line(strings.Join(c.Setups, ", ")) + ")."
}

// inSplit reports whether a side of the split has the keyboard.
func (m *Model) inSplit() bool { return m.focus == focusSplitA || m.focus == focusSplitB }

// toggleSplit opens the split on the question on show, or closes it.
func (m *Model) toggleSplit() tea.Cmd {
	if m.inSplit() {
		return m.closeSplit()
	}
	c := m.opts.Compare
	switch {
	case c.Retrieve == nil || m.split.names[1] == "":
		m.setStatus(statusErr, splitHint(c))
		return nil
	case m.mode == retrieval.ModeSelectedText:
		m.setStatus(statusErr, "The split compares searches: ctrl+t back to normal mode first.")
		return nil
	}
	m.split.open, m.split.showing = true, false
	id := focusSplitA
	if m.split.side == 1 {
		id = focusSplitB
	}
	m.setStatus(statusInfo, "Split: A "+m.split.names[0]+" vs B "+m.split.names[1]+" · marks say how each source moved from A to B · V or esc closes.")
	return tea.Batch(m.setFocus(id), m.splitFollow())
}

// splitFollow shows the turn on show as side A and asks B for its
// question when the split is open.
func (m *Model) splitFollow() tea.Cmd {
	if !m.split.open {
		return nil
	}
	m.split.setA(m.turns.Current())
	return m.split.start(m.base, m.opts.Timeout, m.opts.Compare.Retrieve)
}

// closeSplit closes the split and gives the keyboard to the results.
func (m *Model) closeSplit() tea.Cmd {
	m.split.stop()
	m.split.open, m.split.showing = false, false
	m.right = focusDetail
	return m.setFocus(focusResults)
}

// splitSide moves the keyboard to a side of the split.
func (m *Model) splitSide(id focusID) tea.Cmd {
	if m.split.showing {
		return nil
	}
	return m.setFocus(id)
}

// splitClick focuses the side clicked at (x, y) of the body and selects
// the row there.
func (m *Model) splitClick(x, y int) tea.Cmd {
	if m.split.showing {
		return nil
	}
	side, id := 0, focusSplitA
	if x >= m.split.halfWidth(0) {
		side, id = 1, focusSplitB
	}
	cmd := m.setFocus(id)
	// The border and the title line come before the rows.
	h := &m.split.half[side]
	if row := y - 2; row >= 0 && row < m.split.pageRows(side)*splitLines {
		if i := h.offset + row/splitLines; i < len(h.rows) {
			h.cursor = i
		}
	}
	return cmd
}

// splitLeave is esc in the split: from a row's detail back to the rows,
// from the rows out of the split.
func (m *Model) splitLeave() tea.Cmd {
	if m.split.showing {
		m.split.showing = false
		return nil
	}
	return m.closeSplit()
}

// splitFocus is where focus f goes while the split is open: the results
// are the split's side, the question box keeps the split, any other pane
// closes it. It also turns off the keys that act on the results alone.
func (m *Model) splitFocus(f focusID) focusID {
	if m.split.open {
		switch f {
		case focusResults:
			f = focusSplitA
			if m.split.side == 1 {
				f = focusSplitB
			}
		case focusQuery, focusSplitA, focusSplitB:
		default:
			m.split.stop()
			m.split.open, m.split.showing = false, false
		}
	}
	m.keys.SplitOn = f == focusSplitA || f == focusSplitB
	return f
}

// updateSplit shows B's reply.
func (m *Model) updateSplit(msg splitMsg) tea.Cmd {
	m.split.reply(msg)
	return nil
}

// actionItem is the row the copy and open keys act on: the split's when
// it has the keyboard, else the results'.
func (m *Model) actionItem() (common.Item, bool) {
	if m.inSplit() {
		r, ok := m.split.selectedRow()
		return common.Item{Hit: r.hit}, ok
	}
	return m.results.Selected()
}

// SplitRows returns the split view's rows, side A then B, each as "rank
// source mark" (for tests).
func (m Model) SplitRows() [2][]string {
	var out [2][]string
	for i := range m.split.half {
		for _, r := range m.split.half[i].rows {
			out[i] = append(out[i], strconv.Itoa(r.hit.Rank)+" "+r.source+" "+r.mark)
		}
	}
	return out
}
