package ui

import (
	"errors"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// After asking, the results have the keyboard: j/k and the arrows move
// the selection at once; esc or i goes back to the Ask box (issue #18,
// point 8). An empty question keeps the Ask box, and a failed retrieval
// gives it back.
func TestAskingMovesTheKeyboardToTheResults(t *testing.T) {
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	m := sized(t, opts, 120, 40)
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.Focus() != "query" {
		t.Fatalf("an empty question moved the focus to %s", m.Focus())
	}
	m = ask(t, m, "nodes")
	if m.Focus() != "results" {
		t.Fatalf("focus after asking = %s", m.Focus())
	}
	m = feed(t, m, keyRunes("j"))
	if m.results.Cursor != 1 || m.query.Value() != "nodes" {
		t.Fatalf("j: cursor %d, Ask box %q", m.results.Cursor, m.query.Value())
	}
	m = feed(t, m, keyType(tea.KeyDown), keyType(tea.KeyUp), keyType(tea.KeyDown))
	if m.results.Cursor != 2 || m.detail.Item.Hit.Chunk.ID != m.results.Items[2].Hit.Chunk.ID {
		t.Fatalf("arrows: cursor %d", m.results.Cursor)
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.Focus() != "query" {
		t.Fatalf("esc from the results = %s", m.Focus())
	}
	m = feed(t, m, keyRunes("?"))
	if m.query.Value() != "nodes?" {
		t.Fatalf("letters are not text back in the Ask box: %q", m.query.Value())
	}

	f.mu.Lock()
	f.err = errors.New("boom")
	f.mu.Unlock()
	m = feed(t, m, keyType(tea.KeyEnter))
	if m.Focus() != "query" || m.statusKind != statusErr {
		t.Fatalf("after a failed retrieval: focus %s, status %q", m.Focus(), m.status)
	}
}
