package split

import (
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
)

// RowLines is the height of one row of a side.
const RowLines = 2

// Msg carries setup B's reply for the split view.
type Msg struct {
	Seq      int
	Setup    string
	Question string
	Result   retrieval.Result
	Err      error
}

// row is one hit of a side, with its source's movement from A to B.
type row struct {
	Hit    retrieval.Hit
	rank   string
	score  string
	title  string
	Source string
	// mark is "↑3", "↓1", "=", "only in A" or "only in B" ("" until B's
	// ranking is in).
	Mark string
}

// half is one side of the split view.
type half struct {
	Rows           []row
	Has            bool
	Cursor, Offset int
	// dropped counts the hits the side left out.
	dropped int
}

// Model is the split results pane.
type Model struct {
	keys   *common.KeyMap
	st     *common.Styles
	width  int
	height int
	focus  bool

	// open says the split is on screen (it follows new questions);
	// side is the side with the keyboard (0 A, 1 B).
	Open bool
	Side int
	// names are the two setups' names; vs is B's ("" none).
	Names [2]string
	Half  [2]half
	// markW is the cells of the widest mark on show (the mark column).
	markW int
	// question is the one on show; selected says it is a selected-text
	// turn, which the split does not compare.
	Question string
	asked    bool
	selected bool

	// request is B's retrieval; bQuestion and bSetup are what B's
	// result or error is for.
	common.Request
	Err       error
	BQuestion string
	BSetup    string
	Spin      spinner.Model

	// detail shows a row's chunk in the whole body (enter); shown says
	// which side and rank it is.
	detail  Detail
	Showing bool
	shown   string
}

// Detail is the detail pane the split shows a row's chunk in, in the
// whole body (the root hands it one).
type Detail interface {
	SetSize(w, h int) tea.Cmd
	SetItem(it common.Item) tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
}

// New is the split view showing a row's chunk in d.
func New(keys *common.KeyMap, st *common.Styles, d Detail) Model {
	return Model{keys: keys, st: st, Spin: spinner.New(spinner.WithSpinner(spinner.Dot)), detail: d}
}

// letters name the sides in the marks and headers.
var letters = [2]string{"A", "B"}

// SetSize sets the outer size of the body the split takes.
func (v *Model) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	for i := range v.Half {
		v.scrollToCursor(i)
	}
	return v.detail.SetSize(w, max(h-1, 3))
}

// SetA shows the turn on show as side A.
func (v *Model) SetA(t *common.Turn) {
	v.Half[0] = half{}
	v.Question, v.asked, v.selected = "", t != nil, false
	if t == nil {
		return
	}
	v.Question = t.Query.Question
	v.selected = t.Query.Mode == retrieval.ModeSelectedText
	if v.selected {
		return
	}
	v.Half[0] = newHalf(t.Result)
	v.remark()
}

// setB shows res as side B.
func (v *Model) setB(res retrieval.Result) {
	v.Half[1] = newHalf(res)
	v.Err = nil
	v.remark()
}

func newHalf(res retrieval.Result) half {
	h := half{Has: true, dropped: len(res.Dropped)}
	h.Rows = make([]row, len(res.Hits))
	for i, hit := range res.Hits {
		h.Rows[i] = row{Hit: hit, rank: common.LeftPad(strconv.Itoa(hit.Rank), 2), score: present.Score(hit.Score, 3),
			title: present.Title(&hit.Chunk), Source: termsafe.Line(present.SourceKey(hit))}
	}
	return h
}

// remark gives every row its source's movement from A to B, once both
// rankings are in.
func (v *Model) remark() {
	v.markW = 0
	if !v.Half[0].Has || !v.Half[1].Has || v.Loading || v.Err != nil {
		for i := range v.Half {
			for j := range v.Half[i].Rows {
				v.Half[i].Rows[j].Mark = ""
			}
		}
		return
	}
	rankings := make([][]retrieval.Hit, 2)
	for i := range v.Half {
		for _, r := range v.Half[i].Rows {
			rankings[i] = append(rankings[i], r.Hit)
		}
	}
	moves := map[string]string{}
	for _, s := range present.SourceMoves(rankings, letters[:]) {
		moves[s.Source] = s.Moves[0]
	}
	for i := range v.Half {
		for j := range v.Half[i].Rows {
			r := &v.Half[i].Rows[j]
			r.Mark = moves[present.SourceKey(r.Hit)]
			v.markW = max(v.markW, len([]rune(r.Mark)))
		}
	}
}

