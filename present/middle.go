package present

import (
	"strings"

	"ragscope/termsafe"

	"github.com/charmbracelet/x/ansi"
)

// Middle fits a one-line plain s (a source key, a doc path, a URL) into
// width terminal cells by cutting out its middle: the start and, with
// more room, the end are kept, so two sections of one page
// ("docs/…/05-urdf.md#joints" and "docs/…/05-urdf.md#links") stay
// apart where cutting the end would show them alike. The anchor after a
// '#' is kept whole when it fits with the ellipsis. s is put on one
// line and cleaned of control sequences first (termsafe.Line).
func Middle(s string, width int) string {
	s = termsafe.Line(s)
	if out, ok := fitsOrEllipsis(s, width); ok {
		return out
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
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, ansi.StringWidth(s)-tail, "")
}

// fitsOrEllipsis is what a cut of s to width cells gives without cutting:
// nothing for no room, s when it fits, "…" for one cell; ok is false when
// s must be cut.
func fitsOrEllipsis(s string, width int) (string, bool) {
	switch {
	case width <= 0:
		return "", true
	case ansi.StringWidth(s) <= width:
		return s, true
	case width == 1:
		return "…", true
	}
	return "", false
}
