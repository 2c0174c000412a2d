package ui

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
	rowTopK = iota
	rowThreshold
	rowDedup
	rowShowDropped
	rowLocalSearch
	rowExact
	rowRerank
	rowRerankModel
	rowRerankCandidates
	rowRerankThreshold
	rowAutoAnswer
	rowGolden
	rowCompare
	rowModule
	rowChapter
	rowType
	rowTag
	settingsRows
)

// facetKey is the Stats.Facets key of a filter row.
func facetKey(row int) string {
	switch row {
	case rowModule:
		return "module"
	case rowChapter:
		return "chapter"
	case rowType:
		return "content_type"
	}
	return "tag"
}

// settingsPane edits top_k, threshold, dedup, the left-out toggle and the
// filters; every change is announced so the root can re-run the query.
type settingsPane struct {
	common.Base

	params      retrieval.Query
	showDropped bool
	facets      map[string][]string
	row         int
	// top is the first row drawn when the list is taller than the pane.
	top    int
	browse [4]int
	// pick is the open facet picker of the row (nil when closed).
	pick *facetPicker

	// rerankModels are the rerank models offered (none: no reranker);
	// rerankModel is the one chosen.
	rerankModels []string
	rerankModel  string
	// autoAnswer is the Answer pane's "answer after every retrieval".
	autoAnswer *bool
	// searchModes are the local search modes offered (none: the row is
	// hidden); searchLabel describes one (nil: its name).
	searchModes []string
	searchLabel func(string) string
	// exactOffered shows the "exact" row (Qdrant: the search can skip
	// the approximate index).
	exactOffered bool
	// golden is the golden file S saves to; goldenEdit edits it while
	// open (nil: closed).
	golden     string
	goldenEdit *textinput.Model
	// compareSetups are the setups the split view (V) can compare with
	// (none: the row is hidden); compareWith is the one chosen ("" none).
	compareSetups []string
	compareWith   string
}

func newSettingsPane(keys *common.KeyMap, st *common.Styles, params retrieval.Query) settingsPane {
	return settingsPane{Base: common.Base{Keys: keys, Styles: st}, params: params}
}

// SetSize sets the outer size.
func (p *settingsPane) SetSize(w, h int) tea.Cmd { p.Width, p.Height = w, h; return nil }

// SetFacets offers the filter values present in the collection.
func (p *settingsPane) SetFacets(f map[string][]string) { p.facets = f }

// filter returns a pointer to the filter list of a filter row.
func (p *settingsPane) filter(row int) *[]string {
	switch row {
	case rowModule:
		return &p.params.Filters.Modules
	case rowChapter:
		return &p.params.Filters.Chapters
	case rowType:
		return &p.params.Filters.ContentTypes
	}
	return &p.params.Filters.Tags
}

