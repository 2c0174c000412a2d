package ui

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// The page view lists the chunks of the page a hit came from, in reading
// order, with their sizes, the embedding model's cut and the hit marked
// (issue 33, point 2).

// pageItemLines is the height of one chunk in the page view's list.
const pageItemLines = 3

// pagePreview bounds the bytes of a chunk's start and end kept for its
// two preview lines (a line shows far less).
const pagePreview = 400

// pageChunk is one chunk of the page view, measured once when the page
// arrives.
type pageChunk struct {
	// index is the chunk index ("?" when unknown).
	index string
	id    string
	hit   bool
	// section is the heading the chunk sits under, sanitised.
	section string
	tokens  int
	chars   int
	// unseen is the tokens past the model's limit (0: none).
	unseen int
	// seen and rest are the chunk's text (sanitised) before and after the
	// model's cut.
	seen, rest string
	// head and tail are one-line previews of the text's start and end;
	// restHead is that of the part the model never read.
	head, tail, restHead string
}

// pageMsg carries a page's chunks to the page view.
type pageMsg struct {
	Seq     int
	DocPath string
	Chunks  []retrieval.Chunk
	Err     error
}

// pageView is the page a hit came from: its chunks in reading order.
type pageView struct {
	common.Base

	// request is the listing in flight.
	common.Request

	docPath string
	title   string
	hitID   string
	limit   chunkaudit.Limit
	err     error
	chunks  []pageChunk
	// tokens, over and unseen total the page.
	tokens, over, unseen int
	cursor, offset       int
	// text is the cursor chunk's text wrapped at textW (for View).
	text  []string
	textW int
	textC int
	// textCut is the line of text that marks the model's cut (-1: none).
	textCut int
}

func newPageView(keys *common.KeyMap, st *common.Styles) pageView {
	return pageView{Base: common.Base{Keys: keys, Styles: st}, textC: -1}
}

// pageCmd lists the chunks of docPath under ctx.
func pageCmd(ctx context.Context, cancel context.CancelFunc, list func(context.Context, string) ([]retrieval.Chunk, error), seq int, docPath string) tea.Cmd {
	return func() tea.Msg {
		defer cancel()
		chunks, err := list(ctx, docPath)
		return pageMsg{Seq: seq, DocPath: docPath, Chunks: chunks, Err: err}
	}
}

// Open starts showing the page of hit; the chunks come with a pageMsg of
// the returned sequence number.
func (p *pageView) Open(hit retrieval.Chunk, limit chunkaudit.Limit) int {
	seq := p.Next()
	p.docPath, p.hitID, p.limit = hit.DocPath, hit.ID, limit
	p.title = termsafe.Line(hit.Title)
	if p.title == "" {
		p.title = present.Title(&hit)
	}
	p.err, p.chunks = nil, nil
	p.tokens, p.over, p.unseen = 0, 0, 0
	p.cursor, p.offset, p.textC = 0, 0, -1
	return seq
}

// Stop cancels the listing in flight.
func (p *pageView) Stop() { p.Abort() }

// SetPage shows the reply to the request seq; stale replies are dropped.
func (p *pageView) SetPage(msg pageMsg) bool {
	if !p.Settle(msg.Seq) {
		return false
	}
	if msg.Err != nil {
		p.err = msg.Err
		return true
	}
	p.chunks = make([]pageChunk, len(msg.Chunks))
	for i := range msg.Chunks {
		c := &msg.Chunks[i]
		pc := measureChunk(c, p.limit)
		pc.hit = c.ID == p.hitID
		if pc.hit {
			p.cursor = i
		}
		p.tokens += pc.tokens
		if pc.unseen > 0 {
			p.over++
			p.unseen += pc.unseen
		}
		p.chunks[i] = pc
	}
	// The hit opens in the middle of the list, its neighbours around it.
	rows := p.pageRows()
	p.offset = max(min(p.cursor-rows/2, len(p.chunks)-rows), 0)
	p.scrollToCursor()
	p.wrapCursor()
	return true
}

