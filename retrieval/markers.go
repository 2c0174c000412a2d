package retrieval

import (
	"strconv"
	"strings"
	"unicode"
)

// maxMarker bounds an inline citation marker's length in characters; a
// longer bracket is prose, not a citation.
const maxMarker = 160

// MarkerParser finds inline citations ("[Source 2]", "[Source 1, 3]",
// "[Sources 1 and 3]", "[Source 2: Title - Section]", "[2]") in an answer
// streamed piece by piece, for providers without native citations. A
// citation's span runs from the start of the sentence it closes (or the
// previous marker) to the end of the marker. Feed costs time in the
// piece's length; the parser keeps only the current sentence.
type MarkerParser struct {
	pos int // runes fed so far

	// tail holds the runes from tailBase on: the sentence being written
	// and the one before it (a marker after a full stop cites that one).
	tail     []rune
	tailBase int

	boundary, prevBoundary int  // starts of the current and previous sentences
	spoken                 bool // non-space text since boundary
	lastEnd                int  // end of the last marker
	last                   int  // span start of the last marker
	lastTextEnd            int  // end of the last marker's cited text
	afterMarker            bool // only space since lastEnd
	prev                   rune

	open  int // position of an unclosed '[', -1 when none
	inner []rune
}

// NewMarkerParser returns a parser at the start of an answer.
func NewMarkerParser() *MarkerParser { return &MarkerParser{open: -1} }

// Feed reads the next piece of the answer and returns the citations whose
// marker it completes, with offsets into the whole answer.
func (m *MarkerParser) Feed(piece string) []AnswerCitation {
	var out []AnswerCitation
	for _, r := range piece {
		at := m.pos
		m.pos++
		m.tail = append(m.tail, r)
		if m.open >= 0 {
			switch {
			case r == ']':
				if c, ok := m.close(at + 1); ok {
					out = append(out, c)
					m.prev = r
					continue
				}
				m.open, m.spoken = -1, true
			case r == '[':
				m.open, m.inner = at, m.inner[:0]
				m.spoken = true
			case r == '\n' || len(m.inner) >= maxMarker:
				m.open, m.spoken = -1, true
			default:
				m.inner = append(m.inner, r)
			}
			if m.open >= 0 {
				m.prev = r
				continue
			}
		}
		switch {
		case r == '[':
			m.open, m.inner = at, m.inner[:0]
		case r == '\n' || (unicode.IsSpace(r) && (m.prev == '.' || m.prev == '!' || m.prev == '?')):
			m.newSentence(at + 1)
		case !unicode.IsSpace(r):
			m.spoken = true
			m.afterMarker = false
		}
		m.prev = r
	}
	return out
}

// newSentence moves the sentence start to at, keeping the previous one.
func (m *MarkerParser) newSentence(at int) {
	if !m.spoken {
		return // "…end. [Source 1] Next": still the same sentence to cite
	}
	m.prevBoundary, m.boundary, m.spoken = m.boundary, at, false
	if cut := m.prevBoundary - m.tailBase; cut > 0 {
		m.tail = append(m.tail[:0], m.tail[cut:]...)
		m.tailBase = m.prevBoundary
	}
}

// close ends the bracket opened at m.open, at end; ok is false when it is
// not a citation.
func (m *MarkerParser) close(end int) (AnswerCitation, bool) {
	sources, ok := ParseMarker(string(m.inner))
	start := m.open
	m.open = -1
	if !ok {
		return AnswerCitation{}, false
	}
	spanStart := m.boundary
	if !m.spoken {
		spanStart = m.prevBoundary // the marker follows a finished sentence
	}
	if m.lastEnd > spanStart && !m.afterMarker {
		spanStart = m.lastEnd
	}
	if m.afterMarker {
		// "[Source 1][Source 3]": the second marker cites the same span.
		spanStart = m.lastStart()
	}
	spanStart = max(min(spanStart, start), m.tailBase)
	textEnd := start
	if m.afterMarker {
		textEnd = m.lastTextEnd
	}
	for spanStart < textEnd && unicode.IsSpace(m.tail[spanStart-m.tailBase]) {
		spanStart++
	}
	c := AnswerCitation{
		Start:   spanStart,
		End:     end,
		Text:    strings.TrimSpace(string(m.tail[spanStart-m.tailBase : max(textEnd, spanStart)-m.tailBase])),
		Sources: sources,
		Marker:  string(m.tail[start-m.tailBase : end-m.tailBase]),
	}
	m.lastEnd, m.afterMarker, m.last, m.lastTextEnd = end, true, spanStart, textEnd
	return c, true
}

func (m *MarkerParser) lastStart() int { return m.last }

// ParseMarker reads the inside of a bracket as a citation: "Source 2",
// "Sources 1, 3 and 4", "source 2: Title - Section", "2", "1, 3". It
// returns the source numbers, in order and without repeats.
func ParseMarker(inner string) ([]int, bool) {
	s := strings.ToLower(strings.TrimSpace(inner))
	named := false
	for _, p := range []string{"sources", "source"} {
		if strings.HasPrefix(s, p) {
			s, named = s[len(p):], true
			break
		}
	}
	if named {
		if i := strings.IndexByte(s, ':'); i >= 0 {
			s = s[:i] // "Source 2: Title - Section"
		}
	}
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == '&' || unicode.IsSpace(r) }) {
		if f == "and" || f == "source" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || n > 10000 {
			return nil, false
		}
		seen := false
		for _, o := range out {
			seen = seen || o == n
		}
		if !seen {
			out = append(out, n)
		}
	}
	return out, len(out) > 0
}
