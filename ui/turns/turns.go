package turns

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// maxTurns bounds the turns kept in memory.
const maxTurns = 100

// Model lists the turns of the session and compares the one under the
// cursor with the turn on show.
type Model struct {
	common.Base

	// Turns are the session's turns, oldest first; Cursor is the one
	// under the cursor and At the one on show (-1: none).
	Turns  []common.Turn
	Cursor int
	At     int
	// PlainSearch is the default local search mode, which the turn list
	// does not tag ("": no modes).
	PlainSearch string
}

// New is the turn list, empty.
func New(keys *common.KeyMap, st *common.Styles) Model {
	return Model{Base: common.Base{Keys: keys, Styles: st}, At: -1}
}

// SetSize sets the outer size.
func (p *Model) SetSize(w, h int) tea.Cmd { p.Width, p.Height = w, h; return nil }

// Add appends a turn, makes it current and returns its index.
func (p *Model) Add(t common.Turn) int {
	p.Turns = append(p.Turns, t)
	if len(p.Turns) > maxTurns {
		p.Turns = p.Turns[len(p.Turns)-maxTurns:]
	}
	p.At = len(p.Turns) - 1
	// Keep the cursor on the previous turn, ready to compare.
	p.Cursor = max(p.At-1, 0)
	return p.At
}

// SetCurrent marks turn i as the one on show.
func (p *Model) SetCurrent(i int) {
	if i >= 0 && i < len(p.Turns) {
		p.At = i
	}
}

// Current is the turn on show (nil when none).
func (p *Model) Current() *common.Turn {
	if p.At >= 0 && p.At < len(p.Turns) {
		return &p.Turns[p.At]
	}
	return nil
}

// ByN is the turn numbered n (nil when it is gone).
func (p *Model) ByN(n int) *common.Turn {
	for i := range p.Turns {
		if p.Turns[i].N == n {
			return &p.Turns[i]
		}
	}
	return nil
}

// Remember records the selected row of the turn on show.
func (p *Model) Remember(selected string) {
	if p.At >= 0 && p.At < len(p.Turns) {
		p.Turns[p.At].Selected = selected
	}
}

// Update moves the cursor; enter shows the turn under it.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok || len(p.Turns) == 0 {
		return nil
	}
	switch {
	case key.Matches(km, p.Keys.Up):
		p.Cursor = max(p.Cursor-1, 0)
	case key.Matches(km, p.Keys.Down):
		p.Cursor = min(p.Cursor+1, len(p.Turns)-1)
	case key.Matches(km, p.Keys.Top):
		p.Cursor = 0
	case key.Matches(km, p.Keys.Bottom):
		p.Cursor = len(p.Turns) - 1
	case key.Matches(km, p.Keys.Open):
		i := p.Cursor
		return func() tea.Msg { return ShowMsg{Index: i} }
	}
	return nil
}

// compareRow is one line of a comparison between two results, by chunk.
type compareRow struct {
	// Rank and Score in the shown result (Rank 0: not in it).
	Rank  int
	Score float64
	// OldRank and OldScore in the compared result (OldRank 0: not in it).
	OldRank  int
	OldScore float64
	Title    string
}

// Change describes the move of a chunk from the compared to the shown result.
func (r compareRow) Change() string {
	switch {
	case r.OldRank == 0:
		return "new"
	case r.Rank == 0:
		return "gone"
	case r.OldRank > r.Rank:
		return "↑" + strconv.Itoa(r.OldRank-r.Rank)
	case r.OldRank < r.Rank:
		return "↓" + strconv.Itoa(r.Rank-r.OldRank)
	}
	return "="
}

// CompareResults lines up the kept hits of cur (shown) and old by chunk id:
// cur's hits in rank order, then old's hits that cur lost.
func CompareResults(old, cur retrieval.Result) []compareRow {
	oldBy := make(map[string]retrieval.Hit, len(old.Hits))
	for _, h := range old.Hits {
		if _, ok := oldBy[h.Chunk.ID]; !ok {
			oldBy[h.Chunk.ID] = h
		}
	}
	seen := map[string]bool{}
	var rows []compareRow
	for _, h := range cur.Hits {
		r := compareRow{Rank: h.Rank, Score: h.Score, Title: present.Title(&h.Chunk)}
		if o, ok := oldBy[h.Chunk.ID]; ok {
			r.OldRank, r.OldScore = o.Rank, o.Score
		}
		seen[h.Chunk.ID] = true
		rows = append(rows, r)
	}
	for _, h := range old.Hits {
		if !seen[h.Chunk.ID] {
			seen[h.Chunk.ID] = true
			rows = append(rows, compareRow{OldRank: h.Rank, OldScore: h.Score, Title: present.Title(&h.Chunk)})
		}
	}
	return rows
}

