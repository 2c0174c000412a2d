package pageview

import (
	"context"
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

// pageItemLines is the height of one chunk in the page view's list.
const itemLines = 3

// pagePreview bounds the bytes of a chunk's start and end kept for its
// two preview lines (a line shows far less).
const preview = 400

// Chunk is one chunk of the page view, measured once when the page
// arrives.
type Chunk struct {
	// index is the chunk index ("?" when unknown).
	Index string
	ID    string
	hit   bool
	// section is the heading the chunk sits under, sanitised.
	section string
	tokens  int
	chars   int
	// unseen is the tokens past the model's limit (0: none).
	Unseen int
	// seen and rest are the chunk's text (sanitised) before and after the
	// model's cut.
	Seen, Rest string
	// head and tail are one-line previews of the text's start and end;
	// restHead is that of the part the model never read.
	head, tail, restHead string
}

// Msg carries a page's chunks to the page view.
type Msg struct {
	Seq     int
	DocPath string
	Chunks  []retrieval.Chunk
	Err     error
}

// Model is the page a hit came from: its chunks in reading order.
type Model struct {
	common.Base

	// request is the listing in flight.
	common.Request

	docPath string
	title   string
	hitID   string
	limit   chunkaudit.Limit
	err     error
	Chunks  []Chunk
	// tokens, over and unseen total the page.
	tokens, over, unseen int
	Cursor, offset       int
	// text is the cursor chunk's text wrapped at textW (for View).
	text  []string
	textW int
	textC int
	// textCut is the line of text that marks the model's cut (-1: none).
	textCut int
}

// New is the pane with the explorer's keys and styles.
func New(keys *common.KeyMap, st *common.Styles) Model {
	return Model{Base: common.Base{Keys: keys, Styles: st}, textC: -1}
}

// Cmd lists the chunks of docPath under ctx.
func Cmd(ctx context.Context, cancel context.CancelFunc, list func(context.Context, string) ([]retrieval.Chunk, error), seq int, docPath string) tea.Cmd {
	return func() tea.Msg {
		defer cancel()
		chunks, err := list(ctx, docPath)
		return Msg{Seq: seq, DocPath: docPath, Chunks: chunks, Err: err}
	}
}

// Open starts showing the page of hit; the chunks come with a pageMsg of
// the returned sequence number.
func (p *Model) Open(hit retrieval.Chunk, limit chunkaudit.Limit) int {
	seq := p.Next()
	p.docPath, p.hitID, p.limit = hit.DocPath, hit.ID, limit
	p.title = termsafe.Line(hit.Title)
	if p.title == "" {
		p.title = present.Title(&hit)
	}
	p.err, p.Chunks = nil, nil
	p.tokens, p.over, p.unseen = 0, 0, 0
	p.Cursor, p.offset, p.textC = 0, 0, -1
	return seq
}

// Stop cancels the listing in flight.
func (p *Model) Stop() { p.Abort() }

// SetPage shows the reply to the request seq; stale replies are dropped.
func (p *Model) SetPage(msg Msg) bool {
	if !p.Settle(msg.Seq) {
		return false
	}
	if msg.Err != nil {
		p.err = msg.Err
		return true
	}
	p.Chunks = make([]Chunk, len(msg.Chunks))
	for i := range msg.Chunks {
		c := &msg.Chunks[i]
		pc := measureChunk(c, p.limit)
		pc.hit = c.ID == p.hitID
		if pc.hit {
			p.Cursor = i
		}
		p.tokens += pc.tokens
		if pc.Unseen > 0 {
			p.over++
			p.unseen += pc.Unseen
		}
		p.Chunks[i] = pc
	}
	// The hit opens in the middle of the list, its neighbours around it.
	rows := p.pageRows()
	p.offset = max(min(p.Cursor-rows/2, len(p.Chunks)-rows), 0)
	p.scrollToCursor()
	p.wrapCursor()
	return true
}

// measureChunk counts a chunk's tokens and characters, finds the model's
// cut and sanitises its text.
func measureChunk(c *retrieval.Chunk, limit chunkaudit.Limit) Chunk {
	pc := Chunk{Index: "?", ID: c.ID, section: termsafe.Line(c.Section)}
	if i, ok := c.Index(); ok {
		pc.Index = strconv.Itoa(i)
	}
	pc.tokens = chunkaudit.Tokens(c.Text)
	pc.chars = utf8.RuneCountInString(c.Text)
	cut := len(c.Text)
	if limit.Tokens > 0 && pc.tokens > limit.Tokens {
		cut = chunkaudit.CutAt(c.Text, limit.Tokens)
		pc.Unseen = pc.tokens - limit.Tokens
	}
	pc.Seen, pc.Rest = termsafe.Text(c.Text[:cut]), termsafe.Text(c.Text[cut:])
	pc.head = termsafe.Line(prefixBytes(c.Text, preview))
	pc.tail = termsafe.Line(suffixBytes(c.Text, preview))
	pc.restHead = termsafe.Line(prefixBytes(c.Text[cut:], preview))
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
func (p *Model) SetSize(w, h int) tea.Cmd {
	p.Width, p.Height = w, h
	p.scrollToCursor()
	p.wrapCursor()
	return nil
}

// inner is the pane's inner size.
func (p *Model) inner() (int, int) { return common.InnerSize(p.Styles.Pane, p.Width, p.Height) }

// listHeight is the lines the chunk list may take: two thirds of the
// pane, the cursor chunk's text below it, when the pane is tall enough
// for both; else all of it.
func (p *Model) listHeight() int {
	_, ih := p.inner()
	avail := max(ih-2, 1) // title and summary lines
	if avail >= 4*itemLines+4 {
		return avail - avail/3
	}
	return avail
}

// pageRows is the number of chunks the list shows.
func (p *Model) pageRows() int {
	return common.ListRows(p.listHeight(), itemLines, len(p.Chunks))
}

func (p *Model) scrollToCursor() {
	p.offset = common.OffsetShowing(p.Cursor, p.offset, p.pageRows())
}

// wrapCursor wraps the cursor chunk's text for the pane below the list:
// what the model read, a cut line, and what it never read.
func (p *Model) wrapCursor() {
	iw, _ := p.inner()
	if p.Cursor >= len(p.Chunks) || iw <= 2 {
		p.text, p.textC = nil, -1
		return
	}
	if p.textC == p.Cursor && p.textW == iw {
		return
	}
	c := &p.Chunks[p.Cursor]
	var lines []string
	if c.Seen != "" {
		lines = strings.Split(common.WrapText(c.Seen, iw), "\n")
	}
	p.textCut = -1
	if c.Unseen > 0 {
		p.textCut = len(lines)
		lines = append(lines, p.Styles.Removed.Render(common.Truncate("✂ "+p.cutLine(c), iw)))
		for _, l := range strings.Split(common.WrapText(c.Rest, iw-2), "\n") {
			lines = append(lines, p.Styles.Dropped.Render("░ "+l))
		}
	}
	p.text, p.textW, p.textC = lines, iw, p.Cursor
}

// cutLine says where the model stops reading a chunk.
func (p *Model) cutLine(c *Chunk) string {
	return termsafe.Line(p.limit.Model) + " stops reading here (" + present.Int(p.limit.Tokens) + " tokens); the " +
		present.Int(c.Unseen) + " " + present.Plural(c.Unseen, "token", "tokens") + " below were never embedded"
}

// Update moves the cursor.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok || len(p.Chunks) == 0 {
		return nil
	}
	p.Cursor = common.MoveCursor(p.Keys, km, p.Cursor, len(p.Chunks), p.pageRows())
	p.scrollToCursor()
	p.wrapCursor()
	return nil
}

