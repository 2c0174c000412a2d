package results

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/retrieval/assess/judge"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// itemLines is the height of one row.
const itemLines = 3

// Model is the ranked result list.
type Model struct {
	common.Base
	links map[string]common.LinkStatus

	Res         retrieval.Result
	Has         bool
	showDropped bool
	Items       []common.Item
	Cursor      int
	// search is the lower-case text searched for ("" when none).
	Search string
	// Moved says a key moved the cursor since the root last looked.
	Moved  bool
	offset int

	// expected says where the expected sources of the result went; pick
	// is the expected-source picker while open.
	expected []retrieval.Expected
	Pick     *ExpectPicker
	// Marks are the turn's marks by chunk id (nil: none).
	Marks map[string]common.Mark
	// judge is the judge's verdicts on the turn (nil: not judged): with
	// it the rows have a grade column.
	Judge *common.JudgeState
	// explained are the explanations asked for (key X) by chunk id, and
	// whatIf the edited chunk's would-be row (key E); a new result drops
	// both.
	explained map[string]*explain.Explanation
	whatIf    *common.Item
}

// New is the result list; links are the link states the explorer knows.
func New(keys *common.KeyMap, st *common.Styles, links map[string]common.LinkStatus) Model {
	return Model{Base: common.Base{Keys: keys, Styles: st}, links: links}
}

// SetSize sets the pane's outer size.
func (p *Model) SetSize(w, h int) tea.Cmd {
	p.Width, p.Height = w, h
	p.ScrollToCursor()
	return nil
}

// SetResult shows res with where its expected sources went (nil: none)
// and selects its first row.
func (p *Model) SetResult(res retrieval.Result, expected []retrieval.Expected) {
	p.Res, p.Has, p.expected = res, true, expected
	p.Cursor, p.offset = 0, 0
	p.explained, p.whatIf = nil, nil
	p.rebuild()
}

// SetExplained shows the explanation of chunk id on its rows, keeping the
// selection.
func (p *Model) SetExplained(id string, e *explain.Explanation) {
	if p.explained == nil {
		p.explained = map[string]*explain.Explanation{}
	}
	p.explained[id] = e
	keep := p.SelectedKey()
	p.rebuild()
	p.SelectKey(keep)
}

// SetWhatIf shows an edited chunk's would-be row at its rank, marked,
// and selects it.
func (p *Model) SetWhatIf(w explain.WhatIf, c retrieval.Chunk) {
	c.ID = "what-if:" + w.Ref
	it := common.Item{Hit: retrieval.Hit{Rank: w.Rank, Score: w.Score, Chunk: c}, WhatIf: &w, Pseudo: true}
	p.whatIf = &it
	p.rebuild()
	p.SelectKey(common.ItemKey(it))
}

// SetExpected shows where the expected sources went, keeping the
// selection.
func (p *Model) SetExpected(expected []retrieval.Expected) {
	keep := p.SelectedKey()
	p.expected = expected
	p.rebuild()
	p.SelectKey(keep)
}

// SetMarks shows the turn's marks (by chunk id), keeping the selection.
func (p *Model) SetMarks(marks map[string]common.Mark) {
	p.Marks = marks
	for i := range p.Items {
		if it := &p.Items[i]; !it.Pseudo {
			it.Mark = marks[it.Hit.Chunk.ID]
		}
	}
}

// SetJudge shows the judge's verdicts on the turn (nil: none).
func (p *Model) SetJudge(js *common.JudgeState) {
	p.Judge = js
	for i := range p.Items {
		it := &p.Items[i]
		it.Judge = p.judgeOf(it)
		it.Judging = js != nil && js.Running && it.Judge == nil && !it.Dropped && !it.Pseudo
	}
}

// judgeOf is the verdict on a kept hit's row (the judge grades the hits
// kept, in their turn's order).
func (p *Model) judgeOf(it *common.Item) *judge.Judgement {
	if p.Judge == nil || it.Dropped || it.Pseudo {
		return nil
	}
	return p.Judge.ByID[it.Hit.Chunk.ID]
}

