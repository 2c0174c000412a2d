package ui

import (
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// detailPane shows the selected chunk: its metadata, citation and text
// rendered as markdown. Rendering happens in a command and is cached per
// chunk and width; View only draws.
type detailPane struct {
	common.Base
	vp viewport.Model

	item  common.Item
	has   bool
	cache map[common.RenderKey]string
	// links is the model's link-state map (shared, read-only here).
	links map[string]common.LinkStatus

	// search is the lower-case text searched for ("" when none);
	// matchAt the content line of the match shown.
	search  string
	matchAt int
}

func newDetailPane(keys *common.KeyMap, st *common.Styles, links map[string]common.LinkStatus) detailPane {
	return detailPane{Base: common.Base{Keys: keys, Styles: st}, vp: viewport.New(), cache: map[common.RenderKey]string{}, links: links}
}

// LinkChanged redraws the metadata when url is the shown citation's link.
func (p *detailPane) LinkChanged(url string) {
	if p.has && url != "" && p.item.Hit.Citation.URL == url {
		p.refresh(false)
	}
}

// textWidth is the width chunk text is rendered at.
func (p *detailPane) textWidth() int {
	iw, _ := common.InnerSize(p.Styles.Pane, p.Width, p.Height)
	return max(iw, 10)
}

func (p *detailPane) key() common.RenderKey {
	c := &p.item.Hit.Chunk
	return common.RenderKey{ID: c.ID, Hash: c.ContentHash, Len: len(c.Text), Width: p.textWidth(), Style: p.Styles.Glamour}
}

// SetSize sets the outer size and re-renders for a new width.
func (p *detailPane) SetSize(w, h int) tea.Cmd {
	oldW := p.textWidth()
	p.Width, p.Height = w, h
	common.FitViewport(&p.vp, p.Styles.Pane, w, h)
	if !p.has {
		return nil
	}
	if oldW != p.textWidth() {
		return p.refresh(false)
	}
	return nil
}

// SetItem shows it (a zero item clears the pane).
func (p *detailPane) SetItem(it common.Item) tea.Cmd {
	if it.Hit.Chunk.ID == "" && it.Hit.Chunk.Text == "" {
		p.has = false
		p.vp.SetContent("")
		return nil
	}
	same := p.has && common.ItemKey(p.item) == common.ItemKey(it) && p.item.Hit.Chunk.Text == it.Hit.Chunk.Text
	p.item, p.has = it, true
	return p.refresh(!same)
}

// Restyle drops the renders of the old theme and renders the chunk again.
func (p *detailPane) Restyle() tea.Cmd {
	clear(p.cache)
	if !p.has {
		return nil
	}
	return p.refresh(false)
}

// refresh rebuilds the content from the cache, asking for a render when
// the chunk is not cached at this width.
func (p *detailPane) refresh(top bool) tea.Cmd {
	k := p.key()
	body, ok := p.cache[k]
	var cmd tea.Cmd
	if !ok {
		body = p.Styles.Meta.Render("rendering…")
		cmd = common.RenderCmd(k, termsafe.Text(p.item.Hit.Chunk.Text))
	}
	common.SetContent(&p.vp, p.metadata()+"\n"+body, top)
	return cmd
}

// Update handles rendered text and scrolling keys.
func (p *detailPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.RenderedMsg:
		p.cache[msg.Key] = msg.Out
		if p.has && msg.Key == p.key() {
			return p.refresh(false)
		}
	case tea.KeyPressMsg:
		common.Scroll(&p.vp, p.Keys, msg)
	}
	return nil
}

