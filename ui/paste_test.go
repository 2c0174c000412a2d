package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteCutSaysSo: a paste longer than the Ask box's limit is cut and
// the status line says by how much and what to do; a paste that fits
// says nothing.
func TestPasteCutSaysSo(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 120, 40)
	m = feed(t, m, tea.PasteMsg{Content: "short question"})
	if strings.Contains(m.Status(), "Paste cut") || m.query.Value() != "short question" {
		t.Fatalf("status %q, value %q", m.Status(), m.query.Value())
	}
	m = feed(t, m, tea.PasteMsg{Content: strings.Repeat("word ", 1000)})
	if got := m.askChars(); got != 1000 {
		t.Fatalf("Ask holds %d characters", got)
	}
	for _, want := range []string{"Paste cut", "embedded up to 1,000 characters", "4,014 did not fit", "ctrl+t"} {
		if !strings.Contains(m.Status(), want) {
			t.Errorf("status %q lacks %q", m.Status(), want)
		}
	}
	if !strings.Contains(screen(m), "4,014 did not fit") {
		t.Errorf("the note is not on screen")
	}
}

func TestPasteCutNote(t *testing.T) {
	for _, tt := range []struct {
		before, after, pasted, limit int
		cut                          bool
	}{
		{0, 10, 10, 4000, false},
		{3990, 4000, 10, 4000, false},
		{3990, 4000, 11, 4000, true},
		{0, 4000, 5000, 4000, true},
		{0, 5000, 5000, 0, false},
	} {
		if got := pasteCutNote(tt.before, tt.after, tt.pasted, tt.limit, "ctrl+t") != ""; got != tt.cut {
			t.Errorf("%+v: cut %v", tt, got)
		}
	}
}

// The Ask box and the retrieval agree on the question limit: a question
// that fills the box runs whole, so the result never says "question cut
// to 1,000" after the box claimed more (issue 25, point 12).
func TestAskBoxLimitIsTheQuestionLimit(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 120, 40)
	m = feed(t, m, tea.PasteMsg{Content: strings.Repeat("nodes ", 666) + "abc"})
	if !strings.Contains(m.Status(), "1,000 characters") || strings.Contains(m.Status(), "4,000") {
		t.Fatalf("paste note %q", m.Status())
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	if strings.Contains(m.Status(), "question cut") || !strings.Contains(m.Status(), "results") {
		t.Fatalf("the run cut the question the box held: %q", m.Status())
	}
}
