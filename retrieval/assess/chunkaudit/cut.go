package chunkaudit

import (
	"unicode"
	"unicode/utf8"
)

// CutAt returns the byte offset in text at which an embedding model that
// reads limit tokens stops reading, counting tokens as Tokens does:
// text[:CutAt(text, limit)] has limit tokens (or all of text's, when it
// has no more), and what follows is the part the model never saw.
// len(text) when text is within the limit or limit is 0 (no limit).
func CutAt(text string, limit int) int {
	if limit <= 0 {
		return len(text)
	}
	n, word := 0, 0
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		starts := false
		switch {
		case r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)):
			word, starts = 0, true
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			starts = word%wordPiece == 0
			word++
		case unicode.IsSpace(r):
			word = 0
		default:
			word, starts = 0, true
		}
		if starts {
			if n == limit {
				return i
			}
			n++
		}
		i += size
	}
	return len(text)
}
