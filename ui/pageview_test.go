package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/ui/common"
	"ragscope/ui/pageview"
)

// pageFixture is a page of n chunks in which the fake corpus's first hit
// (chunk-00) is chunk 5, chunk 3 is over embed-english-v3.0's 512 tokens
// (600 words and a tail that says so) and chunk 1 carries escape
// sequences in its text and section.
func pageFixture(docPath string, n int) []retrieval.Chunk {
	out := make([]retrieval.Chunk, 0, n)
	for i := n - 1; i >= 0; i-- { // the store's order is not reading order
		c := retrieval.Chunk{ID: fmt.Sprintf("page-%03d", i), DocPath: docPath, Title: "Nodes and Topics",
			Section: fmt.Sprintf("Part %d", i), ChunkIndex: retrieval.IntPtr(i), TotalChunks: retrieval.IntPtr(n),
			Text: fmt.Sprintf("Chunk %d begins here. Some words about nodes and topics. Chunk %d ends here.", i, i)}
		switch i {
		case 5:
			c.ID = "chunk-00"
		case 3:
			c.Text = "Long chunk starts. " + strings.Repeat("word ", 600) + "TAILNEVERSEEN is the end."
		case 1:
			c.Text = "Evil \x1b]52;c;ZXZpbA==\x07 text \x1b[31mred\x1b[0m end."
			c.Section = "Sec\x1b[2Jtion"
		}
		out = append(out, c)
	}
	return out
}

// pageOptions are testOptions with a page lister over pageFixture (n
// chunks) that records the doc paths asked.
func pageOptions(n int, asked *[]string) Options {
	opts, _ := testOptions(&fakeRetriever{})
	opts.EmbedLimit = chunkaudit.Limit{Model: "embed-english-v3.0", Tokens: 512, Known: true}
	opts.PageChunks = func(_ context.Context, docPath string) ([]retrieval.Chunk, error) {
		*asked = append(*asked, docPath)
		cs := pageFixture(docPath, n)
		retrieval.SortReadingOrder(cs)
		return cs, nil
	}
	return opts
}

// TestPageViewFromResult: p on a result opens its page's chunks in
// reading order with sizes, the hit marked and under the cursor, the
// over-limit chunk marked with what the model never read, the "more"
// hint and its keys in the help line; esc closes it, back to the results
// with the detail beside them.
func TestPageViewFromResult(t *testing.T) {
	var asked []string
	m := sized(t, pageOptions(40, &asked), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	if !strings.Contains(screen(m), "p page chunks") {
		t.Errorf("the results' help line does not offer p:\n%s", screen(m))
	}
	m = feed(t, m, keyRunes("p"))
	if m.Focus() != string(focusPage) {
		t.Fatalf("focus = %q, want page", m.Focus())
	}
	if len(asked) != 1 || asked[0] != "docs/module-1-ros2/00-nodes-and-topics.md" {
		t.Fatalf("asked for %v", asked)
	}
	s := screen(m)
	for _, want := range []string{
		"Page · Nodes and Topics · docs/module-1-ros2/00-nodes",
		"40 chunks",
		"◆ hit #5 ·", "#4 · ", "#6 · ", "┌ Chunk 5 begins here.", "Chunk 5 ends here.",
		"more below", "esc close page",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page view lacks %q:\n%s", want, s)
		}
	}
	if st := m.Status(); !strings.Contains(st, "1 over embed-english-v3.0's 512 tokens, 99 tokens never embedded") {
		t.Errorf("status = %q", st)
	}
	if m.page.Chunks[m.page.Cursor].ID != "chunk-00" {
		t.Errorf("cursor on %q, want the hit", m.page.Chunks[m.page.Cursor].ID)
	}
	for i, c := range m.page.Chunks {
		if c.Index != fmt.Sprint(i) {
			t.Fatalf("chunk %d has index %s: not in reading order", i, c.Index)
		}
	}
	// Up to the over-limit chunk: marked, its unseen tail shown as such,
	// and the text below the list shows where the model stops.
	m = feed(t, m, keyRunes("k"), keyRunes("k"))
	s = screen(m)
	for _, want := range []string{"✂ over by", "never read:", "embed-english-v3.0 stops reading here (512 tokens)", "░ "} {
		if !strings.Contains(s, want) {
			t.Errorf("over-limit chunk lacks %q:\n%s", want, s)
		}
	}
	if c := m.page.Chunks[3]; c.Unseen == 0 || !strings.Contains(c.Rest, "TAILNEVERSEEN") || strings.Contains(c.Seen, "TAILNEVERSEEN") {
		t.Errorf("chunk 3: unseen %d, the tail is not in the unseen part", c.Unseen)
	}
	m = feed(t, m, keyRunes("G"))
	if s = screen(m); !strings.Contains(s, "above") || !strings.Contains(s, "#39 ·") {
		t.Errorf("G did not scroll to the last chunk:\n%s", s)
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.Focus() != string(focusResults) || m.right != focusDetail {
		t.Fatalf("esc: focus %q, right %q", m.Focus(), m.right)
	}
	if strings.Contains(screen(m), "Page · ") {
		t.Error("the page view still shows after esc")
	}
}

// TestPageViewSanitises: escape sequences in a chunk's text and section
// never reach the terminal.
func TestPageViewSanitises(t *testing.T) {
	var asked []string
	m := sized(t, pageOptions(8, &asked), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("p"))
	m = feed(t, m, keyRunes("g"), keyRunes("j"))
	raw := m.View().Content
	for _, bad := range []string{"\x1b]52", "\x1b[2J", "\x1b[31mred", "\x07"} {
		if strings.Contains(raw, bad) {
			t.Errorf("the page view draws %q", bad)
		}
	}
	if !strings.Contains(screen(m), "Evil") {
		t.Errorf("chunk 1 not shown:\n%s", screen(m))
	}
}

// TestPageViewWithoutLister: without Options.PageChunks p is not offered
// and does nothing.
func TestPageViewWithoutLister(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "How do nodes talk?")
	if strings.Contains(screen(m), "page chunks") {
		t.Error("p offered without a page lister")
	}
	m = feed(t, m, keyRunes("p"))
	if m.Focus() != string(focusResults) {
		t.Errorf("focus = %q", m.Focus())
	}
}

