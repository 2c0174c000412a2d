package ui

import (
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/ui/settings"
)

// Against Qdrant the settings have an "exact" row: on, the question runs
// again with exact search (Query.Exact) as a new turn. Other backends
// (exact by nature) have no such row.
func TestExactSearchRow(t *testing.T) {
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	opts.Backend.Kind = "qdrant"
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	if f.last().Exact {
		t.Fatal("the first query is exact")
	}
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowExact)
	if v := screen(m); !strings.Contains(v, "▌ exact        [ ] exact search, not the approximate index") {
		t.Fatalf("settings:\n%s", v)
	}
	m = feed(t, m, keyRunes("l"))
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if q := f.last(); !q.Exact || q.Question != "nodes" || len(m.Turns()) != 2 {
		t.Fatalf("re-run %+v, turns %q", q, m.Turns())
	}
	if v := screen(m); !strings.Contains(v, "[x] exact search") {
		t.Fatalf("after the change:\n%s", v)
	}
	// Later questions keep the setting; selected text searches nothing.
	if !m.withParams(retrieval.Query{Mode: retrieval.ModeNormal}).Exact || m.withParams(retrieval.Query{Mode: retrieval.ModeSelectedText}).Exact {
		t.Fatal("withParams does not carry exact search")
	}

	// The demo: no row, the cursor skips it.
	f = &fakeRetriever{}
	opts, _ = testOptions(f)
	m = sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowShowDropped)
	m = feed(t, m, keyRunes("j"))
	if m.settings.Row == settings.RowExact || strings.Contains(screen(m), "exact search") {
		t.Fatalf("the demo offers exact search: row %d\n%s", m.settings.Row, screen(m))
	}
}
