// Package jsonsafe writes JSON that is safe to show on a terminal.
//
// encoding/json escapes only the C0 controls, U+2028/U+2029 and (on
// request) <, > and &. It passes DEL, C1 controls (U+0080–U+009F, CSI as U+009B
// among them) and the bidirectional overrides and isolates raw inside
// strings, so a payload read from a collection can still steer a terminal
// or reorder what a reader sees when the JSON is printed or paged. Encode
// escapes those runes as \uXXXX as well; the document decodes to the same
// strings.
package jsonsafe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// Encode writes v as indented JSON (two spaces, no HTML escaping, a final
// newline) with every DEL, C1 control and bidi control escaped.
func Encode(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	if _, err := w.Write(Escape(buf.Bytes())); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// Escape returns the JSON document b with every DEL, C1 control and bidi
// control rune written as a \uXXXX escape. b must be JSON as encoding/json
// writes it: outside strings it holds only ASCII, so each such rune is
// inside a string and its escape decodes to the same rune. Escape returns
// b itself when there is nothing to escape.
func Escape(b []byte) []byte {
	first := -1
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf && b[i] != 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if Unsafe(r) {
			first = i
			break
		}
		i += n
	}
	if first < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:first]...)
	for i := first; i < len(b); {
		if b[i] < utf8.RuneSelf && b[i] != 0x7f {
			out = append(out, b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if Unsafe(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// Unsafe reports whether r is a rune Escape writes as \uXXXX: DEL, a C1
// control (U+0080–U+009F) or a bidi control (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069).
func Unsafe(r rune) bool {
	switch {
	case r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200E || r == 0x200F || r == 0x061C:
		return true
	}
	return false
}
