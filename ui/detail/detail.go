package detail

import (
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// Model shows the selected chunk: its metadata, citation and text
// rendered as markdown. Rendering happens in a command and is cached per
// chunk and width; View only draws.
type Model struct {
	common.Base
	Viewport viewport.Model

	Item  common.Item
	Has   bool
	Cache map[common.RenderKey]string
	// links is the model's link-state map (shared, read-only here).
	links map[string]common.LinkStatus

	// search is the lower-case text searched for ("" when none);
	// matchAt the content line of the match shown.
	Search  string
	MatchAt int
}

// New is the detail pane; links are the link states the explorer knows.
func New(keys *common.KeyMap, st *common.Styles, links map[string]common.LinkStatus) Model {
	return Model{Base: common.Base{Keys: keys, Styles: st}, Viewport: viewport.New(), Cache: map[common.RenderKey]string{}, links: links}
}

// LinkChanged redraws the metadata when url is the shown citation's link.
func (p *Model) LinkChanged(url string) {
	if p.Has && url != "" && p.Item.Hit.Citation.URL == url {
		p.refresh(false)
	}
}

// textWidth is the width chunk text is rendered at.
func (p *Model) textWidth() int {
	iw, _ := common.InnerSize(p.Styles.Pane, p.Width, p.Height)
	return max(iw, 10)
}

// Key is what the text on show was rendered for.
func (p *Model) Key() common.RenderKey {
	c := &p.Item.Hit.Chunk
	return common.RenderKey{ID: c.ID, Hash: c.ContentHash, Len: len(c.Text), Width: p.textWidth(), Style: p.Styles.Glamour}
}

// SetSize sets the outer size and re-renders for a new width.
func (p *Model) SetSize(w, h int) tea.Cmd {
	oldW := p.textWidth()
	p.Width, p.Height = w, h
	common.FitViewport(&p.Viewport, p.Styles.Pane, w, h)
	if !p.Has {
		return nil
	}
	if oldW != p.textWidth() {
		return p.refresh(false)
	}
	return nil
}

// SetItem shows it (a zero item clears the pane).
func (p *Model) SetItem(it common.Item) tea.Cmd {
	if it.Hit.Chunk.ID == "" && it.Hit.Chunk.Text == "" {
		p.Has = false
		p.Viewport.SetContent("")
		return nil
	}
	same := p.Has && common.ItemKey(p.Item) == common.ItemKey(it) && p.Item.Hit.Chunk.Text == it.Hit.Chunk.Text
	p.Item, p.Has = it, true
	return p.refresh(!same)
}

// Restyle drops the renders of the old theme and renders the chunk again.
func (p *Model) Restyle() tea.Cmd {
	clear(p.Cache)
	if !p.Has {
		return nil
	}
	return p.refresh(false)
}

// refresh rebuilds the content from the cache, asking for a render when
// the chunk is not cached at this width.
func (p *Model) refresh(top bool) tea.Cmd {
	k := p.Key()
	body, ok := p.Cache[k]
	var cmd tea.Cmd
	if !ok {
		body = p.Styles.Meta.Render("rendering…")
		cmd = common.RenderCmd(k, termsafe.Text(p.Item.Hit.Chunk.Text))
	}
	common.SetContent(&p.Viewport, p.Metadata()+"\n"+body, top)
	return cmd
}

// Update handles rendered text and scrolling keys.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.RenderedMsg:
		p.Cache[msg.Key] = msg.Out
		if p.Has && msg.Key == p.Key() {
			return p.refresh(false)
		}
	case tea.KeyPressMsg:
		common.Scroll(&p.Viewport, p.Keys, msg)
	}
	return nil
}

// Metadata lists every field of the chunk; missing ones say so.
func (p *Model) Metadata() string {
	st := p.Styles
	w := p.textWidth()
	if wi := p.Item.WhatIf; wi != nil {
		return st.Highlight.Render(common.WrapText(present.WhatIfLine(*wi), w)) + "\n" + explainText(st, p.Item.Explain, w)
	}
	if e := p.Item.Expect; e != nil && p.Item.Pseudo {
		return expectMetadata(st, e, w) + explainText(st, p.Item.Explain, w)
	}
	// One Render per style, not per row: rows are the key-press budget.
	mw := &metaWriter{w: w, label: common.InkOf(st.Label), value: common.InkOf(st.Value), missing: st.Missing.Render("missing")}
	p.writeHead(mw)
	p.writeScores(mw)
	p.writeCitation(mw)
	writeChunk(mw, &p.Item.Hit.Chunk)
	mw.b.WriteString(st.Rule.Render(strings.Repeat("─", w)))
	return mw.b.String()
}

