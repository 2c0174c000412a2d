package ui

import (
	"context"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/settings"
	"ragscope/ui/turns"
)

// toRow moves the settings cursor to row with j or k, as a user does
// (rows not shown are skipped).
func toRow(t testing.TB, m Model, row int) Model {
	t.Helper()
	for range settings.RowCount {
		if m.settings.Row == row {
			return m
		}
		k := "j"
		if m.settings.Row > row {
			k = "k"
		}
		m = feed(t, m, keyRunes(k))
	}
	if m.settings.Row != row {
		t.Fatalf("the settings cursor is on row %d, not %d", m.settings.Row, row)
	}
	return m
}

// modeRetriever ranks the fake corpus in the query's search mode: "up"
// (and none) as the corpus is, "down" reversed.
type modeRetriever struct{ fakeRetriever }

func (r *modeRetriever) Retrieve(ctx context.Context, q retrieval.Query) (retrieval.Result, error) {
	res, err := r.fakeRetriever.Retrieve(ctx, q)
	if err != nil || q.SearchMode != "down" {
		return res, err
	}
	slices.Reverse(res.Hits)
	for i := range res.Hits {
		res.Hits[i].Rank = i + 1
	}
	return res, nil
}

func localSearchOptions(r *modeRetriever) Options {
	opts, _ := testOptions(&r.fakeRetriever)
	opts.Retriever = r
	opts.LocalSearch = LocalSearchSetup{Modes: []string{"up", "down"}, Mode: "up", Label: func(m string) string { return "ranks " + m + "ward" }}
	return opts
}

// With local search modes the settings have a "local search" row; a
// change asks the question again in the new mode as a new turn, and the
// header names the mode. Without modes (Qdrant) the row is hidden and the
// cursor skips it, and no query names a mode.
func TestLocalSearchRow(t *testing.T) {
	r := &modeRetriever{}
	m := sized(t, localSearchOptions(r), 120, 40)
	if h := strings.SplitN(screen(m), "\n", 2)[0]; !strings.Contains(h, "fake-embed-v1 · ranks upward") {
		t.Fatalf("header %q", h)
	}
	m = ask(t, m, "nodes")
	up := hitIDs(m.results.Res.Hits)
	if q := r.last(); q.SearchMode != "up" || len(up) < 2 {
		t.Fatalf("first query %+v, hits %v", q, up)
	}
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowLocalSearch)
	if v := screen(m); !strings.Contains(v, "▌ local search ‹ up › (1/2) ranks upward") {
		t.Fatalf("settings:\n%s", v)
	}
	m = feed(t, m, keyRunes("l"))
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	down := hitIDs(m.results.Res.Hits)
	if q := r.last(); q.SearchMode != "down" || q.Question != "nodes" || len(m.Turns()) != 2 {
		t.Fatalf("re-run %+v, turns %q", q, m.Turns())
	}
	want := slices.Clone(up)
	slices.Reverse(want)
	if !slices.Equal(down, want) {
		t.Fatalf("down ranks %v, up %v", down, up)
	}
	if v := screen(m); !strings.Contains(strings.SplitN(v, "\n", 2)[0], "· ranks downward") || !strings.Contains(v, "local search ‹ down › (2/2)") {
		t.Fatalf("after the change:\n%s", v)
	}
	// Space steps the mode too; selected text names none.
	m = feed(t, m, keyType(tea.KeySpace))
	if m.params.SearchMode != "up" {
		t.Fatalf("space: mode %q", m.params.SearchMode)
	}
	if q := m.withParams(retrieval.Query{Mode: retrieval.ModeSelectedText}); q.SearchMode != "" {
		t.Errorf("a selected-text query names mode %q", q.SearchMode)
	}

	// No modes: no row, the cursor skips it, queries name no mode.
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	m = sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowShowDropped)
	m = feed(t, m, keyRunes("j"))
	if m.settings.Row != settings.RowRerank || strings.Contains(screen(m), "local search") {
		t.Fatalf("row %d:\n%s", m.settings.Row, screen(m))
	}
	m = feed(t, m, keyRunes("k"))
	if m.settings.Row != settings.RowShowDropped {
		t.Fatalf("k from rerank: row %d", m.settings.Row)
	}
	if q := f.last(); q.SearchMode != "" {
		t.Errorf("a query names mode %q without modes", q.SearchMode)
	}
	if q := m.withParamsFrom(retrieval.Query{TopK: 3, SearchMode: "down"}); q.SearchMode != "" {
		t.Errorf("settings from elsewhere keep mode %q without modes", q.SearchMode)
	}
}

