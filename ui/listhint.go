package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// listRows is how many rows of lines each fit in avail lines of a list
// of n rows, keeping a line for the "more below" hint when they overflow.
func listRows(avail, lines, n int) int {
	rows := max(avail/lines, 1)
	if n > rows && avail%lines == 0 && rows > 1 {
		rows--
	}
	return rows
}

// moreHint tells how many rows of a list are hidden above and below the
// ones shown ("" when none are).
func moreHint(above, below int) string {
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

// hintRule is a rule w cells wide that carries hint ("" gives a plain
// rule), for lists whose last line is a rule.
func hintRule(hint string, w int) string {
	if hint == "" {
		return strings.Repeat("─", w)
	}
	return truncate("─ "+hint+" "+strings.Repeat("─", max(w-ansi.StringWidth(hint)-3, 0)), w)
}