// metaWriter writes the metadata's label/value rows w cells wide.
type metaWriter struct {
	b            strings.Builder
	w            int
	label, value common.Ink
	missing      string
}

// row writes one row, its value cut to the width ("missing" when empty).
func (mw *metaWriter) row(k, v string) {
	k = common.PadRight(k, 12)
	if v == "" {
		mw.b.WriteString(mw.label.Paint(k) + mw.missing + "\n")
		return
	}
	mw.b.WriteString(mw.label.Paint(k) + mw.value.Paint(common.Truncate(termsafe.Line(v), max(mw.w-12, 4))) + "\n")
}

// lines writes a value of several lines, labelled on the first.
func (mw *metaWriter) lines(k string, lines []string) {
	for i, ln := range lines {
		if i > 0 {
			k = ""
		}
		mw.b.WriteString(mw.label.Paint(common.PadRight(k, 12)) + mw.value.Paint(ln) + "\n")
	}
}

// writeHead writes the title, the expected-source, left-out and mark
// notes and the explanation.
func (p *Model) writeHead(mw *metaWriter) {
	st, w, b := p.Styles, mw.w, &mw.b
	b.WriteString(st.Title.Render(common.WrapText(present.Title(&p.Item.Hit.Chunk), w)))
	b.WriteByte('\n')
	if e := p.Item.Expect; e != nil {
		b.WriteString(st.Highlight.Render(common.WrapText("◇ expected source "+termsafe.Line(e.Ref)+": "+termsafe.Line(e.Detail), w)) + "\n")
	}
	if p.Item.Dropped {
		b.WriteString(st.LinkWarn.Render("left out: "+p.Item.Label) + "\n")
	}
	switch p.Item.Mark {
	case common.MarkRelevant:
		b.WriteString(st.LinkOK.Render(common.WrapText("marked "+p.Item.Mark.String()+": S saves its page as expected (u clears)", w)) + "\n")
	case common.MarkNotRelevant:
		b.WriteString(st.LinkBad.Render(common.WrapText("marked "+p.Item.Mark.String()+": S saves its page as not relevant (u clears)", w)) + "\n")
	}
	b.WriteString(explainText(st, p.Item.Explain, w))
}

// writeScores writes the rank, the score and its parts, each arm of a
// fused search, the rerank movement and the judge's verdict.
func (p *Model) writeScores(mw *metaWriter) {
	h := &p.Item.Hit
	rank := strconv.Itoa(h.Rank)
	if p.Item.Dropped {
		rank = "–"
	}
	mw.row("rank", rank)
	mw.row("score", present.Score(h.Score, 4))
	if sp := h.ScoreParts; sp != nil {
		// A rank fusion (RRF, min-max) fuses the sides' places among the
		// candidates; a blend weighs their scores.
		label := "blended"
		if sp.Ranked {
			label = "fused"
		}
		mw.row(label, ScorePartsText(sp))
	}
	if arms := present.Arms(h.Arms, h.Rank, h.Score); arms != "" {
		mw.row("arms", arms)
	}
	rerankRows(&p.Item, mw.row)
	if s := judgeText(&p.Item); s != "" {
		mw.lines("judge", strings.Split(common.WrapText(s, max(mw.w-12, 10)), "\n"))
	}
}