// Bringing back a turn brings back its search mode (the header, the row,
// the next re-run); the comparison of two turns names both modes; a
// selected-text turn, which names none, leaves the mode as it is; the
// setup's starting mode is used.
func TestLocalSearchModeRestored(t *testing.T) {
	r := &modeRetriever{}
	opts := localSearchOptions(r)
	opts.LocalSearch.Mode = "down"
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes") // #1 down
	if r.last().SearchMode != "down" {
		t.Fatalf("start mode not used: %+v", r.last())
	}
	p := m.params
	p.SearchMode = "up"
	m = feed(t, m, settings.ChangedMsg{Params: p})
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq}) // #2 up
	if r.last().SearchMode != "up" || len(m.Turns()) != 2 {
		t.Fatalf("re-run %+v", r.last())
	}
	m = feed(t, m, keyRunes("t"))
	if v := screen(m); !strings.Contains(v, "local search down→up") || !strings.Contains(v, "#1 [down] nodes") || !strings.Contains(v, "#2 nodes") {
		t.Fatalf("the comparison does not name both modes:\n%s", v)
	}

	m = feed(t, m, turns.ShowMsg{Index: 0})
	if m.params.SearchMode != "down" || m.settings.Params.SearchMode != "down" || !strings.Contains(strings.SplitN(screen(m), "\n", 2)[0], "ranks downward") {
		t.Fatalf("turn #1 brought back: mode %q/%q\n%s", m.params.SearchMode, m.settings.Params.SearchMode, screen(m))
	}
	p = m.params
	p.TopK = 4
	m = feed(t, m, settings.ChangedMsg{Params: p})
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if q := r.last(); q.SearchMode != "down" || q.TopK != 4 {
		t.Fatalf("the re-run of #1: %+v", q)
	}

	// A selected-text turn names no mode; bringing it back keeps "down".
	m = feed(t, m, ctrl('t'), tea.PasteMsg{Content: "DDS is the middleware."}, ctrl('r'))
	sel := len(m.turns.Turns) - 1
	if q := m.turns.Turns[sel].Query; q.Mode != retrieval.ModeSelectedText || q.SearchMode != "" {
		t.Fatalf("selected-text turn %+v", q)
	}
	m = feed(t, m, turns.ShowMsg{Index: 1}) // up
	m = feed(t, m, turns.ShowMsg{Index: sel})
	if m.params.SearchMode != "up" {
		t.Fatalf("a selected-text turn changed the mode to %q", m.params.SearchMode)
	}
}

// The eval view scores the local search mode the explorer searches in now:
// after switching it, `e` runs the set in the new mode and says which.
func TestEvalRunsInTheLocalSearchMode(t *testing.T) {
	r := &modeRetriever{}
	fe := &fakeEval{rep: fakeReport()}
	opts := localSearchOptions(r)
	opts.Eval = fe.Run
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowLocalSearch)
	m = feed(t, m, keyRunes("l"))
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	m = feed(t, m, keyType(tea.KeyEsc))
	m = feed(t, m, keyRunes("e"))
	m = feed(t, m, keyType(tea.KeyEnter))
	if len(fe.modes) != 1 || fe.modes[0] != "down" {
		t.Fatalf("eval ran in modes %q, want [down]", fe.modes)
	}
	if !strings.Contains(screen(m), "Eval · fake-set · 5 cases · searched down") {
		t.Errorf("the eval view does not name the mode:\n%s", screen(m))
	}
}

// Bringing back a selected-text turn (which reranks nothing and names no
// rerank settings) keeps the rerank settings set now; a query that leaves
// the candidates open (an eval case) gets the default number, never 0.
func TestRestoreKeepsRerankSettings(t *testing.T) {
	m := sized(t, localSearchOptions(&modeRetriever{}), 120, 40)
	m.params.Rerank = retrieval.RerankOptions{On: true, Candidates: 6, Threshold: 0.2}
	m.restoreInputs(retrieval.Query{Question: "explain", Mode: retrieval.ModeSelectedText, SelectedText: "Topics carry messages."})
	if want := (retrieval.RerankOptions{On: true, Candidates: 6, Threshold: 0.2}); m.params.Rerank != want || m.settings.Params.Rerank != want {
		t.Errorf("after a selected-text turn: rerank %+v / settings %+v, want %+v", m.params.Rerank, m.settings.Params.Rerank, want)
	}
	m.restoreInputs(retrieval.Query{Question: "nodes", Mode: retrieval.ModeNormal, TopK: 5})
	if want := (retrieval.RerankOptions{Candidates: retrieval.DefaultRerankCandidates}); m.params.Rerank != want {
		t.Errorf("after a case without rerank: %+v, want %+v", m.params.Rerank, want)
	}
}