// measureChunk counts a chunk's tokens and characters, finds the model's
// cut and sanitises its text.
func measureChunk(c *retrieval.Chunk, limit chunkaudit.Limit) pageChunk {
	pc := pageChunk{index: "?", id: c.ID, section: termsafe.Line(c.Section)}
	if i, ok := c.Index(); ok {
		pc.index = strconv.Itoa(i)
	}
	pc.tokens = chunkaudit.Tokens(c.Text)
	pc.chars = utf8.RuneCountInString(c.Text)
	cut := len(c.Text)
	if limit.Tokens > 0 && pc.tokens > limit.Tokens {
		cut = chunkaudit.CutAt(c.Text, limit.Tokens)
		pc.unseen = pc.tokens - limit.Tokens
	}
	pc.seen, pc.rest = termsafe.Text(c.Text[:cut]), termsafe.Text(c.Text[cut:])
	pc.head = termsafe.Line(prefixBytes(c.Text, pagePreview))
	pc.tail = termsafe.Line(suffixBytes(c.Text, pagePreview))
	pc.restHead = termsafe.Line(prefixBytes(c.Text[cut:], pagePreview))
	return pc
}

// prefixBytes is s's first n bytes or fewer, cut at a rune boundary.
func prefixBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// suffixBytes is s's last n bytes or fewer, cut at a rune boundary.
func suffixBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// SetSize sets the outer size.
func (p *pageView) SetSize(w, h int) tea.Cmd {
	p.Width, p.Height = w, h
	p.scrollToCursor()
	p.wrapCursor()
	return nil
}

// inner is the pane's inner size.
func (p *pageView) inner() (int, int) { return common.InnerSize(p.Styles.Pane, p.Width, p.Height) }

// listHeight is the lines the chunk list may take: two thirds of the
// pane, the cursor chunk's text below it, when the pane is tall enough
// for both; else all of it.
func (p *pageView) listHeight() int {
	_, ih := p.inner()
	avail := max(ih-2, 1) // title and summary lines
	if avail >= 4*pageItemLines+4 {
		return avail - avail/3
	}
	return avail
}

// pageRows is the number of chunks the list shows.
func (p *pageView) pageRows() int {
	return common.ListRows(p.listHeight(), pageItemLines, len(p.chunks))
}

func (p *pageView) scrollToCursor() {
	p.offset = common.OffsetShowing(p.cursor, p.offset, p.pageRows())
}

// wrapCursor wraps the cursor chunk's text for the pane below the list:
// what the model read, a cut line, and what it never read.
func (p *pageView) wrapCursor() {
	iw, _ := p.inner()
	if p.cursor >= len(p.chunks) || iw <= 2 {
		p.text, p.textC = nil, -1
		return
	}
	if p.textC == p.cursor && p.textW == iw {
		return
	}
	c := &p.chunks[p.cursor]
	var lines []string
	if c.seen != "" {
		lines = strings.Split(common.WrapText(c.seen, iw), "\n")
	}
	p.textCut = -1
	if c.unseen > 0 {
		p.textCut = len(lines)
		lines = append(lines, p.Styles.Removed.Render(common.Truncate("✂ "+p.cutLine(c), iw)))
		for _, l := range strings.Split(common.WrapText(c.rest, iw-2), "\n") {
			lines = append(lines, p.Styles.Dropped.Render("░ "+l))
		}
	}
	p.text, p.textW, p.textC = lines, iw, p.cursor
}

// cutLine says where the model stops reading a chunk.
func (p *pageView) cutLine(c *pageChunk) string {
	return termsafe.Line(p.limit.Model) + " stops reading here (" + present.Int(p.limit.Tokens) + " tokens); the " +
		present.Int(c.unseen) + " " + present.Plural(c.unseen, "token", "tokens") + " below were never embedded"
}

