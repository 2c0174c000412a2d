package local

import (
	"strings"

	"ragscope/internal/lazyre"
	"ragscope/retrieval/docusaurus"
)

// blockKind is what a block of a section is: the units a chunk boundary
// never falls inside.
type blockKind int

const (
	// kindPara is a paragraph: consecutive lines up to a blank line or
	// the start of another block.
	kindPara blockKind = iota
	// kindFence is a fenced code block, its delimiter lines included.
	kindFence
	// kindTable is a pipe table: its header, delimiter row and rows.
	kindTable
	// kindList is a list: its items with their continuation lines and
	// the blank lines between them.
	kindList
	// kindAdmonition is a ::: admonition, its closing ::: included.
	kindAdmonition
	// kindHeading is a heading line inside a section (#### and below, or
	// a page's # title): it belongs to the text that follows it.
	kindHeading
	// kindBreak is a thematic break (---, ***, ___): no text.
	kindBreak
)

// block is one block of a section: its kind and source lines, and the
// heading lines that lead it (headings with no text of their own before
// it) or trail it (headings at a section's end with nothing after them).
type block struct {
	kind  blockKind
	lines []line
	// lead and trail are heading lines joined by blank lines ("" for none).
	lead, trail string
	// sec is the section the block's own text is in (SplitSize packing).
	sec int
}

// body is the block's own text, without lead and trail.
func (b block) body() string {
	if len(b.lines) == 1 {
		return strings.TrimRight(b.lines[0].text, " \t\n")
	}
	var s strings.Builder
	n := 0
	for _, l := range b.lines {
		n += len(l.text) + 1
	}
	s.Grow(n)
	for i, l := range b.lines {
		if i > 0 {
			s.WriteByte('\n')
		}
		s.WriteString(l.text)
	}
	return strings.TrimRight(s.String(), " \t\n")
}

// text is the block as a chunk carries it: lead, body, trail.
func (b block) text() string {
	return joinParas(b.lead, b.body(), b.trail)
}

// joinParas joins the non-empty parts with blank lines.
func joinParas(parts ...string) string {
	var s strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if s.Len() > 0 {
			s.WriteString("\n\n")
		}
		s.WriteString(p)
	}
	return s.String()
}

var (
	admonitionOpen  = lazyre.New(`^\s*:{3,}\s*[A-Za-z]`)
	admonitionClose = lazyre.New(`^\s*:{3,}\s*$`)
	listItem        = lazyre.New(`^(\s*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)`)
	tableDelimiter  = lazyre.New(`^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$|^\s*\|\s*:?-+:?\s*\|\s*$`)
)

func blank(l line) bool { return !l.inFence && strings.TrimSpace(l.text) == "" }

// startsBlock reports whether lines[i] starts a block other than a
// paragraph: such a line ends the paragraph before it.
func startsBlock(lines []line, i int) bool {
	l := lines[i]
	if l.inFence || l.level > 0 {
		return true
	}
	t := strings.TrimLeft(l.text, " \t")
	if t == "" {
		return false
	}
	// The first character rules out most kinds before any regexp runs.
	switch c := t[0]; {
	case c == ':':
		return admonitionOpen.MatchString(t) || admonitionClose.MatchString(t)
	case c == '-' || c == '*' || c == '_' || c == '+' || (c >= '0' && c <= '9'):
		return docusaurus.ThematicBreak(l.text) || isListStart(l.text) || isTableStart(lines, i)
	}
	return isTableStart(lines, i)
}

// isListStart reports a list item marker indented at most three spaces.
func isListStart(t string) bool {
	m := listItem.FindStringSubmatch(t)
	return m != nil && len(strings.ReplaceAll(m[1], "\t", "    ")) <= 3
}

func isTableStart(lines []line, i int) bool {
	return strings.IndexByte(lines[i].text, '|') >= 0 && i+1 < len(lines) && !lines[i+1].inFence &&
		strings.Contains(lines[i+1].text, "|") && tableDelimiter.MatchString(lines[i+1].text)
}

