package ui

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/explain"
	"ragscope/ui/whatif"
)

// fakeExplain explains any chunk with one word and ranks any edit #1.
type fakeExplain struct {
	mu     sync.Mutex
	asked  []string
	edited []string
}

func (f *fakeExplain) setup(editor string) ExplainSetup {
	return ExplainSetup{
		Editor: editor,
		Explain: func(_ context.Context, q retrieval.Query, id string, exp *retrieval.Expected, top string) (*explain.Explanation, error) {
			f.mu.Lock()
			f.asked = append(f.asked, id+"|"+top)
			f.mu.Unlock()
			c := 0.25
			return &explain.Explanation{ChunkID: id, Scorer: "bm25", Score: 0.5,
				Terms:   []explain.Term{{Term: "nodes", InText: true, Count: 2, Contribution: &c, IDF: &c, TF: &c, LengthNorm: &c}, {Term: "course"}},
				Missing: []explain.Missing{{Term: "course", Nearest: []explain.Near{{Word: "curriculum", Similarity: 0.71}}}}}, nil
		},
		Chunk: func(_ context.Context, id, docPath string) (retrieval.Chunk, error) {
			return retrieval.Chunk{ID: id, DocPath: docPath, Text: "the page's text"}, nil
		},
		WhatIf: func(_ context.Context, q retrieval.Query, id string, from *retrieval.Expected, text string) (explain.WhatIf, error) {
			f.mu.Lock()
			f.edited = append(f.edited, id+"|"+text)
			f.mu.Unlock()
			return explain.WhatIf{Ref: from.Ref, ChunkID: id, Rank: 1, Score: 0.9, FromRank: new(from.Rank), FromScore: from.Score}, nil
		},
	}
}

func explainModel(t *testing.T, editor string) (Model, *fakeExplain) {
	t.Helper()
	opts, _ := testOptions(&fakeRetriever{})
	fe := &fakeExplain{}
	opts.Explain = fe.setup(editor)
	m := sized(t, opts, 160, 40)
	return ask(t, m, "nodes"), fe
}

// A backend opened after the first frame brings its explanation and
// what-if setup: X and E use them.
func TestExplainAfterDeferredOpen(t *testing.T) {
	full, _ := testOptions(&fakeRetriever{})
	fe := &fakeExplain{}
	full.Explain = fe.setup("")
	release := make(chan struct{})
	m := sized(t, deferredOptions(full, nil, release), 160, 40)
	close(release)
	m = ask(t, openNow(t, m), "nodes")
	m = feed(t, m, keyRunes("j"), keyRunes("X"))
	if len(fe.asked) != 1 || !strings.Contains(screen(m), "why this score (bm25 0.500)") {
		t.Fatalf("asked %q:\n%s", fe.asked, screen(m))
	}
	m = feed(t, m, keyRunes("E"))
	m = feed(t, m, typeText(" more")...)
	m = feed(t, m, ctrl('s'))
	if len(fe.edited) != 1 || !strings.Contains(screen(m), "✎ would be #1") {
		t.Fatalf("edited %q:\n%s", fe.edited, screen(m))
	}
}

// X takes the selected row's score apart in the detail pane; a stale
// reply is dropped.
func TestExplainSelectedRow(t *testing.T) {
	m, fe := explainModel(t, "")
	m = feed(t, m, keyRunes("j"), keyRunes("X"))
	v := screen(m)
	for _, want := range []string{"why this score (bm25 0.500)", "nodes: in text ×2 · +0.250", "course: absent; nearest in the chunk: curriculum (0.71)"} {
		if !strings.Contains(v, want) {
			t.Fatalf("detail lacks %q:\n%s", want, v)
		}
	}
	it, _ := m.results.Selected()
	if len(fe.asked) != 1 || !strings.HasPrefix(fe.asked[0], it.Hit.Chunk.ID+"|") {
		t.Fatalf("asked %q for row %s", fe.asked, it.Hit.Chunk.ID)
	}
	// An older explanation's reply does not replace the newer one.
	msgs := runCmd(t, m.explainSelected())
	stale := msgs[0].(whatif.ExplainedMsg)
	stale.E = &explain.Explanation{Scorer: "stale"}
	m = feed(t, m, keyRunes("X"), stale)
	if strings.Contains(screen(m), "stale") {
		t.Fatal("a stale explanation was shown")
	}
}

