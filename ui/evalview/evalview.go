package evalview

import (
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"ragscope/present"
	"ragscope/retrieval/assess/eval"
	"ragscope/termsafe"
	"ragscope/ui/common"
	"sort"
	"strconv"
	"strings"
)

// Model loads and runs a golden set and lists its cases: a path input,
// a progress bar while it runs, the cases as they finish, a summary and
// the case under the cursor.
type Model struct {
	Keys   *common.KeyMap
	st     *common.Styles
	width  int
	height int
	// focus is where the keyboard is: the path input or the case list
	// (or neither when the pane does not have it).
	inputFocus bool
	listFocus  bool
	// runPath is the path of the set the last run was started with (""
	// for the built-in set).
	RunPath string
	// unlabelled counts the unlabelled cases that ran, kept beside the
	// summary (they are counted apart from its passes).
	unlabelled int

	Input       textinput.Model
	bar         progress.Model
	DefaultName string

	Running bool
	Done    int
	Total   int
	Cases   []eval.CaseResult
	summary eval.Summary
	Report  *eval.Report
	// label names the set of the shown run; errText is its failure.
	Label string
	// settings are the explorer settings the run searches with, and
	// ignored the ones it does not apply; the title names both.
	settings Settings
	ignored  []string
	// alone holds the ids of the finished run's cases run alone for its
	// latency sample (nil: the run has no sample).
	alone   map[string]bool
	ErrText string

	cursor int
	offset int
	// moved is set once the user moves the cursor during a run: until
	// then it stays on the first row while cases arrive.
	moved bool
}

// New is the eval view; defaultName names the set an empty path runs.
func New(keys *common.KeyMap, st *common.Styles, defaultName string) Model {
	placeholder := "path to a golden set (JSON or YAML)"
	if defaultName != "" {
		placeholder = "empty runs the " + termsafe.Line(defaultName) + "; or a path to a JSON/YAML set"
	}
	in := st.NewInput(placeholder, 4096)
	bar := newEvalBar(st)
	return Model{Keys: keys, st: st, Input: in, bar: bar, DefaultName: defaultName}
}

// Restyle applies the current styles to the input and the bar.
func (p *Model) Restyle() {
	p.Input.SetStyles(p.st.TextInput())
	p.bar = newEvalBar(p.st)
}

// newEvalBar is the run's progress bar: full blocks in the accent colour.
func newEvalBar(st *common.Styles) progress.Model {
	return progress.New(progress.WithColors(st.ProgressFill), progress.WithoutPercentage(),
		progress.WithFillCharacters(progress.DefaultFullCharFullBlock, progress.DefaultEmptyCharBlock))
}

// Path is the set's path as typed.
func (p *Model) Path() string { return strings.TrimSpace(p.Input.Value()) }

// SetSize sets the pane's outer size.
func (p *Model) SetSize(w, h int) {
	p.width, p.height = w, h
	iw, _ := common.InnerSize(p.st.Pane, w, h)
	p.Input.SetWidth(max(iw-lipgloss.Width(pathLabel)-1, 1))
	p.scrollToCursor()
}

const pathLabel = "Set › "

// Start clears the last run for a new one, searched with set; ignored
// names the explorer settings the run does not apply.
func (p *Model) Start(label string, set Settings, ignored []string) {
	p.Running = true
	p.settings, p.ignored = set, ignored
	p.Done, p.Total = 0, 0
	p.Cases = nil
	p.summary, p.unlabelled = eval.Summary{}, 0
	p.Report = nil
	p.Label = label
	p.ErrText = ""
	p.cursor, p.offset = 0, 0
	p.moved = false
}

// Progress records how many cases finished.
func (p *Model) Progress(done, total int) { p.Done, p.Total = done, total }