// scanBlocks cuts a section's lines into blocks. A fence runs to its
// closing delimiter (or the section's end), an admonition to its matching
// :::, a list across the blank lines between its items and their
// indented continuations, a table over its consecutive lines; a
// paragraph ends at a blank line or where another block starts.
func scanBlocks(lines []line) []block {
	var out []block
	for i := 0; i < len(lines); {
		l := lines[i]
		if blank(l) {
			i++
			continue
		}
		start := i
		kind := kindPara
		switch {
		case l.inFence:
			kind = kindFence
			i = fenceEnd(lines, i)
		case l.level > 0:
			kind = kindHeading
			i++
		case admonitionOpen.MatchString(l.text):
			kind = kindAdmonition
			i = admonitionEnd(lines, i)
		case docusaurus.ThematicBreak(l.text):
			kind = kindBreak
			i++
		case isTableStart(lines, i):
			kind = kindTable
			for i++; i < len(lines) && !blank(lines[i]) && strings.Contains(lines[i].text, "|") && !lines[i].inFence; i++ {
			}
		case isListStart(l.text):
			kind = kindList
			i = listEnd(lines, i)
		default:
			for i++; i < len(lines) && !blank(lines[i]) && !startsBlock(lines, i); i++ {
			}
		}
		out = append(out, block{kind: kind, lines: trimBlank(lines[start:i])})
	}
	return out
}

// fenceEnd is the index after the fence opened at lines[i].
func fenceEnd(lines []line, i int) int {
	for i++; i < len(lines) && lines[i].inFence; i++ {
		if lines[i].fence && !lines[i].open {
			return i + 1
		}
		if lines[i].fence && lines[i].open {
			return i // an unclosed fence's scan restarted: not this block's
		}
	}
	return i
}

// admonitionEnd is the index after the admonition opened at lines[i]:
// after its matching ::: (nested admonitions counted, code skipped).
func admonitionEnd(lines []line, i int) int {
	depth := 1
	for i++; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l.inFence || l.level > 0:
		case admonitionOpen.MatchString(l.text):
			depth++
		case admonitionClose.MatchString(l.text):
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// listEnd is the index after the list starting at lines[i]: items,
// their indented (or lazy) continuation lines, fences inside them, and
// blank lines followed by another item or an indented line.
func listEnd(lines []line, i int) int {
	for i++; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l.inFence:
			// A fence inside an item belongs to it.
		case l.level > 0:
			return i
		case blank(l):
			j := i + 1
			for j < len(lines) && blank(lines[j]) {
				j++
			}
			if j == len(lines) || lines[j].level > 0 {
				return i
			}
			t := lines[j].text
			if !isListStart(t) && !strings.HasPrefix(t, " ") && !strings.HasPrefix(t, "\t") {
				return i
			}
			i = j - 1
		case isListStart(l.text), strings.HasPrefix(l.text, " "), strings.HasPrefix(l.text, "\t"):
		case admonitionOpen.MatchString(l.text), admonitionClose.MatchString(l.text), docusaurus.ThematicBreak(l.text), isTableStart(lines, i):
			return i
		default:
			// A lazy continuation of the item's paragraph.
		}
	}
	return i
}

// trimBlank drops trailing blank lines.
func trimBlank(ls []line) []line {
	for len(ls) > 0 && blank(ls[len(ls)-1]) {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// attachHeadings folds heading lines into the text around them: a heading
// leads the next block of text; headings after the last one trail it. A
// thematic break is dropped (it has no text). orphan is the heading text
// of a run with no other block at all ("" if there is other text).
func attachHeadings(blocks []block) (out []block, orphan string) {
	var lead []string
	for _, b := range blocks {
		switch b.kind {
		case kindBreak:
			continue
		case kindHeading:
			lead = append(lead, joinParas(b.lead, b.body()))
			continue
		}
		b.lead = joinParas(append(lead, b.lead)...)
		lead = nil
		out = append(out, b)
	}
	if len(lead) > 0 {
		if len(out) == 0 {
			return nil, joinParas(lead...)
		}
		last := &out[len(out)-1]
		last.trail = joinParas(append([]string{last.trail}, lead...)...)
	}
	return out, ""
}
