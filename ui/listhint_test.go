package ui

import (
	"strings"
	"testing"
)

// A list that overflows says how much more there is (issue #18, point 8).
func TestResultsSayMoreBelow(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Defaults.TopK = 20
	opts.Defaults.Threshold = 0
	m := sized(t, opts, 80, 24)
	m = ask(t, m, "nodes")
	n := len(m.results.items)
	rows := m.results.pageRows()
	if n <= rows {
		t.Fatalf("%d results fit in %d rows: nothing to hint", n, rows)
	}
	v := screen(m)
	if want := moreHint(0, n-rows); !strings.Contains(v, want) {
		t.Fatalf("no %q:\n%s", want, v)
	}
	m = feed(t, m, keyRunes("G"))
	v = screen(m)
	if want := moreHint(n-rows, 0); !strings.Contains(v, want) || strings.Contains(v, "more below") {
		t.Fatalf("at the bottom, want %q:\n%s", want, v)
	}
	if len(strings.Split(v, "\n")) != 24 {
		t.Fatal("the hint changed the screen's height")
	}
}

func TestMoreHint(t *testing.T) {
	for _, tt := range []struct {
		above, below int
		want         string
	}{
		{0, 0, ""}, {0, 3, "↓ 3 more below"}, {2, 0, "↑ 2 above"}, {1, 4, "↓ 4 more below · ↑ 1 above"},
	} {
		if got := moreHint(tt.above, tt.below); got != tt.want {
			t.Errorf("moreHint(%d, %d) = %q, want %q", tt.above, tt.below, got, tt.want)
		}
	}
	// A list that overflows keeps a line for the hint.
	if got := listRows(9, 3, 5); got != 2 {
		t.Errorf("listRows(9, 3, 5) = %d, want 2", got)
	}
	if got := listRows(9, 3, 3); got != 3 {
		t.Errorf("listRows(9, 3, 3) = %d, want 3", got)
	}
	if got := listRows(10, 3, 5); got != 3 {
		t.Errorf("listRows(10, 3, 5) = %d, want 3", got)
	}
}
