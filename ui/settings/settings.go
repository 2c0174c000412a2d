package settings

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// Settings rows.
const (
	RowTopK = iota
	RowThreshold
	rowDedup
	RowShowDropped
	RowLocalSearch
	RowExact
	RowRerank
	RowRerankModel
	rowRerankCandidates
	rowRerankThreshold
	RowAutoAnswer
	RowGolden
	RowCompare
	RowModule
	rowChapter
	rowType
	RowTag
	RowCount
)

// facetKey is the Stats.Facets key of a filter row.
func facetKey(row int) string {
	switch row {
	case RowModule:
		return "module"
	case rowChapter:
		return "chapter"
	case rowType:
		return "content_type"
	}
	return "tag"
}

// Model edits top_k, threshold, dedup, the left-out toggle and the
// filters; every change is announced so the root can re-run the query.
type Model struct {
	common.Base

	Params      retrieval.Query
	ShowDropped bool
	Facets      map[string][]string
	Row         int
	// top is the first row drawn when the list is taller than the pane.
	top    int
	browse [4]int
	// pick is the open facet picker of the row (nil when closed).
	Pick *facetPicker

	// rerankModels are the rerank models offered (none: no reranker);
	// rerankModel is the one chosen.
	RerankModels []string
	RerankModel  string
	// autoAnswer is the Answer pane's "answer after every retrieval".
	AutoAnswer *bool
	// searchModes are the local search modes offered (none: the row is
	// hidden); searchLabel describes one (nil: its name).
	SearchModes []string
	SearchLabel func(string) string
	// exactOffered shows the "exact" row (Qdrant: the search can skip
	// the approximate index).
	ExactOffered bool
	// golden is the golden file S saves to; goldenEdit edits it while
	// open (nil: closed).
	Golden     string
	GoldenEdit *textinput.Model
	// compareSetups are the setups the split view (V) can compare with
	// (none: the row is hidden); compareWith is the one chosen ("" none).
	CompareSetups []string
	CompareWith   string
}

// New is the settings pane showing params.
func New(keys *common.KeyMap, st *common.Styles, params retrieval.Query) Model {
	return Model{Base: common.Base{Keys: keys, Styles: st}, Params: params}
}

// SetSize sets the outer size.
func (p *Model) SetSize(w, h int) tea.Cmd { p.Width, p.Height = w, h; return nil }

// SetFacets offers the filter values present in the collection.
func (p *Model) SetFacets(f map[string][]string) { p.Facets = f }

// filter returns a pointer to the filter list of a filter row.
func (p *Model) filter(row int) *[]string {
	switch row {
	case RowModule:
		return &p.Params.Filters.Modules
	case rowChapter:
		return &p.Params.Filters.Chapters
	case rowType:
		return &p.Params.Filters.ContentTypes
	}
	return &p.Params.Filters.Tags
}