// TestPageViewNoResultAndErrors: p without a result says so; a listing
// error shows in the status line and the pane; a hit without a doc path
// cannot open a page.
func TestPageViewNoResultAndErrors(t *testing.T) {
	var asked []string
	opts := pageOptions(5, &asked)
	m := sized(t, opts, 120, 40)
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("p"))
	if m.Focus() == string(focusPage) || !strings.Contains(m.Status(), "select a result first") {
		t.Errorf("no result: focus %q status %q", m.Focus(), m.Status())
	}
	opts.PageChunks = func(context.Context, string) ([]retrieval.Chunk, error) {
		return nil, fmt.Errorf("scroll: %w", errors.New("server down"))
	}
	m = sized(t, opts, 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("p"))
	if !strings.Contains(m.Status(), "server down") || !strings.Contains(screen(m), "Could not list the page's chunks") {
		t.Errorf("error not shown: status %q\n%s", m.Status(), screen(m))
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	m.results.Items[0].Hit.Chunk.DocPath = ""
	m = feed(t, m, keyRunes("p"))
	if m.Focus() == string(focusPage) || !strings.Contains(m.Status(), "no doc path") {
		t.Errorf("no doc path: focus %q status %q", m.Focus(), m.Status())
	}
}

// TestPageViewDropsStaleReplies: the reply to an earlier opening does
// not replace the page opened since.
func TestPageViewDropsStaleReplies(t *testing.T) {
	p := pageview.New(common.DefaultKeyMap(), common.DefaultStyles(true, 0))
	old := p.Open(retrieval.Chunk{ID: "a", DocPath: "docs/a.md"}, chunkaudit.Limit{})
	cur := p.Open(retrieval.Chunk{ID: "b", DocPath: "docs/b.md"}, chunkaudit.Limit{})
	if p.SetPage(pageview.Msg{Seq: old, DocPath: "docs/a.md", Chunks: []retrieval.Chunk{{ID: "a"}}}) {
		t.Fatal("a stale reply was taken")
	}
	if !p.SetPage(pageview.Msg{Seq: cur, DocPath: "docs/b.md", Chunks: []retrieval.Chunk{{ID: "b"}, {ID: "c"}}}) || len(p.Chunks) != 2 {
		t.Fatalf("the current reply was not taken: %d chunks", len(p.Chunks))
	}
}

// TestPageViewInFullHelp: the ? overlay lists the page key.
func TestPageViewInFullHelp(t *testing.T) {
	var asked []string
	m := sized(t, pageOptions(5, &asked), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("?"))
	if !strings.Contains(screen(m), "page chunks") {
		t.Errorf("? lacks the page key:\n%s", screen(m))
	}
}