// Modal implements modal: the picker takes every key while open.
func (p *Model) Modal() bool { return p.Pick != nil }

// SetShowDropped shows or hides the rows left out, keeping the selection.
func (p *Model) SetShowDropped(show bool) {
	if p.showDropped == show {
		return
	}
	var keep string
	if it, ok := p.Selected(); ok {
		keep = common.ItemKey(it)
	}
	p.showDropped = show
	p.rebuild()
	p.Cursor = 0
	for i, it := range p.Items {
		if common.ItemKey(it) == keep {
			p.Cursor = i
			break
		}
	}
	p.ScrollToCursor()
}

// rebuild merges kept and (when shown) dropped hits in score order, so a
// duplicate sits where it would have ranked.
func (p *Model) rebuild() {
	items := make([]common.Item, 0, len(p.Res.Hits)+len(p.Res.Dropped))
	moves := rerankMoves(&p.Res)
	stage := present.FirstStage(p.Res.Params.Ranking)
	for i, h := range p.Res.Hits {
		it := common.Item{Hit: h}
		if i < len(moves) {
			it.Move, it.Stage = &moves[i], stage
		}
		items = append(items, it)
	}
	if p.showDropped {
		for _, d := range p.Res.Dropped {
			items = append(items, common.Item{Hit: d.Hit, Dropped: true, Label: common.DropLabel(d, p.Res.Params.Threshold)})
		}
		sort.SliceStable(items, func(i, j int) bool { return items[i].Hit.Score > items[j].Hit.Score })
	}
	items = p.markExpected(items)
	if w := p.whatIf; w != nil {
		at := len(items)
		for j, it := range items {
			if !it.Pseudo && !it.Dropped && it.Hit.Rank >= w.Hit.Rank {
				at = j
				break
			}
		}
		items = slices.Insert(items, at, *w)
	}
	for i := range items {
		id := items[i].Hit.Chunk.ID
		if e := items[i].Expect; e != nil && items[i].Pseudo {
			id = e.PointID
		}
		items[i].Explain = p.explained[id]
	}
	p.Items = items
	p.SetMarks(p.Marks)
	p.SetJudge(p.Judge)
	if p.Cursor >= len(items) {
		p.Cursor = max(len(items)-1, 0)
	}
}

// markExpected marks the expected sources among items: a hit of the
// results that is one gets the mark; any other (cut, or not found) gets
// a row of its own before the first kept hit ranked below it.
func (p *Model) markExpected(items []common.Item) []common.Item {
	for i := range p.expected {
		e := &p.expected[i]
		found := false
		for j := range items {
			if it := &items[j]; !it.Pseudo && e.PointID != "" && it.Hit.Chunk.ID == e.PointID && (e.Cut == retrieval.CutNone) != it.Dropped {
				it.Expect, found = e, true
				break
			}
		}
		if found {
			continue
		}
		at := len(items)
		if e.Rank > 0 {
			for j, it := range items {
				if !it.Pseudo && !it.Dropped && it.Hit.Rank > e.Rank {
					at = j
					break
				}
			}
		}
		items = slices.Insert(items, at, expectItem(e))
	}
	return items
}

// Selected returns the selected row.
func (p *Model) Selected() (common.Item, bool) {
	if p.Cursor < 0 || p.Cursor >= len(p.Items) {
		return common.Item{}, false
	}
	return p.Items[p.Cursor], true
}

// SelectedKey is the itemKey of the selected row ("" when none).
func (p *Model) SelectedKey() string {
	if it, ok := p.Selected(); ok {
		return common.ItemKey(it)
	}
	return ""
}

// SelectKey moves the cursor to the row with itemKey k, when it is shown.
func (p *Model) SelectKey(k string) {
	for i, it := range p.Items {
		if k != "" && common.ItemKey(it) == k {
			p.Cursor = i
			p.ScrollToCursor()
			return
		}
	}
}

// PageRows is the number of rows that fit.
func (p *Model) PageRows() int {
	_, ih := common.InnerSize(p.Styles.Pane, p.Width, p.Height)
	return common.ListRows(ih-1-p.footerLines(), itemLines, len(p.Items))
}

