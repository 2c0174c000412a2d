package ui

import "strconv"

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
