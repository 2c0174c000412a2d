package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/settings"
	"ragscope/ui/turns"
)

// Bringing back a turn restores its mode, its selection fields, its
// settings and the result row that was selected on it (issue #18, point 2).
func TestBringBackRestoresModeSelectionSettingsAndRow(t *testing.T) {
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	m := sized(t, opts, 120, 40)

	// Turn 1: normal mode, top_k 5; the third row selected.
	m = ask(t, m, "nodes")
	m = feed(t, m, m.setFocus(focusResults))
	m = feed(t, m, keyRunes("j"), keyRunes("j"))
	row1 := m.results.SelectedKey()
	if m.results.Cursor != 2 {
		t.Fatalf("cursor %d, want 2", m.results.Cursor)
	}

	// Turn 2: same question, top_k 3 (a settings change re-runs it).
	p := m.params
	p.TopK = 3
	m = feed(t, m, settings.ChangedMsg{Params: p})
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if len(m.turns.Turns) != 2 || m.results.Cursor != 0 {
		t.Fatalf("turns %d cursor %d", len(m.turns.Turns), m.results.Cursor)
	}

	// Turn 3: selected-text mode.
	m = feed(t, m, ctrl('t'), tea.PasteMsg{Content: "DDS is the middleware."})
	m = feed(t, m, m.setFocus(focusSelDoc))
	m = feed(t, m, typeText("docs/a.md")...)
	m = feed(t, m, ctrl('r'))
	if len(m.turns.Turns) != 3 || m.turns.Turns[2].Query.Mode != retrieval.ModeSelectedText {
		t.Fatalf("turn 3 not in selected-text mode: %+v", m.Turns())
	}

	m = feed(t, m, turns.ShowMsg{Index: 0})
	if m.mode != retrieval.ModeNormal || m.params.TopK != 5 || m.settings.Params.TopK != 5 {
		t.Fatalf("turn 1: mode %s top_k %d/%d", m.mode, m.params.TopK, m.settings.Params.TopK)
	}
	if m.results.SelectedKey() != row1 || m.detail.Item.Hit.Chunk.ID != m.results.Items[2].Hit.Chunk.ID {
		t.Fatalf("turn 1's selected row not restored: cursor %d", m.results.Cursor)
	}
	if m.last == nil || m.last.Question != "nodes" || m.last.TopK != 5 || m.last.Mode != retrieval.ModeNormal {
		t.Fatalf("re-run query is %+v", m.last)
	}

	m = feed(t, m, turns.ShowMsg{Index: 1})
	if m.params.TopK != 3 || m.results.Cursor != 0 {
		t.Fatalf("turn 2: top_k %d cursor %d", m.params.TopK, m.results.Cursor)
	}

	m = feed(t, m, turns.ShowMsg{Index: 2})
	text, doc, _ := m.sel.Values()
	if m.mode != retrieval.ModeSelectedText || text != "DDS is the middleware." || doc != "docs/a.md" {
		t.Fatalf("turn 3: mode %s selection %q doc %q", m.mode, text, doc)
	}
	// A settings change now re-runs the selection, not a normal question.
	p = m.params
	p.Threshold = 0.1
	m = feed(t, m, settings.ChangedMsg{Params: p})
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if q := f.last(); q.Mode != retrieval.ModeSelectedText || q.SelectedText != "DDS is the middleware." || q.Threshold != 0.1 {
		t.Fatalf("re-ran %+v", q)
	}
}

// A re-run scheduled before a turn was brought back is dropped: it would
// ask the question of the turn left behind.
func TestBringBackDropsPendingRerun(t *testing.T) {
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, m.setFocus(focusQuery), ctrl('u'))
	m = ask(t, m, "services")
	p := m.params
	p.TopK = 2
	m = feed(t, m, settings.ChangedMsg{Params: p})
	pending := m.rerunSeq
	m = feed(t, m, turns.ShowMsg{Index: 0})
	n := len(f.queries)
	m = feed(t, m, rerunMsg{Seq: pending})
	if len(f.queries) != n {
		t.Fatalf("a stale re-run asked %q", f.last().Question)
	}
	if m.query.Value() != "nodes" {
		t.Fatalf("Ask box holds %q", m.query.Value())
	}
}