// writeCitation writes the citation (never cut: it wraps), its anchor
// and source, and its link state with why it is broken and the right
// link, in full.
func (p *Model) writeCitation(mw *metaWriter) {
	h, st, w := &p.Item.Hit, p.Styles, mw.w
	if h.Citation.URL == "" {
		mw.row("citation", "")
	} else {
		mw.lines("citation", present.WrapURL(h.Citation.URL, max(w-12, 10)))
	}
	mw.row("anchor", present.Anchor(h))
	if h.Citation.Source != "" {
		mw.row("url from", h.Citation.Source)
	}
	ls, ok := p.links[h.Citation.URL]
	if !ok || h.Citation.URL == "" {
		return
	}
	text := common.LinkLabel(ls)
	if text == "" {
		text = "checking…"
	}
	style := st.Value
	if ls.State == common.LinkPageMissing || ls.State == common.LinkAnchorMissing {
		style = st.LinkWarn
	}
	mw.b.WriteString(mw.label.Paint(common.PadRight("link", 12)) + style.Render(text) + "\n")
	if ls.State == common.LinkOK {
		return
	}
	if ls.Detail != "" {
		mw.lines("why", strings.Split(common.WrapText(termsafe.Line(ls.Detail), max(w-12, 10)), "\n"))
	}
	if ls.Suggest != "" {
		mw.lines("right link", present.WrapURL(ls.Suggest, max(w-12, 10)))
	}
}

// writeChunk writes the chunk's place, payload fields and size.
func writeChunk(mw *metaWriter, c *retrieval.Chunk) {
	mw.row("doc path", c.DocPath)
	idx := ""
	if i, ok := c.Index(); ok {
		idx = strconv.Itoa(i)
		if c.TotalChunks != nil {
			idx += " (chunk " + strconv.Itoa(i+1) + " of " + strconv.Itoa(*c.TotalChunks) + ")"
		}
	}
	mw.row("chunk index", idx)
	mw.row("module", present.Module(c))
	mw.row("chapter", present.Chapter(c))
	mw.row("type", c.ContentType)
	mw.row("tags", strings.Join(c.Tags, ", "))
	if c.HeadingID != "" {
		// Most headings have no id of their own: their anchor is the
		// slug of their text (the anchor row says which).
		mw.row("heading id", c.HeadingID)
	}
	mw.row("breadcrumb", strings.Join(c.Breadcrumb, " › "))
	mw.row("id", c.ID)
	hash := c.ContentHash
	if len(hash) > 16 {
		hash = hash[:16] + "…"
	}
	mw.row("hash", hash)
	keys := make([]string, 0, len(c.Extra))
	for k := range c.Extra {
		if k != retrieval.ExtraModuleLabel && k != retrieval.ExtraChapterLabel { // shown with module and chapter
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		mw.row(k, c.Extra[k])
	}
	mw.row("characters", present.Int(len([]rune(c.Text))))
}

// View draws the pane.
func (p *Model) View() string {
	style, tstyle := p.Styles.Frame(p.Focused)
	iw, _ := common.InnerSize(style, p.Width, p.Height)
	title := "Detail"
	if p.Has {
		title += " · " + common.ScrollPercent(&p.Viewport)
	}
	content := tstyle.Render(common.Truncate(title, iw)) + "\n"
	if !p.Has {
		content += p.Styles.Meta.Render(common.WrapText("The selected result's full text, metadata and citation show here.", iw))
	} else {
		content += common.MarkMatches(p.Viewport.View(), p.Search, p.Styles)
	}
	return common.Box(style, p.Width, p.Height, content)
}

// ShortHelp implements pane.
func (p *Model) ShortHelp() []key.Binding {
	k := p.Keys
	return append([]key.Binding{k.Down, k.PageDown, k.Page, k.Search, k.CopyURL, k.OpenURL, common.LeaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane}, k.JudgeHelp()...)
}

// FullHelp implements pane: the marks and the save come first.
func (p *Model) FullHelp() [][]key.Binding { return common.MarkHelp(p.Keys) }

// MatchLines are the content lines of the detail that hold the search.
func (p *Model) MatchLines() []int {
	var hits []int
	for i, l := range strings.Split(ansi.Strip(p.Viewport.GetContent()), "\n") {
		if strings.Contains(strings.ToLower(l), p.Search) {
			hits = append(hits, i)
		}
	}
	return hits
}

// FindMatch scrolls the detail to the next line holding the search.
func (p *Model) FindMatch(dir int, from bool) (int, int) {
	hits := p.MatchLines()
	if len(hits) == 0 || !p.Has {
		return -1, 0
	}
	at := common.PickMatch(hits, p.MatchAt, dir, from)
	p.MatchAt = hits[at]
	if l := hits[at]; l < p.Viewport.YOffset() || l >= p.Viewport.YOffset()+p.Viewport.Height() {
		p.Viewport.SetYOffset(max(l-1, 0))
	}
	return at, len(hits)
}
