package common

import (
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"ragscope/termsafe"
)

// mdParser is the shared CommonMark parser, built on first use (goldmark
// parsers are safe for concurrent use; each Parse has its own context).
// It is goldmark.DefaultParser's configuration, built from the parser
// package alone: the goldmark package builds a whole Markdown (parser and
// HTML renderer) at initialisation, in every ragscope process.
var mdParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
})

// mdTheme holds the styles of one markdown theme ("dark", "light" or
// "notty"). Under notty no colours are drawn and emphasis keeps its
// markers, so the text still reads as markdown.
type mdTheme struct {
	plain                             bool
	text, heading, h1, h6             lipgloss.Style
	emph, strong, code, codeBlock, hr lipgloss.Style
	linkText, imageText               lipgloss.Style
	// link is an SGR style of its own: lipgloss draws an underline one
	// rune at a time, which a long URL would multiply.
	link       ansi.Style
	quoteToken string
	listIndent int
}

// newMDTheme returns the theme named style; anything but "dark" and
// "light" is notty.
func newMDTheme(style string) mdTheme {
	base := lipgloss.NewStyle()
	switch style {
	case "dark", "light":
		dark := style == "dark"
		pick := func(d, l string) lipgloss.Style {
			if dark {
				return base.Foreground(lipgloss.Color(d))
			}
			return base.Foreground(lipgloss.Color(l))
		}
		codeBG := "254"
		if dark {
			codeBG = "236"
		}
		return mdTheme{
			text:       pick("252", "234"),
			heading:    pick("39", "27").Bold(true),
			h1:         base.Foreground(lipgloss.Color("228")).Background(lipgloss.Color("63")).Bold(true),
			h6:         pick("35", "27"),
			emph:       pick("252", "234").Italic(true),
			strong:     pick("252", "234").Bold(true),
			code:       base.Foreground(lipgloss.Color("203")).Background(lipgloss.Color(codeBG)),
			codeBlock:  pick("244", "242"),
			hr:         pick("240", "249"),
			link:       ansi.Style{}.ForegroundColor(ansi.IndexedColor(pickIndex(dark, 30, 36))).Underline(true),
			linkText:   pick("35", "29").Bold(true),
			imageText:  base.Foreground(lipgloss.Color("243")),
			quoteToken: "│ ",
			listIndent: 2,
		}
	}
	return mdTheme{plain: true, text: base, heading: base, h1: base, h6: base, emph: base, strong: base,
		code: base, codeBlock: base, hr: base, linkText: base, imageText: base,
		quoteToken: "| ", listIndent: 4}
}

// pickIndex returns d under a dark theme and l under a light one.
func pickIndex(dark bool, d, l ansi.IndexedColor) ansi.IndexedColor {
	if dark {
		return d
	}
	return l
}

// mdMargin is the document margin on the left of every line.
const mdMargin = 2

// RenderMarkdown renders sanitised markdown text to width cells, falling
// back to wrapped plain text when it is large (a 100 KB selection must
// not stall the detail pane).
func RenderMarkdown(src string, width int, style string) string {
	if width < 10 {
		width = 10
	}
	if len(src) > PlainLimit {
		return WrapText(src, width)
	}
	source := []byte(src)
	doc := mdParser().Parse(text.NewReader(source))
	r := mdRenderer{src: source, th: newMDTheme(style)}
	inner := width - 2 - 2*mdMargin
	if inner < 4 {
		inner = 4
	}
	lines := r.blocks(doc, inner)
	pad := strings.Repeat(" ", mdMargin)
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}

// mdRenderer walks one parsed document.
type mdRenderer struct {
	src []byte
	th  mdTheme
}

// blocks renders the block children of n to lines of at most width
// cells, a blank line between blocks.
func (r mdRenderer) blocks(n ast.Node, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := r.block(c, width)
		if len(b) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, b...)
	}
	return out
}