// E without $EDITOR edits in a text area; ctrl+s ranks the edit and the
// list shows the would-be row at its rank, marked; esc leaves it.
func TestEditInTextAreaShowsTheWouldBeRow(t *testing.T) {
	m, fe := explainModel(t, "")
	m = feed(t, m, keyRunes("j"), keyRunes("E"))
	if !m.whatif.Editing() || !strings.Contains(screen(m), "✎ what if") {
		t.Fatalf("no text area:\n%s", screen(m))
	}
	// Letters are text in the area, not commands (q does not quit).
	m = feed(t, m, typeText(" q more")...)
	m = feed(t, m, ctrl('s'))
	if m.whatif.Editing() {
		t.Fatal("the area stays open")
	}
	if len(fe.edited) != 1 || !strings.Contains(fe.edited[0], " q more") {
		t.Fatalf("edits %q", fe.edited)
	}
	v := screen(m)
	if !strings.Contains(v, "✎ would be #1 0.900 · up from #2 · nothing is written") {
		t.Fatalf("no would-be row:\n%s", v)
	}
	if m.results.Items[0].WhatIf == nil {
		t.Fatal("the would-be row is not first")
	}
	// esc leaves an edit without ranking it.
	m = feed(t, m, keyRunes("j"), keyRunes("j"), keyRunes("E"))
	m = feed(t, m, keyType(tea.KeyEscape))
	if m.whatif.Editing() || len(fe.edited) != 1 {
		t.Fatalf("esc: area %v, edits %q", m.whatif.Editing(), fe.edited)
	}
}

// With $EDITOR the text goes to a file the editor edits; once it exits
// the saved text is ranked and the file removed.
func TestEditWithEditor(t *testing.T) {
	m, fe := explainModel(t, "vi")
	m = feed(t, m, keyRunes("j"))
	cmd := m.editSelected()
	msgs := runCmd(t, cmd)
	if len(msgs) != 1 {
		t.Fatalf("messages %v", msgs)
	}
	ready := msgs[0].(whatif.ReadyMsg)
	if ready.Err != nil || ready.Path == "" {
		t.Fatalf("ready %+v", ready)
	}
	b, err := os.ReadFile(ready.Path)
	if err != nil || string(b) != ready.Target.Chunk.Text {
		t.Fatalf("the file holds %q, want the chunk's text (%v)", b, err)
	}
	next, exec := m.Update(ready)
	m = next.(Model)
	if exec == nil {
		t.Fatal("no editor process")
	}
	// The editor saves (here: the test writes) and exits.
	if err := os.WriteFile(ready.Path, []byte("a new text about nodes"), 0o600); err != nil {
		t.Fatal(err)
	}
	m = feed(t, m, whatif.EditedMsg{N: ready.N, Seq: ready.Seq, Target: ready.Target, Path: ready.Path})
	if len(fe.edited) != 1 || !strings.HasSuffix(fe.edited[0], "|a new text about nodes") {
		t.Fatalf("edits %q", fe.edited)
	}
	if !strings.Contains(screen(m), "✎ would be #1") {
		t.Fatalf("no would-be row:\n%s", screen(m))
	}
	if _, err := os.Stat(ready.Path); !os.IsNotExist(err) {
		t.Fatalf("the temporary file is left: %v", err)
	}
}

// Without the setup the keys are off and say nothing.
func TestExplainKeysOffWithoutSetup(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 160, 40)
	m = ask(t, m, "nodes")
	if m.keys.Explain.Enabled() || m.keys.Edit.Enabled() {
		t.Fatal("X and E are on without an explainer")
	}
}