// AddCase inserts a finished case in set order and refreshes the running
// summary.
func (p *Model) AddCase(c eval.CaseResult) {
	i := sort.Search(len(p.Cases), func(i int) bool { return p.Cases[i].Index >= c.Index })
	if i < len(p.Cases) && p.Cases[i].Index == c.Index {
		p.Cases[i] = c
	} else {
		p.Cases = append(p.Cases, eval.CaseResult{})
		copy(p.Cases[i+1:], p.Cases[i:])
		p.Cases[i] = c
		if p.moved && i <= p.cursor && len(p.Cases) > 1 {
			// Keep the cursor on the case the user put it on.
			p.cursor++
		}
	}
	p.summary, p.unlabelled = eval.Summarize(p.Cases), eval.UnlabelledRan(p.Cases)
	p.scrollToCursor()
}

// Finish ends the run with its report (nil when it failed) and an error
// text for the pane ("" when it passed or was merely cancelled).
func (p *Model) Finish(rep *eval.Report, errText string) {
	p.Running = false
	p.ErrText = errText
	if rep == nil {
		return
	}
	if len(rep.Cases) > 0 {
		id := ""
		if c, ok := p.Selected(); ok && p.moved {
			id = c.ID
		}
		p.Cases = append([]eval.CaseResult(nil), rep.Cases...)
		p.cursor = 0
		for i, c := range p.Cases {
			if c.ID == id {
				p.cursor = i
			}
		}
		p.summary = eval.Summarize(p.Cases)
	}
	p.Report = rep
	p.alone = nil
	if ls := rep.LatencySample; ls != nil {
		p.alone = make(map[string]bool, len(ls.IDs))
		for _, id := range ls.IDs {
			p.alone[id] = true
		}
	}
	p.summary, p.unlabelled = rep.Summary, eval.UnlabelledRan(p.Cases)
	if rep.Set != "" {
		p.Label = rep.Set
	}
	p.Done, p.Total = len(rep.Cases), len(rep.Cases)
	p.scrollToCursor()
}

// sample is the finished run's latency sample, nil without one.
func (p *Model) sample() *eval.LatencySample {
	if p.Report == nil {
		return nil
	}
	return p.Report.LatencySample
}

// ranAlone tells whether case id's latency is its own: it ran alone for
// the latency sample, or the run had no sample (no batch to share). A
// batched case's is its batch's search and is not shown.
func (p *Model) ranAlone(id string) bool {
	if p.Running || p.Report == nil {
		return false
	}
	return p.alone == nil || p.alone[id]
}

// Selected is the case under the cursor.
func (p *Model) Selected() (eval.CaseResult, bool) {
	if p.cursor < 0 || p.cursor >= len(p.Cases) {
		return eval.CaseResult{}, false
	}
	return p.Cases[p.cursor], true
}

// Focus gives the keyboard to the path input (input) or the case list.
func (p *Model) Focus(input bool) tea.Cmd {
	p.inputFocus, p.listFocus = input, !input
	if input {
		return p.Input.Focus()
	}
	p.Input.Blur()
	return nil
}

// Blur takes the keyboard away.
func (p *Model) Blur() {
	p.inputFocus, p.listFocus = false, false
	p.Input.Blur()
}

// ListRows is the number of case rows that fit.
func (p *Model) ListRows() int {
	_, ih := common.InnerSize(p.st.Pane, p.width, p.height)
	// Title, path, progress or summary, verdict, table header, and the
	// three lines about the selected case under a rule.
	return max(ih-5-4, 1)
}

func (p *Model) scrollToCursor() {
	rows := p.ListRows()
	p.offset = max(min(common.OffsetShowing(p.cursor, p.offset, rows), len(p.Cases)-rows), 0)
}

// Update edits the path or moves the cursor in the case list.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok || p.inputFocus {
		var cmd tea.Cmd
		p.Input, cmd = p.Input.Update(msg)
		return cmd
	}
	if !p.listFocus || len(p.Cases) == 0 {
		return nil
	}
	p.cursor = common.MoveCursor(p.Keys, km, p.cursor, len(p.Cases), p.ListRows())
	p.moved = true
	p.scrollToCursor()
	return nil
}