// Update moves the cursor.
func (p *pageView) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok || len(p.chunks) == 0 {
		return nil
	}
	p.cursor = common.MoveCursor(p.Keys, km, p.cursor, len(p.chunks), p.pageRows())
	p.scrollToCursor()
	p.wrapCursor()
	return nil
}

// heading is the pane's title line.
func (p *pageView) heading() string {
	return "Page · " + p.title + " · " + termsafe.Line(p.docPath)
}

// summary is the page's sizes and what the model cut.
func (p *pageView) summary() string {
	n := len(p.chunks)
	s := present.Int(n) + " " + present.Plural(n, "chunk", "chunks") + " · " + present.Int(p.tokens) + " tokens (estimated)"
	l := p.limit
	switch {
	case !l.Known && l.Model == "":
		s += " · no embedding model named: limits not checked"
	case !l.Known:
		s += " · " + termsafe.Line(l.Model) + ": input limit not known"
	case l.Tokens == 0:
		s += " · " + termsafe.Line(l.Model) + " reads whole chunks"
	case p.over == 0:
		s += " · none over " + termsafe.Line(l.Model) + "'s " + present.Int(l.Tokens) + " tokens"
	default:
		s += " · " + present.Int(p.over) + " over " + termsafe.Line(l.Model) + "'s " + present.Int(l.Tokens) + " tokens, " +
			present.Int(p.unseen) + " " + present.Plural(p.unseen, "token", "tokens") + " never embedded"
	}
	return s
}

// View draws the pane.
func (p *pageView) View() string {
	style, tstyle := p.Styles.Frame(p.Focused)
	iw, ih := common.InnerSize(style, p.Width, p.Height)
	var b strings.Builder
	b.WriteString(tstyle.Render(common.Truncate(p.heading(), iw)))
	switch {
	case p.Loading:
		b.WriteString("\n" + p.Styles.Meta.Render(common.Truncate("Listing the page's chunks…", iw)))
	case p.err != nil:
		b.WriteString("\n" + p.Styles.StatusErr.Render(common.WrapText("Could not list the page's chunks: "+common.ErrorText(p.err), iw)))
	case len(p.chunks) == 0:
		b.WriteString("\n" + p.Styles.Meta.Render(common.WrapText("The store has no chunk with this doc path.", iw)))
	default:
		b.WriteString("\n" + p.Styles.Meta.Render(common.Truncate(p.summary(), iw)))
		end := min(p.offset+p.pageRows(), len(p.chunks))
		for i := p.offset; i < end; i++ {
			b.WriteString("\n" + p.renderChunk(i, iw))
		}
		used := 2 + (end-p.offset)*pageItemLines
		if hint := common.MoreHint(p.offset, len(p.chunks)-end); hint != "" {
			b.WriteString("\n" + p.Styles.Meta.Render(common.Truncate(hint, iw)))
			used++
		}
		if rest := ih - used - 1; rest >= 2 && len(p.text) > 0 {
			c := &p.chunks[p.cursor]
			b.WriteString("\n" + p.Styles.Rule.Render(common.HintRule("text of #"+c.index, iw)))
			b.WriteString("\n" + strings.Join(p.textWindow(rest), "\n"))
		}
	}
	return common.Box(style, p.Width, p.Height, b.String())
}

// textWindow is at most h lines of the cursor chunk's text: from its
// start, or, when the model's cut would not show, around the cut.
func (p *pageView) textWindow(h int) []string {
	lines := p.text
	if len(lines) <= h {
		return lines
	}
	start := 0
	if cut := p.textCut; cut >= h-1 {
		start = min(cut-h/2, len(lines)-h)
	}
	out := make([]string, 0, h)
	if start > 0 {
		out = append(out, p.Styles.Meta.Render("↑ "+strconv.Itoa(start)+" lines above"))
		start++
	}
	end := min(start+h-len(out), len(lines))
	out = append(out, lines[start:end]...)
	if end < len(lines) {
		out[len(out)-1] = p.Styles.Meta.Render("↓ " + strconv.Itoa(len(lines)-end+1) + " more lines")
	}
	return out
}

