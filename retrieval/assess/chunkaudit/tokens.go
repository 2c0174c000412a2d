package chunkaudit

import (
	"unicode"
	"unicode/utf8"
)

// TokenEstimate names how Tokens counts: no embedding provider's
// tokenizer ships offline in a Go module ragscope can use, so tokens are
// estimated for every model, and every output says so.
const TokenEstimate = "estimated: 1 token per word of up to 6 letters and 1 more per further 6, 1 per punctuation mark or symbol, 1 per CJK character"

// wordPiece is the letters an estimated token of a long word covers.
const wordPiece = 6

// Tokens estimates the number of tokens a subword tokenizer (BPE,
// WordPiece) makes of text: see TokenEstimate.
func Tokens(text string) int {
	n, word := 0, 0
	flush := func() {
		if word > 0 {
			n += 1 + (word-1)/wordPiece
			word = 0
		}
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		switch {
		case r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)):
			flush()
			n++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			word++
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}
