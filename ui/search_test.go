package ui

import (
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/ui/common"
)

// reversed matches s drawn in reverse video (a search highlight).
func reversed(s string) *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-9;]*7[0-9;]*m` + regexp.QuoteMeta(s))
}

// '/' in the results: typing finds rows (the detail follows), letters are
// text while typing, enter keeps the search for n/N, matches are marked
// and highlighted, esc clears (issue #18, point 8).
func TestSearchInResults(t *testing.T) {
	opts, copied := testOptions(&fakeRetriever{})
	opts.Defaults.Threshold = 0
	opts.Defaults.TopK = 10
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("/"))
	if !m.search.Typing() || !strings.Contains(screen(m), "/type to find in the results") {
		t.Fatalf("no search bar:\n%s", screen(m))
	}
	if h := screen(m); !strings.Contains(h, "esc clear search") || strings.Contains(h, "y copy URL") {
		t.Fatalf("help line while typing a search:\n%s", h)
	}
	m = feed(t, m, typeText("services")...)
	if got := m.results.Items[m.results.Cursor].Hit.Chunk.Title; got != "Services" {
		t.Fatalf("typing found %q", got)
	}
	if m.detail.Item.Hit.Chunk.Title != "Services" {
		t.Fatal("the detail does not show the match")
	}
	if !strings.Contains(m.Status(), "result 1 of") {
		t.Fatalf("status %q", m.Status())
	}
	m = feed(t, m, typeText("qy")...)
	if m.search.Query() != "servicesqy" || len(*copied) != 0 || !strings.Contains(m.Status(), "No result matches") {
		t.Fatalf("letters were commands while typing: query %q, copied %q, status %q", m.search.Query(), *copied, m.Status())
	}
	m = feed(t, m, keyType(tea.KeyBackspace), keyType(tea.KeyBackspace))
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.search.Typing() || m.search.Query() != "services" || m.Focus() != "results" {
		t.Fatalf("enter: typing %v query %q focus %s", m.search.Typing(), m.search.Query(), m.Focus())
	}
	var hits []int
	for i := range m.results.Items {
		if m.results.Items[i].Matches("services") {
			hits = append(hits, i)
		}
	}
	if len(hits) < 2 {
		t.Fatalf("the fake corpus has %d Services rows; want 2 or more", len(hits))
	}
	first := m.results.Cursor
	m = feed(t, m, keyRunes("n"))
	if m.results.Cursor == first || !m.results.Items[m.results.Cursor].Matches("services") {
		t.Fatalf("n: cursor %d (first match %d)", m.results.Cursor, first)
	}
	m = feed(t, m, keyRunes("N"))
	if m.results.Cursor != first {
		t.Fatalf("N: cursor %d, want %d", m.results.Cursor, first)
	}
	m = feed(t, m, keyRunes("k"))
	raw := m.View().Content
	if !reversed("Services").MatchString(raw) || !strings.Contains(screen(m), "/ ") {
		t.Fatalf("matches not highlighted or marked:\n%s", screen(m))
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.search.Active() || m.results.Search != "" || reversed("Services").MatchString(m.View().Content) {
		t.Fatal("esc did not clear the search")
	}
	if m.Focus() != "results" {
		t.Fatalf("esc clearing the search also moved the focus to %s", m.Focus())
	}
}

// '/' in the detail finds lines of the chunk text and scrolls to them.
func TestSearchInDetail(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 100, 20)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.Focus() != "detail" {
		t.Fatalf("focus %s", m.Focus())
	}
	m = feed(t, m, keyRunes("/"))
	if m.searchTarget() != focusDetail {
		t.Fatalf("target %s", m.searchTarget())
	}
	m = feed(t, m, append(typeText("Unit of"), keyType(tea.KeyEnter))...)
	lines := m.detail.MatchLines()
	if len(lines) == 0 {
		t.Fatal("no line matches")
	}
	if l := lines[0]; l < m.detail.Viewport.YOffset() || l >= m.detail.Viewport.YOffset()+m.detail.Viewport.Height() {
		t.Fatalf("match line %d not in view (offset %d, height %d)", l, m.detail.Viewport.YOffset(), m.detail.Viewport.Height())
	}
	if !reversed("unit of").MatchString(m.View().Content) {
		t.Fatalf("match not highlighted:\n%s", screen(m))
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.detail.Search != "" || m.Focus() != "detail" {
		t.Fatalf("esc: search %q focus %s", m.detail.Search, m.Focus())
	}
}

func TestPickMatch(t *testing.T) {
	hits := []int{1, 4, 7}
	for _, tt := range []struct {
		cur, dir int
		from     bool
		want     int
	}{
		{0, 1, false, 0}, {1, 1, false, 1}, {1, 1, true, 0}, {7, 1, false, 0},
		{4, -1, false, 0}, {1, -1, false, 2}, {4, -1, true, 1},
	} {
		if got := common.PickMatch(hits, tt.cur, tt.dir, tt.from); got != tt.want {
			t.Errorf("pickMatch(%d, %d, %v) = %d, want %d", tt.cur, tt.dir, tt.from, got, tt.want)
		}
	}
}

// A paste while typing a search goes to the search, sanitised.
func TestPasteIntoSearch(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("/"), tea.PasteMsg{Content: "Act\x1b[31mions"})
	if m.query.Value() != "nodes" || strings.Contains(m.search.Query(), "\x1b") || !strings.Contains(m.search.Query(), "act") {
		t.Fatalf("paste: Ask %q, search %q", m.query.Value(), m.search.Query())
	}
}

// enter after typing a search keeps the match the cursor is on; n moves
// on (issue 25, point 8: enter skipped to "result 2 of 3").
func TestSearchEnterKeepsCurrentMatch(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Defaults.Threshold = 0
	opts.Defaults.TopK = 10
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("j"), keyRunes("/"))
	m = feed(t, m, typeText("services")...)
	at, status := m.results.Cursor, m.Status()
	if !m.results.Items[at].Matches("services") || !strings.Contains(status, "result 1 of") {
		t.Fatalf("typing: cursor %d, status %q", at, status)
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.results.Cursor != at || !strings.Contains(m.Status(), "result 1 of") {
		t.Fatalf("enter moved from match %d to %d: %q", at, m.results.Cursor, m.Status())
	}
	m = feed(t, m, keyRunes("n"))
	if m.results.Cursor == at || !strings.Contains(m.Status(), "result 2 of") {
		t.Fatalf("n: cursor %d, status %q", m.results.Cursor, m.Status())
	}
}

// The same in the detail: enter keeps the line found.
func TestSearchEnterKeepsDetailMatch(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 100, 20)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyType(tea.KeyEnter), keyRunes("/"))
	m = feed(t, m, typeText("node")...)
	at := m.detail.MatchAt
	if !strings.Contains(m.Status(), "line 1 of") {
		t.Fatalf("typing: %q", m.Status())
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.detail.MatchAt != at || !strings.Contains(m.Status(), "line 1 of") {
		t.Fatalf("enter moved from line %d to %d: %q", at, m.detail.MatchAt, m.Status())
	}
}
