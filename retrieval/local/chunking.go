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
// A piece after the first of its run starts with the last o.Overlap words
// of the one before.
func packPage(sections []section, o ChunkOptions) []piece {
	c := o.Chunking()
	z := sizer{words: c.Unit == UnitWords}
	var out []piece
	if c.Split == SplitSize {
		var blocks []block
		var secOf []int
		for i, s := range sections {
			if i > 0 || len(splitBlocks(s.lines)) > 0 {
				blocks = append(blocks, block{text: s.headingLine})
				secOf = append(secOf, i)
			}
			for _, b := range splitBlocks(s.lines) {
				blocks = append(blocks, b)
				secOf = append(secOf, i)
			}
		}
		if len(blocks) == 0 {
			return nil
		}
		for k, p := range packBlocks(blocks, secOf, c.Size, z) {
			if k > 0 && c.Overlap > 0 {
				p.text = lastWords(out[k-1].text, c.Overlap) + "\n\n" + p.text
			}
			out = append(out, p)
		}
		return out
	}
	for i, s := range sections {
		blocks := splitBlocks(s.lines)
		if len(blocks) == 0 {
			continue
		}
		prefix := s.headingLine + "\n\n"
		budget := c.Size - z.size(prefix)
		if budget < c.Size/2 {
			budget = c.Size / 2
		}
		prev := ""
		for k, p := range packBlocks(blocks, nil, budget, z) {
			body := p.text
			if k > 0 && c.Overlap > 0 {
				body = lastWords(prev, c.Overlap) + "\n\n" + body
			}
			prev = p.text
			out = append(out, piece{text: prefix + body, sec: i})
		}
	}
	return out
}

// packBlocks packs blocks in order into pieces of at most budget units,
// each piece's section the one its first block is in (secOf; 0 when nil).
// A block is split only when it alone exceeds the budget.
func packBlocks(blocks []block, secOf []int, budget int, z sizer) []piece {
	var out []piece
	var cur []string
	curLen, curSec := 0, 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, piece{text: strings.Join(cur, "\n\n"), sec: curSec})
		}
		cur, curLen = nil, 0
	}
	for k, b := range blocks {
		sec := 0
		if secOf != nil {
			sec = secOf[k]
		}
		n := z.size(b.text)
		if n > budget {
			flush()
			for _, p := range splitLong(b.text, budget, b.code, z) {
				out = append(out, piece{text: p, sec: sec})
			}
			continue
		}
		sep := 0
		if len(cur) > 0 && !z.words {
			sep = 2
		}
		if curLen+sep+n > budget {
			flush()
			sep = 0
		}
		if len(cur) == 0 {
			curSec = sec
		}
		cur = append(cur, b.text)
		curLen += sep + n
	}
	flush()
	return out
}