// ScrollToCursor keeps the cursor's row in view.
func (p *Model) ScrollToCursor() {
	p.offset = common.OffsetShowing(p.Cursor, p.offset, p.PageRows())
}

// Update moves the selection; the root shows the new row in the detail
// pane in the same Update, so the detail never lags the cursor.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	if p.Pick != nil {
		_, _, cmd := p.Pick.Update(msg)
		return cmd
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok || len(p.Items) == 0 {
		return nil
	}
	old := p.Cursor
	p.Cursor = common.MoveCursor(p.Keys, km, p.Cursor, len(p.Items), p.PageRows())
	if p.Cursor == old {
		return nil
	}
	p.Moved = true
	p.ScrollToCursor()
	return nil
}

// title is the pane's heading.
func (p *Model) Title() string {
	if !p.Has {
		return "Results"
	}
	n := len(p.Res.Hits)
	s := "Results · " + strconv.Itoa(n) + " " + present.Plural(n, "hit", "hits") + RerankTitle(&p.Res)
	if d := len(p.Res.Dropped); d > 0 {
		if p.showDropped {
			s += " · " + strconv.Itoa(d) + " left out shown"
		} else {
			s += " · " + strconv.Itoa(d) + " left out (x shows)"
		}
	}
	switch {
	case p.Judge != nil && p.Judge.Running:
		s += " · judging…"
	case p.Judge != nil:
		s += " · g = judge grade 0-3"
	}
	return s
}

// View draws the pane.
func (p *Model) View() string {
	f := p.Frame()
	iw := f.W
	if p.Pick != nil {
		return f.Box(p.Pick.View(iw, f.H, p.expectedRefs()))
	}
	var b strings.Builder
	b.WriteString(f.Title(p.Title()))
	switch {
	case !p.Has:
		b.WriteString("\n\n" + p.Styles.Meta.Render(common.WrapText("Type a question and press enter. Results show here, best first, with scores, citations and link states.", iw)))
	case len(p.Items) == 0:
		msg := "No results. Lower the threshold, clear filters (s) or ask with other words."
		if len(p.Res.Dropped) > 0 {
			msg = "Nothing passed: every hit was left out. Press x to see them, or lower the threshold (s)."
		}
		b.WriteString("\n\n" + p.Styles.Meta.Render(common.WrapText(msg, iw)))
	default:
		end := min(p.offset+p.PageRows(), len(p.Items))
		for i := p.offset; i < end; i++ {
			b.WriteByte('\n')
			b.WriteString(p.renderItem(p.Items[i], i == p.Cursor, iw))
		}
		if hint := common.MoreHint(p.offset, len(p.Items)-end); hint != "" {
			b.WriteString("\n" + p.Styles.Rows.Meta.Paint(common.Truncate(hint, iw)))
		}
		if foot := p.footer(); foot != "" {
			b.WriteString("\n" + p.Styles.Meta.Render(foot))
		}
	}
	return f.Box(b.String())
}

// expectedRefs are the refs of the expected sources on show.
func (p *Model) expectedRefs() []string {
	out := make([]string, len(p.expected))
	for i := range p.expected {
		out[i] = p.expected[i].Ref
	}
	return out
}

// expectMark is the mark of an expected source's row.
const expectMark = "◇ expected"