// metadata lists every field of the chunk; missing ones say so.
func (p *detailPane) metadata() string {
	st := p.Styles
	h := &p.item.Hit
	c := &h.Chunk
	w := p.textWidth()
	// One Render per style, not per row: rows are the key-press budget.
	label, value, missing := common.InkOf(st.Label), common.InkOf(st.Value), st.Missing.Render("missing")
	var b strings.Builder
	if wi := p.item.WhatIf; wi != nil {
		return st.Highlight.Render(common.WrapText(present.WhatIfLine(*wi), w)) + "\n" + explainText(st, p.item.Explain, w)
	}
	if e := p.item.Expect; e != nil && p.item.Pseudo {
		return expectMetadata(st, e, w) + explainText(st, p.item.Explain, w)
	}
	b.WriteString(st.Title.Render(common.WrapText(present.Title(c), w)))
	b.WriteByte('\n')
	if e := p.item.Expect; e != nil {
		b.WriteString(st.Highlight.Render(common.WrapText("◇ expected source "+termsafe.Line(e.Ref)+": "+termsafe.Line(e.Detail), w)) + "\n")
	}
	if p.item.Dropped {
		b.WriteString(st.LinkWarn.Render("left out: "+p.item.Label) + "\n")
	}
	switch p.item.Mark {
	case common.MarkRelevant:
		b.WriteString(st.LinkOK.Render(common.WrapText("marked "+p.item.Mark.String()+": S saves its page as expected (u clears)", w)) + "\n")
	case common.MarkNotRelevant:
		b.WriteString(st.LinkBad.Render(common.WrapText("marked "+p.item.Mark.String()+": S saves its page as not relevant (u clears)", w)) + "\n")
	}
	b.WriteString(explainText(st, p.item.Explain, w))
	row := func(k, v string) {
		k = common.PadRight(k, 12)
		if v == "" {
			b.WriteString(label.Paint(k) + missing + "\n")
			return
		}
		b.WriteString(label.Paint(k) + value.Paint(common.Truncate(termsafe.Line(v), max(w-12, 4))) + "\n")
	}
	rank := strconv.Itoa(h.Rank)
	if p.item.Dropped {
		rank = "–"
	}
	row("rank", rank)
	row("score", present.Score(h.Score, 4))
	if sp := h.ScoreParts; sp != nil {
		row("blended", scorePartsText(sp))
	}
	if arms := present.Arms(h.Arms, h.Rank, h.Score); arms != "" {
		row("arms", arms)
	}
	rerankRows(&p.item, row)
	if s := judgeText(&p.item); s != "" {
		for i, ln := range strings.Split(common.WrapText(s, max(w-12, 10)), "\n") {
			k := ""
			if i == 0 {
				k = "judge"
			}
			b.WriteString(label.Paint(common.PadRight(k, 12)) + value.Paint(ln) + "\n")
		}
	}
	if h.Citation.URL == "" {
		row("citation", "")
	} else {
		// The citation is never cut: it wraps (present.WrapURL).
		for i, ln := range present.WrapURL(h.Citation.URL, max(w-12, 10)) {
			k := ""
			if i == 0 {
				k = "citation"
			}
			b.WriteString(label.Paint(common.PadRight(k, 12)) + value.Paint(ln) + "\n")
		}
	}
	row("anchor", present.Anchor(h))
	if h.Citation.Source != "" {
		row("url from", h.Citation.Source)
	}
	if ls, ok := p.links[h.Citation.URL]; ok && h.Citation.URL != "" {
		text := common.LinkLabel(ls)
		if text == "" {
			text = "checking…"
		}
		style := st.Value
		if ls.State == common.LinkPageMissing || ls.State == common.LinkAnchorMissing {
			style = st.LinkWarn
		}
		b.WriteString(label.Paint(common.PadRight("link", 12)) + style.Render(text) + "\n")
		// Why a link is broken and where it should point, in full.
		wrapped := func(k, v string, url bool) {
			if v == "" {
				return
			}
			lines := strings.Split(common.WrapText(termsafe.Line(v), max(w-12, 10)), "\n")
			if url {
				lines = present.WrapURL(v, max(w-12, 10))
			}
			for i, ln := range lines {
				if i > 0 {
					k = ""
				}
				b.WriteString(label.Paint(common.PadRight(k, 12)) + value.Paint(ln) + "\n")
			}
		}
		if ls.State != common.LinkOK {
			wrapped("why", ls.Detail, false)
			wrapped("right link", ls.Suggest, true)
		}
	}
	row("doc path", c.DocPath)
	idx := ""
	if i, ok := c.Index(); ok {
		idx = strconv.Itoa(i)
		if c.TotalChunks != nil {
			idx += " (chunk " + strconv.Itoa(i+1) + " of " + strconv.Itoa(*c.TotalChunks) + ")"
		}
	}
	row("chunk index", idx)
	row("module", present.Module(c))
	row("chapter", present.Chapter(c))
	row("type", c.ContentType)
	row("tags", strings.Join(c.Tags, ", "))
	if c.HeadingID != "" {
		// Most headings have no id of their own: their anchor is the
		// slug of their text (the anchor row says which).
		row("heading id", c.HeadingID)
	}
	row("breadcrumb", strings.Join(c.Breadcrumb, " › "))
	row("id", c.ID)
	hash := c.ContentHash
	if len(hash) > 16 {
		hash = hash[:16] + "…"
	}
	row("hash", hash)
	keys := make([]string, 0, len(c.Extra))
	for k := range c.Extra {
		if k != retrieval.ExtraModuleLabel && k != retrieval.ExtraChapterLabel { // shown with module and chapter
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		row(k, c.Extra[k])
	}
	row("characters", present.Int(len([]rune(c.Text))))
	b.WriteString(st.Rule.Render(strings.Repeat("─", w)))
	return b.String()
}

// View draws the pane.
func (p *detailPane) View() string {
	style, tstyle := p.Styles.Frame(p.Focused)
	iw, _ := common.InnerSize(style, p.Width, p.Height)
	title := "Detail"
	if p.has {
		title += " · " + common.ScrollPercent(&p.vp)
	}
	content := tstyle.Render(common.Truncate(title, iw)) + "\n"
	if !p.has {
		content += p.Styles.Meta.Render(common.WrapText("The selected result's full text, metadata and citation show here.", iw))
	} else {
		content += common.MarkMatches(p.vp.View(), p.search, p.Styles)
	}
	return common.Box(style, p.Width, p.Height, content)
}

// ShortHelp implements pane.
func (p *detailPane) ShortHelp() []key.Binding {
	k := p.Keys
	return append([]key.Binding{k.Down, k.PageDown, k.Page, k.Search, k.CopyURL, k.OpenURL, common.LeaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane}, k.JudgeHelp()...)
}

// FullHelp implements pane: the marks and the save come first.
func (p *detailPane) FullHelp() [][]key.Binding { return common.MarkHelp(p.Keys) }
