package ui

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/ui/common"
)

// A list that overflows says how much more there is (issue #18, point 8).
func TestResultsSayMoreBelow(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Defaults.TopK = 20
	opts.Defaults.Threshold = 0
	m := sized(t, opts, 80, 24)
	m = ask(t, m, "nodes")
	n := len(m.results.Items)
	rows := m.results.PageRows()
	if n <= rows {
		t.Fatalf("%d results fit in %d rows: nothing to hint", n, rows)
	}
	v := screen(m)
	if want := common.MoreHint(0, n-rows); !strings.Contains(v, want) {
		t.Fatalf("no %q:\n%s", want, v)
	}
	m = feed(t, m, keyRunes("G"))
	v = screen(m)
	if want := common.MoreHint(n-rows, 0); !strings.Contains(v, want) || strings.Contains(v, "more below") {
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
		if got := common.MoreHint(tt.above, tt.below); got != tt.want {
			t.Errorf("moreHint(%d, %d) = %q, want %q", tt.above, tt.below, got, tt.want)
		}
	}
	// A list that overflows keeps a line for the hint.
	if got := common.ListRows(9, 3, 5); got != 2 {
		t.Errorf("listRows(9, 3, 5) = %d, want 2", got)
	}
	if got := common.ListRows(9, 3, 3); got != 3 {
		t.Errorf("listRows(9, 3, 3) = %d, want 3", got)
	}
	if got := common.ListRows(10, 3, 5); got != 3 {
		t.Errorf("listRows(10, 3, 5) = %d, want 3", got)
	}
}

func TestHintRule(t *testing.T) {
	if got := common.HintRule("", 5); got != "─────" {
		t.Errorf("plain rule %q", got)
	}
	if got := common.HintRule("↓ 2 more below", 20); got != "─ ↓ 2 more below ───" {
		t.Errorf("hint rule %q", got)
	}
}

// The turns list says how many turns are out of view.
func TestTurnsSayMoreBelow(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 120, 30)
	for i := 0; i < 12; i++ {
		m = feed(t, m, keyRunes("i"), ctrl('u'))
		m = ask(t, m, "question "+strconv.Itoa(i))
	}
	m = feed(t, m, keyRunes("t"), keyRunes("g"))
	if v := screen(m); !strings.Contains(v, "more below") {
		t.Fatalf("no hint in the turns list:\n%s", v)
	}
	m = feed(t, m, keyRunes("G"))
	if v := screen(m); strings.Contains(v, "more below") || !strings.Contains(v, "above") {
		t.Fatalf("at the bottom of the turns:\n%s", v)
	}
}

// The eval's case list says how many cases are out of view.
func TestEvalCasesSayMoreBelow(t *testing.T) {
	m, _ := evalModel(t, &fakeEval{rep: fakeReport()})
	m = feed(t, m, keyRunes("e"), keyType(tea.KeyEnter))
	m = feed(t, m, tea.WindowSizeMsg{Width: 80, Height: 22})
	rows := m.eval.ListRows()
	if rows >= len(m.eval.Cases) {
		t.Fatalf("%d rows fit %d cases", rows, len(m.eval.Cases))
	}
	if want := common.MoreHint(0, len(m.eval.Cases)-rows); !strings.Contains(screen(m), want) {
		t.Fatalf("no %q:\n%s", want, screen(m))
	}
}