// ParamsDiff lists the settings that differ between two queries.
func ParamsDiff(a, b retrieval.Query) string {
	var parts []string
	if a.TopK != b.TopK {
		parts = append(parts, "top_k "+strconv.Itoa(a.TopK)+"→"+strconv.Itoa(b.TopK))
	}
	if a.Threshold != b.Threshold {
		parts = append(parts, "threshold "+present.Score(a.Threshold, 2)+"→"+present.Score(b.Threshold, 2))
	}
	if a.NoDedup != b.NoDedup {
		parts = append(parts, "dedup "+present.OnOff(!a.NoDedup)+"→"+present.OnOff(!b.NoDedup))
	}
	if fa, fb := present.Filters(a.Filters), present.Filters(b.Filters); fa != fb {
		parts = append(parts, "filters "+fa+"→"+fb)
	}
	parts = append(parts, rerankParamsDiff(a, b)...)
	if d := searchModeDiff(a, b); d != "" {
		parts = append(parts, d)
	}
	if a.Mode != b.Mode {
		parts = append(parts, "mode "+string(a.Mode)+"→"+string(b.Mode))
	} else if a.Mode == retrieval.ModeSelectedText {
		parts = append(parts, sourceDiff(a, b)...)
	}
	if len(parts) == 0 {
		return "same settings"
	}
	return strings.Join(parts, " · ")
}

// sourceDiff says how two selected-text queries' sources differ: the
// doc, the section and the selected text itself.
func sourceDiff(a, b retrieval.Query) []string {
	var parts []string
	orNone := func(s string) string {
		if s = termsafe.Line(s); s == "" {
			return "none"
		}
		return s
	}
	if a.SourceDocPath != b.SourceDocPath {
		parts = append(parts, "source doc "+orNone(a.SourceDocPath)+"→"+orNone(b.SourceDocPath))
	}
	if a.SourceSection != b.SourceSection {
		parts = append(parts, "source section "+orNone(a.SourceSection)+"→"+orNone(b.SourceSection))
	}
	if a.SelectedText != b.SelectedText {
		na, nb := utf8.RuneCountInString(a.SelectedText), utf8.RuneCountInString(b.SelectedText)
		parts = append(parts, "selected text differs ("+present.Int(na)+"→"+present.Int(nb)+" chars)")
	}
	return parts
}

// TurnLine is t's line in the list: its number, tags and question.
func TurnLine(t *common.Turn, plainSearch string) string {
	best := "—"
	if len(t.Result.Hits) > 0 {
		best = present.Score(t.Result.Hits[0].Score, 3)
	}
	mode := ""
	if t.Query.Mode == retrieval.ModeSelectedText {
		mode = "[selection] "
	}
	mode += searchModeTag(t.Query.SearchMode, plainSearch)
	mode += RerankTag(&t.Result)
	return "#" + strconv.Itoa(t.N) + " " + mode + termsafe.Line(t.Query.Question) + " · " +
		strconv.Itoa(len(t.Result.Hits)) + " " + present.Plural(len(t.Result.Hits), "hit", "hits") + judgeTag(t) + " · best " + best
}

// compareLine lays out one line of the turn comparison: the ranks (3
// cells, right-aligned), the scores (5), the move (5, already padded) and
// the chunk. The column titles go through it too, so they stand over
// their values.
func compareLine(now, nowScore, was, wasScore, move, chunk string) string {
	return common.LeftPad(now, 3) + "  " + common.LeftPad(nowScore, 5) + "  " + common.LeftPad(was, 3) + "  " + common.LeftPad(wasScore, 5) + "  " + move + " " + chunk
}

