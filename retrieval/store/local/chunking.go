package local

import (
	"fmt"
	"strings"
)

// How pages are cut into chunks (ChunkOptions.Split).
const (
	// SplitHeadings cuts a page at its ## and ### headings, then packs
	// each section's paragraphs up to the chunk size (the default).
	SplitHeadings = "headings"
	// SplitSize packs a page's paragraphs and headings in order up to the
	// chunk size, across headings: a chunk may hold the end of one
	// section and the start of the next.
	SplitSize = "size"
)

// Units of a chunk size (Chunking.Unit).
const (
	// UnitChars counts characters (Unicode code points).
	UnitChars = "characters"
	// UnitWords counts words: runs of characters between white space.
	UnitWords = "words"
)

// minMaxWords keeps a tiny MaxWords from producing one chunk per word.
const minMaxWords = 20

// Chunking is how an index's chunks were cut, as its file stores it and
// stats shows it: two chunkings of one book are two setups.
type Chunking struct {
	// Split is SplitHeadings or SplitSize.
	Split string `json:"split"`
	// Size is the largest chunk, in Unit.
	Size int    `json:"size"`
	Unit string `json:"unit"`
	// Overlap is the number of words of a chunk's end that the next chunk
	// of the same section (SplitSize: of the same page) repeats first.
	Overlap int `json:"overlap,omitempty"`
}

// String describes the chunking: "split at headings, at most 1500
// characters, no overlap".
func (c Chunking) String() string {
	split := "split at headings"
	if c.Split == SplitSize {
		split = "split by size across headings"
	}
	overlap := "no overlap"
	if c.Overlap > 0 {
		overlap = fmt.Sprintf("%d words of overlap", c.Overlap)
	}
	return fmt.Sprintf("%s, at most %d %s, %s", split, c.Size, c.Unit, overlap)
}

// ParseSplit reads a split name ("" is SplitHeadings).
func ParseSplit(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", SplitHeadings:
		return SplitHeadings, nil
	case SplitSize:
		return SplitSize, nil
	}
	return "", fmt.Errorf("unknown split %q: use %s or %s", s, SplitHeadings, SplitSize)
}

// Chunking is the chunking the options give.
func (o ChunkOptions) Chunking() Chunking {
	split, err := ParseSplit(o.Split)
	if err != nil {
		split = SplitHeadings
	}
	c := Chunking{Split: split, Size: o.maxChars(), Unit: UnitChars, Overlap: max(o.Overlap, 0)}
	if o.MaxWords > 0 {
		c.Size, c.Unit = max(o.MaxWords, minMaxWords), UnitWords
	}
	return c
}

// sizer measures text in a chunking's unit.
type sizer struct{ words bool }

func (z sizer) size(s string) int {
	if z.words {
		return wordCount(s)
	}
	return runeLen(s)
}

// hardSplit cuts s into pieces of at most max units.
func (z sizer) hardSplit(s string, max int) []string {
	if !z.words {
		return hardSplit(s, max)
	}
	w := strings.Fields(s)
	var out []string
	for len(w) > max {
		out = append(out, strings.Join(w[:max], " "))
		w = w[max:]
	}
	return append(out, strings.Join(w, " "))
}

func wordCount(s string) int { return len(strings.Fields(s)) }

// lastWords is the last n words of s joined by spaces ("" when n <= 0).
func lastWords(s string, n int) string {
	if n <= 0 {
		return ""
	}
	w := strings.Fields(s)
	return strings.Join(w[max(len(w)-n, 0):], " ")
}

// piece is a chunk's text and the section it starts in.
type piece struct {
	text string
	sec  int
}

// packPage cuts a page's sections into chunk texts as o says: at headings
// (each piece led by its section's heading line) or by size across them.
// Blocks (a paragraph, fence, table, list, admonition) are never cut
// unless one alone is over the size; pieces are of near-equal size. A
// section with no text of its own (a heading followed by its first
// subheading, or by a thematic break only) gives no piece: a ## heading
// leads its first subsection's first piece, which is cited at that
// subsection (the first heading whose text it holds). A piece after the first of its
// run starts with the last o.Overlap words of the one before.
func packPage(sections []section, o ChunkOptions) []piece {
	c := o.Chunking()
	z := sizer{words: c.Unit == UnitWords}
	var out []piece
	if c.Split == SplitSize {
		var all []block
		for i, s := range sections {
			own := scanBlocks(s.lines)
			if i > 0 || len(own) > 0 {
				all = append(all, block{kind: kindHeading, lines: []line{{text: s.headingLine}}, sec: i})
			}
			for _, b := range own {
				b.sec = i
				all = append(all, b)
			}
		}
		blocks, _ := attachHeadings(all)
		var units []string
		var secOf []int
		for _, b := range blocks {
			for _, p := range b.parts(c.Size, z) {
				units = append(units, p)
				secOf = append(secOf, b.sec)
			}
		}
		for k, p := range packPieces(units, secOf, c.Size, z) {
			if k > 0 && c.Overlap > 0 {
				p.text = lastWords(out[k-1].text, c.Overlap) + "\n\n" + p.text
			}
			out = append(out, p)
		}
		return out
	}
	carry := ""
	for i, s := range sections {
		blocks, orphan := attachHeadings(scanBlocks(s.lines))
		if len(blocks) == 0 {
			// The heading leads its subsections' text; a page's title
			// (the intro) is each chunk's Title already, and an empty
			// section followed by a sibling has nothing to lead.
			carry = ""
			if i > 0 && i+1 < len(sections) && sections[i+1].level > s.level {
				carry = joinParas(s.headingLine, orphan)
			}
			continue
		}
		prefix := joinParas(carry, s.headingLine) + "\n\n"
		carry = ""
		budget := max(c.Size-z.size(prefix), c.Size/2)
		var units []string
		for _, b := range blocks {
			units = append(units, b.parts(budget, z)...)
		}
		prev := ""
		for k, p := range packPieces(units, nil, budget, z) {
			body := p.text
			if k > 0 && c.Overlap > 0 {
				body = lastWords(prev, c.Overlap) + "\n\n" + body
			}
			prev = p.text
			out = append(out, piece{text: prefix + body, sec: i})
			if k == 0 {
				prefix = s.headingLine + "\n\n"
			}
		}
	}
	return out
}

// packPieces packs block texts (none over budget but a block's single
// over-long line) in order into pieces of at most budget units, of
// near-equal size, each piece's section the one its first block is in
// (secOf; 0 when nil).
func packPieces(units []string, secOf []int, budget int, z sizer) []piece {
	if len(units) == 0 {
		return nil
	}
	sizes := make([]int, len(units))
	for i, u := range units {
		sizes[i] = z.size(u)
	}
	starts := balance(sizes, z.size("\n\n"), budget)
	out := make([]piece, len(starts))
	for k, s := range starts {
		e := len(units)
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		out[k].text = strings.Join(units[s:e], "\n\n")
		if secOf != nil {
			out[k].sec = secOf[s]
		}
	}
	return out
}
