package present

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Middle fits a one-line plain s (a source key, a doc path, a URL) into
// width terminal cells by cutting out its middle: the start and, with
// more room, the end are kept, so two sections of one page
// ("docs/…/05-urdf.md#joints" and "docs/…/05-urdf.md#links") stay
// apart where cutting the end would show them alike. The anchor after a
// '#' is kept whole when it fits with the ellipsis. s must hold no
// styles or control sequences (sanitise it first).
func Middle(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	if width == 1 {
		return "…"
	}
	room := width - 1 // the ellipsis takes one cell
	head := room / 3
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		// The whole anchor, and the path's end with what remains.
		if aw := ansi.StringWidth(s[i:]); aw > room-head {
			head = max(room-aw, 0)
		}
	}
	tail := room - head
	return ansi.Truncate(s, head, "") + "…" + lastCells(s, tail)
}

// lastCells is the longest end of s that fits in w cells.
func lastCells(s string, w int) string {
	if w <= 0 {
		return ""
	}
	rs := []rune(s)
	cells, i := 0, len(rs)
	for i > 0 {
		cw := ansi.StringWidth(string(rs[i-1]))
		if cells+cw > w {
			break
		}
		cells += cw
		i--
	}
	return string(rs[i:])
}
