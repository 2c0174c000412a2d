package local

import (
	"regexp"
	"strings"
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
}

var (
	atxHeading   = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxClosing   = regexp.MustCompile(`(?:^|[ \t]+)#+[ \t]*$`)
	fenceOpening = regexp.MustCompile("^[ \t]*(`{3,}|~{3,})(.*)$")
)

// scanLines splits a markdown body into lines and marks fenced code and ATX
// headings. A fence closes only on a line of the same character at least as
// long as the opener; an unclosed fence runs to the end of the body, so a
// "# comment" inside code is never a heading.
func scanLines(body string) []line {
	raw := strings.Split(body, "\n")
	out := make([]line, len(raw))
	var fenceChar byte
	fenceLen := 0
	inComment := false
	for i, t := range raw {
		out[i].text = t
		if inComment || (fenceLen == 0 && strings.Contains(t, "<!--")) {
			// HTML comments are not published: their text is dropped and a
			// heading inside one is no heading.
			t, inComment = stripComments(t, inComment)
			out[i].text = t
			if strings.TrimSpace(t) == "" {
				continue
			}
		}
		if fenceLen > 0 {
			out[i].inFence = true
			if isClosingFence(t, fenceChar, fenceLen) {
				out[i].fence = true
				fenceLen = 0
			}
			continue
		}
		if m := fenceOpening.FindStringSubmatch(t); m != nil {
			// A backtick fence's info string may not contain backticks.
			if m[1][0] != '`' || !strings.Contains(m[2], "`") {
				fenceChar, fenceLen = m[1][0], len(m[1])
				out[i].inFence, out[i].fence, out[i].open = true, true, true
				continue
			}
		}
		if m := atxHeading.FindStringSubmatch(t); m != nil {
			out[i].level = len(m[1])
			h := atxClosing.ReplaceAllString(m[2], "")
			out[i].heading = strings.TrimSpace(h)
		}
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

func isClosingFence(t string, ch byte, n int) bool {
	s := strings.TrimLeft(t, " \t")
	k := 0
	for k < len(s) && s[k] == ch {
		k++
	}
	return k >= n && strings.TrimSpace(s[k:]) == ""
}

// block is a paragraph-level unit of a section: consecutive non-blank lines,
// or a whole fenced code block (blank lines included).
type block struct {
	text string
	code bool
}

// splitBlocks cuts section lines into blocks at blank lines outside fences.
func splitBlocks(lines []line) []block {
	var out []block
	var cur []string
	curCode := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, block{text: strings.Join(cur, "\n"), code: curCode})
		}
		cur, curCode = nil, false
	}
	for _, l := range lines {
		if l.inFence {
			if l.open || !curCode {
				flush()
			}
			cur = append(cur, l.text)
			curCode = true
			if l.fence && !l.open {
				flush()
			}
			continue
		}
		if strings.TrimSpace(l.text) == "" {
			flush()
			continue
		}
		if curCode {
			flush()
		}
		cur = append(cur, l.text)
	}
	flush()
	return out
}

var sentenceEnd = regexp.MustCompile(`[.!?…]["'”’)\]]*\s+`)

// splitLong cuts text into pieces of at most max runes: prose on sentence
// boundaries, code on line boundaries, and anything still too long at the
// last space before the limit (or hard at the limit).
func splitLong(text string, max int, code bool) []string {
	var units []string
	if code {
		for _, l := range strings.SplitAfter(text, "\n") {
			if l != "" {
				units = append(units, l)
			}
		}
	} else {
		last := 0
		for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
			units = append(units, text[last:m[1]])
			last = m[1]
		}
		if last < len(text) {
			units = append(units, text[last:])
		}
	}
	var out []string
	var cur strings.Builder
	curLen := 0
	for _, u := range units {
		ul := runeLen(u)
		if curLen > 0 && curLen+ul > max {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			curLen = 0
		}
		if ul > max {
			pieces := hardSplit(u, max)
			out = append(out, pieces[:len(pieces)-1]...)
			u = pieces[len(pieces)-1]
			ul = runeLen(u)
		}
		cur.WriteString(u)
		curLen += ul
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
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