// View draws the pane.
func (p *Model) View() string {
	style, tstyle := p.Styles.Frame(p.Focused)
	iw, ih := common.InnerSize(style, p.Width, p.Height)
	var b strings.Builder
	b.WriteString(tstyle.Render(common.Truncate("Turns · enter shows the turn under the cursor; ● is on show", iw)) + "\n")
	if len(p.Turns) == 0 {
		b.WriteString(p.Styles.Meta.Render(common.WrapText("Each question and its result becomes a turn. Ask two questions, then compare them here.", iw)))
		return common.Box(style, p.Width, p.Height, b.String())
	}
	listH := min(len(p.Turns), max(ih/3, 3))
	start := 0
	if p.Cursor >= listH {
		start = p.Cursor - listH + 1
	}
	for i := start; i < min(start+listH, len(p.Turns)); i++ {
		mark := "  "
		if i == p.Cursor {
			mark = p.Styles.Cursor.Render("▌ ")
		}
		dot := "  "
		if i == p.At {
			dot = p.Styles.Highlight.Render("● ")
		}
		line := TurnLine(&p.Turns[i], p.PlainSearch)
		if i == p.Cursor {
			line = p.Styles.Title.Render(line)
		}
		b.WriteString(common.Truncate(mark+dot+line, iw) + "\n")
	}
	if hint := common.MoreHint(start, len(p.Turns)-min(start+listH, len(p.Turns))); hint != "" {
		b.WriteString(p.Styles.Meta.Render(common.Truncate("  "+hint, iw)) + "\n")
	}
	if p.Cursor != p.At && p.At >= 0 && p.Cursor < len(p.Turns) {
		old, cur := &p.Turns[p.Cursor], &p.Turns[p.At]
		b.WriteString(p.Styles.Rule.Render(strings.Repeat("─", iw)) + "\n")
		b.WriteString(p.Styles.Section.Render(common.Truncate("#"+strconv.Itoa(cur.N)+" (on show) against #"+strconv.Itoa(old.N), iw)) + "\n")
		if old.Query.Question != cur.Query.Question {
			b.WriteString(p.Styles.Meta.Render(common.Truncate("questions differ: "+termsafe.Line(old.Query.Question)+" → "+termsafe.Line(cur.Query.Question), iw)) + "\n")
		}
		b.WriteString(p.Styles.Meta.Render(common.Truncate(ParamsDiff(old.Query, cur.Query), iw)) + "\n")
		if s := rerankCompare(&old.Result, &cur.Result); s != "" {
			b.WriteString(p.Styles.Meta.Render(common.Truncate(s, iw)) + "\n")
		}
		for _, line := range expectCompare(old, cur) {
			b.WriteString(p.Styles.Highlight.Render(common.WrapText(line, iw)) + "\n")
		}
		b.WriteString(answerCompare(cur, old, iw))
		b.WriteString(p.Styles.Label.Render(common.Truncate(compareLine("now", "score", "was", "score", common.PadRight("move", 5), "chunk"), iw)) + "\n")
		for _, r := range CompareResults(old.Result, cur.Result) {
			now, nowS, was, wasS := "  -", "     ", "  -", "     "
			if r.Rank > 0 {
				now, nowS = common.LeftPad(strconv.Itoa(r.Rank), 3), present.Score(r.Score, 3)
			}
			if r.OldRank > 0 {
				was, wasS = common.LeftPad(strconv.Itoa(r.OldRank), 3), present.Score(r.OldScore, 3)
			}
			ch := r.Change()
			chStyle := p.Styles.Meta
			switch {
			case ch == "new" || strings.HasPrefix(ch, "↑"):
				chStyle = p.Styles.Added
			case ch == "gone" || strings.HasPrefix(ch, "↓"):
				chStyle = p.Styles.Removed
			}
			b.WriteString(common.Truncate(compareLine(now, nowS, was, wasS, chStyle.Render(common.PadRight(ch, 5)), r.Title), iw) + "\n")
		}
	} else if len(p.Turns) > 1 {
		b.WriteString(p.Styles.Meta.Render(common.WrapText("Move the cursor (j/k) to an earlier turn to compare it with the one on show.", iw)))
	}
	return common.Box(style, p.Width, p.Height, strings.TrimRight(b.String(), "\n"))
}

// ShortHelp implements pane.
func (p *Model) ShortHelp() []key.Binding {
	k := p.Keys
	return []key.Binding{k.Down, common.OpenHelp(k, "show turn"), common.RunHelp(k.Rerank, "r", "rerank on/off: a new turn to compare"), common.LeaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *Model) FullHelp() [][]key.Binding { return nil }

// ShowMsg asks the root to show an earlier turn.
type ShowMsg struct{ Index int }
