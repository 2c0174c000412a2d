package present

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/termsafe"
)

// NoURL stands for a hit without a citation URL.
const NoURL = "(no citation URL)"

// URL is a citation URL on one line, sanitised for the terminal, or NoURL.
// It is never cut: the CLI prints it whole, and FitURL and WrapURL are the
// rules for a narrow space.
func URL(u string) string {
	s := termsafe.Line(u)
	if s == "" {
		return NoURL
	}
	return s
}

// FitURL is a citation URL in at most width cells. What tells two
// citations apart is their end (the page's last path segments and the
// #anchor: "…/nodes#topics" and "…/nodes#topics-1"), so a URL too long for
// the space loses its start, at a "/" when one leaves a tail that fits:
// "https://book.example.org/docs/module-1/nodes#topics-1" in 26 cells is
// "…/module-1/nodes#topics-1". A tail with no "/" that fits is cut before
// its "#anchor", then anywhere.
func FitURL(u string, width int) string {
	s := URL(u)
	if out, ok := fitsOrEllipsis(s, width); ok {
		return out
	}
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + len("://")
	}
	// The first cut from the left that fits keeps the longest tail.
	for i := start; i < len(s); i++ {
		if (s[i] == '/' || s[i] == '#') && 1+ansi.StringWidth(s[i:]) <= width {
			return "…" + s[i:]
		}
	}
	return "…" + ansi.TruncateLeft(s, ansi.StringWidth(s)-(width-1), "")
}

// WrapURL is a citation URL on lines of at most width cells, broken after
// "/", "#", "-" and the like where it can and anywhere when a piece is
// longer than a line; nothing is left out, so the lines joined are the URL.
func WrapURL(u string, width int) []string {
	s := URL(u)
	if width < 1 {
		width = 1
	}
	if ansi.StringWidth(s) <= width {
		return []string{s}
	}
	// ansi.Wrap with these breakpoints overfills lines (x/ansi v0.11.9),
	// so the URL is broken here, greedily.
	var lines []string
	line, lineW := []rune{}, 0
	brk := -1 // index in line just after the last break character
	for _, r := range s {
		rw := ansi.StringWidth(string(r))
		for lineW+rw > width && len(line) > 0 {
			cut := len(line)
			if brk > 0 {
				cut = brk
			}
			lines = append(lines, string(line[:cut]))
			line = append([]rune{}, line[cut:]...)
			lineW = ansi.StringWidth(string(line))
			brk = -1
		}
		line = append(line, r)
		lineW += rw
		if strings.ContainsRune(urlBreaks, r) {
			brk = len(line)
		}
	}
	return append(lines, string(line))
}

// urlBreaks are the characters a URL is best broken after.
const urlBreaks = "/#?&=-._~"

// Anchor says which heading anchor a citation points to and where it came
// from: the chunk's explicit heading id, the slug of its section heading
// (as Docusaurus makes ids), or the payload's URL; "none (page URL)" when
// the citation is the page itself, as for a page's intro. It is "" when
// the hit has no citation URL.
func Anchor(h *retrieval.Hit) string {
	u := termsafe.Line(h.Citation.URL)
	if u == "" {
		return ""
	}
	_, frag, ok := strings.Cut(u, "#")
	switch {
	case !ok || frag == "":
		if h.Citation.Source == "built" && h.Chunk.Section != "" {
			return "none (page URL; no anchor for this section)"
		}
		return "none (page URL)"
	case h.Citation.Source != "built":
		return "#" + frag + " (in the payload's URL)"
	case h.Chunk.HeadingID != "" && h.Chunk.HeadingID == frag:
		return "#" + frag + " (the heading's id)"
	}
	return "#" + frag + " (from the heading text)"
}