// renderItem draws one row in three lines.
func (p *Model) renderItem(it common.Item, selected bool, w int) string {
	st := p.Styles
	marker := "  "
	if selected {
		marker = st.Rows.Cursor.Paint("▌ ")
	}
	if it.WhatIf != nil {
		return p.renderWhatIf(it, marker, w)
	}
	if it.Pseudo {
		return p.renderExpected(it, marker, w)
	}
	first := marker
	if p.Search != "" && !selected && it.Matches(p.Search) {
		first = st.Rows.Match.Paint("/") + " "
	}
	rank := " –"
	if !it.Dropped {
		rank = common.LeftPad(strconv.Itoa(it.Hit.Rank), 2)
	}
	full, empty := common.ScoreBar(it.Hit.Score, 10)
	score := present.Score(it.Hit.Score, 3)
	title := present.Title(&it.Hit.Chunk)
	place := placeText(&it.Hit.Chunk)
	link := p.linkText(&it)
	indent := "      "
	if it.Dropped {
		return p.renderDropped(it, marker, rank, score, full+empty, title, place, w)
	}
	r := &st.Rows
	head := r.Rank.Paint(rank) + " " + r.Score.Paint(score) + " " + r.BarFull.Paint(full) + r.BarEmpty.Paint(empty) + " "
	if p.Judge != nil {
		head += r.Grade(it.Judge).Paint(gradeCell(&it)) + " "
	}
	titleStyle := r.Title
	if selected {
		titleStyle = r.Highlight
	}
	// The mark, when there is one, leads the second line.
	lead := r.Meta.Paint(indent)
	if it.Mark != common.MarkNone {
		ink := r.LinkOK
		if it.Mark == common.MarkNotRelevant {
			ink = r.LinkBad
		}
		lead += ink.Paint(it.Mark.String()) + r.Meta.Paint(" · ")
	}
	// A fused (hybrid) hit leads its place with its rank in each arm (the
	// row's rank and score are the fusion's; the detail pane has the
	// arms' scores).
	if arms := present.ArmRanks(it.Hit.Arms); arms != "" {
		place = arms + " · " + place
	}
	line2 := lead + r.Meta.Paint(place)
	if it.Move != nil {
		head += st.MoveInk(*it.Move).Paint(MoveCell(*it.Move)) + " "
		line2 = lead + r.Meta.Paint(VectorCell(&it.Hit, *it.Move, it.Stage)+" · "+place)
	}
	if it.Expect != nil {
		line2 = lead + r.Highlight.Paint(expectMark) + r.Meta.Paint(" · "+place)
	}
	line1 := head + titleStyle.Paint(title)
	if p.Search != "" {
		line1 = head + common.PaintMatches(title, p.Search, titleStyle, r.Match)
		if it.Move == nil {
			line2 = lead + common.PaintMatches(place, p.Search, r.Meta, r.Match)
		}
	}
	line3 := p.urlLine(&it, link, w)
	return first + common.Truncate(line1, w-2) + "\n" + marker + common.Truncate(line2, w-2) + "\n" + marker + common.Truncate(line3, w-2)
}

// placeText is where a hit's chunk sits: its module, chapter and
// section, else its doc path.
func placeText(c *retrieval.Chunk) string {
	place := present.Place(c)
	if place == "" {
		place = termsafe.Line(c.DocPath)
	}
	if place == "" {
		place = "(no module, chapter or doc path)"
	}
	return place
}

// linkText is the state of a hit's citation link ("checking…" while it
// is checked; "" when it is not).
func (p *Model) linkText(it *common.Item) string {
	ls, ok := p.links[it.Hit.Citation.URL]
	switch {
	case !ok || it.Hit.Citation.URL == "":
		return ""
	case ls.State == "":
		return "checking…"
	}
	return common.LinkLabel(ls)
}

// renderDropped draws a left-out hit's row, greyed: its rank and score
// columns, title, why it was left out, its place and URL.
func (p *Model) renderDropped(it common.Item, marker, rank, score, bar, title, place string, w int) string {
	indent := "      "
	head := rank + " " + score + " " + bar + " "
	if p.Judge != nil {
		head += gradeCell(&it) + " "
	}
	d := p.Styles.Rows.Dropped
	label := "left out: " + it.Label
	if it.Expect != nil {
		label = expectMark + " · " + label
	}
	if it.Mark != common.MarkNone {
		label = it.Mark.String() + " · " + label
	}
	return marker + d.Paint(common.Truncate(head+title, w-2)) + "\n" +
		marker + d.Paint(common.Truncate(indent+label+" · "+place, w-2)) + "\n" +
		marker + d.Paint(indent+present.FitURL(it.Hit.Citation.URL, w-2-len(indent)))
}

