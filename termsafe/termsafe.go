// Package termsafe makes untrusted text (chunk payloads, URLs, titles) safe
// to draw on a terminal: escape sequences and control characters are
// removed so that nothing in a collection can move the cursor, change
// colours, set the window title, write the clipboard or reorder text.
package termsafe

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text returns s without terminal escape sequences (CSI, OSC, DCS, APC, …),
// C0 and C1 control characters other than newline and tab, carriage
// returns, bidirectional override characters and invalid UTF-8 (replaced
// by U+FFFD). Tabs become four spaces so widths measure right.
func Text(s string) string {
	if isPlain(s) {
		return s
	}
	s = ansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		case isBidiControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line is Text with newlines folded to spaces, for one-line fields (titles,
// URLs, previews).
func Line(s string) string {
	return strings.Join(strings.Fields(Text(s)), " ")
}

// isPlain reports whether s is printable ASCII (plus newline) and needs no
// work: the common case, kept allocation-free.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || (c < 0x20 && c != '\n') || c == 0x7f {
			return false
		}
	}
	return true
}

func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}