// block renders one block node.
func (r mdRenderer) block(n ast.Node, width int) []string {
	th := r.th
	switch n := n.(type) {
	case *ast.Heading:
		body := r.inlines(n, th.heading)
		switch {
		case th.plain:
			body = strings.Repeat("#", n.Level) + " " + body
		case n.Level == 1:
			return strings.Split(lipgloss.Wrap(th.h1.Render(" "+r.plainText(n)+" "), width, ""), "\n")
		case n.Level == 6:
			body = th.h6.Render("###### ") + r.inlines(n, th.h6)
		default:
			body = th.heading.Render(strings.Repeat("#", n.Level)+" ") + body
		}
		return strings.Split(lipgloss.Wrap(body, width, ""), "\n")
	case *ast.Paragraph, *ast.TextBlock:
		if lines, ok := r.tableLines(n); ok {
			return lines
		}
		return strings.Split(lipgloss.Wrap(r.inlines(n, th.text), width, ""), "\n")
	case *ast.List:
		return r.list(n, width)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var out []string
		pad := strings.Repeat(" ", mdMargin)
		ls := n.Lines()
		for i := 0; i < ls.Len(); i++ {
			seg := ls.At(i)
			l := strings.TrimRight(string(seg.Value(r.src)), "\r\n")
			out = append(out, pad+th.codeBlock.Render(l))
		}
		if len(out) == 0 {
			out = []string{pad}
		}
		return out
	case *ast.Blockquote:
		inner := r.blocks(n, max(width-ansi.StringWidth(th.quoteToken), 4))
		for i, l := range inner {
			inner[i] = th.quoteToken + l
		}
		return inner
	case *ast.ThematicBreak:
		return []string{th.hr.Render("--------")}
	case *ast.HTMLBlock:
		var out []string
		ls := n.Lines()
		for i := 0; i < ls.Len(); i++ {
			seg := ls.At(i)
			l := strings.TrimRight(string(seg.Value(r.src)), "\r\n")
			out = append(out, strings.Split(lipgloss.Wrap(th.text.Render(l), width, ""), "\n")...)
		}
		return out
	}
	return r.blocks(n, width)
}

// tableLines keeps a pipe table (a paragraph whose every line starts
// with "|") as its source lines: CommonMark has no tables, and reflowing
// one would scramble its columns.
func (r mdRenderer) tableLines(n ast.Node) ([]string, bool) {
	ls := n.Lines()
	if ls.Len() < 2 {
		return nil, false
	}
	out := make([]string, 0, ls.Len())
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		l := strings.TrimSpace(string(seg.Value(r.src)))
		if !strings.HasPrefix(l, "|") {
			return nil, false
		}
		out = append(out, r.th.text.Render(l))
	}
	return out, true
}

// list renders a bullet or ordered list; an item's continuation lines
// line up under its first character.
func (r mdRenderer) list(n *ast.List, width int) []string {
	var out []string
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		indent := strings.Repeat(" ", ansi.StringWidth(marker))
		nested := strings.Repeat(" ", r.th.listIndent)
		var body []string
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			if l, ok := c.(*ast.List); ok {
				// A nested list is indented by the theme's level indent
				// from its parent's marker, as glamour draws it.
				for _, s := range r.list(l, max(width-len(nested), 4)) {
					if s != "" {
						s = nested + s
					}
					body = append(body, s)
				}
				continue
			}
			if len(body) > 0 && !n.IsTight {
				body = append(body, "")
			}
			for _, s := range r.block(c, max(width-len(indent), 4)) {
				if len(body) > 0 && s != "" {
					s = indent + s
				}
				body = append(body, s)
			}
		}
		if len(body) == 0 {
			body = []string{""}
		}
		body[0] = r.th.text.Render(marker) + body[0]
		if len(out) > 0 && !n.IsTight {
			out = append(out, "")
		}
		out = append(out, body...)
	}
	return out
}