// heading is the pane's title line.
func (p *Model) heading() string {
	return "Page · " + p.title + " · " + termsafe.Line(p.docPath)
}

// Summary is the page's sizes and what the model cut.
func (p *Model) Summary() string {
	n := len(p.Chunks)
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
func (p *Model) View() string {
	f := p.Frame()
	iw, ih := f.W, f.H
	var b strings.Builder
	b.WriteString(f.Title(p.heading()))
	switch {
	case p.Loading:
		b.WriteString("\n" + p.Styles.Meta.Render(common.Truncate("Listing the page's chunks…", iw)))
	case p.err != nil:
		b.WriteString("\n" + p.Styles.StatusErr.Render(common.WrapText("Could not list the page's chunks: "+common.ErrorText(p.err), iw)))
	case len(p.Chunks) == 0:
		b.WriteString("\n" + p.Styles.Meta.Render(common.WrapText("The store has no chunk with this doc path.", iw)))
	default:
		b.WriteString("\n" + p.Styles.Meta.Render(common.Truncate(p.Summary(), iw)))
		end := min(p.offset+p.pageRows(), len(p.Chunks))
		for i := p.offset; i < end; i++ {
			b.WriteString("\n" + p.renderChunk(i, iw))
		}
		used := 2 + (end-p.offset)*itemLines
		if hint := common.MoreHint(p.offset, len(p.Chunks)-end); hint != "" {
			b.WriteString("\n" + p.Styles.Meta.Render(common.Truncate(hint, iw)))
			used++
		}
		if rest := ih - used - 1; rest >= 2 && len(p.text) > 0 {
			c := &p.Chunks[p.Cursor]
			b.WriteString("\n" + p.Styles.Rule.Render(common.HintRule("text of #"+c.Index, iw)))
			b.WriteString("\n" + strings.Join(p.textWindow(rest), "\n"))
		}
	}
	return f.Box(b.String())
}

// textWindow is at most h lines of the cursor chunk's text: from its
// start, or, when the model's cut would not show, around the cut.
func (p *Model) textWindow(h int) []string {
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
func (p *Model) renderChunk(i, w int) string {
	st := p.Styles
	c := &p.Chunks[i]
	marker := "  "
	if i == p.Cursor {
		marker = st.Cursor.Render("▌ ")
	}
	w -= 2
	head := "#" + c.Index + " · " + present.Int(c.tokens) + " tok · " + present.Int(c.chars) + " chars"
	line1 := st.Title.Render(head)
	if c.hit {
		line1 = st.Highlight.Render("◆ hit " + head)
	}
	if c.Unseen > 0 {
		pct := c.Unseen * 100 / max(c.tokens, 1)
		line1 += " " + st.Removed.Render("✂ over by "+present.Int(c.Unseen)+" ("+strconv.Itoa(pct)+"% unseen)")
	}
	if c.section != "" {
		line1 += st.Meta.Render(" · " + c.section)
	}
	line2 := st.Meta.Render("┌ ") + c.head
	if c.head == "" {
		line2 = st.Missing.Render("┌ (no text)")
	}
	var line3 string
	if c.Unseen > 0 {
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
func (p *Model) ShortHelp() []key.Binding {
	k := p.Keys
	return []key.Binding{k.Down, k.PageDown, k.Top, common.LeaveHelp(k, "close page"), k.QuitQ, k.Help}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *Model) FullHelp() [][]key.Binding { return nil }