// renderChunk draws chunk i in three lines: its index, sizes, section
// and marks; the start of its text; its end, or the start of the part
// the model never read.
func (p *pageView) renderChunk(i, w int) string {
	st := p.Styles
	c := &p.chunks[i]
	marker := "  "
	if i == p.cursor {
		marker = st.Cursor.Render("▌ ")
	}
	w -= 2
	head := "#" + c.index + " · " + present.Int(c.tokens) + " tok · " + present.Int(c.chars) + " chars"
	line1 := st.Title.Render(head)
	if c.hit {
		line1 = st.Highlight.Render("◆ hit " + head)
	}
	if c.unseen > 0 {
		pct := c.unseen * 100 / max(c.tokens, 1)
		line1 += " " + st.Removed.Render("✂ over by "+present.Int(c.unseen)+" ("+strconv.Itoa(pct)+"% unseen)")
	}
	if c.section != "" {
		line1 += st.Meta.Render(" · " + c.section)
	}
	line2 := st.Meta.Render("┌ ") + c.head
	if c.head == "" {
		line2 = st.Missing.Render("┌ (no text)")
	}
	var line3 string
	if c.unseen > 0 {
		line3 = st.Removed.Render("✂ ") + st.Dropped.Render("never read: "+c.restHead)
	} else {
		line3 = st.Meta.Render("└ …") + truncateLeft(c.tail, w-3)
	}
	return marker + common.Truncate(line1, w) + "\n" + marker + common.Truncate(line2, w) + "\n" + marker + common.Truncate(line3, w)
}

// truncateLeft keeps the last cells of a one-line s that fit in w.
func truncateLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	i, cells := len(s), 0
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		rw := ansi.StringWidth(string(r))
		if cells+rw > w {
			break
		}
		cells += rw
		i -= size
	}
	return s[i:]
}

// ShortHelp implements pane.
func (p *pageView) ShortHelp() []key.Binding {
	k := p.Keys
	return []key.Binding{k.Down, k.PageDown, k.Top, common.LeaveHelp(k, "close page"), k.QuitQ, k.Help}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *pageView) FullHelp() [][]key.Binding { return nil }

// errNoPageLister says the backend cannot list a page's chunks.
var errNoPageLister = errors.New("this backend cannot list a page's chunks")

// openPage shows the page of the selected result in the page view.
func (m *Model) openPage() tea.Cmd {
	it, ok := m.results.Selected()
	switch {
	case m.opts.PageChunks == nil:
		m.setStatus(statusErr, errNoPageLister.Error()+".")
		return nil
	case !ok:
		m.setStatus(statusErr, "No page to show: select a result first.")
		return nil
	case strings.TrimSpace(it.Hit.Chunk.DocPath) == "":
		m.setStatus(statusErr, "This hit has no doc path: its page cannot be listed.")
		return nil
	}
	seq := m.page.Open(it.Hit.Chunk, chunkaudit.LimitFor(m.opts.EmbedModel))
	ctx, cancel := common.WithTimeout(m.base, m.opts.Timeout)
	m.page.Cancel = cancel
	return tea.Batch(m.setFocus(focusPage), pageCmd(ctx, cancel, m.opts.PageChunks, seq, it.Hit.Chunk.DocPath))
}

// closePage leaves the page view for the results, showing the detail
// beside them again.
func (m *Model) closePage() tea.Cmd {
	m.page.Stop()
	m.right = focusDetail
	return m.setFocus(focusResults)
}

// updatePage shows a page's chunks.
func (m *Model) updatePage(msg pageMsg) {
	if !m.page.SetPage(msg) {
		return
	}
	if msg.Err != nil {
		m.setStatus(statusErr, "Page "+termsafe.Line(msg.DocPath)+": "+common.ErrorText(msg.Err))
		return
	}
	m.setStatus(statusInfo, "Page "+termsafe.Line(msg.DocPath)+": "+m.page.summary())
}
