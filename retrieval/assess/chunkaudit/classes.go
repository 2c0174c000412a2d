package chunkaudit

import (
	"strings"
	"unicode/utf8"

	"ragscope/internal/lazyre"
)

// Classes of tiny and duplicate chunks: what made them. The first three
// are the chunker's doing (a chunk cut where the book has no text of its
// own); the last two are the book's.
const (
	// ClassHeadingOnly: nothing but heading lines.
	ClassHeadingOnly = "heading only"
	// ClassSeparator: headings and thematic breaks or admonition fences,
	// no text.
	ClassSeparator = "separator"
	// ClassCodeRemnant: a piece of a code block cut apart (an unbalanced
	// fence).
	ClassCodeRemnant = "code remnant"
	// ClassShortSection: a section of the book that is that short.
	ClassShortSection = "short section"
	// ClassBoilerplate: text the book repeats on several pages.
	ClassBoilerplate = "repeated boilerplate"
)

// ByChunker reports whether class is one the chunker made, not the book.
func ByChunker(class string) bool {
	return class == ClassHeadingOnly || class == ClassSeparator || class == ClassCodeRemnant
}

var (
	separatorLine = lazyre.New(`^(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|:{3,}.*|<hr\s*/?>)$`)
	fenceLine     = lazyre.New("^(?:`{3,}|~{3,})")
)

// classify is the class of a tiny chunk's text: heading only, separator,
// code remnant, else short section ("repeated boilerplate" is decided
// with the duplicates).
func classify(text string) string {
	fences, body, sep := 0, 0, 0
	inCode := false
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		switch {
		case l == "":
		case fenceLine.MatchString(l):
			fences++
			inCode = !inCode
		case inCode:
			body++
		case strings.HasPrefix(l, "#"):
		case separatorLine.MatchString(l):
			sep++
		default:
			body++
		}
	}
	switch {
	case fences%2 == 1:
		return ClassCodeRemnant
	case body == 0 && fences == 0 && sep == 0:
		return ClassHeadingOnly
	case body == 0:
		return ClassSeparator
	}
	return ClassShortSection
}

// startLen is how many characters of a chunk's text the audit lists.
const startLen = 80

// start is the first startLen characters of text, white space collapsed,
// "…" when cut. It is the collection's text: print it through termsafe.
func start(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= startLen {
		return s
	}
	r := []rune(s)
	return string(r[:startLen]) + "…"
}