// Start asks B for the question on show unless its answer (or its
// request) is already there; it returns the command that asks.
func (v *Model) Start(base context.Context, timeout time.Duration, retrieve func(context.Context, string, string) (retrieval.Result, error)) tea.Cmd {
	if !v.asked || v.selected || retrieve == nil || v.Names[1] == "" {
		return nil
	}
	if v.BQuestion == v.Question && v.BSetup == v.Names[1] && (v.Loading || v.Half[1].Has && v.Err == nil) {
		return nil
	}
	seq := v.Next()
	ctx, cancel := common.WithTimeout(base, timeout)
	v.Cancel = cancel
	v.Err, v.Half[1] = nil, half{}
	v.BQuestion, v.BSetup = v.Question, v.Names[1]
	v.remark()
	setup, q := v.Names[1], v.Question
	return tea.Batch(func() tea.Msg {
		defer cancel()
		res, err := retrieve(ctx, setup, q)
		return Msg{Seq: seq, Setup: setup, Question: q, Result: res, Err: err}
	}, v.Spin.Tick)
}

// Stop cancels B's request in flight.
func (v *Model) Stop() {
	v.Abort()
	v.Loading = false
}

// Reply shows B's reply to request seq; stale replies are dropped.
func (v *Model) Reply(msg Msg) {
	if !v.Settle(msg.Seq) {
		return
	}
	if msg.Err != nil {
		v.Err = msg.Err
		v.remark()
		return
	}
	v.setB(msg.Result)
}

// Tick turns the spinner while B searches.
func (v *Model) Tick(msg spinner.TickMsg) tea.Cmd {
	if !v.Loading {
		return nil
	}
	var cmd tea.Cmd
	v.Spin, cmd = v.Spin.Update(msg)
	return cmd
}

// SelectedRow is the row under the focused side's cursor.
func (v *Model) SelectedRow() (row, bool) {
	h := &v.Half[v.Side]
	if h.Cursor < 0 || h.Cursor >= len(h.Rows) {
		return row{}, false
	}
	return h.Rows[h.Cursor], true
}

// PageRows is how many rows of a side fit.
func (v *Model) PageRows(side int) int {
	_, ih := common.InnerSize(v.st.Pane, v.HalfWidth(side), v.height)
	return common.ListRows(ih-1, RowLines, len(v.Half[side].Rows))
}

// HalfWidth is the outer width of a side.
func (v *Model) HalfWidth(side int) int {
	if side == 0 {
		return v.width / 2
	}
	return v.width - v.width/2
}

func (v *Model) scrollToCursor(side int) {
	h := &v.Half[side]
	h.Offset = common.OffsetShowing(h.Cursor, h.Offset, v.PageRows(side))
}

// Update moves the focused side's cursor, or scrolls the detail.
func (v *Model) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	if v.Showing {
		return v.detail.Update(km)
	}
	h := &v.Half[v.Side]
	if len(h.Rows) == 0 {
		return nil
	}
	h.Cursor = common.MoveCursor(v.keys, km, h.Cursor, len(h.Rows), v.PageRows(v.Side))
	v.scrollToCursor(v.Side)
	return nil
}

// OpenDetail shows the focused side's row in the whole body.
func (v *Model) OpenDetail() tea.Cmd {
	r, ok := v.SelectedRow()
	if !ok {
		return nil
	}
	v.Showing = true
	v.shown = letters[v.Side] + " " + v.Names[v.Side] + " #" + strconv.Itoa(r.Hit.Rank)
	if r.Mark != "" {
		v.shown += " · " + r.Mark
	}
	return v.detail.SetItem(common.Item{Hit: r.Hit})
}

// View draws the two sides side by side, or the detail of a row.
func (v *Model) View() string {
	if v.Showing {
		head := v.st.Highlight.Render(common.Truncate("Detail of "+termsafe.Line(v.shown)+" · esc back to the split", v.width))
		return head + "\n" + v.detail.View()
	}
	return common.JoinCols(v.halfView(0), v.halfView(1))
}