// View draws the pane.
func (p *Model) View() string {
	style, tstyle := p.st.Frame(p.inputFocus || p.listFocus)
	iw, _ := common.InnerSize(style, p.width, p.height)
	var b strings.Builder
	b.WriteString(tstyle.Render(common.Truncate(p.title(), iw)) + "\n")
	_, label := p.st.Frame(p.inputFocus)
	b.WriteString(common.Truncate(label.Render(pathLabel)+p.Input.View(), iw) + "\n")
	// Before any run the two lines are empty: the hint moves up.
	for _, l := range []string{p.progressLine(iw), p.verdictLine()} {
		if l != "" || len(p.Cases) > 0 {
			b.WriteString(common.Truncate(l, iw) + "\n")
		}
	}
	if len(p.Cases) == 0 {
		msg := "Press enter to run the set. Each case shows whether a relevant chunk came back and at which rank, with the run's hit@1, hit@k, MRR and p95 latency; enter on a case then opens it as a normal query."
		switch {
		case p.Running:
			msg = "Cases show here as they finish."
		case p.ErrText != "":
			msg = "Fix the path and press enter to try again."
		}
		b.WriteString("\n" + p.st.Meta.Render(common.WrapText(msg, iw)))
		return common.Box(style, p.width, p.height, b.String())
	}
	cols := p.columns(iw)
	b.WriteString(p.st.Label.Render(common.Truncate("  "+cols.header(), iw)) + "\n")
	rows := p.ListRows()
	end := min(p.offset+rows, len(p.Cases))
	for i := p.offset; i < end; i++ {
		b.WriteString(p.renderRow(&p.Cases[i], i == p.cursor, cols, iw) + "\n")
	}
	b.WriteString(p.st.Rule.Render(common.HintRule(common.MoreHint(p.offset, len(p.Cases)-end), iw)) + "\n")
	b.WriteString(p.caseDetail(iw))
	return common.Box(style, p.width, p.height, strings.TrimRight(b.String(), "\n"))
}

func (p *Model) title() string {
	s := "Eval"
	if p.Label == "" && !p.Running {
		return s + " · run a golden question set"
	}
	if p.Label != "" {
		s += " · " + termsafe.Line(p.Label)
	}
	if n := max(p.Total, len(p.Cases)); n > 0 {
		s += " · " + strconv.Itoa(n) + " " + present.Plural(n, "case", "cases")
	}
	s += " · " + p.settings.Text()
	if len(p.ignored) > 0 {
		s += " · ignores " + strings.Join(p.ignored, ", ")
	}
	return s + " · enter on a case opens it as a query"
}

// progressLine is the bar while running, then the metrics of the run.
func (p *Model) progressLine(w int) string {
	if p.Running {
		count := " " + strconv.Itoa(p.Done) + "/" + strconv.Itoa(p.Total) + " "
		if p.Total == 0 {
			count = " loading… "
		}
		bar := p.bar
		bar.SetWidth(max(min(w-lipgloss.Width(count)-len("esc cancels"), 50), 10))
		pct := 0.0
		if p.Total > 0 {
			pct = float64(p.Done) / float64(p.Total)
		}
		return bar.ViewAs(pct) + p.st.Value.Render(count) + p.st.Meta.Render("esc cancels")
	}
	if len(p.Cases) == 0 {
		return ""
	}
	return p.st.Value.Render(summaryText(p.summary, p.sample(), p.unlabelled))
}

// summaryText is the run's key metrics on one line; sample is the run's
// latency sample (nil while it runs or when it has none).
// unlabelled is the number of unlabelled cases that ran, counted apart
// from the passes.
func summaryText(s eval.Summary, sample *eval.LatencySample, unlabelled int) string {
	parts := []string{}
	if s.RankingCases > 0 {
		parts = append(parts,
			"hit@1 "+present.Score(s.HitAt1, 2),
			"hit@k "+present.Score(s.HitAtK, 2),
			"MRR "+present.Score(s.MRR, 2))
	}
	if ls := sample; ls != nil && ls.Cases > 0 {
		// Only cases run alone have a latency of their own; a batched
		// case's is the whole batch's search.
		parts = append(parts, "p95 "+formatMS(ls.P95MS)+" ("+strconv.Itoa(ls.Cases)+" run alone)")
	} else if s.Latency.Cases > 0 && sample == nil {
		parts = append(parts, "p95 "+formatMS(s.Latency.P95MS))
	}
	parts = append(parts, strconv.Itoa(s.Passed-unlabelled)+" pass")
	if unlabelled > 0 {
		parts = append(parts, strconv.Itoa(unlabelled)+" unlabelled")
	}
	parts = append(parts, strconv.Itoa(s.Missed)+" miss", strconv.Itoa(s.Failed)+" fail")
	if s.Errors > 0 {
		parts = append(parts, strconv.Itoa(s.Errors)+" error")
	}
	return strings.Join(parts, " · ")
}

