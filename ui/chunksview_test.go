package ui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
)

// auditFixture is the audit report of 60 pages of two chunks each, one
// over embed-english-v3.0's 512 tokens, one duplicate pair, and a page
// title carrying escape sequences.
func auditFixture() *chunkaudit.Report {
	aud := chunkaudit.New(chunkaudit.Options{Limit: chunkaudit.Limit{Model: "embed-english-v3.0", Tokens: 512, Known: true}})
	for p := range 60 {
		for i := range 2 {
			c := retrieval.Chunk{ID: fmt.Sprintf("p%02d-%d", p, i), DocPath: fmt.Sprintf("docs/page-%02d.md", p),
				Title: fmt.Sprintf("Page %02d", p), ChunkIndex: retrieval.IntPtr(i),
				Text: fmt.Sprintf("Page %d chunk %d says something about nodes, topics and services in a few words.", p, i)}
			switch {
			case p == 7 && i == 1:
				c.Text = "Long chunk. " + strings.Repeat("word ", 700)
			case p == 9 && i == 0:
				c.Text = "Page 8 chunk 0 says something about nodes, topics and services in a few words."
			case p == 11:
				c.DocPath = "docs/evil\x1b]52;c;ZXZpbA==\x07.md"
			}
			aud.Add(&c)
		}
	}
	return aud.Report()
}

// TestChunksView: C opens the chunk audit, summary first with the CLI's
// over-limit sentence, then the percentiles, the histogram and the lists;
// it scrolls, esc closes it, and the report is kept: C again shows it
// without a second audit.
func TestChunksView(t *testing.T) {
	rep := auditFixture()
	opts, _ := testOptions(&fakeRetriever{})
	calls := 0
	opts.Audit = func(ctx context.Context, progress func(int, int)) (*chunkaudit.Report, error) {
		calls++
		progress(120, 120)
		return rep, ctx.Err()
	}
	m := sized(t, opts, 200, 40)
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.Focus() != string(focusResults) {
		t.Fatalf("focus = %q", m.Focus())
	}
	m = feed(t, m, keyRunes("?"))
	if !regexp.MustCompile(`\bC\s+chunk audit`).MatchString(screen(m)) {
		t.Errorf("the keys overlay does not list C:\n%s", screen(m))
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	m = feed(t, m, keyRunes("C"))
	if m.Focus() != string(focusChunks) || calls != 1 {
		t.Fatalf("focus = %q, %d audits", m.Focus(), calls)
	}
	s := screen(m)
	over := rep.OverLimitSentence()
	if !strings.HasPrefix(over, "1 chunk (") || !strings.Contains(over, "exceeds embed-english-v3.0's 512 tokens") {
		t.Fatalf("fixture's over-limit sentence = %q", over)
	}
	for _, want := range []string{"Chunks · audit of 120 chunks", "Summary:", over, "Size", "p50", "p90", "Tokens per chunk:"} {
		if !strings.Contains(s, want) {
			t.Errorf("chunks view lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "Summary:") > strings.Index(s, "Tokens per chunk:") {
		t.Errorf("the summary is not first:\n%s", s)
	}
	if !strings.Contains(m.Status(), over) {
		t.Errorf("status = %q", m.Status())
	}
	for _, want := range []string{"Over the model's input (1):", "unseen (", "Duplicates (identical text) (1):", "Pages (60):"} {
		if !strings.Contains(m.chunks.Text, want) {
			t.Errorf("report lacks %q:\n%s", want, m.chunks.Text)
		}
	}
	if strings.ContainsRune(m.chunks.Text, 0x1b) || strings.ContainsRune(s, 0x07) {
		t.Errorf("escape sequences reach the view")
	}
	m = feed(t, m, keyRunes("G"))
	s = screen(m)
	if m.chunks.Vp.YOffset() == 0 || !strings.Contains(s, "docs/page-59.md") || strings.Contains(s, "Summary:") {
		t.Errorf("G did not scroll to the end (offset %d):\n%s", m.chunks.Vp.YOffset(), s)
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	if m.Focus() != string(focusResults) || strings.Contains(screen(m), "Chunks · audit") {
		t.Fatalf("esc: focus %q\n%s", m.Focus(), screen(m))
	}
	m = feed(t, m, keyRunes("C"))
	if calls != 1 || !strings.Contains(screen(m), "Chunks · audit of 120 chunks") {
		t.Errorf("reopening audited again (%d audits) or lost the report:\n%s", calls, screen(m))
	}
}

// TestChunksViewProgressCancelError: while the audit runs the view says
// how far it is; esc cancels it (its context ends) and closes the view;
// C starts it again, and an error shows in the view and the status line.
func TestChunksViewProgressCancelError(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	started := make(chan struct{}, 2)
	cancelled := make(chan struct{}, 2)
	calls := 0
	opts.Audit = func(ctx context.Context, progress func(int, int)) (*chunkaudit.Report, error) {
		calls++
		progress(3000, 50000)
		if calls == 1 {
			started <- struct{}{}
			<-ctx.Done()
			cancelled <- struct{}{}
			return nil, ctx.Err()
		}
		return nil, errors.New("scroll: collection \x1b[31mgone\x1b[0m")
	}
	m := sized(t, opts, 200, 40)
	m = feed(t, m, keyType(tea.KeyEsc))
	m = feed(t, m, keyRunes("C"))
	<-started
	if s := screen(m); !strings.Contains(s, "Auditing 50,000 chunks… 3,000 read") || !strings.Contains(s, "esc cancel audit") {
		t.Errorf("no progress:\n%s", s)
	}
	m = feed(t, m, keyType(tea.KeyEsc))
	<-cancelled
	if m.Focus() != string(focusResults) || m.chunks.Loading || !strings.Contains(m.Status(), "cancelled") {
		t.Fatalf("esc: focus %q, loading %v, status %q", m.Focus(), m.chunks.Loading, m.Status())
	}
	m = feed(t, m, keyRunes("C"))
	s := screen(m)
	if calls != 2 || !strings.Contains(s, "Could not audit the chunks:") || !strings.Contains(m.Status(), "Chunk audit:") {
		t.Fatalf("error: %d audits, status %q\n%s", calls, m.Status(), s)
	}
	if strings.ContainsRune(s, 0x1b) {
		t.Errorf("escape sequence in the error")
	}
}

// TestChunksViewOff: without an audit C is not offered and says why.
func TestChunksViewOff(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 200, 40)
	m = feed(t, m, keyType(tea.KeyEsc))
	m = feed(t, m, keyRunes("C"))
	if m.Focus() == string(focusChunks) {
		t.Fatalf("C opened the view without an audit")
	}
}
