package answer

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Wrapped is a paragraph wrapped to a width: its lines and the byte
// offset in the paragraph where each line starts.
type Wrapped struct {
	Lines  []string
	Starts []int
}

// WrapPara wraps one paragraph of plain text greedily at spaces to w
// cells, cutting words longer than a line. The spaces at a break are
// dropped. Greedy wrapping from a line's start does not depend on what
// came before it, so a paragraph that grows can be re-wrapped from the
// start of its last line (extend) instead of from its beginning.
func WrapPara(para string, w int) Wrapped {
	w = max(w, 1)
	var out Wrapped
	start, width, end := 0, 0, 0 // the line's start, width and end of its last word
	for i := 0; i < len(para); {
		ws := i
		for ws < len(para) && para[ws] == ' ' {
			ws++
		}
		we := ws
		for we < len(para) && para[we] != ' ' {
			we++
		}
		if ws == we {
			break
		}
		spaces, ww := ws-i, ansi.StringWidth(para[ws:we])
		if width > 0 && width+spaces+ww > w {
			out.Lines, out.Starts = append(out.Lines, para[start:end]), append(out.Starts, start)
			start, width, spaces = ws, 0, 0
		}
		if width+spaces+ww > w {
			// A word longer than the line: cut it rune by rune.
			k := ws
			for k < we {
				r, n := utf8.DecodeRuneInString(para[k:])
				rw := ansi.StringWidth(string(r))
				if width+spaces+rw > w && k > start {
					out.Lines, out.Starts = append(out.Lines, para[start:k]), append(out.Starts, start)
					start, width, spaces = k, 0, 0
				}
				width += spaces + rw
				spaces = 0
				k += n
			}
		} else {
			width += spaces + ww
		}
		end, i = we, we
	}
	// Trailing spaces (a piece that ends with one) would only overflow.
	out.Lines, out.Starts = append(out.Lines, strings.TrimRight(para[start:], " ")), append(out.Starts, start)
	return out
}

// Extend wraps para, which continues prev (wrapped as pw), re-wrapping
// only from the start of pw's last line.
func Extend(prev string, pw Wrapped, para string, w int) Wrapped {
	if !strings.HasPrefix(para, prev) || len(pw.Starts) == 0 {
		return WrapPara(para, w)
	}
	last := len(pw.Starts) - 1
	from := pw.Starts[last]
	tail := WrapPara(para[from:], w)
	out := Wrapped{
		Lines:  append(pw.Lines[:last:last], tail.Lines...),
		Starts: append(pw.Starts[:last:last], tail.Starts...),
	}
	for i := last; i < len(out.Starts); i++ {
		out.Starts[i] += from
	}
	return out
}