// verdictLine says whether the run passed and why not.
func (p *Model) verdictLine() string {
	switch {
	case p.ErrText != "":
		return p.st.StatusErr.Render("✗ " + p.ErrText)
	case p.Running:
		if len(p.Cases) > 0 {
			return p.st.Meta.Render("so far: " + summaryText(p.summary, &eval.LatencySample{}, p.unlabelled))
		}
		return ""
	case p.Report == nil:
		return ""
	}
	gaps := ""
	if u := p.Report.Unlabelled; u != nil {
		gaps = " · unlabelled: " + u.GapLine()
	}
	// What the run could not show (a store that refused Count).
	for _, n := range p.Report.Notes {
		gaps += " · note: " + termsafe.Line(n)
	}
	if p.Report.Passed {
		if p.Report.Summary.RankingCases == 0 && p.Report.Unlabelled != nil {
			return p.st.Meta.Render("NO LABELS · nothing to pass or fail" + gaps)
		}
		return p.st.Pass.Render("PASSED") + p.st.Meta.Render(" · thresholds met, no case failed"+gaps)
	}
	return p.st.Fail.Render("FAILED") + p.st.Meta.Render(" · "+termsafe.Line(strings.Join(p.Report.Reasons, "; "))+gaps)
}

// columns are the widths of the case table's columns.
type columns struct{ id, cat int }

const (
	statusW = 6
	hitW    = 5
	rankW   = 9
	latW    = 9
)

func (p *Model) columns(w int) columns {
	id, cat := len("ID"), len("CATEGORY")
	for i := range p.Cases {
		id = max(id, lipgloss.Width(termsafe.Line(p.Cases[i].ID)))
		cat = max(cat, lipgloss.Width(termsafe.Line(p.Cases[i].Category)))
	}
	fixed := 2 + statusW + hitW + rankW + latW + 5
	room := max(w-fixed, 12)
	cat = min(cat, max(room/3, 8))
	id = min(id, max(room-cat, 4))
	return columns{id: id, cat: cat}
}

func (c columns) header() string {
	return padCell("ID", c.id) + " " + padCell("CATEGORY", c.cat) + " " +
		padCell("RESULT", statusW) + " " + padCell("HIT@K", hitW) + " " +
		padCell("RANK", rankW) + " " + common.LeftPad("LATENCY", latW)
}

func (p *Model) renderRow(c *eval.CaseResult, selected bool, cols columns, w int) string {
	mark := "  "
	if selected {
		mark = p.st.Cursor.Render("▌ ")
	}
	hit, rank := "-", caseKindLabel(c.Kind)
	if c.Kind == eval.KindRanking {
		hit, rank = "no", "miss"
		if c.HitAtK {
			hit = "yes"
		}
		if c.FirstRelevantRank > 0 {
			rank = "#" + strconv.Itoa(c.FirstRelevantRank)
		}
	}
	status, statusStyle := strings.ToUpper(c.Status.String()), p.statusStyle(c.Status)
	if c.Kind == eval.KindUnlabelled && c.Status == eval.StatusPass {
		// No expectation: nothing passed. The rank column shows its best
		// score, in the miss colour when it is a content gap.
		status, statusStyle = "—", p.st.Meta
		rank = "none"
		if h, ok := c.BestHit(); ok {
			rank = "best " + present.Score(h.Score, 2)
		}
		if p.isGap(c) {
			rank = p.st.Miss.Render(padCell(rank, rankW))
		}
	}
	lat := "-"
	switch {
	case c.Status == eval.StatusError:
	case p.ranAlone(c.ID):
		lat = formatMS(c.Latency.TotalMS)
	default:
		lat = "batched"
	}
	id := padCell(termsafe.Line(c.ID), cols.id)
	if selected {
		id = p.st.Title.Render(id)
	}
	line := mark + id + " " +
		p.st.Meta.Render(padCell(termsafe.Line(orDash(c.Category)), cols.cat)) + " " +
		statusStyle.Render(padCell(status, statusW)) + " " +
		padCell(hit, hitW) + " " + padCell(rank, rankW) + " " + p.st.Meta.Render(common.LeftPad(lat, latW))
	return common.Truncate(line, w)
}

