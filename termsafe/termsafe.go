// Package termsafe makes untrusted text (chunk payloads, URLs, titles) safe
// to draw on a terminal and to hand to another program: escape sequences
// and control characters are removed so that nothing in a collection can
// move the cursor, change colours, set the window title, write the
// clipboard, submit a pasted shell line or reorder text.
//
// The rules live here only: Text and Line for the screen, Outbound for
// multi-line text that leaves ragscope (the clipboard, OSC 52, tmux's
// buffer, files written for the user) and URL for a link handed to a
// browser or copied, which is refused rather than repaired.
package termsafe

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Text returns s without terminal escape sequences (CSI, OSC, DCS, APC, …),
// C0 and C1 control characters other than newline and tab, carriage
// returns, bidirectional override characters, the zero-width joiner and
// emoji presentation selector (see isWidthAmbiguous) and invalid UTF-8
// (replaced by U+FFFD). Tabs become four spaces so widths measure right.
func Text(s string) string {
	return clean(s, "    ", true)
}

// Outbound returns s made safe to leave ragscope for another program: the
// clipboard (system, tmux's buffer, OSC 52) or a file written for the
// user. It removes what Text removes — escape sequences (CSI, OSC, DCS,
// APC, …), C0 and C1 control characters, carriage returns, backspaces,
// bidirectional overrides, the zero-width joiner and emoji presentation
// selector, invalid UTF-8 (replaced by U+FFFD) — but keeps tabs as tabs.
// Newlines stay only where s has them: a CRLF becomes a newline and a lone
// CR is dropped, so a paste into a shell never submits a line the text did
// not end.
func Outbound(s string) string {
	return clean(strings.ReplaceAll(s, "\r\n", "\n"), "\t", true)
}

// ErrUnsafeURL is the error of URL for a link that carries control or
// invisible characters; test for it with errors.Is.
var ErrUnsafeURL = errors.New("the link carries control or invisible characters")

// URL returns u, trimmed of surrounding spaces, when it is safe to copy or
// open: a URL has no line breaks, tabs, escape sequences, C0 or C1 control
// characters, bidirectional overrides, zero-width characters or invalid
// UTF-8. One that has any is refused (an error wrapping ErrUnsafeURL that
// names the first offending character), never repaired: what is left
// after stripping is not the link the collection showed.
func URL(u string) (string, error) {
	u = strings.Trim(u, " ")
	if !utf8.ValidString(u) {
		return "", fmt.Errorf("%w (invalid UTF-8)", ErrUnsafeURL)
	}
	for i, r := range u {
		if urlUnsafe(r) {
			return "", fmt.Errorf("%w (%U at byte %d)", ErrUnsafeURL, r, i)
		}
	}
	return u, nil
}

// Visible returns s as a page shows it: without terminal escape
// sequences, control or bidirectional characters (newlines and tabs
// kept as they are), but with the
// width-ambiguous ones Text drops (the zero-width joiner, the emoji
// presentation selector), which are part of the text. It is for what is
// derived from the text as the page derives it (a heading's id), never
// for the screen: use Text or Line there.
func Visible(s string) string {
	return clean(s, "\t", false)
}

// EscapeURL percent-encodes, as UTF-8 bytes, each character of u that URL
// refuses (and invalid UTF-8), leaving the rest as it is, so that a link
// holding one can be copied and opened: a Docusaurus heading id keeps the
// emoji presentation selector (U+FE0F) of "❤️ Love", and a browser
// decodes "#%EF%B8%8F-love" back to that id, as it encodes the raw one
// itself. A URL that needs none is returned unchanged.
func EscapeURL(u string) string {
	var b strings.Builder
	for i := 0; i < len(u); {
		r, n := utf8.DecodeRuneInString(u[i:])
		if (r == utf8.RuneError && n <= 1) || urlUnsafe(r) {
			if b.Len() == 0 {
				b.WriteString(u[:i])
			}
			for _, c := range []byte(u[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		} else if b.Len() > 0 {
			b.WriteString(u[i : i+n])
		}
		i += n
	}
	if b.Len() == 0 {
		return u
	}
	return b.String()
}

// urlUnsafe reports a character URL refuses.
func urlUnsafe(r rune) bool {
	return isControl(r) || isBidiControl(r) || isWidthAmbiguous(r) || isZeroWidth(r)
}

// clean is Text, Outbound and Writer: tab is what a tab becomes;
// ambiguous says whether the width-ambiguous characters go too.
func clean(s, tab string, ambiguous bool) string {
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
			b.WriteString(tab)
		case isControl(r), isBidiControl(r), ambiguous && isWidthAmbiguous(r):
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

// isControl reports a C0 or C1 control character or DEL.
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// isWidthAmbiguous reports the characters the width library and terminals
// measure differently, so that a line holding one is drawn a column or two
// off its border: the zero-width joiner (U+200D; "👩\u200d💻" is one
// two-cell grapheme to the library, two emoji and four cells to most
// terminals) and the emoji presentation selector (U+FE0F; "☺\ufe0f" is
// two cells to the library, one to wcwidth terminals). Without them the
// pieces are drawn side by side, measured the same by both.
func isWidthAmbiguous(r rune) bool {
	return r == 0x200D || r == 0xFE0F
}

// isZeroWidth reports invisible characters that have no place in a URL:
// zero-width space and non-joiner, word joiner and the invisible
// operators, the byte order mark and the soft hyphen.
func isZeroWidth(r rune) bool {
	return r == 0x200B || r == 0x200C || (r >= 0x2060 && r <= 0x2064) || r == 0xFEFF || r == 0xAD
}

func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}

// Writer passes everything written to it through the rules of Outbound
// (escape sequences, C0 and C1 controls, carriage returns, backspaces and
// bidi controls removed; newlines and tabs kept) before writing it to the
// writer it wraps, so that a command's whole output is safe however it
// was put together. It keeps the zero-width joiner and the emoji
// presentation selector, which move no cursor and belong to the text
// (--json output passes unchanged). An incomplete UTF-8 rune at the end
// of a write is held until the next one; Flush writes what is held.
// Writes are serialised: one Writer may be shared by goroutines.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p without its control sequences and reports len(p)
// written when the wrapped writer took all of what was left.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := string(p)
	if len(w.pending) > 0 {
		s = string(w.pending) + s
		w.pending = w.pending[:0]
	}
	if cut := partialRune(s); cut < len(s) {
		w.pending = append(w.pending, s[cut:]...)
		s = s[:cut]
	}
	if _, err := io.WriteString(w.w, outputText(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a rune left incomplete by the last write (as U+FFFD).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	s := string(w.pending)
	w.pending = w.pending[:0]
	_, err := io.WriteString(w.w, outputText(s))
	return err
}

// Fd is the file descriptor of the wrapped writer, so that a check for a
// terminal sees through the Writer; ^uintptr(0) (no descriptor) when it
// has none.
func (w *Writer) Fd() uintptr {
	if f, ok := w.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// partialRune returns where an incomplete UTF-8 rune at the end of s
// starts (len(s) when there is none).
func partialRune(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if !utf8.FullRuneInString(s[i:]) {
			return i
		}
		break
	}
	return len(s)
}

// outputText is Outbound keeping the width-ambiguous joiner and
// selector: what Writer writes.
func outputText(s string) string {
	return clean(strings.ReplaceAll(s, "\r\n", "\n"), "\t", false)
}
