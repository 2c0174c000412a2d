// Package textnorm reduces a text to its words, the one rule that
// question comparison (golden generate's filters, golden import's
// duplicate search) and the simple heading slug ("Quality of Service!" →
// quality-of-service) share, each with its own separator.
package textnorm

import (
	"strings"
	"unicode"
)

// Normalize returns s in lower case with every run of characters that
// are not letters or numbers one space, none at either end: "How do I
// run ROS2?" is "how do i run ros2".
func Normalize(s string) string {
	return Join(s, ' ', unicode.IsNumber)
}

// Words are Normalize's words: "Quality-of-Service?" is [quality of
// service].
func Words(s string) []string {
	return strings.Fields(Normalize(s))
}

// Join lowercases s and writes its runs of letters and of the runes
// number accepts (unicode.IsDigit, unicode.IsNumber) joined by one sep
// each; every other rune separates words and is dropped, so the result
// neither starts nor ends with sep. ASCII text takes a byte-wise path.
func Join(s string, sep byte, number func(rune) bool) string {
	if isASCII(s) {
		return joinASCII(s, sep)
	}
	return joinRunes(s, sep, number)
}

// joinRunes is Join of any text, rune by rune.
func joinRunes(s string, sep byte, number func(rune) bool) string {
	var b strings.Builder
	pending := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || number(r) {
			if pending && b.Len() > 0 {
				b.WriteByte(sep)
			}
			pending = false
			b.WriteRune(r)
			continue
		}
		pending = true
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// joinASCII is Join of an ASCII text (its only digits are 0-9, numbers
// whichever test is asked), byte by byte.
func joinASCII(s string, sep byte) string {
	b := make([]byte, 0, len(s))
	pending := false
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			pending = true
			continue
		}
		if pending && len(b) > 0 {
			b = append(b, sep)
		}
		pending = false
		b = append(b, c)
	}
	return string(b)
}
