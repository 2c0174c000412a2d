package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// wrapped is a paragraph wrapped to a width: its lines and the byte
// offset in the paragraph where each line starts.
type wrapped struct {
	lines  []string
	starts []int
}

// wrapPara wraps one paragraph of plain text greedily at spaces to w
// cells, cutting words longer than a line. The spaces at a break are
// dropped. Greedy wrapping from a line's start does not depend on what
// came before it, so a paragraph that grows can be re-wrapped from the
// start of its last line (extend) instead of from its beginning.
func wrapPara(para string, w int) wrapped {
	w = max(w, 1)
	var out wrapped
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
			out.lines, out.starts = append(out.lines, para[start:end]), append(out.starts, start)
			start, width, spaces = ws, 0, 0
		}
		if width+spaces+ww > w {
			// A word longer than the line: cut it rune by rune.
			k := ws
			for k < we {
				r, n := utf8.DecodeRuneInString(para[k:])
				rw := ansi.StringWidth(string(r))
				if width+spaces+rw > w && k > start {
					out.lines, out.starts = append(out.lines, para[start:k]), append(out.starts, start)
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
	out.lines, out.starts = append(out.lines, strings.TrimRight(para[start:], " ")), append(out.starts, start)
	return out
}

// extend wraps para, which continues prev (wrapped as pw), re-wrapping
// only from the start of pw's last line.
func extend(prev string, pw wrapped, para string, w int) wrapped {
	if !strings.HasPrefix(para, prev) || len(pw.starts) == 0 {
		return wrapPara(para, w)
	}
	last := len(pw.starts) - 1
	from := pw.starts[last]
	tail := wrapPara(para[from:], w)
	out := wrapped{
		lines:  append(pw.lines[:last:last], tail.lines...),
		starts: append(pw.starts[:last:last], tail.starts...),
	}
	for i := last; i < len(out.starts); i++ {
		out.starts[i] += from
	}
	return out
}