// halfView draws one side.
func (v *Model) halfView(side int) string {
	style, tstyle := v.st.Frame(v.focus && v.Side == side)
	w := v.HalfWidth(side)
	iw, _ := common.InnerSize(style, w, v.height)
	h := &v.Half[side]
	var b strings.Builder
	b.WriteString(tstyle.Render(common.Truncate(v.title(side), iw)))
	msg := ""
	switch {
	case !v.asked:
		msg = "Ask a question: both setups' rankings show here, each row with how its source moved from A to B."
	case v.selected:
		msg = "Selected-text turns are not compared: the split compares searches (ctrl+t back to normal mode, then ask)."
	case side == 1 && v.Loading:
		b.WriteString("\n" + v.Spin.View() + " " + v.st.Meta.Render(common.Truncate("searching with setup "+termsafe.Line(v.Names[1])+"…", iw-2)))
	case side == 1 && v.Err != nil:
		b.WriteString("\n" + v.st.StatusErr.Render(common.WrapText("✗ setup "+termsafe.Line(v.Names[1])+": "+common.ErrorText(v.Err), iw)))
		b.WriteString("\n\n" + v.st.Meta.Render(common.WrapText("Setup A is unaffected. V twice asks B again.", iw)))
	case !h.Has:
	case len(h.Rows) == 0:
		msg = "No results with this setup."
	default:
		end := min(h.Offset+v.PageRows(side), len(h.Rows))
		for i := h.Offset; i < end; i++ {
			b.WriteByte('\n')
			b.WriteString(v.renderRow(&h.Rows[i], i == h.Cursor && v.focus && v.Side == side, iw))
		}
		if hint := common.MoreHint(h.Offset, len(h.Rows)-end); hint != "" {
			b.WriteString("\n" + v.st.Rows.Meta.Paint(common.Truncate(hint, iw)))
		}
	}
	if msg != "" {
		b.WriteString("\n\n" + v.st.Meta.Render(common.WrapText(msg, iw)))
	}
	return common.Box(style, w, v.height, b.String())
}

// title is a side's heading: its letter, setup and hit count.
func (v *Model) title(side int) string {
	s := letters[side] + " · " + termsafe.Line(v.Names[side])
	h := &v.Half[side]
	if h.Has {
		n := len(h.Rows)
		s += " · " + strconv.Itoa(n) + " " + present.Plural(n, "hit", "hits")
		if h.dropped > 0 {
			s += " · " + strconv.Itoa(h.dropped) + " left out"
		}
	}
	return s
}

// renderRow draws a row in two lines: rank, score, mark and title; then
// the source the marks match by.
func (v *Model) renderRow(r *row, selected bool, w int) string {
	ink := &v.st.Rows
	marker := "  "
	title := ink.Title
	if selected {
		marker, title = ink.Cursor.Paint("▌ "), ink.Highlight
	}
	line1 := marker + ink.Rank.Paint(r.rank) + " " + ink.Score.Paint(r.score) + " "
	if v.markW > 0 {
		line1 += v.markInk(r.Mark).Paint(r.Mark+strings.Repeat(" ", max(v.markW-len([]rune(r.Mark)), 0))) + " "
	}
	line1 += title.Paint(r.title)
	// The source is cut in the middle, in what the marker (2 cells) and
	// the indent (3) leave: two sections of one page differ only at the
	// end (the anchor), which a cut at the end would hide.
	line2 := marker + ink.Meta.Paint("   "+present.Middle(r.Source, w-5))
	return common.Truncate(line1, w) + "\n" + common.Truncate(line2, w)
}

// markInk colours a movement: up good, down bad, only in one setup
// highlighted, the same rank plain.
func (v *Model) markInk(mark string) common.Ink {
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
// SetB makes setup side B ("" none), its ranking asked for again on the
// next split.
func (v *Model) SetB(setup string) {
	v.Stop()
	v.Names[1] = setup
	v.Half[1], v.Err, v.BQuestion, v.BSetup = half{}, nil, "", ""
}

// Pane is side i's pane (0 A, 1 B) for the focus ring: both draw the
// whole split, with the keyboard on their side.
func (v *Model) Pane(i int) common.Pane { return field{v, i} }

type field struct {
	v    *Model
	side int
}

// SetSize implements pane.
func (f field) SetSize(w, h int) tea.Cmd { return f.v.SetSize(w, h) }

// Focus implements pane.
func (f field) Focus() tea.Cmd { f.v.focus, f.v.Side = true, f.side; return nil }

// Blur implements pane.
func (f field) Blur() { f.v.focus = false }

// Update implements pane.
func (f field) Update(msg tea.Msg) tea.Cmd { return f.v.Update(msg) }

// View implements pane.
func (f field) View() string { return f.v.View() }

// ShortHelp implements pane.
func (f field) ShortHelp() []key.Binding {
	k := f.v.keys
	if f.v.Showing {
		return []key.Binding{k.Down, k.PageDown, common.LeaveHelp(k, "back to the split"), k.CopyURL, k.OpenURL, k.QuitQ, k.Help}
	}
	return []key.Binding{k.Down, common.OpenHelp(k, "detail"), common.RunHelp(k.Inc, "←/→", "side A/B"), common.LeaveHelp(k, "close split"), k.FocusQuery, k.CopyURL, k.OpenURL, k.QuitQ, k.Help}
}

// FullHelp implements pane.
func (f field) FullHelp() [][]key.Binding {
	k := f.v.keys
	return [][]key.Binding{{common.RunHelp(k.Dec, "←/h", "side A"), common.RunHelp(k.Inc, "→/l", "side B"), common.OpenHelp(k, "detail"), k.Split}}
}
