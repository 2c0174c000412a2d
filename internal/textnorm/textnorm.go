// Package textnorm is the one normal form questions are compared in:
// lower case, every run of characters that are not letters or digits a
// single space (golden generate's filters and golden import's duplicate
// search both read it).
package textnorm

import (
	"strings"
	"unicode"
)

// Normalize returns s in lower case with every run of characters that
// are not letters or numbers one space, none at either end: "How do I
// run ROS2?" is "how do i run ros2".
func Normalize(s string) string {
	if ascii(s) {
		return normalizeASCII(s)
	}
	return normalizeRunes(s)
}

// Words are Normalize's words: "Quality-of-Service?" is [quality of
// service].
func Words(s string) []string {
	return strings.Fields(Normalize(s))
}

// normalizeRunes is Normalize of any text, rune by rune.
func normalizeRunes(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

func ascii(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// normalizeASCII is Normalize of an ASCII text, byte by byte.
func normalizeASCII(s string) string {
	b := make([]byte, 0, len(s))
	space := false
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			space = true
			continue
		}
		if space && len(b) > 0 {
			b = append(b, ' ')
		}
		space = false
		b = append(b, c)
	}
	return string(b)
}
