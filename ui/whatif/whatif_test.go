package whatif

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/ui/common"
)

// Select takes a hit's chunk with where it stands, an expected source's
// point, and refuses the rows that have no chunk to act on.
func TestSelect(t *testing.T) {
	turn := &common.Turn{N: 1}
	hit := retrieval.Hit{Chunk: retrieval.Chunk{ID: "c1", DocPath: "docs/a.md", Text: "text"}, Rank: 3, Score: 0.5}
	tg, why := Select("why this score", turn, common.Item{Hit: hit}, true)
	if why != "" || tg.ID != "c1" || tg.Exp != nil || tg.From.Rank != 3 || *tg.From.Score != 0.5 || tg.From.Ref != "docs/a.md" || tg.Chunk.Text != "text" {
		t.Fatalf("hit: %+v, %q", tg, why)
	}
	exp := &retrieval.Expected{Ref: "docs/b.md", PointID: "p9", DocPath: "docs/b.md"}
	tg, why = Select("why this score", turn, common.Item{Hit: hit, Expect: exp, Pseudo: true}, true)
	if why != "" || tg.ID != "p9" || tg.Exp != exp || tg.From != exp || tg.Chunk.Text != "" {
		t.Fatalf("expected row: %+v, %q", tg, why)
	}
	sel := &common.Turn{N: 2, Query: retrieval.Query{Mode: retrieval.ModeSelectedText}}
	for _, c := range []struct {
		name string
		t    *common.Turn
		it   common.Item
		ok   bool
		want string
	}{
		{"nothing selected", turn, common.Item{}, false, "Ask a question and select a result first: why this score acts on the selected row."},
		{"no turn", nil, common.Item{Hit: hit}, true, "Ask a question"},
		{"selected text", sel, common.Item{Hit: hit}, true, "Selected text searches nothing: why this score explains a search."},
		{"would-be row", turn, common.Item{Hit: hit, Pseudo: true, WhatIf: &explain.WhatIf{}}, true, "That row is your edit's would-be rank"},
		{"not in the collection", turn, common.Item{Pseudo: true, Expect: &retrieval.Expected{Ref: "docs/x.md"}}, true, "The expected source is not in the collection"},
	} {
		if _, why := Select("why this score", c.t, c.it, c.ok); !strings.HasPrefix(why, c.want) {
			t.Errorf("%s: %q, want %q", c.name, why, c.want)
		}
	}
}

// run runs cmd and returns its message.
func run(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command")
	}
	return cmd()
}

// An edit whose turn is gone, or that a later edit replaced, leaves no
// temporary file behind.
func TestEditFileRemovedWhenNotRanked(t *testing.T) {
	setup := Setup{Editor: "vi", WhatIf: func(context.Context, retrieval.Query, string, *retrieval.Expected, string) (explain.WhatIf, error) {
		t.Fatal("ranked")
		return explain.WhatIf{}, nil
	}}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	m := New(context.Background(), setup, 0)
	tg := Target{ID: "c1", Chunk: retrieval.Chunk{ID: "c1", Text: "old text"}}
	ready := run(t, m.Edit(1, tg)).(ReadyMsg)
	if ready.Err != nil || ready.Path == "" {
		t.Fatalf("ready %+v", ready)
	}
	gone := func(int) *retrieval.Query { return nil }
	step, cmd, err := m.Edited(EditedMsg{N: ready.N, Seq: ready.Seq, Target: ready.Target, Path: ready.Path}, gone)
	if step != None || err != nil {
		t.Fatalf("turn gone: step %v, err %v", step, err)
	}
	run(t, cmd)
	if _, err := os.Stat(ready.Path); !os.IsNotExist(err) {
		t.Fatalf("the file of an edit whose turn is gone is left: %v", err)
	}

	first := run(t, m.Edit(1, tg)).(ReadyMsg)
	later := run(t, m.Edit(1, tg)).(ReadyMsg) // the first is stale now
	step, cmd, _ = m.Ready(first)
	if step != None {
		t.Fatalf("stale ready: step %v", step)
	}
	run(t, cmd)
	if _, err := os.Stat(first.Path); !os.IsNotExist(err) {
		t.Fatalf("a stale edit's file is left: %v", err)
	}
	step, cmd, _ = m.Edited(EditedMsg{N: later.N, Seq: later.Seq, Target: later.Target, Path: later.Path, Err: errors.New("exit status 1")}, gone)
	if step != Failed {
		t.Fatalf("failed editor: step %v", step)
	}
	run(t, cmd)
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("files left: %v", left)
	}
}

// In the text area ctrl+s ranks the edited text against its turn's
// query; an unchanged text is refused; esc leaves without ranking.
func TestAreaRanksTheEdit(t *testing.T) {
	var ranked []string
	setup := Setup{WhatIf: func(_ context.Context, q retrieval.Query, id string, _ *retrieval.Expected, text string) (explain.WhatIf, error) {
		ranked = append(ranked, q.Question+"|"+id+"|"+text)
		return explain.WhatIf{Rank: 1}, nil
	}}
	m := New(context.Background(), setup, 0)
	tg := Target{ID: "c1", Chunk: retrieval.Chunk{ID: "c1", Text: "old"}}
	q := &retrieval.Query{Question: "nodes?"}
	queryOf := func(n int) *retrieval.Query {
		if n == 1 {
			return q
		}
		return nil
	}
	open := func() {
		t.Helper()
		if step, _, err := m.Ready(run(t, m.Edit(1, tg)).(ReadyMsg)); step != Opened || err != nil || !m.Editing() {
			t.Fatalf("area: step %v err %v", step, err)
		}
	}
	open()
	if step, _ := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter}, queryOf); step != None || !m.Editing() {
		t.Fatal("a key closed the area")
	}
	if step, cmd := m.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}, queryOf); step != Ranking || m.Editing() {
		t.Fatalf("ctrl+s: step %v", step)
	} else if msg := run(t, cmd).(RankedMsg); msg.Err != nil || !m.Shows(msg, 1) || msg.Target.Chunk.Text != "old\n" {
		t.Fatalf("ranked %+v", msg)
	}
	if len(ranked) != 1 || ranked[0] != "nodes?|c1|old\n" {
		t.Fatalf("ranked %q", ranked)
	}
	open()
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}, queryOf); run(t, cmd).(RankedMsg).Err == nil {
		t.Fatal("an unchanged text was ranked")
	}
	open()
	if step, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEscape}, queryOf); step != Left || cmd != nil || m.Editing() {
		t.Fatalf("esc: step %v", step)
	}
	if len(ranked) != 1 {
		t.Fatalf("ranked %q", ranked)
	}
}