// values lists the choices of a filter row: the collection's facet values
// and any active value the facets lack.
func (p *Model) values(row int) []string {
	vals := append([]string(nil), p.Facets[facetKey(row)]...)
	for _, v := range *p.filter(row) {
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return vals
}

// topKSteps makes ←/→ on top_k move by 1 up to 10, then by 5, then by 10.
func TopKStep(k int, up bool) int {
	step := 1
	switch {
	case k > 20 || (k == 20 && up):
		step = 10
	case k > 10 || (k == 10 && up):
		step = 5
	}
	if up {
		return min(k+step, retrieval.MaxTopK)
	}
	return max(k-step, retrieval.MinTopK)
}

// Update edits the settings.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	if p.GoldenEdit != nil {
		return p.updateGolden(msg)
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok && p.Pick == nil {
		return nil
	}
	before, beforeDropped, beforeModel, beforeCompare := p.Params, p.ShowDropped, p.RerankModel, p.CompareWith
	beforeFilters := present.Filters(p.Params.Filters)
	switch {
	case p.Pick != nil:
		v, done, cmd := p.Pick.Update(msg)
		if done {
			p.Pick = nil
		}
		if v == "" {
			return cmd
		}
		p.toggleValue(v)
	case p.Row == RowGolden && key.Matches(km, p.Keys.Toggle, p.Keys.Inc):
		return p.openGolden()
	case p.Row >= RowModule && key.Matches(km, p.Keys.Pick):
		names := [...]string{"module", "chapter", "type", "tag"}
		p.Pick = newFacetPicker(p.Keys, p.Styles, names[p.Row-RowModule], p.values(p.Row))
		return nil
	case key.Matches(km, p.Keys.Up):
		p.move(-1)
	case key.Matches(km, p.Keys.Down):
		p.move(1)
	case key.Matches(km, p.Keys.Dec):
		p.adjust(false)
	case key.Matches(km, p.Keys.Inc):
		p.adjust(true)
	case key.Matches(km, p.Keys.Toggle):
		p.toggle()
	case key.Matches(km, p.Keys.Clear):
		if p.Row >= RowModule {
			*p.filter(p.Row) = nil
		}
	}
	if p.CompareWith != beforeCompare {
		with := p.CompareWith
		return func() tea.Msg { return CompareMsg{Setup: with} }
	}
	changed := before.TopK != p.Params.TopK || before.Threshold != p.Params.Threshold ||
		before.NoDedup != p.Params.NoDedup || beforeFilters != present.Filters(p.Params.Filters) ||
		beforeDropped != p.ShowDropped || before.Rerank != p.Params.Rerank || beforeModel != p.RerankModel ||
		before.SearchMode != p.Params.SearchMode || before.Exact != p.Params.Exact
	if !changed {
		return nil
	}
	params, flip := p.Params, beforeDropped != p.ShowDropped
	params.Filters = common.CloneFilters(params.Filters)
	model := p.RerankModel
	return func() tea.Msg { return ChangedMsg{Params: params, ToggleDropped: flip, RerankModel: model} }
}

func (p *Model) adjust(up bool) {
	switch p.Row {
	case RowTopK:
		p.Params.TopK = TopKStep(p.Params.TopK, up)
	case RowThreshold:
		d := -0.05
		if up {
			d = 0.05
		}
		t := math.Round((p.Params.Threshold+d)*100) / 100
		p.Params.Threshold = min(max(t, 0), 1)
	case rowDedup:
		p.Params.NoDedup = !p.Params.NoDedup
	case RowShowDropped:
		p.ShowDropped = !p.ShowDropped
	case RowLocalSearch:
		p.adjustSearchMode(up)
	case RowExact:
		p.Params.Exact = !p.Params.Exact
	case RowRerank, RowRerankModel, rowRerankCandidates, rowRerankThreshold:
		p.adjustRerank(up)
	case RowAutoAnswer:
		*p.AutoAnswer = !*p.AutoAnswer
	case RowCompare:
		p.adjustCompare(up)
	case RowGolden:
	default:
		n := len(p.values(p.Row))
		if n == 0 {
			return
		}
		i := p.Row - RowModule
		if up {
			p.browse[i] = (p.browse[i] + 1) % n
		} else {
			p.browse[i] = (p.browse[i] - 1 + n) % n
		}
	}
}

func (p *Model) toggle() {
	switch p.Row {
	case rowDedup:
		p.Params.NoDedup = !p.Params.NoDedup
	case RowShowDropped:
		p.ShowDropped = !p.ShowDropped
	case RowAutoAnswer:
		*p.AutoAnswer = !*p.AutoAnswer
	case RowTopK, RowThreshold, RowGolden:
	case RowCompare:
		p.adjustCompare(true)
	case RowLocalSearch:
		p.adjustSearchMode(true)
	case RowExact:
		p.Params.Exact = !p.Params.Exact
	case RowRerank, RowRerankModel, rowRerankCandidates, rowRerankThreshold:
		p.toggleRerankRow()
	default:
		vals := p.values(p.Row)
		i := p.Row - RowModule
		if len(vals) == 0 {
			return
		}
		p.toggleValue(vals[min(p.browse[i], len(vals)-1)])
	}
}