// caseDetail is the question and the outcome of the case under the cursor.
func (p *Model) caseDetail(w int) string {
	c, ok := p.Selected()
	if !ok {
		return ""
	}
	q := p.st.Label.Render("question ") + p.st.Value.Render(termsafe.Line(c.Question))
	var why string
	switch {
	case c.Error != "":
		why = p.st.StatusErr.Render(termsafe.Line(c.Error))
	case len(c.Reasons) > 0:
		why = p.statusStyle(c.Status).Render(termsafe.Line(strings.Join(c.Reasons, "; ")))
	case c.Kind == eval.KindRanking:
		why = p.st.Meta.Render("first relevant hit at rank " + strconv.Itoa(c.FirstRelevantRank) +
			" · RR " + present.Score(c.ReciprocalRank, 2) + " · nDCG " + present.Score(c.NDCG, 2) + " · recall " + present.Score(c.Recall, 2))
	case c.Kind == eval.KindUnlabelled:
		why = p.st.Meta.Render("unlabelled: no expectation, so no pass or fail · mark its hits (m, M) and save (S) to label it")
		if p.isGap(&c) {
			why = p.st.Miss.Render("content gap: its best hit is below the threshold · ") + why
		}
	default:
		why = p.st.Meta.Render(caseKindLabel(c.Kind) + " case passed")
	}
	if l := c.Labels; l != nil && l.Note != "" {
		// The note first: the line is cut at the pane's width.
		why = p.st.Miss.Render(termsafe.Line(l.Note)+" · ") + why
	}
	top := "-"
	if c.TopScore != nil {
		top = present.Score(*c.TopScore, 3)
	}
	meta := p.st.Meta.Render("top_k " + strconv.Itoa(c.Query.TopK) + " · threshold " + present.Score(c.Query.Threshold, 2) +
		" · filters " + present.Filters(c.Query.Filters) + " · top score " + top)
	return common.Truncate(q, w) + "\n" + common.Truncate(why, w) + "\n" + common.Truncate(meta, w)
}

func (p *Model) statusStyle(s eval.Status) lipgloss.Style {
	switch s {
	case eval.StatusPass:
		return p.st.Pass
	case eval.StatusMiss:
		return p.st.Miss
	}
	return p.st.Fail
}

// isGap reports whether the finished run counts c as a content gap: an
// unlabelled case that found nothing, or whose best hit is below the
// threshold the report counted gaps with.
func (p *Model) isGap(c *eval.CaseResult) bool {
	if p.Report == nil || p.Report.Unlabelled == nil || c.Kind != eval.KindUnlabelled {
		return false
	}
	h, ok := c.BestHit()
	if !ok {
		return true
	}
	t := p.Report.Unlabelled.Threshold
	return t != nil && h.Score < *t
}

// caseKindLabel names a kind for the rank column of a case without ranks.
func caseKindLabel(k eval.Kind) string {
	switch k {
	case eval.KindNoAnswer:
		return "no-answer"
	case eval.KindSelectedText:
		return "selection"
	case eval.KindKeywords:
		return "keywords"
	}
	return "-"
}

// padCell fits plain text s to exactly n cells: cut with an ellipsis or
// padded with spaces.
func padCell(s string, n int) string {
	s = common.Truncate(s, n)
	return s + strings.Repeat(" ", max(n-lipgloss.Width(s), 0))
}

func formatMS(ms float64) string {
	if ms >= 1000 {
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// SetDefault names the golden set an empty path runs, once it is known.
func (p *Model) SetDefault(name string) {
	fresh := New(p.Keys, p.st, name)
	p.DefaultName = name
	p.Input.Placeholder = fresh.Input.Placeholder
}
