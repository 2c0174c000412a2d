package common

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// ListRows is how many rows of lines each fit in avail lines of a list
// of n rows, keeping a line for the "more below" hint when they overflow.
func ListRows(avail, lines, n int) int {
	rows := max(avail/lines, 1)
	if n > rows && avail%lines == 0 && rows > 1 {
		rows--
	}
	return rows
}

// MoreHint tells how many rows of a list are hidden above and below the
// ones shown ("" when none are).
func MoreHint(above, below int) string {
	switch {
	case below > 0 && above > 0:
		return "↓ " + strconv.Itoa(below) + " more below · ↑ " + strconv.Itoa(above) + " above"
	case below > 0:
		return "↓ " + strconv.Itoa(below) + " more below"
	case above > 0:
		return "↑ " + strconv.Itoa(above) + " above"
	}
	return ""
}

// HintRule is a rule w cells wide that carries hint ("" gives a plain
// rule), for lists whose last line is a rule.
func HintRule(hint string, w int) string {
	if hint == "" {
		return strings.Repeat("─", w)
	}
	return Truncate("─ "+hint+" "+strings.Repeat("─", max(w-ansi.StringWidth(hint)-3, 0)), w)
}

func LeftPad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat(" ", n-len(s)) + s
}

// MoveCursor applies the list keys (up, down, page up/down, top, bottom)
// to cursor in a list of n items showing page rows, clamped to the list.
func MoveCursor(keys *KeyMap, km tea.KeyMsg, cursor, n, page int) int {
	switch {
	case key.Matches(km, keys.Up):
		cursor--
	case key.Matches(km, keys.Down):
		cursor++
	case key.Matches(km, keys.PageUp):
		cursor -= page
	case key.Matches(km, keys.PageDown):
		cursor += page
	case key.Matches(km, keys.Top):
		cursor = 0
	case key.Matches(km, keys.Bottom):
		cursor = n - 1
	}
	return min(max(cursor, 0), n-1)
}

// OffsetShowing returns the first row to show of a list drawn rows at a
// time so that the cursor's row is among them, moving offset as little as
// possible; it is never below 0.
func OffsetShowing(cursor, offset, rows int) int {
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+rows {
		offset = cursor - rows + 1
	}
	return max(offset, 0)
}