// toggleValue adds v to the row's filter, or takes it out.
func (p *Model) toggleValue(v string) {
	f := p.filter(p.Row)
	if j := slices.Index(*f, v); j >= 0 {
		*f = slices.Delete(slices.Clone(*f), j, j+1)
	} else {
		*f = append(slices.Clone(*f), v)
	}
}

// Modal reports whether the facet picker is open: it takes every key
// (letters are text) until esc.
func (p *Model) Modal() bool { return p.Pick != nil || p.GoldenEdit != nil }

// View draws the pane.
func (p *Model) View() string {
	f := p.Frame()
	iw, ih := f.W, f.H
	var b strings.Builder
	if p.Pick != nil {
		b.WriteString(f.Title("Settings · type to filter · enter toggles · esc done") + "\n")
		b.WriteString(p.Pick.View(iw, ih-1, *p.filter(p.Row)))
		return f.Box(b.String())
	}
	b.WriteString(f.Title("Settings · ←/→ change · space toggles · enter picks values · changes re-run the query") + "\n\n")
	rows := p.rowLines(iw)
	var note string
	noteLines := 0
	if p.Facets == nil {
		note = "\n" + p.Styles.Meta.Render(common.WrapText("Filter values appear once the collection's stats arrive.", iw))
		noteLines = strings.Count(note, "\n") + 1
	}
	avail := ih - 2
	if countLines(rows)+noteLines <= avail {
		// Everything fits: no scrolling, the note below.
		for _, r := range rows {
			b.WriteString(r.text)
		}
		b.WriteString(note)
		return f.Box(strings.TrimRight(b.String(), "\n"))
	}
	from, to := p.window(rows, avail-1)
	for _, r := range rows[from:to] {
		b.WriteString(r.text)
	}
	b.WriteString(p.Styles.Meta.Render(common.Truncate("  "+common.MoreHint(from, len(rows)-to), iw)))
	return f.Box(strings.TrimRight(b.String(), "\n"))
}

// line is one row of the settings list as drawn: one line, or two
// when a filter row lists its active values.
type line struct {
	row  int
	text string
}

func countLines(rows []line) int {
	n := 0
	for _, r := range rows {
		n += strings.Count(r.text, "\n")
	}
	return n
}

// window is the rows [from, to) shown in avail lines: it keeps the top
// shown before when it can and scrolls just enough to show the cursor's
// row whole.
func (p *Model) window(rows []line, avail int) (from, to int) {
	cur := 0
	for i, r := range rows {
		if r.row == p.Row {
			cur = i
		}
	}
	from = min(max(p.top, 0), len(rows)-1)
	if cur < from {
		from = cur
	}
	for from < cur && countLines(rows[from:cur+1]) > avail {
		from++
	}
	to = from
	for used := 0; to < len(rows); to++ {
		n := strings.Count(rows[to].text, "\n")
		if used+n > avail && to > from {
			break
		}
		used += n
	}
	p.top = from
	return from, to
}

