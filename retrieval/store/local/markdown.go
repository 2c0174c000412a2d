package local

import (
	"strings"

	"ragscope/retrieval/docusaurus"
)

// line is one source line of a markdown body with what the scanner learnt
// about it.
type line struct {
	text string
	// inFence is true for fence delimiters and the lines between them.
	inFence bool
	// fence is true for an opening or closing fence delimiter, open for
	// an opening one.
	fence, open bool
	// level is the ATX heading level (1-6), or 0 for other lines.
	level int
	// heading is the heading's raw inline text (closing #s removed).
	heading string
	// instance is the rendering of a partial the line comes from (0: the
	// page's own line; see docusaurus.Origin).
	instance int
}

// scanLines splits a markdown body into lines through the Docusaurus
// model's block scanner (docusaurus.ScanMarkdown, shared with the link
// checker) and keeps what the chunker needs. Files are read as MDX, which
// Docusaurus compiles every doc as by default (no indented code); origins,
// when partials were inlined, give each line its rendering. A setext
// heading becomes one heading line; its underline and further paragraph
// lines are dropped.
func scanLines(body string, origins []docusaurus.Origin) []line {
	scanned := docusaurus.ScanMarkdown(body, true)
	out := make([]line, 0, len(scanned))
	for i, l := range scanned {
		if l.SetextPart {
			continue
		}
		ln := line{text: l.Text, inFence: l.InFence, fence: l.Fence, open: l.Open, level: l.Level, heading: l.Heading}
		if i < len(origins) {
			ln.instance = origins[i].Instance
		}
		if l.Level > 0 && !l.InFence {
			ln.heading = strings.ReplaceAll(l.Heading, "\n", " ")
			if !strings.HasPrefix(strings.TrimSpace(l.Text), "#") {
				// Setext: written back as the ATX line it is.
				ln.text = strings.Repeat("#", l.Level) + " " + ln.heading
			}
		}
		out = append(out, ln)
	}
	return out
}

// hardSplit cuts s into pieces of at most max runes, preferring the last
// whitespace in the second half of each piece.
func hardSplit(s string, max int) []string {
	r := []rune(s)
	var out []string
	for len(r) > max {
		cut := max
		for j := max; j > max/2; j-- {
			if r[j] == ' ' || r[j] == '\n' || r[j] == '\t' {
				cut = j
				break
			}
		}
		out = append(out, strings.TrimSpace(string(r[:cut])))
		r = r[cut:]
	}
	return append(out, string(r))
}

func runeLen(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}
