package ui

import (
	"testing"

	"ragscope/ui/common"
)

// TestOffsetShowing pins the list scrolling the panes share: the offset
// moves as little as keeps the cursor's row shown, and never below 0.
func TestOffsetShowing(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		cursor, offset, rows int
		want                 int
	}{
		{"shown already", 3, 2, 5, 2},
		{"above the window", 1, 4, 5, 1},
		{"below the window", 9, 2, 5, 5},
		{"last row of the window", 6, 2, 5, 2},
		{"never below 0", 0, -3, 5, 0},
	} {
		if got := common.OffsetShowing(tc.cursor, tc.offset, tc.rows); got != tc.want {
			t.Errorf("%s: offsetShowing(%d, %d, %d) = %d, want %d", tc.name, tc.cursor, tc.offset, tc.rows, got, tc.want)
		}
	}
}
