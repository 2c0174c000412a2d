package docusaurus

import (
	"html"
	"strconv"
	"strings"

	"golang.org/x/net/html/atom"
)

// Line is one source line of a doc's body with what the block scanner
// learnt about it. The chunker (retrieval/store/local) and the link checker
// (links) both read a body through ScanMarkdown, so they agree on what is
// a heading and what is code.
type Line struct {
	// Text is the line with HTML comments removed (they are not published).
	Text string
	// InFence is true for fence delimiters and the lines between them.
	InFence bool
	// Fence is true for an opening or closing fence delimiter, Open for an
	// opening one.
	Fence, Open bool
	// Level is the heading level (1-6) of an ATX heading line or of the
	// first line of a setext heading, else 0.
	Level int
	// Heading is the heading's raw inline text: closing #s removed; for a
	// setext heading, its paragraph lines joined with "\n".
	Heading string
	// SetextPart marks the further paragraph lines and the underline of a
	// setext heading: part of the heading above, not content.
	SetextPart bool
}

var (
	atxLine       = lazyRE(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxLineMDX    = lazyRE(`^[ \t]*(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxClose      = lazyRE(`(?:^|[ \t]+)#+[ \t]*$`)
	fenceOpen     = lazyRE("^ {0,3}(`{3,}|~{3,})(.*)$")
	fenceOpenMDX  = lazyRE("^[ \t]*(`{3,}|~{3,})(.*)$")
	setextLine    = lazyRE(`^ {0,3}(=+|-+)[ \t]*$`)
	setextLineMDX = lazyRE(`^[ \t]*(=+|-+)[ \t]*$`)
	// notParagraph: lines that cannot continue a paragraph into a setext
	// heading (lists, quotes, tables, JSX/HTML, ESM, blank).
	notParagraph  = lazyRE(`^\s*(?:[-*+>|<{]|\d+[.)]\s|import\s|export\s|$)`)
	mdEscape      = lazyRE("\\\\([!-/:-@\\[-`{-~])")
	thematicBreak = lazyRE(`^\s{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	mdxCommentRun = lazyRE(`(?s)\{/\*.*?\*/\}`)
)

// ThematicBreak reports whether a line (outside a fence, not a setext
// underline) is a thematic break (---, ***, ___): a rule with no text, so
// a section holding only one has no text of its own.
func ThematicBreak(text string) bool { return thematicBreak.MatchString(text) }

// ScanMarkdown splits a doc body into lines and marks fenced code, ATX and
// setext headings and HTML comments, as Docusaurus's MDX parser sees them.
//
// mdx is true for files compiled as MDX (every file unless the config's
// markdown.format is "detect", then .mdx only). MDX has no indented code, so
// a heading or fence indented four spaces or more is still one (checked by
// a real build); in CommonMark it is code. A fence closes only on a line of
// the same character at least as long as the opener; an unclosed fence runs
// to the end of the body, so a "# comment" inside code is never a heading.
func ScanMarkdown(body string, mdx bool) []Line {
	atx, fence, setext := atxLine, fenceOpen, setextLine
	if mdx {
		atx, fence, setext = atxLineMDX, fenceOpenMDX, setextLineMDX
	}
	raw := strings.Split(body, "\n")
	out := make([]Line, len(raw))
	var fenceCh byte
	fenceLen := 0
	inComment := false
	var para []int // indexes of the open paragraph's lines
	for i, t := range raw {
		out[i].Text = t
		if fenceLen > 0 {
			out[i].InFence = true
			if isFenceClose(t, fenceCh, fenceLen, mdx) {
				out[i].Fence = true
				fenceLen = 0
			}
			continue
		}
		if inComment || strings.Contains(t, "<!--") {
			t, inComment = stripComments(t, inComment)
			out[i].Text = t
			if strings.TrimSpace(t) == "" {
				para = nil
				continue
			}
		}
		if m := fence.FindStringSubmatch(t); m != nil && (m[1][0] != '`' || !strings.Contains(m[2], "`")) {
			// A backtick fence's info string may not contain backticks.
			fenceCh, fenceLen = m[1][0], len(m[1])
			out[i].InFence, out[i].Fence, out[i].Open = true, true, true
			para = nil
			continue
		}
		if m := atx.FindStringSubmatch(t); m != nil {
			out[i].Level = len(m[1])
			out[i].Heading = strings.TrimSpace(atxClose.ReplaceAllString(m[2], ""))
			para = nil
			continue
		}
		if m := setext.FindStringSubmatch(t); m != nil && len(para) > 0 {
			level := 1
			if m[1][0] == '-' {
				level = 2
			}
			texts := make([]string, len(para))
			for k, j := range para {
				texts[k] = strings.TrimSpace(out[j].Text)
				if k > 0 {
					out[j].SetextPart = true
				}
			}
			out[para[0]].Level, out[para[0]].Heading = level, strings.Join(texts, "\n")
			out[i].SetextPart = true
			para = nil
			continue
		}
		if notParagraph.MatchString(t) || (!mdx && (strings.HasPrefix(t, "    ") || strings.HasPrefix(t, "\t"))) {
			para = nil
			continue
		}
		para = append(para, i)
	}
	return out
}

// stripComments removes HTML comment text from one line; open says the line
// starts inside a comment, and the result says whether it ends inside one.
func stripComments(t string, open bool) (string, bool) {
	var b strings.Builder
	for {
		if open {
			end := strings.Index(t, "-->")
			if end < 0 {
				return b.String(), true
			}
			t, open = t[end+3:], false
			continue
		}
		start := strings.Index(t, "<!--")
		if start < 0 {
			b.WriteString(t)
			return b.String(), false
		}
		b.WriteString(t[:start])
		t, open = t[start+4:], true
	}
}

func isFenceClose(t string, ch byte, n int, mdx bool) bool {
	s := strings.TrimLeft(t, " \t")
	if !mdx && len(t)-len(s) > 3 {
		return false
	}
	k := 0
	for k < len(s) && s[k] == ch {
		k++
	}
	return k >= n && strings.TrimSpace(s[k:]) == ""
}

// HeadingText is the text Docusaurus slugs for a heading written in
// markdown source: StripInlineMarkup (links to their text, inline
// HTML/JSX tags, emphasis markers and code backticks removed) plus what
// the markdown parser does before it: backslash escapes ("\*" is "*"),
// character references ("&amp;" is "&"), and the braces of MDX comments
// dropped (their text is slugged, as Docusaurus 3.5 does).
func HeadingText(md string) string {
	// An MDX expression's source counts in the slug text (Docusaurus 3.5
	// takes the text of the mdast, expressions included).
	// Their text is parked behind placeholders so that emphasis stripping
	// does not eat the comment's stars.
	var comments []string
	md = mdxCommentRun.ReplaceAllStringFunc(md, func(s string) string {
		comments = append(comments, s[1:len(s)-1])
		return "\uE000" + strconv.Itoa(len(comments)-1) + "\uE001"
	})
	// Escaped characters must survive emphasis and tag stripping: park
	// them in the private-use area and restore them at the end.
	md = mdEscape.ReplaceAllStringFunc(md, func(s string) string {
		return string(rune(0xF0000 + int(s[1])))
	})
	s := StripInlineMarkup(md)
	for i, c := range comments {
		s = strings.Replace(s, "\uE000"+strconv.Itoa(i)+"\uE001", c, 1)
	}
	s = html.UnescapeString(s)
	s = strings.Map(func(r rune) rune {
		if r >= 0xF0000 && r < 0xF0080 {
			return r - 0xF0000
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// HTMLHeadingLevel is the level of an HTML heading element (h1 to h6: 1 to
// 6), or 0 for any other element: what the link checker and the real-build
// oracle read of a built page.
func HTMLHeadingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}