// urlLine is a row's third line: the link state, when checked, then the
// URL, which loses its start, not its #anchor (present.FitURL).
func (p *Model) urlLine(it *common.Item, link string, w int) string {
	indent := "      "
	r := &p.Styles.Rows
	urlW := w - 2 - len(indent)
	if link == "" {
		return indent + r.URL.Paint(present.FitURL(it.Hit.Citation.URL, urlW))
	}
	// The state goes first: a long URL must not push it off the pane.
	ls := p.links[it.Hit.Citation.URL]
	urlW -= ansi.StringWidth(link) + 1
	return indent + r.Link(ls.State).Paint(link) + " " + r.URL.Paint(present.FitURL(it.Hit.Citation.URL, urlW))
}

// renderExpected draws the row of an expected source the results do not
// hold: "◇ expected #23 0.310 · cut by top_k 5 (rank 23 of 5)", its page
// and section, and its best chunk.
func (p *Model) renderExpected(it common.Item, marker string, w int) string {
	r := &p.Styles.Rows
	e := it.Expect
	head := expectMark
	if rt := e.RankText(); rt != "" {
		head += " " + rt
	}
	if e.Score != nil {
		head += " " + present.Score(*e.Score, 3)
	}
	head += " · " + e.Detail
	first := marker
	indent := "      "
	place := termsafe.Line(e.DocPath) + SectionText(termsafe.Line(e.Section))
	if place == "" {
		place = termsafe.Line(e.Ref)
	}
	third := "ref " + termsafe.Line(e.Ref)
	if e.PointID != "" {
		third = "best chunk " + termsafe.Line(e.PointID) + " · " + third
	}
	return first + r.Highlight.Paint(common.Truncate(termsafe.Line(head), w-2)) + "\n" +
		marker + r.Meta.Paint(common.Truncate(indent+place, w-2)) + "\n" +
		marker + r.Meta.Paint(common.Truncate(indent+third, w-2))
}

// whatIfMark is the mark of an edited chunk's would-be row.
const whatIfMark = "✎ would be"

// renderWhatIf draws an edited chunk's would-be row: "✎ would be #1
// 0.410 · up from #8 · nothing is written", its page, its ref.
func (p *Model) renderWhatIf(it common.Item, marker string, w int) string {
	r := &p.Styles.Rows
	wi := it.WhatIf
	head := whatIfMark + " #" + strconv.Itoa(wi.Rank) + " " + present.Score(wi.Score, 3)
	switch {
	case wi.FromRank == nil:
		head += " · a new page"
	case *wi.FromRank > wi.Rank:
		head += " · up from #" + strconv.Itoa(*wi.FromRank)
	case *wi.FromRank < wi.Rank:
		head += " · down from #" + strconv.Itoa(*wi.FromRank)
	default:
		head += " · where it is now"
	}
	head += " · nothing is written"
	indent := "      "
	return marker + r.Highlight.Paint(common.Truncate(termsafe.Line(head), w-2)) + "\n" +
		marker + r.Meta.Paint(common.Truncate(indent+present.Title(&it.Hit.Chunk), w-2)) + "\n" +
		marker + r.Meta.Paint(common.Truncate(indent+"your edit of "+termsafe.Line(wi.Ref)+" · E edits again", w-2))
}

// ShortHelp implements pane.
func (p *Model) ShortHelp() []key.Binding {
	k := p.Keys
	if p.Pick != nil {
		return p.Pick.ShortHelp()
	}
	keys := append(make([]key.Binding, 0, 21), k.Down, common.OpenHelp(k, "detail"))
	keys = append(keys, k.JudgeHelp()...)
	return append(keys, k.Page, k.Search, k.CopyURL, k.Context, k.Settings, k.Eval, k.Dropped, k.Rerank, k.QuitQ, k.Help, k.OpenURL, k.FocusQuery, k.Expect, k.ANNCheck, k.Explain, k.Edit,
		k.MarkRelevant, k.MarkNotRelevant, k.MarkClear, k.SaveCase)
}

// FullHelp implements pane: the marks and the save, which act on the
// results and the detail only, come first.
func (p *Model) FullHelp() [][]key.Binding { return common.MarkHelp(p.Keys) }