// rowLines draws the shown rows, each ending in a newline.
func (p *Model) rowLines(iw int) []line {
	var out []line
	names := [RowCount]string{"top_k", "threshold", "dedup", "left-out", "local search", "exact", "rerank", "rr model", "candidates", "relevance", "answer", "golden file", "compare with", "module", "chapter", "type", "tag"}
	for r := 0; r < RowCount; r++ {
		if !p.shown(r) {
			continue
		}
		var b strings.Builder
		mark := "  "
		nameStyle := p.Styles.Label
		if r == p.Row {
			mark = p.Styles.Cursor.Render("▌ ")
			nameStyle = p.Styles.Highlight
		}
		var val string
		switch r {
		case RowTopK:
			val = "‹ " + strconv.Itoa(p.Params.TopK) + " ›"
		case RowThreshold:
			full, empty := common.ScoreBar(p.Params.Threshold, 10)
			val = "‹ " + present.Score(p.Params.Threshold, 2) + " › " + p.Styles.BarFull.Render(full) + p.Styles.BarEmpty.Render(empty)
		case rowDedup:
			val = "[" + common.Check(!p.Params.NoDedup) + "] drop near-duplicates"
		case RowShowDropped:
			val = "[" + common.Check(p.ShowDropped) + "] show hits left out (also x)"
		case RowLocalSearch:
			val = p.searchModeValue()
		case RowExact:
			val = "[" + common.Check(p.Params.Exact) + "] exact search, not the approximate index (ground truth; slower)"
		case RowRerank, RowRerankModel, rowRerankCandidates, rowRerankThreshold:
			val = p.rerankValue(r)
		case RowAutoAnswer:
			val = "[" + common.Check(*p.AutoAnswer) + "] answer after every retrieval (costs tokens)"
		case RowGolden:
			val = p.goldenValue()
		case RowCompare:
			val = p.compareValue()
		default:
			val = p.filterValue(r)
		}
		b.WriteString(common.Truncate(mark+nameStyle.Render(common.PadRight(names[r], 13))+val, iw) + "\n")
		if r >= RowModule {
			if active := *p.filter(r); len(active) > 0 {
				b.WriteString(common.Truncate("               "+p.Styles.Added.Render("any of: "+termsafe.Line(strings.Join(active, ", "))), iw) + "\n")
			}
		}
		out = append(out, line{row: r, text: b.String()})
	}
	return out
}

func (p *Model) filterValue(r int) string {
	vals := p.values(r)
	if len(vals) == 0 {
		return p.Styles.Missing.Render("no values in the collection")
	}
	i := min(p.browse[r-RowModule], len(vals)-1)
	v := vals[i]
	on := slices.Contains(*p.filter(r), v)
	return "‹ " + termsafe.Line(v) + " › [" + common.Check(on) + "] " + p.Styles.Meta.Render("("+strconv.Itoa(i+1)+"/"+strconv.Itoa(len(vals))+")")
}

// ShortHelp implements pane.
func (p *Model) ShortHelp() []key.Binding {
	k := p.Keys
	if p.Pick != nil {
		return p.Pick.ShortHelp()
	}
	if p.GoldenEdit != nil {
		return []key.Binding{common.RunHelp(k.Run, "enter", "use this file"), common.LeaveHelp(k, "keep the old one"), k.Quit}
	}
	if p.Row == RowGolden {
		return []key.Binding{k.Down, common.RunHelp(k.Toggle, "enter", "edit the path"), common.LeaveHelp(k, "results"), k.QuitQ, k.Help}
	}
	if p.Row >= RowModule {
		return []key.Binding{k.Down, k.Pick, k.Inc, k.Toggle, k.Clear, common.LeaveHelp(k, "results"), k.QuitQ, k.Help}
	}
	return []key.Binding{k.Down, k.Inc, k.Toggle, k.Clear, common.LeaveHelp(k, "results"), k.QuitQ, k.Help}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *Model) FullHelp() [][]key.Binding { return nil }

// ChangedMsg carries new settings from the settings pane. The
// left-out toggle is a flip, not a value, so a key press queued behind it
// cannot be undone by it.
type ChangedMsg struct {
	Params        retrieval.Query
	ToggleDropped bool
	// RerankModel is the rerank model chosen ("" keeps it).
	RerankModel string
}

// CompareMsg says the settings chose another setup B for the split
// view ("" none).
type CompareMsg struct{ Setup string }

// adjustCompare steps the "compare with" row round none and the setups.
func (p *Model) adjustCompare(up bool) {
	choices := append([]string{""}, p.CompareSetups...)
	i := max(slices.Index(choices, p.CompareWith), 0)
	if up {
		i = (i + 1) % len(choices)
	} else {
		i = (i - 1 + len(choices)) % len(choices)
	}
	p.CompareWith = choices[i]
}

// compareValue is the "compare with" row's value.
func (p *Model) compareValue() string {
	if p.CompareWith == "" {
		return "‹ none › " + p.Styles.Meta.Render("(V splits the results with the setup chosen)")
	}
	return "‹ " + termsafe.Line(p.CompareWith) + " › " + p.Styles.Meta.Render("(V splits the results: A beside it)")
}