// values lists the choices of a filter row: the collection's facet values
// and any active value the facets lack.
func (p *settingsPane) values(row int) []string {
	vals := append([]string(nil), p.facets[facetKey(row)]...)
	for _, v := range *p.filter(row) {
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return vals
}

// topKSteps makes ←/→ on top_k move by 1 up to 10, then by 5, then by 10.
func topKStep(k int, up bool) int {
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
func (p *settingsPane) Update(msg tea.Msg) tea.Cmd {
	if p.goldenEdit != nil {
		return p.updateGolden(msg)
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok && p.pick == nil {
		return nil
	}
	before, beforeDropped, beforeModel, beforeCompare := p.params, p.showDropped, p.rerankModel, p.compareWith
	beforeFilters := present.Filters(p.params.Filters)
	switch {
	case p.pick != nil:
		v, done, cmd := p.pick.Update(msg)
		if done {
			p.pick = nil
		}
		if v == "" {
			return cmd
		}
		p.toggleValue(v)
	case p.row == rowGolden && key.Matches(km, p.Keys.Toggle, p.Keys.Inc):
		return p.openGolden()
	case p.row >= rowModule && key.Matches(km, p.Keys.Pick):
		names := [...]string{"module", "chapter", "type", "tag"}
		p.pick = newFacetPicker(p.Keys, p.Styles, names[p.row-rowModule], p.values(p.row))
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
		if p.row >= rowModule {
			*p.filter(p.row) = nil
		}
	}
	if p.compareWith != beforeCompare {
		with := p.compareWith
		return func() tea.Msg { return compareChangedMsg{Setup: with} }
	}
	changed := before.TopK != p.params.TopK || before.Threshold != p.params.Threshold ||
		before.NoDedup != p.params.NoDedup || beforeFilters != present.Filters(p.params.Filters) ||
		beforeDropped != p.showDropped || before.Rerank != p.params.Rerank || beforeModel != p.rerankModel ||
		before.SearchMode != p.params.SearchMode || before.Exact != p.params.Exact
	if !changed {
		return nil
	}
	params, flip := p.params, beforeDropped != p.showDropped
	params.Filters = cloneFilters(params.Filters)
	model := p.rerankModel
	return func() tea.Msg { return settingsChangedMsg{Params: params, ToggleDropped: flip, RerankModel: model} }
}

func cloneFilters(f retrieval.Filters) retrieval.Filters {
	return retrieval.Filters{
		Modules: slices.Clone(f.Modules), Chapters: slices.Clone(f.Chapters),
		ContentTypes: slices.Clone(f.ContentTypes), Tags: slices.Clone(f.Tags),
	}
}

func (p *settingsPane) adjust(up bool) {
	switch p.row {
	case rowTopK:
		p.params.TopK = topKStep(p.params.TopK, up)
	case rowThreshold:
		d := -0.05
		if up {
			d = 0.05
		}
		t := math.Round((p.params.Threshold+d)*100) / 100
		p.params.Threshold = min(max(t, 0), 1)
	case rowDedup:
		p.params.NoDedup = !p.params.NoDedup
	case rowShowDropped:
		p.showDropped = !p.showDropped
	case rowLocalSearch:
		p.adjustSearchMode(up)
	case rowExact:
		p.params.Exact = !p.params.Exact
	case rowRerank, rowRerankModel, rowRerankCandidates, rowRerankThreshold:
		p.adjustRerank(up)
	case rowAutoAnswer:
		*p.autoAnswer = !*p.autoAnswer
	case rowCompare:
		p.adjustCompare(up)
	case rowGolden:
	default:
		n := len(p.values(p.row))
		if n == 0 {
			return
		}
		i := p.row - rowModule
		if up {
			p.browse[i] = (p.browse[i] + 1) % n
		} else {
			p.browse[i] = (p.browse[i] - 1 + n) % n
		}
	}
}

func (p *settingsPane) toggle() {
	switch p.row {
	case rowDedup:
		p.params.NoDedup = !p.params.NoDedup
	case rowShowDropped:
		p.showDropped = !p.showDropped
	case rowAutoAnswer:
		*p.autoAnswer = !*p.autoAnswer
	case rowTopK, rowThreshold, rowGolden:
	case rowCompare:
		p.adjustCompare(true)
	case rowLocalSearch:
		p.adjustSearchMode(true)
	case rowExact:
		p.params.Exact = !p.params.Exact
	case rowRerank, rowRerankModel, rowRerankCandidates, rowRerankThreshold:
		p.toggleRerankRow()
	default:
		vals := p.values(p.row)
		i := p.row - rowModule
		if len(vals) == 0 {
			return
		}
		p.toggleValue(vals[min(p.browse[i], len(vals)-1)])
	}
}

// toggleValue adds v to the row's filter, or takes it out.
func (p *settingsPane) toggleValue(v string) {
	f := p.filter(p.row)
	if j := slices.Index(*f, v); j >= 0 {
		*f = slices.Delete(slices.Clone(*f), j, j+1)
	} else {
		*f = append(slices.Clone(*f), v)
	}
}

// Modal reports whether the facet picker is open: it takes every key
// (letters are text) until esc.
func (p *settingsPane) Modal() bool { return p.pick != nil || p.goldenEdit != nil }

// View draws the pane.
func (p *settingsPane) View() string {
	style, tstyle := p.Styles.Frame(p.Focused)
	iw, _ := common.InnerSize(style, p.Width, p.Height)
	var b strings.Builder
	if p.pick != nil {
		_, ih := common.InnerSize(style, p.Width, p.Height)
		b.WriteString(tstyle.Render(common.Truncate("Settings · type to filter · enter toggles · esc done", iw)) + "\n")
		b.WriteString(p.pick.View(iw, ih-1, *p.filter(p.row)))
		return common.Box(style, p.Width, p.Height, b.String())
	}
	b.WriteString(tstyle.Render(common.Truncate("Settings · ←/→ change · space toggles · enter picks values · changes re-run the query", iw)) + "\n\n")
	_, ih := common.InnerSize(style, p.Width, p.Height)
	rows := p.rowLines(iw)
	var note string
	noteLines := 0
	if p.facets == nil {
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
		return common.Box(style, p.Width, p.Height, strings.TrimRight(b.String(), "\n"))
	}
	from, to := p.window(rows, avail-1)
	for _, r := range rows[from:to] {
		b.WriteString(r.text)
	}
	b.WriteString(p.Styles.Meta.Render(common.Truncate("  "+common.MoreHint(from, len(rows)-to), iw)))
	return common.Box(style, p.Width, p.Height, strings.TrimRight(b.String(), "\n"))
}

// settingsLine is one row of the settings list as drawn: one line, or two
// when a filter row lists its active values.
type settingsLine struct {
	row  int
	text string
}

func countLines(rows []settingsLine) int {
	n := 0
	for _, r := range rows {
		n += strings.Count(r.text, "\n")
	}
	return n
}

// window is the rows [from, to) shown in avail lines: it keeps the top
// shown before when it can and scrolls just enough to show the cursor's
// row whole (issue 25, point 7).
func (p *settingsPane) window(rows []settingsLine, avail int) (from, to int) {
	cur := 0
	for i, r := range rows {
		if r.row == p.row {
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
func (p *settingsPane) rowLines(iw int) []settingsLine {
	var out []settingsLine
	names := [settingsRows]string{"top_k", "threshold", "dedup", "left-out", "local search", "exact", "rerank", "rr model", "candidates", "relevance", "answer", "golden file", "compare with", "module", "chapter", "type", "tag"}
	for r := 0; r < settingsRows; r++ {
		if !p.shown(r) {
			continue
		}
		var b strings.Builder
		mark := "  "
		nameStyle := p.Styles.Label
		if r == p.row {
			mark = p.Styles.Cursor.Render("▌ ")
			nameStyle = p.Styles.Highlight
		}
		var val string
		switch r {
		case rowTopK:
			val = "‹ " + strconv.Itoa(p.params.TopK) + " ›"
		case rowThreshold:
			full, empty := common.ScoreBar(p.params.Threshold, 10)
			val = "‹ " + present.Score(p.params.Threshold, 2) + " › " + p.Styles.BarFull.Render(full) + p.Styles.BarEmpty.Render(empty)
		case rowDedup:
			val = "[" + common.Check(!p.params.NoDedup) + "] drop near-duplicates"
		case rowShowDropped:
			val = "[" + common.Check(p.showDropped) + "] show hits left out (also x)"
		case rowLocalSearch:
			val = p.searchModeValue()
		case rowExact:
			val = "[" + common.Check(p.params.Exact) + "] exact search, not the approximate index (ground truth; slower)"
		case rowRerank, rowRerankModel, rowRerankCandidates, rowRerankThreshold:
			val = p.rerankValue(r)
		case rowAutoAnswer:
			val = "[" + common.Check(*p.autoAnswer) + "] answer after every retrieval (costs tokens)"
		case rowGolden:
			val = p.goldenValue()
		case rowCompare:
			val = p.compareValue()
		default:
			val = p.filterValue(r)
		}
		b.WriteString(common.Truncate(mark+nameStyle.Render(common.PadRight(names[r], 13))+val, iw) + "\n")
		if r >= rowModule {
			if active := *p.filter(r); len(active) > 0 {
				b.WriteString(common.Truncate("               "+p.Styles.Added.Render("any of: "+termsafe.Line(strings.Join(active, ", "))), iw) + "\n")
			}
		}
		out = append(out, settingsLine{row: r, text: b.String()})
	}
	return out
}

func (p *settingsPane) filterValue(r int) string {
	vals := p.values(r)
	if len(vals) == 0 {
		return p.Styles.Missing.Render("no values in the collection")
	}
	i := min(p.browse[r-rowModule], len(vals)-1)
	v := vals[i]
	on := slices.Contains(*p.filter(r), v)
	return "‹ " + termsafe.Line(v) + " › [" + common.Check(on) + "] " + p.Styles.Meta.Render("("+strconv.Itoa(i+1)+"/"+strconv.Itoa(len(vals))+")")
}

// ShortHelp implements pane.
func (p *settingsPane) ShortHelp() []key.Binding {
	k := p.Keys
	if p.pick != nil {
		return p.pick.ShortHelp()
	}
	if p.goldenEdit != nil {
		return []key.Binding{common.RunHelp(k.Run, "enter", "use this file"), common.LeaveHelp(k, "keep the old one"), k.Quit}
	}
	if p.row == rowGolden {
		return []key.Binding{k.Down, common.RunHelp(k.Toggle, "enter", "edit the path"), common.LeaveHelp(k, "results"), k.QuitQ, k.Help}
	}
	if p.row >= rowModule {
		return []key.Binding{k.Down, k.Pick, k.Inc, k.Toggle, k.Clear, common.LeaveHelp(k, "results"), k.QuitQ, k.Help}
	}
	return []key.Binding{k.Down, k.Inc, k.Toggle, k.Clear, common.LeaveHelp(k, "results"), k.QuitQ, k.Help}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *settingsPane) FullHelp() [][]key.Binding { return nil }