// inlines renders n's inline children with st as the style of plain
// text. Each word is styled on its own (lipgloss.Wrap also closes and
// reopens a style cut by a line break inside a long word).
func (r mdRenderer) inlines(n ast.Node, st lipgloss.Style) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(&b, c, st)
	}
	return b.String()
}

func (r mdRenderer) inline(b *strings.Builder, n ast.Node, st lipgloss.Style) {
	th := r.th
	switch n := n.(type) {
	case *ast.Text:
		writeWords(b, string(n.Segment.Value(r.src)), st)
		switch {
		case n.HardLineBreak():
			b.WriteString("\n")
		case n.SoftLineBreak():
			b.WriteString(" ")
		}
	case *ast.String:
		writeWords(b, string(n.Value), st)
	case *ast.CodeSpan:
		code := r.plainText(n)
		if th.plain {
			b.WriteString(code)
			return
		}
		b.WriteString(th.code.Render("\u00a0" + strings.ReplaceAll(code, " ", "\u00a0") + "\u00a0"))
	case *ast.Emphasis:
		es := th.emph
		mark := "*"
		if n.Level >= 2 {
			es, mark = th.strong, "**"
		}
		if th.plain {
			b.WriteString(mark + r.inlines(n, st) + mark)
			return
		}
		b.WriteString(r.inlines(n, es.Inherit(st)))
	case *ast.Link:
		url := string(n.Destination)
		b.WriteString(hyperlink(url, r.inlines(n, th.linkText)))
		if url != "" && url != r.plainText(n) {
			b.WriteString(" " + hyperlink(url, th.link.Styled(url)))
		}
	case *ast.AutoLink:
		url := string(n.URL(r.src))
		b.WriteString(hyperlink(url, th.link.Styled(url)))
	case *ast.Image:
		writeWords(b, "Image: "+r.plainText(n)+" →", th.imageText)
		if url := string(n.Destination); url != "" {
			b.WriteString(" " + th.link.Styled(url))
		}
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			writeWords(b, string(seg.Value(r.src)), st)
		}
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			r.inline(b, c, st)
		}
	}
}

// plainText is the unstyled text of n's inline children.
func (r mdRenderer) plainText(n ast.Node) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(r.src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*ast.Text); ok {
					b.Write(tx.Segment.Value(r.src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// writeWords writes s with each space-separated word styled by st.
func writeWords(b *strings.Builder, s string, st lipgloss.Style) {
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w != "" {
			b.WriteString(st.Render(w))
		}
	}
}

// hyperlink makes s a terminal hyperlink (OSC 8) to url, as glamour did,
// when url is absolute http or https: other schemes could launch arbitrary
// handlers (the same rule as DefaultOpenURL), and a relative link leads
// nowhere from a terminal. s is already sanitised (no control characters
// in url); lipgloss.Wrap closes and reopens the link at each line break,
// so it never takes in the pane's border.
func hyperlink(url, s string) string {
	if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
		return s
	}
	// The terminal hands the link to a browser when clicked: the same
	// rule as copying or opening it.
	if _, err := termsafe.URL(url); err != nil {
		return s
	}
	return ansi.SetHyperlink(url) + s + ansi.ResetHyperlink()
}

// RenderedMsg carries a chunk's markdown rendered for a width.
type RenderedMsg struct {
	Key RenderKey
	Out string
}

// RenderKey identifies a rendered chunk: the same text at the same width
// in the same style renders the same.
type RenderKey struct {
	ID    string
	Hash  string
	Len   int
	Width int
	// Style is the markdown theme: a theme change renders again.
	Style string
}

// plainLimit is the size above which chunk text is wrapped, not rendered
// as markdown: a 100 KB selection must not stall the detail pane.
const PlainLimit = 24 << 10

// RenderCmd renders sanitized markdown text for width in a goroutine; a
// fresh renderer per call keeps it free of shared state.
func RenderCmd(key RenderKey, text string) tea.Cmd {
	return func() tea.Msg {
		return RenderedMsg{Key: key, Out: RenderMarkdown(text, key.Width, key.Style)}
	}
}
